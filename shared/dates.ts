/**
 * Calendar dates as the spec writes them (YYYY-MM-DD), with no time zone attached: a date is a
 * day in the restaurant's own calendar. Arithmetic is done on UTC midnights, which has no DST.
 */

const ISO_DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const DAY_MS = 86_400_000;

export type IsoDate = string & { readonly __brand: 'IsoDate' };

/** A real calendar date in strict YYYY-MM-DD form, or undefined (`2024-02-30`, `2024-1-5`). */
export const parseIsoDate = (value: string): IsoDate | undefined => {
  const match = ISO_DATE.exec(value);
  if (!match) return undefined;
  const [, y, m, d] = match.map(Number) as [number, number, number, number];
  if (y < 1) return undefined; // year 0000 (1 BC) is no date PostgreSQL accepts in this form
  const date = new Date(0);
  date.setUTCFullYear(y, m - 1, d); // not Date.UTC, which maps years 0–99 to 1900–1999
  if (date.getUTCFullYear() !== y || date.getUTCMonth() !== m - 1 || date.getUTCDate() !== d) {
    return undefined;
  }
  return value as IsoDate;
};

const toTime = (date: IsoDate): number => Date.parse(`${date}T00:00:00Z`);

const fromTime = (time: number): IsoDate => new Date(time).toISOString().slice(0, 10) as IsoDate;

export const addDays = (date: IsoDate, days: number): IsoDate =>
  fromTime(toTime(date) + days * DAY_MS);

export interface DateRange {
  readonly from: IsoDate;
  readonly to: IsoDate;
}

/** Days in the range, both ends included: a range from a day to itself is one day long. */
export const daysInRange = ({ from, to }: DateRange): number =>
  Math.round((toTime(to) - toTime(from)) / DAY_MS) + 1;

export const eachDay = (range: DateRange): IsoDate[] =>
  Array.from({ length: Math.max(0, daysInRange(range)) }, (_, i) => addDays(range.from, i));

/** Today's date in an IANA time zone. */
export const todayIn = (timeZone: string, now: Date = new Date()): IsoDate =>
  new Intl.DateTimeFormat('en-CA', {
    timeZone,
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
  }).format(now) as IsoDate;
