/**
 * Dishes on PostgreSQL, from the daily rollup report_daily_dishes: one entry per dish ordered
 * in the range (the restaurant's calendar days), highest revenue first, then most orders, then
 * name; money summed as numeric and rounded to the currency's minor unit.
 */
import type { DateRange } from '../dates';
import type { Sql } from '../db/client';
import { text } from '../db/rows';
import type { OrderTotals, ReportScope } from './domain';
import { orderTotals, restaurantOf, rollupDays } from './rollups.sql';

export interface DishTotals extends OrderTotals {
  readonly name: string;
}

export interface DishesQueries {
  /** One entry per dish ordered in the range, highest revenue first. */
  dishes(scope: ReportScope, range: DateRange): Promise<DishTotals[]>;
}

export const dishesQueries = (sql: Sql): DishesQueries => ({
  async dishes(scope, range) {
    const rows = await sql`
      with ${restaurantOf(sql, scope.restaurantId)},
      totals as (
        select d.dish_name, sum(d.orders) as orders, sum(d.revenue) as revenue
        from ${rollupDays(sql, 'report_daily_dishes', scope, range)}
        group by d.dish_name
      )
      select totals.dish_name as name,
             totals.orders::int as order_count,
             round(totals.revenue, restaurant.minor_units)::text as revenue
      from restaurant cross join totals
      order by totals.revenue desc, order_count desc, name asc`;
    return rows.map((row): DishTotals => ({
      name: text(row, 'name'),
      ...orderTotals(row),
    }));
  },
});
