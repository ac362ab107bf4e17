/**
 * __TITLE__ on PostgreSQL: the scope's orders placed within the range's days in the
 * restaurant's time zone, grouped by state — every state, so COUNTED_STATES (domain.ts) is not
 * applied; filter on it when the report shows sales. Money summed as numeric and rounded to the
 * currency's minor unit; rows are checked before they leave.
 */
import type { DateRange } from '../dates';
import type { Sql } from '../db/client';
import { text } from '../db/rows';
import type { OrderTotals, ReportScope } from './domain';
import { orderTotals, restaurantOf } from './rollups.sql';

export interface __PASCAL__Row extends OrderTotals {
  readonly state: string;
}

export interface __PASCAL__Queries {
  /** One entry per order state found in the range. */
  __CAMEL__(scope: ReportScope, range: DateRange): Promise<__PASCAL__Row[]>;
}

export const __CAMEL__Queries = (sql: Sql): __PASCAL__Queries => ({
  async __CAMEL__({ restaurantId, platformId }, { from, to }) {
    const rows = await sql`
      with ${restaurantOf(sql, restaurantId)}
      select o.state,
             count(*)::int as order_count,
             round(sum(o.total), restaurant.minor_units)::text as revenue
      from restaurant
      join orders o
        on o.restaurant_id = ${restaurantId}
       and o.platform_id = ${platformId}
       and o.placed_at >= (${from}::date::timestamp at time zone restaurant.time_zone)
       and o.placed_at < ((${to}::date + 1)::timestamp at time zone restaurant.time_zone)
      group by o.state, restaurant.minor_units
      order by o.state`;
    return rows.map((row): __PASCAL__Row => ({ state: text(row, 'state'), ...orderTotals(row) }));
  },
});
