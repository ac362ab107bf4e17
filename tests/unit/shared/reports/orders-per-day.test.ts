import type { DateRange, IsoDate } from '../../../../shared/dates';
import { eachDay } from '../../../../tools/dates';
import { ordersPerDay } from '../../../../shared/reports/orders-per-day';
import type { ReportScope } from '../../../../shared/reports/domain';
import type { DayTotals, OrdersPerDayQueries } from '../../../../shared/reports/orders-per-day.sql';

const d = (value: string) => value as IsoDate;
const range = (from: string, to: string): DateRange => ({ from: d(from), to: d(to) });

interface Call {
  readonly report: 'ordersPerDay';
  readonly scope: ReportScope;
  readonly range: DateRange;
}

/**
 * The report's queries in memory: one entry per day of the range, zeros for days without orders, as
 * the PostgreSQL adapter answers. Entries carry one field more than DayTotals, which no row may
 * show.
 */
class InMemoryOrdersPerDay implements OrdersPerDayQueries {
  readonly calls: Call[] = [];

  constructor(private readonly totals: Readonly<Record<string, readonly [number, number]>>) {}

  ordersPerDay(scope: ReportScope, asked: DateRange): Promise<DayTotals[]> {
    this.calls.push({ report: 'ordersPerDay', scope, range: asked });
    return Promise.resolve(
      eachDay(asked).map((date) => {
        const [orderCount, revenue] = this.totals[date] ?? [0, 0];
        return { date, orderCount, revenue, restaurantId: scope.restaurantId };
      }),
    );
  }
}

const SCOPE: ReportScope = { restaurantId: 'R-1001', platformId: 'TB_AE' };

const TOTALS: Record<string, readonly [number, number]> = {
  '2024-01-01': [3, 45.5],
  '2024-01-02': [1, 12],
  '2024-01-04': [7, 101.25],
  '2024-01-08': [2, 30.1],
  '2024-01-09': [5, 80],
  '2024-01-10': [4, 64.75],
};

/** The report over TOTALS for `query`: its rows, and what it asked the repository for. */
const report = async (query: Parameters<typeof ordersPerDay.rows>[2]) => {
  const repository = new InMemoryOrdersPerDay(TOTALS);
  const rows = await ordersPerDay.rows(repository, SCOPE, query);
  return { rows, calls: repository.calls };
};

/** Day `date`'s totals as a row shows them: TOTALS', or zeros on a day without orders. */
const totalsOf = (date: string) => {
  const [orderCount, revenue] = TOTALS[date] ?? [0, 0];
  return { date, orderCount, revenue };
};
/** The row of `date`, with `compareDate`'s totals as its compare values when given. */
const row = (date: string, compareDate?: string) =>
  compareDate === undefined
    ? { data: totalsOf(date) }
    : { data: totalsOf(date), compare: totalsOf(compareDate) };

describe('ordersPerDay report', () => {
  it('renders one row per day with exactly date, orderCount and revenue', async () => {
    // Act / Assess
    const { rows } = await report({ range: range('2024-01-01', '2024-01-04') });
    expect(rows).toStrictEqual([
      { data: { date: '2024-01-01', orderCount: 3, revenue: 45.5 } },
      { data: { date: '2024-01-02', orderCount: 1, revenue: 12 } },
      { data: { date: '2024-01-03', orderCount: 0, revenue: 0 } },
      { data: { date: '2024-01-04', orderCount: 7, revenue: 101.25 } },
    ]);
  });

  it('reads only the range, for the scope it was given, when there is no compare range', async () => {
    // Act / Assess
    const { calls } = await report({ range: range('2024-01-01', '2024-01-04') });
    expect(calls).toEqual([
      { report: 'ordersPerDay', scope: SCOPE, range: range('2024-01-01', '2024-01-04') },
    ]);
  });

  it.each([
    [
      'gives row i the totals of day i of the compare range',
      range('2024-01-08', '2024-01-10'),
      range('2024-01-01', '2024-01-03'),
      [
        row('2024-01-08', '2024-01-01'),
        row('2024-01-09', '2024-01-02'),
        row('2024-01-10', '2024-01-03'),
      ],
    ],
    [
      'leaves the compare key out of rows past the end of a shorter compare range',
      range('2024-01-08', '2024-01-10'),
      range('2024-01-01', '2024-01-01'),
      [row('2024-01-08', '2024-01-01'), row('2024-01-09'), row('2024-01-10')],
    ],
    [
      'drops the compare days past the end of the main range',
      range('2024-01-09', '2024-01-10'),
      range('2024-01-01', '2024-01-04'),
      [row('2024-01-09', '2024-01-01'), row('2024-01-10', '2024-01-02')],
    ],
  ])('%s', async (_behaviour, main, compare, expected) => {
    // Act / Assess
    const { rows } = await report({ range: main, compare });
    expect(rows).toStrictEqual(expected);
    expect(rows.map((row) => 'compare' in row)).toEqual(expected.map((row) => 'compare' in row));
  });

  it('reads the range and the compare range for the same scope', async () => {
    // Act
    const { calls } = await report({
      range: range('2024-01-08', '2024-01-10'),
      compare: range('2024-01-01', '2024-01-03'),
    });

    // Assess
    expect(calls).toEqual([
      { report: 'ordersPerDay', scope: SCOPE, range: range('2024-01-08', '2024-01-10') },
      { report: 'ordersPerDay', scope: SCOPE, range: range('2024-01-01', '2024-01-03') },
    ]);
  });

  it('declares exactly the keys its rows and compare values carry, in the same order', async () => {
    // Act
    const { rows } = await report({
      range: range('2024-01-08', '2024-01-09'),
      compare: range('2024-01-01', '2024-01-02'),
    });

    // Assess
    const keys = ordersPerDay.properties.map((property) => property.key);
    expect(keys).toEqual(['date', 'orderCount', 'revenue']);
    for (const row of rows) {
      expect(Object.keys(row.data)).toEqual(keys);
      expect(Object.keys(row.compare ?? {})).toEqual(keys);
    }
  });

  it('declares an English name for each property and the units of date and money', () => {
    // Assess
    expect(ordersPerDay.id).toBe('orders-per-day');
    expect(ordersPerDay.properties).toEqual([
      { key: 'date', name: 'Day', type: 'string', unit: 'DATE', csvName: 'day' },
      { key: 'orderCount', name: 'Orders', type: 'integer', csvName: 'orders' },
      { key: 'revenue', name: 'Sales', type: 'number', unit: 'CURRENCY', csvName: 'sales' },
    ]);
    expect(ordersPerDay.parameters.map((parameter) => parameter.name)).toEqual([
      'from',
      'to',
      'compare[from]',
      'compare[to]',
    ]);
  });
});
