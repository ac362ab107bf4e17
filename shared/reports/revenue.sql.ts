/**
 * Revenue per month on PostgreSQL. Months are calendar months in the restaurant's time zone:
 * an order belongs to the month of its local day, and the range is every order placed from the
 * local midnight that opens the first month to the one that closes the last, read from the
 * daily rollup report_daily_orders (migration 004) as a range scan of its primary key
 * (restaurant_id, platform_id, day, local_day): one row per day, not every order. Counted
 * orders only (as every report); money summed as numeric and rounded half away from zero to
 * the currency's minor unit. Every month of the range has a row, zeros included.
 */
import type { DateRange, IsoDate } from '../dates';
import type { Sql } from '../db/client';
import { text } from '../db/rows';
import type { OrderTotals, ReportScope } from './domain';
import { orderTotals, restaurantOf } from './rollups.sql';

export interface MonthTotals extends OrderTotals {
  /** First day of the month, YYYY-MM-01. */
  readonly month: IsoDate;
}

export interface RevenueQueries {
  /** One entry per month of the range (first days), zeros included. */
  revenuePerMonth(scope: ReportScope, months: DateRange): Promise<MonthTotals[]>;
}

export const revenueQueries = (sql: Sql): RevenueQueries => ({
  async revenuePerMonth({ restaurantId, platformId }, { from, to }: DateRange) {
    const rows = await sql`
      with ${restaurantOf(sql, restaurantId)},
      totals as (
        select date_trunc('month', d.local_day::timestamp)::date as month,
               sum(d.orders) as orders,
               sum(d.revenue) as revenue
        from report_daily_orders d
        where d.restaurant_id = ${restaurantId}
          and d.platform_id = ${platformId}
          and d.day >= ${from}::date
          and d.day < (${to}::date + interval '1 month')::date
        group by 1
      )
      select to_char(months.month, 'YYYY-MM-DD') as month,
             coalesce(totals.orders, 0)::int as order_count,
             round(coalesce(totals.revenue, 0),
                   coalesce((select minor_units from restaurant), 2))::text as revenue
      from generate_series(${from}::date::timestamp, ${to}::date::timestamp, interval '1 month')
             as months(month)
      left join totals on totals.month = months.month::date
      order by months.month`;
    return rows.map((row): MonthTotals => ({
      month: text(row, 'month') as IsoDate,
      ...orderTotals(row),
    }));
  },
});
