import fc from 'fast-check';
import {
  addMonths,
  comparisonFor,
  presetRange,
  presetsFor,
  comparisonProblem,
  dayNumber,
  defaultRange,
  fromDayNumber,
  latestEnd,
  localToday,
  previousPeriod,
  rangeLength,
  rangeProblem,
  yearEarlier,
} from '../../../tools/reports-plugin/src/range';
import type { RangeRule } from '../../../tools/reports-plugin/src/reports';
import { parseDayRange, MAX_RANGE_DAYS } from '../../../shared/reports/parameters';
import { parseMonthRange, MAX_RANGE_MONTHS } from '../../../shared/reports/revenue';

const DAYS: RangeRule = { granularity: 'day', max: MAX_RANGE_DAYS };
const MONTHS: RangeRule = { granularity: 'month', max: MAX_RANGE_MONTHS };

const reader = (values: Record<string, string>) => (name: string) =>
  values[name] === undefined ? [] : [values[name]];

/** Whether the API's own validation accepts the range. */
const apiAccepts = (
  parse: (read: ReturnType<typeof reader>) => unknown,
  from: string,
  to: string,
) => {
  try {
    parse(reader({ from, to }));
    return true;
  } catch {
    return false;
  }
};

describe('range limits, counted as the API counts them (both ends included)', () => {
  it('31 days is the longest day range; 32 is refused', () => {
    expect(rangeProblem({ from: '2026-01-01', to: '2026-01-31' }, DAYS)).toBeUndefined();
    expect(rangeProblem({ from: '2026-01-01', to: '2026-02-01' }, DAYS)).toEqual({
      code: 'days',
      max: 31,
    });
    expect(rangeLength({ from: '2026-11-25', to: '2026-11-25' }, 'day')).toBe(1);
  });

  it('12 months is the longest month range; 13 is refused', () => {
    expect(rangeProblem({ from: '2026-01-01', to: '2026-12-01' }, MONTHS)).toBeUndefined();
    expect(rangeProblem({ from: '2026-01-01', to: '2027-01-01' }, MONTHS)).toEqual({
      code: 'months',
      max: 12,
    });
  });

  it('a start after the end, a missing date, a month range not on first days', () => {
    expect(rangeProblem({ from: '2026-02-01', to: '2026-01-01' }, DAYS)).toEqual({ code: 'order' });
    expect(rangeProblem({ from: '', to: '2026-01-01' }, DAYS)).toEqual({ code: 'incomplete' });
    expect(rangeProblem({ from: '2026-02-30', to: '2026-03-01' }, DAYS)).toBeDefined();
    expect(rangeProblem({ from: '2026-01-15', to: '2026-02-01' }, MONTHS)).toEqual({
      code: 'month',
    });
  });

  it('a day range passes the plugin exactly when it passes the API', () => {
    const day = fc.integer({ min: dayNumber('2023-01-01')!, max: dayNumber('2027-12-31')! });
    fc.assert(
      fc.property(day, fc.integer({ min: -3, max: 70 }), (start, length) => {
        const range = { from: fromDayNumber(start), to: fromDayNumber(start + length) };
        const api = apiAccepts(
          (read) => parseDayRange(read, { compare: false }),
          range.from,
          range.to,
        );
        expect(rangeProblem(range, DAYS) === undefined).toBe(api);
      }),
      { numRuns: 500 },
    );
  });

  it('a month range passes the plugin exactly when it passes the API', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 60 }),
        fc.integer({ min: -2, max: 26 }),
        (start, length) => {
          const from = addMonths('2023-01-01', start);
          const range = { from, to: addMonths(from, length) };
          expect(rangeProblem(range, MONTHS) === undefined).toBe(
            apiAccepts(parseMonthRange, range.from, range.to),
          );
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe('ranges the controls offer', () => {
  it('the default is the last 7 days, or the last 6 months', () => {
    expect(defaultRange('2026-11-25', DAYS)).toEqual({ from: '2026-11-19', to: '2026-11-25' });
    expect(defaultRange('2026-11-25', MONTHS)).toEqual({ from: '2026-06-01', to: '2026-11-01' });
    expect(defaultRange('2026-03-02', { granularity: 'day', max: 3 })).toEqual({
      from: '2026-02-28',
      to: '2026-03-02',
    });
  });

  it('the default comparison is the period of the same length just before', () => {
    expect(previousPeriod({ from: '2026-11-19', to: '2026-11-25' }, DAYS)).toEqual({
      from: '2026-11-12',
      to: '2026-11-18',
    });
    expect(previousPeriod({ from: '2026-01-01', to: '2026-03-01' }, MONTHS)).toEqual({
      from: '2025-10-01',
      to: '2025-12-01',
    });
  });

  it.each([
    [{ from: '2026-11-19', to: '2026-11-25' }, DAYS, { from: '2025-11-19', to: '2025-11-25' }],
    [{ from: '2024-02-29', to: '2024-03-06' }, DAYS, { from: '2023-02-28', to: '2023-03-06' }],
    [{ from: '2024-02-25', to: '2024-03-02' }, DAYS, { from: '2023-02-25', to: '2023-03-03' }],
    [{ from: '2026-01-01', to: '2026-03-01' }, MONTHS, { from: '2025-01-01', to: '2025-03-01' }],
  ])('a year earlier, %o (%o) is %o: as many days, from the same date', (range, rule, earlier) => {
    expect(yearEarlier(range, rule)).toEqual(earlier);
    expect(comparisonFor(range, 'year', rule)).toEqual(earlier);
    expect(rangeLength(earlier, rule.granularity)).toBe(rangeLength(range, rule.granularity));
    expect(comparisonFor(range, 'previous', rule)).toEqual(previousPeriod(range, rule));
  });

  it('a comparison of another length is refused, never cut', () => {
    const week = { from: '2026-11-01', to: '2026-11-07' };
    expect(comparisonProblem({ from: '2026-10-01', to: '2026-10-31' }, week, DAYS)).toEqual({
      code: 'length',
    });
    expect(comparisonProblem({ from: '2026-10-01', to: '2026-10-06' }, week, DAYS)).toEqual({
      code: 'length',
    });
    expect(comparisonProblem({ from: '2026-10-01', to: '2026-10-07' }, week, DAYS)).toBeUndefined();
    // What the range itself breaks is said first.
    expect(comparisonProblem({ from: '2026-10-07', to: '2026-10-01' }, week, DAYS)).toEqual({
      code: 'order',
    });
    expect(
      comparisonProblem(
        { from: '2025-01-01', to: '2025-02-01' },
        { from: '2026-01-01', to: '2026-03-01' },
        MONTHS,
      ),
    ).toEqual({ code: 'length' });
  });

  it('the latest end the inputs allow keeps to the limit', () => {
    expect(latestEnd('2026-01-01', DAYS)).toBe('2026-01-31');
    expect(latestEnd('2026-02-01', MONTHS)).toBe('2027-01-01');
    expect(latestEnd('2026-02-01', { granularity: 'day', max: null })).toBeUndefined();
  });

  it("today is the browser's calendar day", () => {
    expect(localToday(new Date(2026, 10, 25, 23, 59))).toBe('2026-11-25');
    expect(localToday(new Date(2026, 0, 1, 0, 0))).toBe('2026-01-01');
  });
});

describe('the presets', () => {
  const day = { granularity: 'day', max: 31 } as const;
  const month = { granularity: 'month', max: 12 } as const;

  it('end on the given today, months and years crossed', () => {
    const on = (today: string) =>
      Object.fromEntries(presetsFor(day, today).map((p) => [p, presetRange(p, today)]));
    expect(on('2026-03-01')).toEqual({
      today: { from: '2026-03-01', to: '2026-03-01' },
      yesterday: { from: '2026-02-28', to: '2026-02-28' },
      last7: { from: '2026-02-23', to: '2026-03-01' },
      last30: { from: '2026-01-31', to: '2026-03-01' },
      thisMonth: { from: '2026-03-01', to: '2026-03-01' },
      lastMonth: { from: '2026-02-01', to: '2026-02-28' },
    });
    expect(presetRange('lastMonth', '2026-01-15')).toEqual({
      from: '2025-12-01',
      to: '2025-12-31',
    });
    expect(presetsFor(month, '2026-01-15').map((p) => presetRange(p, '2026-01-15'))).toEqual([
      { from: '2025-11-01', to: '2026-01-01' },
      { from: '2025-08-01', to: '2026-01-01' },
      { from: '2025-02-01', to: '2026-01-01' },
    ]);
  });

  it('leave out what the limit refuses', () => {
    expect(presetsFor({ granularity: 'day', max: 7 }, '2026-03-15')).toEqual([
      'today',
      'yesterday',
      'last7',
    ]);
    expect(presetsFor({ granularity: 'month', max: 6 }, '2026-03-15')).toEqual([
      'last3m',
      'last6m',
    ]);
  });
});

describe('the same weekdays a year earlier', () => {
  it('are 52 weeks back, each day on its weekday; months go a year back', () => {
    const range = { from: '2026-11-23', to: '2026-11-29' };
    const compare = comparisonFor(range, 'weekday', { granularity: 'day', max: 31 });
    expect(compare).toEqual({ from: '2025-11-24', to: '2025-11-30' });
    const weekday = (date: string) => new Date(`${date}T00:00Z`).getUTCDay();
    expect([weekday(compare.from), weekday(compare.to)]).toEqual([
      weekday(range.from),
      weekday(range.to),
    ]);
    expect(
      comparisonFor({ from: '2026-01-01', to: '2026-03-01' }, 'weekday', {
        granularity: 'month',
        max: 12,
      }),
    ).toEqual({ from: '2025-01-01', to: '2025-03-01' });
  });
});
