/**
 * Day arithmetic for the tools around the service (npm start, the seed, the load test, the
 * sample events), the benchmarks and the tests: adding days to a date, listing the days of a
 * range, today's date in a time zone. The functions themselves only read and count dates
 * (shared/dates.ts), so none of this is bundled into them. Computed on UTC midnights with Date.
 */
import { daysInRange, type DateRange, type IsoDate } from '../shared/dates';

const DAY_MS = 86_400_000;

/** `date` moved by `days` (negative: earlier). Throws a RangeError where Date cannot follow. */
export const addDays = (date: IsoDate, days: number): IsoDate =>
  new Date(Date.parse(`${date}T00:00:00Z`) + days * DAY_MS).toISOString().slice(0, 10) as IsoDate;

/** Every day of the range in order, both ends included; none when `to` is before `from`. */
export const eachDay = (range: DateRange): IsoDate[] =>
  Array.from({ length: Math.max(0, daysInRange(range)) }, (_, i) => addDays(range.from, i));

/** One formatter per time zone (building one costs far more than formatting with it). */
const dayFormats = new Map<string, Intl.DateTimeFormat>();
const MAX_DAY_FORMATS = 64;

/** Today's date in an IANA time zone (a RangeError for an unknown one). */
export const todayIn = (timeZone: string, now: Date = new Date()): IsoDate => {
  let format = dayFormats.get(timeZone);
  if (format === undefined) {
    format = new Intl.DateTimeFormat('en-CA', {
      timeZone,
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
    });
    if (dayFormats.size >= MAX_DAY_FORMATS) dayFormats.clear();
    dayFormats.set(timeZone, format);
  }
  return format.format(now) as IsoDate;
};
