/**
 * __TITLE__ on PostgreSQL: the scope's orders placed within the range's days in the
 * restaurant's time zone, grouped by state; money summed as numeric and rounded to the
 * currency's minor unit. Rows are checked before they leave.
 */
import type { DateRange } from '../dates';
import type { Sql } from '../db/client';
import { decimal, integer, text } from '../db/rows';
import type { ReportScope } from './domain';

export interface __PASCAL__Row {
  readonly state: string;
  readonly orderCount: number;
  readonly revenue: number;
}

export interface __PASCAL__Queries {
  /** One entry per order state found in the range. */
  __CAMEL__(scope: ReportScope, range: DateRange): Promise<__PASCAL__Row[]>;
}

export const __CAMEL__Queries = (sql: Sql): __PASCAL__Queries => ({
  async __CAMEL__({ restaurantId, platformId }, { from, to }) {
    const rows = await sql`
      with restaurant as (
        select r.time_zone, c.minor_units
        from restaurants r join currencies c on c.code = r.currency
        where r.id = ${restaurantId}
      )
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
    return rows.map(
      (row): __PASCAL__Row => ({
        state: text(row, 'state'),
        orderCount: integer(row, 'order_count'),
        revenue: decimal(row, 'revenue'),
      }),
    );
  },
});
