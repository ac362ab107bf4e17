/**
 * scripts/dates.ts computes on whole day numbers. These tests hold it to the Date-based
 * implementation it replaced (tests/support/dates-oracle.ts): the same result, or the same
 * error, for every input — fast-check properties over any date of years 0000–9999, any day
 * count, any range and arbitrary strings, and every single day of years 0000–0999 and
 * 1900–2199.
 */
import fc from 'fast-check';
import { addDays, eachDay } from '../../../scripts/dates';
import type { IsoDate } from '../../../shared/dates';
import {
  anyDate,
  anyDays,
  anyRange,
  dateLike,
  EVERY_DAY_OF,
  oracle,
  outcome,
} from '../../support/dates-oracle';

describe('scripts/dates against the Date-based oracle', () => {
  it.each(EVERY_DAY_OF)(
    'lists and steps through every day of years %s–%s exactly as the oracle',
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
          addDays(day, 1) !== oracle.addDays(day, 1) ||
          addDays(day, -1) !== oracle.addDays(day, -1),
      );
      expect(wrong).toEqual([]);
      expect(days).toHaveLength(expected.length);
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

  it('lists the days of any range as the oracle does', () => {
    fc.assert(
      fc.property(anyRange, (range) => {
        if (range === undefined) return;
        expect(eachDay(range)).toEqual(oracle.eachDay(range));
      }),
      { numRuns: 3000 },
    );
  });
});
