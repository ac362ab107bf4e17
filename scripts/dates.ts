/**
 * Day arithmetic for the tools around the service (npm start, the seed, the load test, the
 * sample events), the benchmarks and the tests: adding days to a date, listing the days of a
 * range, today's date in a time zone. The functions themselves only read and count dates
 * (shared/dates.ts), so none of this is bundled into them.
 *
 * On whole day numbers (shared/dates.ts's `dayNumber`), with no Date object on the way; a date
 * outside that path (not a strict YYYY-MM-DD of years 0000–9999), a fractional day count or a
 * result outside years 0000–9999 is computed on UTC midnights with Date, so every input gives
 * what the Date-based arithmetic gives (tests/unit/scripts/dates-oracle.test.ts).
 */
import { dayNumber, daysInRange, type DateRange, type IsoDate } from '../shared/dates';

const DAY_MS = 86_400_000;
/** Days from 0000-03-01 to 1970-01-01 (as in shared/dates.ts). */
const EPOCH_SHIFT = 719_468;
const DAYS_PER_ERA = 146_097; // 400 Gregorian years

/** '00' to '31', for months and days. */
const TWO_DIGITS = Array.from({ length: 32 }, (_, n) => (n < 10 ? `0${n}` : `${n}`));

const fourDigits = (n: number): string =>
  n >= 1000 ? `${n}` : n >= 100 ? `0${n}` : n >= 10 ? `00${n}` : `000${n}`;

/** The YYYY-MM-DD of a day number, or undefined outside years 0000–9999. */
const civilFromDay = (day: number): IsoDate | undefined => {
  const z = day + EPOCH_SHIFT;
  const era = Math.floor(z / DAYS_PER_ERA);
  const dayOfEra = z - era * DAYS_PER_ERA;
  const yearOfEra = Math.floor(
    (dayOfEra -
      Math.floor(dayOfEra / 1460) +
      Math.floor(dayOfEra / 36_524) -
      Math.floor(dayOfEra / 146_096)) /
      365,
  );
  const dayOfYear =
    dayOfEra - (365 * yearOfEra + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100));
  const mp = Math.floor((5 * dayOfYear + 2) / 153);
  const dayOfMonth = dayOfYear - Math.floor((153 * mp + 2) / 5) + 1;
  const month = mp < 10 ? mp + 3 : mp - 9;
  const year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0);
  if (!(year >= 0 && year <= 9999)) return undefined;
  return `${fourDigits(year)}-${TWO_DIGITS[month] ?? ''}-${TWO_DIGITS[dayOfMonth] ?? ''}` as IsoDate;
};

/** The Date path, for whatever the day numbers do not cover. */
const toTime = (date: IsoDate): number => Date.parse(`${date}T00:00:00Z`);

const fromTime = (time: number): IsoDate => new Date(time).toISOString().slice(0, 10) as IsoDate;

/** `date` moved by `days` (negative: earlier). Throws a RangeError where Date cannot follow. */
export const addDays = (date: IsoDate, days: number): IsoDate => {
  const start = dayNumber(date);
  if (!Number.isNaN(start) && Number.isSafeInteger(days)) {
    const result = civilFromDay(start + days);
    if (result !== undefined) return result;
  }
  return fromTime(toTime(date) + days * DAY_MS);
};

/** Every day of the range in order, both ends included; none when `to` is before `from`. */
export const eachDay = (range: DateRange): IsoDate[] => {
  const length = Math.max(0, daysInRange(range));
  const start = dayNumber(range.from);
  const days: IsoDate[] = [];
  for (let i = 0; i < length; i += 1) {
    const day = Number.isNaN(start) ? undefined : civilFromDay(start + i);
    days.push(day ?? addDays(range.from, i));
  }
  return days;
};

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
