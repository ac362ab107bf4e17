/**
 * Calendar dates as the spec writes them (YYYY-MM-DD), with no time zone attached: a date is a
 * day in the restaurant's own calendar, which has no DST. This is what the functions need:
 * reading a date parameter and counting the days of a range. The day arithmetic of the tools,
 * benchmarks and tests (adding days, listing a range, today in a time zone) is scripts/dates.ts,
 * built on `dayNumber`.
 *
 * Dates are read as whole day numbers (days since 1970-01-01 in the proleptic Gregorian
 * calendar, as JavaScript's Date counts them), with no Date object or string parsing on the
 * way: these run several times per report request. A range with an end outside that fast path
 * (a string not shaped YYYY-MM-DD with a real month and day of years 0000–9999) is counted
 * exactly as before, on UTC midnights with Date, so every input gives the same result it
 * always did.
 */

const DAY_MS = 86_400_000;
/** Days from 0000-03-01 to 1970-01-01. */
const EPOCH_SHIFT = 719_468;
const DAYS_PER_ERA = 146_097; // 400 Gregorian years
const NOT_A_DAY = Number.NaN;

export type IsoDate = string & { readonly __brand: 'IsoDate' };

const isLeapYear = (year: number): boolean =>
  year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);

/** 31 days in odd months up to July and in even months from August, but February. */
const daysInMonth = (year: number, month: number): number =>
  month === 2 ? (isLeapYear(year) ? 29 : 28) : 30 + ((month + (month >> 3)) & 1);

/** The digit at `index` of `value`, or -1 when it is not one of 0–9. */
const digitAt = (value: string, index: number): number => {
  const code = value.charCodeAt(index) - 48;
  return code >= 0 && code <= 9 ? code : -1;
};

/** Day number of a proleptic Gregorian date (month 1–12); year 0 is 1 BC. */
const dayFromCivil = (year: number, month: number, day: number): number => {
  const y = month <= 2 ? year - 1 : year;
  const era = Math.floor(y / 400);
  const yearOfEra = y - era * 400;
  const dayOfYear = Math.floor((153 * (month > 2 ? month - 3 : month + 9) + 2) / 5) + day - 1;
  const dayOfEra =
    yearOfEra * 365 + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100) + dayOfYear;
  return era * DAYS_PER_ERA + dayOfEra - EPOCH_SHIFT;
};

/**
 * The fields of a strict YYYY-MM-DD string naming a real date of years 0000–9999, packed as
 * year × 10000 + month × 100 + day, or NaN for anything else (which then takes the Date path).
 */
const civilOf = (value: string): number => {
  if (value.length !== 10 || value.charCodeAt(4) !== 45 || value.charCodeAt(7) !== 45) {
    return NOT_A_DAY;
  }
  const y0 = digitAt(value, 0);
  const y1 = digitAt(value, 1);
  const y2 = digitAt(value, 2);
  const y3 = digitAt(value, 3);
  const m0 = digitAt(value, 5);
  const m1 = digitAt(value, 6);
  const d0 = digitAt(value, 8);
  const d1 = digitAt(value, 9);
  if ((y0 | y1 | y2 | y3 | m0 | m1 | d0 | d1) < 0) return NOT_A_DAY;
  const year = y0 * 1000 + y1 * 100 + y2 * 10 + y3;
  const month = m0 * 10 + m1;
  const day = d0 * 10 + d1;
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return NOT_A_DAY;
  return year * 10_000 + month * 100 + day;
};

/**
 * The day number of a strict YYYY-MM-DD string naming a real date of years 0000–9999 (days
 * since 1970-01-01, negative before), or NaN for anything else.
 */
export const dayNumber = (value: string): number => {
  const civil = civilOf(value);
  if (Number.isNaN(civil)) return NOT_A_DAY;
  return dayFromCivil(Math.floor(civil / 10_000), Math.floor(civil / 100) % 100, civil % 100);
};

/** The Date path, for whatever the day numbers do not cover. */
const toTime = (date: IsoDate): number => Date.parse(`${date}T00:00:00Z`);

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
export const daysInRange = ({ from, to }: DateRange): number => {
  const span = dayNumber(to) - dayNumber(from);
  if (!Number.isNaN(span)) return span + 1;
  return Math.round((toTime(to) - toTime(from)) / DAY_MS) + 1;
};
