/**
 * shared/dates.ts reads dates as whole day numbers. These tests hold it to the Date-based
 * implementation it replaced (tests/support/dates-oracle.ts): the same result for every input —
 * fast-check properties over arbitrary strings and any range, and every single day of years
 * 0000–0999 and 1900–2199. (The day arithmetic of scripts/dates.ts has its own:
 * tests/unit/scripts/dates-oracle.test.ts.)
 */
import fc from 'fast-check';
import { dayNumber, daysInRange, parseIsoDate, type IsoDate } from '../../../shared/dates';
import { anyRange, DAY_MS, dateLike, EVERY_DAY_OF, oracle } from '../../support/dates-oracle';

describe('shared/dates against the Date-based oracle', () => {
  it.each(EVERY_DAY_OF)(
    'parses, numbers and counts every day of years %s–%s exactly as the oracle',
    (first, last) => {
      // Prepare
      const range = { from: `${first}-01-01` as IsoDate, to: `${last}-12-31` as IsoDate };
      const expected = oracle.eachDay(range);

      // Act
      const wrong = expected.filter(
        (day, i) =>
          parseIsoDate(day) !== oracle.parseIsoDate(day) ||
          dayNumber(day) !== oracle.toTime(day) / DAY_MS ||
          daysInRange({ from: range.from, to: day }) !== i + 1,
      );

      // Assess (mismatches collected: an element-wise toEqual of this many days is slow)
      expect(wrong).toEqual([]);
      expect(daysInRange(range)).toBe(expected.length);
    },
  );

  it('parses any string as the oracle does', () => {
    fc.assert(
      fc.property(dateLike, (value) => {
        expect(parseIsoDate(value)).toBe(oracle.parseIsoDate(value));
      }),
      { numRuns: 5000 },
    );
  });

  it('numbers every string that is no strict YYYY-MM-DD date NaN, as the oracle reads it', () => {
    fc.assert(
      fc.property(dateLike, (value) => {
        const time = oracle.toTime(value);
        const strict =
          /^\d{4}-\d{2}-\d{2}$/.test(value) &&
          !Number.isNaN(time) &&
          oracle.fromTime(time) === value;
        expect(dayNumber(value)).toBe(strict ? time / DAY_MS : Number.NaN);
      }),
      { numRuns: 3000 },
    );
  });

  it('counts the days of any range as the oracle does', () => {
    fc.assert(
      fc.property(anyRange, (range) => {
        if (range === undefined) return;
        expect(daysInRange(range)).toEqual(oracle.daysInRange(range));
      }),
      { numRuns: 3000 },
    );
  });
});
