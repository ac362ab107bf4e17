/**
 * Orders per day on PostgreSQL, from the daily rollup report_daily_orders: one entry per
 * calendar day of the range in the restaurant's time zone, zeros included; money summed as
 * numeric and rounded to the currency's minor unit. Rows are checked before they leave.
 */
import type { DateRange, IsoDate } from '../dates';
import type { Sql } from '../db/client';
import { text } from '../db/rows';
import type { OrderTotals, ReportScope } from './domain';
import { orderTotals, restaurantOf, rollupDays } from './rollups.sql';

export interface DayTotals extends OrderTotals {
  readonly date: IsoDate;
}

export interface OrdersPerDayQueries {
  /** One entry per calendar day of the range, in the restaurant's time zone, zeros included. */
  ordersPerDay(scope: ReportScope, range: DateRange): Promise<DayTotals[]>;
}

export const ordersPerDayQueries = (sql: Sql): OrdersPerDayQueries => ({
  async ordersPerDay(scope, range) {
    const rows = await sql`
      with ${restaurantOf(sql, scope.restaurantId)},
      totals as (
        select d.local_day as day, sum(d.orders) as orders, sum(d.revenue) as revenue
        from ${rollupDays(sql, 'report_daily_orders', scope, range)}
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
      ...orderTotals(row),
    }));
  },
});
