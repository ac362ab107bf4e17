/**
 * Orders of today (issue 3, "More services"): every order of the restaurant's current calendar
 * day in its own time zone, newest first, whatever its state — an owner wants to see the
 * cancelled and rejected ones too. A report, so the rows follow spec 2.4 and export as CSV.
 */
import type { ReportDefinition } from './report';
import type { ReportScope } from './repository';

export interface TodayOrder {
  readonly id: string;
  /** Local time with the restaurant's UTC offset at that instant, e.g. 2026-11-22T12:34:00+04:00. */
  readonly placedAt: string;
  readonly state: string;
  /** Sum of the order's line quantities. */
  readonly itemCount: number;
  /** Rounded to the currency's minor unit. */
  readonly total: number;
}

/** The data port: today's orders of the scope, newest first. */
export interface OrdersTodayPort {
  ordersToday(scope: ReportScope): Promise<TodayOrder[]>;
}

/** The report takes no parameters (beyond `format`, which every report reads). */
export type OrdersTodayQuery = Readonly<Record<string, never>>;

export const ordersToday: ReportDefinition<OrdersTodayQuery, OrdersTodayPort> = {
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
  parseQuery: () => ({}),
  // The query does not know the restaurant's day (its time zone is in the database).
  fileNameParts: () => ['today'],
  async rows(port, scope) {
    const orders = await port.ordersToday(scope);
    return orders.map(({ id, placedAt, state, itemCount, total }) => ({
      data: { id, placedAt, state, itemCount, total },
    }));
  },
};
