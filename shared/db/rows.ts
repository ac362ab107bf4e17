/**
 * Runtime checks of the rows a query returns: every column a report's queries hand on is read
 * through one of these, so a row of an unexpected shape fails (a 500, logged) instead of
 * reaching a client. Money and ratios arrive as decimal text (`round(…)::text`) and leave as
 * JSON numbers.
 */
import { toAmount } from '../money';

export type Row = Readonly<Record<string, unknown>>;

export const text = (row: Row, key: string): string => {
  const value = row[key];
  if (typeof value !== 'string') throw new TypeError(`row: ${key} is not text`);
  return value;
};

/** Text, or null where the query may legitimately have nothing (an outer join). */
export const textOrNull = (row: Row, key: string): string | null =>
  row[key] === null ? null : text(row, key);

export const integer = (row: Row, key: string): number => {
  const value = row[key];
  if (typeof value !== 'number' || !Number.isInteger(value)) {
    throw new TypeError(`row: ${key} is not an integer`);
  }
  return value;
};

/** A numeric the query rounded and sent as text, as a number. */
export const decimal = (row: Row, key: string): number => toAmount(text(row, key));
