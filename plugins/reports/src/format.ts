/**
 * Values rendered by their unit (spec 2.4) in the browser's locale: DATE a locale date,
 * DATE_MONTH a month name with its year, DATE_YEAR a year, CURRENCY the number with the
 * currency's minor units and no symbol (the symbol is in the column header only). Dates are
 * calendar dates: parsed and formatted in UTC, never through the local time zone.
 */
import type { ReportProperty } from './reports';

export interface FormatContext {
  readonly locale: string;
  /** ISO 4217 code of the restaurant currency; undefined while unknown. */
  readonly currency?: string | undefined;
}

const cache = new Map<string, Intl.DateTimeFormat | Intl.NumberFormat>();
const cached = <F extends Intl.DateTimeFormat | Intl.NumberFormat>(
  key: string,
  make: () => F,
): F => {
  let format = cache.get(key);
  if (!format) {
    format = make();
    cache.set(key, format);
  }
  return format as F;
};

const dateFormat = (
  locale: string,
  kind: 'DATE' | 'DATE_MONTH' | 'DATE_YEAR',
): Intl.DateTimeFormat =>
  cached(
    `${kind}|${locale}`,
    () =>
      new Intl.DateTimeFormat(
        locale,
        kind === 'DATE'
          ? { dateStyle: 'medium', timeZone: 'UTC' }
          : kind === 'DATE_MONTH'
            ? { month: 'long', year: 'numeric', timeZone: 'UTC' }
            : { year: 'numeric', timeZone: 'UTC' },
      ),
  );

/** The instant of a YYYY-MM-DD calendar date at midnight UTC, or undefined. */
const calendarDate = (value: string): number | undefined => {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(value);
  if (!match) return undefined;
  return Date.UTC(Number(match[1]), Number(match[2]) - 1, Number(match[3]));
};

/** The minor units (fraction digits) of a currency, as Intl knows them (ISO 4217). */
export const minorUnits = (currency: string): number =>
  cached(
    `minor|${currency}`,
    () => new Intl.NumberFormat('en', { style: 'currency', currency }),
  ).resolvedOptions().maximumFractionDigits ?? 2;

/** The currency's symbol in the locale (`€`, `AED`, `د.إ.‏`). */
export const currencySymbol = (currency: string, locale: string): string =>
  cached(
    `symbol|${locale}|${currency}`,
    () => new Intl.NumberFormat(locale, { style: 'currency', currency }),
  )
    .formatToParts(0)
    .find((part) => part.type === 'currency')?.value ?? currency;

/** The column header: the English name, with the currency symbol for a CURRENCY column. */
export const headerText = (property: ReportProperty, context: FormatContext): string =>
  property.unit === 'CURRENCY' && context.currency
    ? `${property.name} (${currencySymbol(context.currency, context.locale)})`
    : property.name;

const numberFormat = (locale: string, digits: { min: number; max: number }): Intl.NumberFormat =>
  cached(
    `number|${locale}|${digits.min}|${digits.max}`,
    () =>
      new Intl.NumberFormat(locale, {
        minimumFractionDigits: digits.min,
        maximumFractionDigits: digits.max,
      }),
  );

/** One value of a row, rendered by its property's unit and type. */
export const formatValue = (
  property: ReportProperty,
  value: string | number | undefined,
  context: FormatContext,
): string => {
  if (value === undefined) return '';
  const { locale } = context;
  switch (property.unit) {
    case 'DATE':
    case 'DATE_MONTH':
    case 'DATE_YEAR': {
      const instant = typeof value === 'string' ? calendarDate(value) : undefined;
      return instant === undefined
        ? String(value)
        : dateFormat(locale, property.unit).format(instant);
    }
    case 'CURRENCY': {
      if (typeof value !== 'number') return value;
      const digits = context.currency ? minorUnits(context.currency) : undefined;
      return numberFormat(
        locale,
        digits === undefined ? { min: 0, max: 3 } : { min: digits, max: digits },
      ).format(value);
    }
    default:
      if (typeof value !== 'number') return value;
      return numberFormat(locale, { min: 0, max: property.type === 'integer' ? 0 : 4 }).format(
        value,
      );
  }
};

/** Right-to-left scripts, by the locale's language. */
const RTL_LANGUAGES = new Set(['ar', 'fa', 'he', 'iw', 'ps', 'ur', 'yi', 'dv', 'ckb', 'sd', 'ug']);

export const direction = (locale: string): 'rtl' | 'ltr' =>
  RTL_LANGUAGES.has(locale.split('-')[0]?.toLowerCase() ?? '') ? 'rtl' : 'ltr';
