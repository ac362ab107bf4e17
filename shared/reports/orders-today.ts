/**
 * Orders of today: every order of the restaurant's current calendar day in its own time zone,
 * newest first, whatever its state — an owner wants to see the cancelled and rejected ones too.
 * A report, so the rows follow spec 2.4 and export as CSV.
 */
import { ordersTodayQueries, type OrdersTodayQueries } from './orders-today.sql';
import type { ReportDefinition } from './report';

/** The report takes no parameters (beyond `format`, which every report reads). */
export type OrdersTodayParameters = Readonly<Record<string, never>>;

export const ordersToday: ReportDefinition<OrdersTodayParameters, OrdersTodayQueries> = {
  id: 'orders-today',
  title: 'Orders today',
  description:
    "Every order of the restaurant's current day in its time zone, newest first, cancelled and rejected ones included.",
  properties: [
    { key: 'id', name: 'Order', type: 'string', csvName: 'order' },
    { key: 'placedAt', name: 'Placed at', type: 'string', csvName: 'placed_at' },
    { key: 'state', name: 'State', type: 'string', csvName: 'state' },
    { key: 'itemCount', name: 'Items', type: 'integer', csvName: 'items' },
    { key: 'total', name: 'Total', type: 'number', unit: 'CURRENCY', csvName: 'total' },
  ],
  parameters: [],
  parseParameters: () => ({}),
  queries: ordersTodayQueries,
  // The parameters do not know the restaurant's day (its time zone is in the database).
  fileNameParts: () => ['today'],
  async rows(queries, scope) {
    const orders = await queries.ordersToday(scope);
    return orders.map(({ id, placedAt, state, itemCount, total }) => ({
      data: { id, placedAt, state, itemCount, total },
    }));
  },
};
