/**
 * The report data port on PostgreSQL. Reports read the daily rollups of migration
 * 003_report_rollups.sql, which triggers keep equal to the counted orders (and their lines)
 * of each restaurant, platform and day: a 31-day report reads 31 rows per day and dish, not
 * every order. Days are the restaurant's own calendar days (its IANA time zone); a range of
 * days [from, to] is every order placed from from's local midnight to the local midnight after
 * to, which is the rollups' `day`. Money is summed as numeric and rounded to the currency's
 * minor unit. Orders that were cancelled or rejected do not count.
 * Rows are checked at runtime before they leave this module.
 */
import type { DateRange, IsoDate } from '../dates';
import type { Sql } from '../db/client';
import { decimal, integer, text } from '../db/rows';
import type { DayTotals, DishTotals, ReportRepository, ReportScope } from './repository';

/** The states an order counts in; the rollups' report_counts() mirrors this list. */
export const COUNTED_STATES = ['PLACED', 'ACCEPTED', 'DELIVERED'] as const;

/** The restaurant's currency minor unit, as the CTE `restaurant`. */
const restaurantOf = (sql: Sql, restaurantId: string) => sql`
  restaurant as (
    select c.minor_units
    from restaurants r join currencies c on c.code = r.currency
    where r.id = ${restaurantId}
  )`;

/**
 * The rollup rows `d` of the scope whose range day lies within the range: a range scan on the
 * table's primary key (restaurant_id, platform_id, day, ...).
 */
const daysOf = (
  sql: Sql,
  table: 'report_daily_orders' | 'report_daily_dishes',
  { restaurantId, platformId }: ReportScope,
  { from, to }: DateRange,
) => sql`
  ${sql(table)} d
  where d.restaurant_id = ${restaurantId}
    and d.platform_id = ${platformId}
    and d.day >= ${from}::date
    and d.day <= ${to}::date`;

export const createPostgresReportRepository = (sql: Sql): ReportRepository => ({
  async ordersPerDay(scope: ReportScope, range: DateRange) {
    const rows = await sql`
      with ${restaurantOf(sql, scope.restaurantId)},
      totals as (
        select d.local_day as day, sum(d.orders) as orders, sum(d.revenue) as revenue
        from ${daysOf(sql, 'report_daily_orders', scope, range)}
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
      with ${restaurantOf(sql, scope.restaurantId)},
      totals as (
        select d.dish_name, sum(d.orders) as orders, sum(d.revenue) as revenue
        from ${daysOf(sql, 'report_daily_dishes', scope, range)}
        group by d.dish_name
      )
      select totals.dish_name as name,
             totals.orders::int as order_count,
             round(totals.revenue, restaurant.minor_units)::text as revenue
      from restaurant cross join totals
      order by totals.revenue desc, order_count desc, name asc`;
    return rows.map((row): DishTotals => ({
      name: text(row, 'name'),
      orderCount: integer(row, 'order_count'),
      revenue: decimal(row, 'revenue'),
    }));
  },
});
