/**
 * The dashboard's figures on PostgreSQL, from the database clock (now()). Today runs from the
 * restaurant's local midnight to now; the comparison period is the same weekday a week
 * earlier, from its local midnight to the same local time of day (wall-clock arithmetic, so a
 * DST change in between does not shift it). Counting, summing and rounding happen in SQL:
 * money as numeric rounded half away from zero to the currency's minor unit, the cancellation
 * rate to 4 decimals. A restaurant the database does not know has zeros, the UTC day and no
 * currency.
 */
import type { IsoDate } from '../dates';
import type { Sql } from '../db/client';
import { decimal, integer, text, textOrNull, type Row } from '../db/rows';
import { CANCELLED_STATES, COUNTED_STATES, type ReportScope } from './domain';

/** The figures of one period, rounded as the API shows them. */
export interface PeriodFigures {
  /** The period's day in the restaurant's time zone. */
  readonly date: IsoDate;
  readonly orders: number;
  /** Rounded to the currency's minor unit. */
  readonly revenue: number;
  /** revenue / orders, rounded to the currency's minor unit; 0 without orders. */
  readonly averageOrderValue: number;
  /** (cancelled + rejected) / all orders, rounded to 4 decimals; 0 without orders. */
  readonly cancellationRate: number;
}

export interface DashboardFigures {
  /** ISO 4217 code; null when the database does not know the restaurant. */
  readonly currency: string | null;
  readonly today: PeriodFigures;
  readonly compare: PeriodFigures;
}

export interface DashboardQueries {
  /** Today so far and the same part of the same weekday a week earlier. */
  todayFigures(scope: ReportScope): Promise<DashboardFigures>;
}

const figuresOf = (rows: readonly Row[], period: string): PeriodFigures => {
  const row = rows.find((candidate) => text(candidate, 'period') === period);
  if (!row) throw new TypeError(`dashboard: no row for ${period}`);
  return {
    date: text(row, 'date') as IsoDate,
    orders: integer(row, 'orders'),
    revenue: decimal(row, 'revenue'),
    averageOrderValue: decimal(row, 'average_order_value'),
    cancellationRate: decimal(row, 'cancellation_rate'),
  };
};

export const dashboardQueries = (sql: Sql): DashboardQueries => ({
  async todayFigures({ restaurantId, platformId }) {
    const counted = [...COUNTED_STATES];
    const rows = await sql`
      with clock as (
        select coalesce(r.time_zone, 'UTC') as time_zone,
               coalesce(c.minor_units, 2) as minor_units,
               r.currency::text as currency,
               now() as now,
               now() at time zone coalesce(r.time_zone, 'UTC') as local_now
        from (select 1) as one
        left join restaurants r on r.id = ${restaurantId}
        left join currencies c on c.code = r.currency
      ),
      periods as (
        select 'today' as period,
               clock.local_now::date as day,
               clock.local_now::date::timestamp at time zone clock.time_zone as start_at,
               clock.now as end_at
        from clock
        union all
        select 'compare',
               clock.local_now::date - 7,
               (clock.local_now::date - 7)::timestamp at time zone clock.time_zone,
               (clock.local_now - interval '7 days') at time zone clock.time_zone
        from clock
      )
      select p.period,
             to_char(p.day, 'YYYY-MM-DD') as date,
             clock.currency,
             (count(o.id) filter (where o.state = any(${counted})))::int as orders,
             round(coalesce(sum(o.total) filter (where o.state = any(${counted})), 0),
                   clock.minor_units)::text as revenue,
             coalesce(round(sum(o.total) filter (where o.state = any(${counted}))
                            / nullif(count(o.id) filter (where o.state = any(${counted})), 0),
                            clock.minor_units), 0)::text as average_order_value,
             coalesce(round((count(o.id) filter (where o.state = any(${[...CANCELLED_STATES]})))::numeric
                            / nullif(count(o.id), 0), 4), 0)::text as cancellation_rate
      from clock
      cross join periods p
      left join orders o
        on o.restaurant_id = ${restaurantId}
       and o.platform_id = ${platformId}
       and o.placed_at >= p.start_at
       and o.placed_at <= p.end_at
      group by p.period, p.day, clock.currency, clock.minor_units`;
    const [first] = rows;
    if (!first) throw new TypeError('dashboard: no rows');
    return {
      currency: textOrNull(first, 'currency'),
      today: figuresOf(rows, 'today'),
      compare: figuresOf(rows, 'compare'),
    };
  },
});
