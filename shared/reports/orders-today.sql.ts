/**
 * Today's orders on PostgreSQL. "Today" is the restaurant's current calendar day in its own
 * time zone, taken from the database clock (now()); the day's bounds are local midnights, so a
 * day of a DST change is 23 or 25 hours long. Each order's local time carries the UTC offset
 * in force at that instant. Item counts are summed and totals rounded (numeric, half away from
 * zero, to the currency's minor unit) in SQL.
 */
import type { Sql } from '../db/client';
import { decimal, integer, text } from '../db/rows';
import type { ReportScope } from './domain';

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

export interface OrdersTodayQueries {
  /** Today's orders of the scope, newest first. */
  ordersToday(scope: ReportScope): Promise<TodayOrder[]>;
}

export const ordersTodayQueries = (sql: Sql): OrdersTodayQueries => ({
  async ordersToday({ restaurantId, platformId }) {
    const rows = await sql`
      with restaurant as (
        select r.time_zone, c.minor_units, (now() at time zone r.time_zone)::date as today
        from restaurants r join currencies c on c.code = r.currency
        where r.id = ${restaurantId}
      ),
      today_orders as (
        select o.id, o.placed_at, o.state, round(o.total, restaurant.minor_units) as total,
               o.placed_at at time zone restaurant.time_zone as local_time,
               (extract(epoch from (o.placed_at at time zone restaurant.time_zone)
                                 - (o.placed_at at time zone 'UTC')) / 60)::int as offset_minutes
        from restaurant
        join orders o
          on o.restaurant_id = ${restaurantId}
         and o.platform_id = ${platformId}
         and o.placed_at >= (restaurant.today::timestamp at time zone restaurant.time_zone)
         and o.placed_at < ((restaurant.today + 1)::timestamp at time zone restaurant.time_zone)
      )
      select t.id::text as id,
             to_char(t.local_time, 'YYYY-MM-DD"T"HH24:MI:SS')
               || case when t.offset_minutes < 0 then '-' else '+' end
               || to_char(abs(t.offset_minutes) / 60, 'FM00') || ':'
               || to_char(abs(t.offset_minutes) % 60, 'FM00') as placed_at,
             t.state,
             coalesce(items.count, 0)::int as item_count,
             t.total::text as total
      from today_orders t
      left join lateral (
        select sum(l.quantity) as count from order_lines l where l.order_id = t.id
      ) items on true
      order by t.placed_at desc, t.id desc`;
    return rows.map((row): TodayOrder => ({
      id: text(row, 'id'),
      placedAt: text(row, 'placed_at'),
      state: text(row, 'state'),
      itemCount: integer(row, 'item_count'),
      total: decimal(row, 'total'),
    }));
  },
});
