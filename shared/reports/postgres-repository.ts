/**
 * The report data port on PostgreSQL. Aggregation happens in SQL: days are the restaurant's
 * own calendar days (its IANA time zone), money is summed as numeric and rounded to the
 * currency's minor unit. Orders that were cancelled or rejected do not count.
 * Rows are checked at runtime before they leave this module.
 */
import type { DateRange, IsoDate } from '../dates';
import type { Sql } from '../db/client';
import { decimal, integer, text } from '../db/rows';
import type { DayTotals, DishTotals, ReportRepository, ReportScope } from './repository';

export const COUNTED_STATES = ['PLACED', 'ACCEPTED', 'DELIVERED'] as const;

/** The restaurant's time zone and its currency's minor unit, as the CTE `restaurant`. */
const restaurantOf = (sql: Sql, restaurantId: string) => sql`
  restaurant as (
    select r.time_zone, c.minor_units
    from restaurants r join currencies c on c.code = r.currency
    where r.id = ${restaurantId}
  )`;

/**
 * The counted orders `o` of the scope placed within the range's days in the restaurant's time
 * zone: a range scan on orders (restaurant_id, platform_id, placed_at).
 */
const countedOrders = (
  sql: Sql,
  { restaurantId, platformId }: ReportScope,
  { from, to }: DateRange,
) => sql`
  orders o
    on o.restaurant_id = ${restaurantId}
   and o.platform_id = ${platformId}
   and o.placed_at >= (${from}::date::timestamp at time zone restaurant.time_zone)
   and o.placed_at < ((${to}::date + 1)::timestamp at time zone restaurant.time_zone)
   and o.state = any(${[...COUNTED_STATES]})`;

export const createPostgresReportRepository = (sql: Sql): ReportRepository => ({
  async ordersPerDay(scope: ReportScope, range: DateRange) {
    const rows = await sql`
      with ${restaurantOf(sql, scope.restaurantId)},
      totals as (
        select (o.placed_at at time zone restaurant.time_zone)::date as day,
               count(*) as orders,
               sum(o.total) as revenue
        from restaurant join ${countedOrders(sql, scope, range)}
        group by 1
      )
      select to_char(days.day, 'YYYY-MM-DD') as date,
             coalesce(totals.orders, 0)::int as order_count,
             round(coalesce(totals.revenue, 0),
                   coalesce((select minor_units from restaurant), 2))::text as revenue
      from generate_series(${range.from}::date, ${range.to}::date, interval '1 day') as days(day)
      left join totals on totals.day = days.day::date
      order by days.day`;
    return rows.map((row): DayTotals => ({
      date: text(row, 'date') as IsoDate,
      orderCount: integer(row, 'order_count'),
      revenue: decimal(row, 'revenue'),
    }));
  },

  async dishes(scope: ReportScope, range: DateRange) {
    const rows = await sql`
      with ${restaurantOf(sql, scope.restaurantId)}
      select l.dish_name as name,
             count(distinct o.id)::int as order_count,
             round(sum(l.quantity * l.unit_price), restaurant.minor_units)::text as revenue
      from restaurant
      join ${countedOrders(sql, scope, range)}
      join order_lines l on l.order_id = o.id
      group by l.dish_name, restaurant.minor_units
      order by sum(l.quantity * l.unit_price) desc, order_count desc, name asc`;
    return rows.map((row): DishTotals => ({
      name: text(row, 'name'),
      orderCount: integer(row, 'order_count'),
      revenue: decimal(row, 'revenue'),
    }));
  },
});
