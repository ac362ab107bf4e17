/**
 * shared/dates.ts computes on whole day numbers. These tests hold it to the Date-based
 * implementation it replaced, kept here as the oracle: the same result, or the same error, for
 * every input — fast-check properties over any date of years 0000–9999, any day count, any
 * range and arbitrary strings, and every single day of years 0000–0999 and 1900–2199.
 */
import fc from 'fast-check';
import {
  addDays,
  daysInRange,
  eachDay,
  parseIsoDate,
  type DateRange,
  type IsoDate,
} from '../../../shared/dates';

// The oracle: shared/dates.ts as it was, on UTC midnights with Date.
const DAY_MS = 86_400_000;
const ISO_DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const oracle = {
  parseIsoDate: (value: string): IsoDate | undefined => {
    const match = ISO_DATE.exec(value);
    if (!match) return undefined;
    const [, y, m, d] = match.map(Number) as [number, number, number, number];
    if (y < 1) return undefined;
    const date = new Date(0);
    date.setUTCFullYear(y, m - 1, d);
    if (date.getUTCFullYear() !== y || date.getUTCMonth() !== m - 1 || date.getUTCDate() !== d) {
      return undefined;
    }
    return value as IsoDate;
  },
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
const outcome = <T>(call: () => T): { value: T } | { threw: string } => {
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

/** Any day of years 0000–9999, with years 0000–0999 and the days around 29 February often. */
const anyDate = fc.oneof(
  fc.integer({ min: FIRST_DAY, max: LAST_DAY }).map(dateOf),
  fc.integer({ min: FIRST_DAY, max: oracle.toTime('0999-12-31') / DAY_MS }).map(dateOf),
  fc
    .tuple(fc.integer({ min: 0, max: 9999 }), fc.constantFrom('02-28', '02-29', '03-01', '12-31'))
    .map(([year, day]) => `${String(year).padStart(4, '0')}-${day}`)
    .filter(isRealDate)
    .map((value) => value as IsoDate),
);

/** A day count: small, across the whole range, past its ends, fractional or not finite. */
const anyDays = fc.oneof(
  fc.integer({ min: -400, max: 400 }),
  fc.integer({ min: -4_000_000, max: 4_000_000 }),
  fc.double({ noNaN: false }),
  fc.constantFrom(0.5, -0.5, 1e15, -1e15, Number.MAX_SAFE_INTEGER, Infinity, -Infinity, NaN),
);

/** Strings shaped like a date or close to it. */
const dateLike = fc.oneof(
  fc.stringMatching(/^[0-9]{4}-[0-9]{2}-[0-9]{2}$/),
  fc.stringMatching(/^[0-9+-]{4,7}-[0-9]{1,3}-[0-9]{1,3}[ Tz]?$/),
  fc.string({ maxLength: 12 }),
  anyDate,
);

describe('shared/dates against the Date-based oracle', () => {
  it.each([
    ['0000', '0999'],
    ['1900', '2199'],
  ])(
    'lists, parses and steps through every day of years %s–%s exactly as the oracle',
    (first, last) => {
      // Prepare
      const range = { from: `${first}-01-01` as IsoDate, to: `${last}-12-31` as IsoDate };
      const expected = oracle.eachDay(range);

      // Act
      const days = eachDay(range);

      // Assess (mismatches collected: an element-wise toEqual of this many days is slow)
      const wrong = expected.filter(
        (day, i) =>
          days[i] !== day ||
          parseIsoDate(day) !== oracle.parseIsoDate(day) ||
          daysInRange({ from: range.from, to: day }) !== i + 1 ||
          addDays(day, 1) !== oracle.addDays(day, 1) ||
          addDays(day, -1) !== oracle.addDays(day, -1),
      );
      expect(wrong).toEqual([]);
      expect(days).toHaveLength(expected.length);
      expect(daysInRange(range)).toBe(expected.length);
    },
  );

  it('adds any number of days to any date as the oracle does, errors included', () => {
    fc.assert(
      fc.property(anyDate, anyDays, (date, days) => {
        expect(outcome(() => addDays(date, days))).toEqual(
          outcome(() => oracle.addDays(date, days)),
        );
      }),
      { numRuns: 5000 },
    );
  });

  it('adds days to a string that is no date as the oracle does', () => {
    fc.assert(
      fc.property(dateLike, anyDays, (value, days) => {
        const date = value as IsoDate;
        expect(outcome(() => addDays(date, days))).toEqual(
          outcome(() => oracle.addDays(date, days)),
        );
      }),
      { numRuns: 3000 },
    );
  });

  it('parses any string as the oracle does', () => {
    fc.assert(
      fc.property(dateLike, (value) => {
        expect(parseIsoDate(value)).toBe(oracle.parseIsoDate(value));
      }),
      { numRuns: 5000 },
    );
  });

  it('counts and lists the days of any range as the oracle does', () => {
    fc.assert(
      fc.property(
        fc.oneof(anyDate, dateLike),
        fc.oneof(fc.integer({ min: -40, max: 400 }).map(String), dateLike),
        (from, toOrOffset) => {
          const offset = Number(toOrOffset);
          const to = (
            Number.isInteger(offset) && !Number.isNaN(oracle.toTime(from))
              ? outcome(() => oracle.addDays(from as IsoDate, offset))
              : { value: toOrOffset }
          ) as { value?: string };
          if (to.value === undefined) return;
          const range = { from: from as IsoDate, to: to.value as IsoDate };
          if (Math.abs(oracle.daysInRange(range)) > 5000) return; // lists kept small
          expect(daysInRange(range)).toEqual(oracle.daysInRange(range));
          expect(eachDay(range)).toEqual(oracle.eachDay(range));
        },
      ),
      { numRuns: 3000 },
    );
  });
});
