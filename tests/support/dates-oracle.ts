/**
 * The Date-based date arithmetic that scripts/dates.ts replaced, kept as the oracle
 * tests/unit/scripts/dates-oracle.test.ts holds it to, with the inputs that test draws.
 */
import fc from 'fast-check';
import type { DateRange, IsoDate } from '../../shared/dates';

// The oracle: the date helpers as they were, on UTC midnights with Date.
const DAY_MS = 86_400_000;
export const oracle = {
  toTime: (date: string): number => Date.parse(`${date}T00:00:00Z`),
  fromTime: (time: number): IsoDate => new Date(time).toISOString().slice(0, 10) as IsoDate,
  addDays: (date: IsoDate, days: number): IsoDate =>
    oracle.fromTime(oracle.toTime(date) + days * DAY_MS),
  daysInRange: ({ from, to }: DateRange): number =>
    Math.round((oracle.toTime(to) - oracle.toTime(from)) / DAY_MS) + 1,
  eachDay: (range: DateRange): IsoDate[] =>
    Array.from({ length: Math.max(0, oracle.daysInRange(range)) }, (_, i) =>
      oracle.addDays(range.from, i),
    ),
};

/** What a call gave: its value, or the class of what it threw. */
export const outcome = <T>(call: () => T): { value: T } | { threw: string } => {
  try {
    return { value: call() };
  } catch (error) {
    return { threw: (error as Error).constructor.name };
  }
};

const FIRST_DAY = oracle.toTime('0000-01-01') / DAY_MS;
const LAST_DAY = oracle.toTime('9999-12-31') / DAY_MS;
const dateOf = (day: number) => oracle.fromTime(day * DAY_MS);
const isRealDate = (value: string): boolean => {
  const time = oracle.toTime(value);
  return !Number.isNaN(time) && oracle.fromTime(time) === value;
};

/** The spans of years every single day of which the tests check. */
export const EVERY_DAY_OF: readonly (readonly [string, string])[] = [
  ['0000', '0999'],
  ['1900', '2199'],
];

/** Any day of years 0000–9999, with years 0000–0999 and the days around 29 February often. */
export const anyDate = fc.oneof(
  fc.integer({ min: FIRST_DAY, max: LAST_DAY }).map(dateOf),
  fc.integer({ min: FIRST_DAY, max: oracle.toTime('0999-12-31') / DAY_MS }).map(dateOf),
  fc
    .tuple(fc.integer({ min: 0, max: 9999 }), fc.constantFrom('02-28', '02-29', '03-01', '12-31'))
    .map(([year, day]) => `${String(year).padStart(4, '0')}-${day}`)
    .filter(isRealDate)
    .map((value) => value as IsoDate),
);

/** A day count: small, across the whole range, past its ends, fractional or not finite. */
export const anyDays = fc.oneof(
  fc.integer({ min: -400, max: 400 }),
  fc.integer({ min: -4_000_000, max: 4_000_000 }),
  fc.double({ noNaN: false }),
  fc.constantFrom(0.5, -0.5, 1e15, -1e15, Number.MAX_SAFE_INTEGER, Infinity, -Infinity, NaN),
);

/** Strings shaped like a date or close to it. */
export const dateLike = fc.oneof(
  fc.stringMatching(/^[0-9]{4}-[0-9]{2}-[0-9]{2}$/),
  fc.stringMatching(/^[0-9+-]{4,7}-[0-9]{1,3}-[0-9]{1,3}[ Tz]?$/),
  fc.string({ maxLength: 12 }),
  anyDate,
);

/**
 * A range: any date or date-like string as `from`, and as `to` a date-like string or `from`
 * moved by -40 to 400 days (by the oracle); undefined where the oracle cannot move `from`.
 * Ranges longer than 5000 days are left out (the lists are compared whole).
 */
export const anyRange = fc
  .tuple(
    fc.oneof(anyDate, dateLike),
    fc.oneof(fc.integer({ min: -40, max: 400 }).map(String), dateLike),
  )
  .map(([from, toOrOffset]): DateRange | undefined => {
    const offset = Number(toOrOffset);
    const to = (
      Number.isInteger(offset) && !Number.isNaN(oracle.toTime(from))
        ? outcome(() => oracle.addDays(from as IsoDate, offset))
        : { value: toOrOffset }
    ) as { value?: string };
    if (to.value === undefined) return undefined;
    const range = { from: from as IsoDate, to: to.value as IsoDate };
    return Math.abs(oracle.daysInRange(range)) > 5000 ? undefined : range;
  });
