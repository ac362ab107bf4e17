import type { DateRange, IsoDate } from '../../../../shared/dates';
import { dishes } from '../../../../shared/reports/dishes';
import type { DishesQueries, DishTotals } from '../../../../shared/reports/dishes.sql';
import type { ReportScope } from '../../../../shared/reports/domain';

const d = (value: string) => value as IsoDate;
const range = (from: string, to: string): DateRange => ({ from: d(from), to: d(to) });

interface Call {
  readonly report: 'dishes';
  readonly scope: ReportScope;
  readonly range: DateRange;
}

/**
 * The report's queries in memory: answers the dishes it was given, in that order (the adapter's
 * order). Entries carry one field more than DishTotals, which no row may show.
 */
class InMemoryDishes implements DishesQueries {
  readonly calls: Call[] = [];

  constructor(private readonly list: readonly DishTotals[]) {}

  dishes(scope: ReportScope, asked: DateRange): Promise<DishTotals[]> {
    this.calls.push({ report: 'dishes', scope, range: asked });
    return Promise.resolve(this.list.map((dish) => ({ ...dish, platformId: scope.platformId })));
  }
}

const JANUARY = range('2024-01-01', '2024-01-31');
const SCOPE: ReportScope = { restaurantId: 'R-2002', platformId: 'TB_KW' };

/** Deliberately not sorted by name or by order count: the repository's order must be kept. */
const LIST: readonly DishTotals[] = [
  { name: 'Mixed Grill', orderCount: 4, revenue: 22.5 },
  { name: 'Falafel Wrap', orderCount: 9, revenue: 13.05 },
  { name: 'Ayran', orderCount: 9, revenue: 0.9 },
];

/** The report over `list` for `query`: its rows, and what it asked the repository for. */
const report = async (query: Parameters<typeof dishes.rows>[2], list = LIST) => {
  const repository = new InMemoryDishes(list);
  const rows = await dishes.rows(repository, SCOPE, query);
  return { rows, calls: repository.calls };
};

describe('dishes report', () => {
  it('maps name, orderCount and revenue of each dish in repository order', async () => {
    // Act / Assess
    const { rows } = await report({ range: JANUARY });
    expect(rows).toStrictEqual([
      { data: { name: 'Mixed Grill', orderCount: 4, revenue: 22.5 } },
      { data: { name: 'Falafel Wrap', orderCount: 9, revenue: 13.05 } },
      { data: { name: 'Ayran', orderCount: 9, revenue: 0.9 } },
    ]);
  });

  it('asks the repository for the dishes of the range, for the scope it was given', async () => {
    // Act / Assess
    const { calls } = await report({ range: JANUARY });
    expect(calls).toEqual([{ report: 'dishes', scope: SCOPE, range: JANUARY }]);
  });

  it('reads no compare range and renders no compare values, even when one is passed', async () => {
    // Act
    const { rows, calls } = await report({
      range: range('2024-01-08', '2024-01-14'),
      compare: range('2024-01-01', '2024-01-07'),
    });

    // Assess
    expect(calls).toEqual([
      { report: 'dishes', scope: SCOPE, range: range('2024-01-08', '2024-01-14') },
    ]);
    expect(rows.some((row) => 'compare' in row)).toBe(false);
  });

  it('renders no rows for a range without dishes', async () => {
    // Act / Assess
    const { rows } = await report({ range: range('2024-01-01', '2024-01-01') }, []);
    expect(rows).toEqual([]);
  });

  it('declares exactly the keys its rows carry, in the same order', async () => {
    // Act / Assess
    const { rows } = await report({ range: JANUARY });
    const keys = dishes.properties.map((property) => property.key);
    expect(keys).toEqual(['name', 'orderCount', 'revenue']);
    for (const row of rows) expect(Object.keys(row.data)).toEqual(keys);
  });

  it('declares an English name for each property, money in the restaurant currency', () => {
    // Assess
    expect(dishes.id).toBe('dishes');
    expect(dishes.properties).toEqual([
      { key: 'name', name: 'Dish', type: 'string', csvName: 'dish' },
      { key: 'orderCount', name: 'Orders', type: 'integer', csvName: 'orders' },
      { key: 'revenue', name: 'Sales', type: 'number', unit: 'CURRENCY', csvName: 'sales' },
    ]);
    expect(dishes.parameters.map((parameter) => parameter.name)).toEqual(['from', 'to']);
  });
});
