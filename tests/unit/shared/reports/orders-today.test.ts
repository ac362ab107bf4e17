import { toCsv } from '../../../../shared/reports/csv';
import { ordersToday } from '../../../../shared/reports/orders-today';
import type { OrdersTodayQueries, TodayOrder } from '../../../../shared/reports/orders-today.sql';
import type { ReportScope } from '../../../../shared/reports/domain';
import { readerOf } from '../../../support/parameters';

/**
 * The report's queries in memory: answers the orders it was given, in that order (the adapter's,
 * newest first). Entries carry one field more than TodayOrder, which no row may show.
 */
class InMemoryOrdersToday implements OrdersTodayQueries {
  readonly calls: ReportScope[] = [];

  constructor(private readonly orders: readonly TodayOrder[]) {}

  ordersToday(scope: ReportScope): Promise<TodayOrder[]> {
    this.calls.push(scope);
    return Promise.resolve(this.orders.map((order) => ({ ...order, restaurantId: 'leak' })));
  }
}

const SCOPE: ReportScope = { restaurantId: 'R-1001', platformId: 'TB_AE' };

/** An order placed on 2026-11-22 in Dubai, at `time`. */
const order = (
  id: string,
  time: string,
  state: string,
  itemCount: number,
  total: number,
): TodayOrder => ({ id, placedAt: `2026-11-22T${time}:00+04:00`, state, itemCount, total });
const ORDERS: readonly TodayOrder[] = [
  order('812', '21:05', 'DELIVERED', 3, 55.5),
  order('799', '12:34', 'CANCELLED', 1, 12),
  order('801', '10:02', 'REJECTED', 6, 0),
];

describe('orders-today report', () => {
  it('renders each order as id, placedAt, state, itemCount and total, in the order of the port', async () => {
    // Act / Assess
    const rows = await ordersToday.rows(new InMemoryOrdersToday(ORDERS), SCOPE, {});
    const row = (
      id: string,
      placedAt: string,
      state: string,
      itemCount: number,
      total: number,
    ) => ({
      data: { id, placedAt, state, itemCount, total },
    });
    expect(rows).toStrictEqual([
      row('812', '2026-11-22T21:05:00+04:00', 'DELIVERED', 3, 55.5),
      row('799', '2026-11-22T12:34:00+04:00', 'CANCELLED', 1, 12),
      row('801', '2026-11-22T10:02:00+04:00', 'REJECTED', 6, 0),
    ]);
  });

  it('reads the orders of the scope it was given', async () => {
    // Prepare
    const port = new InMemoryOrdersToday(ORDERS);

    // Act / Assess
    await ordersToday.rows(port, SCOPE, {});
    expect(port.calls).toEqual([SCOPE]);
  });

  it('answers no rows on a day without orders', async () => {
    // Act / Assess
    const rows = await ordersToday.rows(new InMemoryOrdersToday([]), SCOPE, {});
    expect(rows).toEqual([]);
  });

  it.each([
    ['no parameters', {}],
    ['format', { format: ['csv'] }],
    ['unknown and repeated parameters', { from: ['2026-01-01'], x: ['1', '2'] }],
  ])('accepts a query with %s, as it takes none', (_case, query) => {
    // Act / Assess
    const parsed = ordersToday.parseParameters(readerOf(query));
    expect(parsed).toEqual({});
  });

  it('declares an English name for each property and the total as CURRENCY, and no parameters', () => {
    // Assess
    expect(ordersToday.id).toBe('orders-today');
    expect(ordersToday.properties).toEqual([
      { key: 'id', name: 'Order', type: 'string', csvName: 'order' },
      { key: 'placedAt', name: 'Placed at', type: 'string', csvName: 'placed_at' },
      { key: 'state', name: 'State', type: 'string', csvName: 'state' },
      { key: 'itemCount', name: 'Items', type: 'integer', csvName: 'items' },
      { key: 'total', name: 'Total', type: 'number', unit: 'CURRENCY', csvName: 'total' },
    ]);
    expect(ordersToday.parameters).toEqual([]);
  });

  it('declares exactly the keys its rows carry, in the same order', async () => {
    // Act / Assess
    const rows = await ordersToday.rows(new InMemoryOrdersToday(ORDERS), SCOPE, {});
    const keys = ordersToday.properties.map((property) => property.key);
    for (const row of rows) expect(Object.keys(row.data)).toEqual(keys);
  });

  it('exports CSV with the order, placed_at, state, items and total columns', async () => {
    // Prepare
    const rows = await ordersToday.rows(new InMemoryOrdersToday(ORDERS.slice(1, 2)), SCOPE, {});

    // Act / Assess
    const csv = toCsv(ordersToday.properties, rows);
    expect(csv).toBe(
      'order,placed_at,state,items,total\r\n"799","2026-11-22T12:34:00+04:00","CANCELLED","1","12"\r\n',
    );
  });

  it('names its CSV file today, since the query does not know the local date', () => {
    // Assess
    expect(ordersToday.fileNameParts({})).toEqual(['today']);
  });
});
