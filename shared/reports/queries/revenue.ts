/**
 * Revenue per month on PostgreSQL. Months are calendar months in the restaurant's time zone:
 * an order belongs to the month of its local time, and the range is a scan of
 * orders (restaurant_id, platform_id, placed_at) between the local midnights that open the
 * first month and close the last. Counted orders only (as every report); money summed as
 * numeric and rounded half away from zero to the currency's minor unit. Every month of the
 * range has a row, zeros included.
 */
import type { DateRange, IsoDate } from '../../dates';
import type { Sql } from '../../db/client';
import { decimal, integer, text } from '../../db/rows';
import { COUNTED_STATES } from '../postgres-repository';
import type { MonthTotals, RevenuePort } from '../revenue';

export const revenueQueries = (sql: Sql): RevenuePort => ({
  async revenuePerMonth({ restaurantId, platformId }, { from, to }: DateRange) {
    const rows = await sql`
      with restaurant as (
        select r.time_zone, c.minor_units
        from restaurants r join currencies c on c.code = r.currency
        where r.id = ${restaurantId}
      ),
      totals as (
        select date_trunc('month', o.placed_at at time zone restaurant.time_zone)::date as month,
               count(*) as orders,
               sum(o.total) as revenue
        from restaurant
        join orders o
          on o.restaurant_id = ${restaurantId}
         and o.platform_id = ${platformId}
         and o.placed_at >= (${from}::date::timestamp at time zone restaurant.time_zone)
         and o.placed_at < ((${to}::date + interval '1 month') at time zone restaurant.time_zone)
         and o.state = any(${[...COUNTED_STATES]})
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
      orderCount: integer(row, 'order_count'),
      revenue: decimal(row, 'revenue'),
    }));
  },
});
