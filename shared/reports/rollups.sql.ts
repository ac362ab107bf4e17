/**
 * SQL fragments the reports share: the restaurant's zone and currency, the counted totals of a
 * row, and the daily rollups (migration 004_report_rollups.sql, kept equal to the counted orders
 * and their lines by triggers). A report over a range of the restaurant's own calendar days
 * [from, to] (its IANA time zone) reads the rollup rows whose `day` lies in the range, a range
 * scan of the rollup's primary key (restaurant_id, platform_id, day, ...): one row per day (and
 * dish), not every order.
 */
import type { DateRange } from '../dates';
import type { Sql } from '../db/client';
import { decimal, integer, type Row } from '../db/rows';
import type { OrderTotals, ReportScope } from './domain';

/** The restaurant's IANA time zone and currency minor unit, as the CTE `restaurant`. */
export const restaurantOf = (sql: Sql, restaurantId: string) => sql`
  restaurant as (
    select r.time_zone, c.minor_units
    from restaurants r join currencies c on c.code = r.currency
    where r.id = ${restaurantId}
  )`;

/** The rollup rows `d` of the scope whose day lies within the range. */
export const rollupDays = (
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

/** The `order_count` and `revenue` (decimal text) columns of a row, checked. */
export const orderTotals = (row: Row): OrderTotals => ({
  orderCount: integer(row, 'order_count'),
  revenue: decimal(row, 'revenue'),
});
