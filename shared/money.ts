/**
 * Money in the restaurant's currency. Amounts are summed exactly in SQL (numeric) and rounded
 * there to the currency's minor unit (table `currencies`, ISO 4217); they arrive here as
 * decimal strings and leave as JSON numbers.
 */
export const toAmount = (decimal: string): number => {
  const amount = Number(decimal);
  if (!/^-?\d+(?:\.\d+)?$/.test(decimal) || !Number.isFinite(amount)) {
    throw new TypeError('amount is not a finite decimal');
  }
  return amount;
};
