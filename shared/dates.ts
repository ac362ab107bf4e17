/**
 * Calendar dates as the spec writes them (YYYY-MM-DD), with no time zone attached: a date is a
 * day in the restaurant's own calendar. This is what the functions need: reading a date
 * parameter and counting the days of a range. The tools' day arithmetic (adding days, listing a
 * range, today in a time zone) is tools/dates.ts.
 *
 * A date is read as its UTC midnight with Date: UTC has no DST, so every day is exactly
 * DAY_MS long and a count of days is a plain division.
 */

const DAY_MS = 86_400_000;
const ISO_DATE = /^\d{4}-\d{2}-\d{2}$/;

export type IsoDate = string & { readonly __brand: 'IsoDate' };

/** Milliseconds from 1970-01-01 to the UTC midnight that starts `date`; NaN if Date cannot read it. */
const toTime = (date: string): number => Date.parse(`${date}T00:00:00Z`);

/**
 * The day number of a strict YYYY-MM-DD string naming a real date of years 0000–9999 (days
 * since 1970-01-01, negative before), or NaN for anything else. Date rolls `2024-02-30` over
 * to March or refuses it; either way it does not read back as written, so it is no date.
 */
export const dayNumber = (value: string): number => {
  if (!ISO_DATE.test(value)) return Number.NaN;
  const time = toTime(value);
  if (Number.isNaN(time) || !new Date(time).toISOString().startsWith(value)) return Number.NaN;
  return time / DAY_MS;
};

/** A real calendar date in strict YYYY-MM-DD form, or undefined (`2024-02-30`, `2024-1-5`). */
export const parseIsoDate = (value: string): IsoDate | undefined => {
  // Year 0000 (1 BC) is no date PostgreSQL accepts in this form.
  if (Number.isNaN(dayNumber(value)) || value.startsWith('0000')) return undefined;
  return value as IsoDate;
};

export interface DateRange {
  readonly from: IsoDate;
  readonly to: IsoDate;
}

/** Days in the range, both ends included: a range from a day to itself is one day long. */
export const daysInRange = ({ from, to }: DateRange): number =>
  Math.round((toTime(to) - toTime(from)) / DAY_MS) + 1;
