/**
 * The oracle of the rollup tests: the report queries as they were before the daily rollups
 * (migration 004), aggregating the source tables, and the rollup rows recomputed from them.
 */
import type postgres from 'postgres';
import type { DateRange, IsoDate } from '../../../shared/dates';
import { decimal, integer, text } from '../../../shared/db/rows';
import type { DishTotals } from '../../../shared/reports/dishes.sql';
import { COUNTED_STATES, type ReportScope } from '../../../shared/reports/domain';
import type { DayTotals } from '../../../shared/reports/orders-per-day.sql';
import type { MonthTotals } from '../../../shared/reports/revenue.sql';

type Sql = postgres.Sql | postgres.TransactionSql;

const restaurantOf = (sql: Sql, restaurantId: string) => sql`
  restaurant as (
    select r.time_zone, c.minor_units
    from restaurants r join currencies c on c.code = r.currency
    where r.id = ${restaurantId}
  )`;

/** The counted orders of `scope` from the local midnight of `from` up to `end` (local). */
const countedOrders = (
  sql: Sql,
  { restaurantId, platformId }: ReportScope,
  { from, to }: DateRange,
  end = sql`(${to}::date + 1)::timestamp`,
) => sql`
  orders o
    on o.restaurant_id = ${restaurantId}
   and o.platform_id = ${platformId}
   and o.placed_at >= (${from}::date::timestamp at time zone restaurant.time_zone)
   and o.placed_at < (${end} at time zone restaurant.time_zone)
   and o.state = any(${[...COUNTED_STATES]})`;

/** The order count and revenue of a row, as every report answers them. */
const figures = (row: postgres.Row) => ({
  orderCount: integer(row, 'order_count'),
  revenue: decimal(row, 'revenue'),
});

export const liveOrdersPerDay = async (
  sql: Sql,
  scope: ReportScope,
  range: DateRange,
): Promise<DayTotals[]> => {
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
  return rows.map((row) => ({ date: text(row, 'date') as IsoDate, ...figures(row) }));
};

export const liveDishes = async (
  sql: Sql,
  scope: ReportScope,
  range: DateRange,
): Promise<DishTotals[]> => {
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
  return rows.map((row) => ({ name: text(row, 'name'), ...figures(row) }));
};

export const liveRevenuePerMonth = async (
  sql: Sql,
  scope: ReportScope,
  { from, to }: DateRange,
): Promise<MonthTotals[]> => {
  const rows = await sql`
    with ${restaurantOf(sql, scope.restaurantId)},
    totals as (
      select date_trunc('month', o.placed_at at time zone restaurant.time_zone)::date as month,
             count(*) as orders,
             sum(o.total) as revenue
      from restaurant join ${countedOrders(sql, scope, { from, to }, sql`(${to}::date + interval '1 month')`)}
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
  return rows.map((row) => ({ month: text(row, 'month') as IsoDate, ...figures(row) }));
};

export interface RollupTables {
  readonly days: readonly Record<string, unknown>[];
  readonly dishes: readonly Record<string, unknown>[];
}

/**
 * The rollup rows of `restaurantIds`, as stored and as the source tables say they should be; the
 * range day is the last day around the local one whose local midnight is at or before the order
 * (not the migration's report_day()).
 */
export const rollupTables = async (
  sql: Sql,
  restaurantIds: readonly string[],
): Promise<{ stored: RollupTables; expected: RollupTables }> => {
  const ids = [...restaurantIds];
  const storedDays = await sql`
    select restaurant_id, platform_id, day::text, local_day::text, orders, revenue::text
    from report_daily_orders where restaurant_id = any(${ids})
    order by 1, 2, 3, 4`;
  const storedDishes = await sql`
    select restaurant_id, platform_id, day::text, dish_name, orders, revenue::text
    from report_daily_dishes where restaurant_id = any(${ids})
    order by 1, 2, 3, 4`;
  const counted = sql`
    counted as (
      select o.id, o.restaurant_id, o.platform_id, o.total,
             (o.placed_at at time zone r.time_zone)::date as local_day,
             (select max(candidate::date)
              from generate_series((o.placed_at at time zone r.time_zone)::date - 2,
                                   (o.placed_at at time zone r.time_zone)::date + 2,
                                   interval '1 day') as candidate
              where candidate::date::timestamp at time zone r.time_zone <= o.placed_at) as day
      from orders o join restaurants r on r.id = o.restaurant_id
      where o.restaurant_id = any(${ids}) and o.state = any(${[...COUNTED_STATES]})
    )`;
  const expectedDays = await sql`
    with ${counted}
    select restaurant_id, platform_id, day::text, local_day::text,
           count(*)::int as orders, sum(total)::text as revenue
    from counted
    group by restaurant_id, platform_id, day, local_day
    order by 1, 2, 3, 4`;
  const expectedDishes = await sql`
    with ${counted}
    select c.restaurant_id, c.platform_id, c.day::text, l.dish_name,
           count(distinct c.id)::int as orders, sum(l.quantity * l.unit_price)::text as revenue
    from counted c join order_lines l on l.order_id = c.id
    group by c.restaurant_id, c.platform_id, c.day, l.dish_name
    order by 1, 2, 3, 4`;
  return {
    stored: { days: [...storedDays], dishes: [...storedDishes] },
    expected: { days: [...expectedDays], dishes: [...expectedDishes] },
  };
};
