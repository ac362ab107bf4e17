/**
 * The drift check of the daily rollups (docs/data.md): the rows of
 * report_daily_orders and report_daily_dishes compared with the same rows recomputed from
 * orders, order lines and restaurants, per restaurant, platform and range day, as
 * report_rollups_recompute() (migration 004) would write them; the repair recomputes the
 * drifted restaurants, one per transaction under the restaurant's row lock; the drift as one
 * CloudWatch Embedded Metric Format line. Used by tools/db/check.ts (npm run db:check).
 */
import { parseArgs } from 'node:util';
import type { IsoDate } from '../../shared/dates';
import { parseIsoDate } from '../../shared/dates';
import type postgres from 'postgres';
import { argumentComplaint as complaint } from '../argument-error';

type Sql = postgres.Sql;

export interface DriftScope {
  /** First and last range day compared (report_day of migration 004); absent: unbounded. */
  readonly from?: IsoDate;
  readonly to?: IsoDate;
  /** One restaurant; absent: every restaurant. */
  readonly restaurantId?: string;
}

export interface RollupFigures {
  readonly orders: number;
  readonly revenue: string;
}

/** A rollup row that differs from its source: absent on one side (null) or with other figures. */
export interface Drift {
  readonly table: 'report_daily_orders' | 'report_daily_dishes';
  readonly restaurantId: string;
  readonly platformId: string;
  readonly day: IsoDate;
  /** The calendar day (report_daily_orders) or the dish (report_daily_dishes). */
  readonly key: string;
  readonly rollup: RollupFigures | null;
  readonly source: RollupFigures | null;
}

interface DriftRow {
  table: Drift['table'];
  restaurant_id: string;
  platform_id: string;
  day: string;
  key: string;
  rollup_orders: number | null;
  rollup_revenue: string | null;
  source_orders: number | null;
  source_revenue: string | null;
}

/**
 * Every rollup row of the scope that differs from its source, in one statement (one snapshot:
 * a writer's orders and rollup rows commit together, so a write under way is never drift).
 * Sorted by restaurant, platform, day, table and key.
 */
export const findDrift = async (sql: Sql, scope: DriftScope = {}): Promise<Drift[]> => {
  const from = scope.from ?? null;
  const to = scope.to ?? null;
  const restaurant = scope.restaurantId ?? null;
  const rows = await sql<DriftRow[]>`
    with counted as materialized (
      select o.id, o.restaurant_id, o.platform_id, o.total,
             report_day(o.placed_at, r.time_zone) as day,
             report_local_day(o.placed_at, r.time_zone) as local_day
      from orders o
      join restaurants r on r.id = o.restaurant_id
      where report_counts(o.state)
        and (${restaurant}::text is null or o.restaurant_id = ${restaurant}::text)
        -- a day's orders lie within a day and a half of its local midnight, in any zone
        and (${from}::date is null
             or o.placed_at >= (${from}::date - 2)::timestamp at time zone r.time_zone)
        and (${to}::date is null
             or o.placed_at < (${to}::date + 3)::timestamp at time zone r.time_zone)
    ),
    source_days as (
      select restaurant_id, platform_id, day, local_day, count(*)::int as orders,
             sum(total) as revenue
      from counted
      where (${from}::date is null or day >= ${from}::date)
        and (${to}::date is null or day <= ${to}::date)
      group by 1, 2, 3, 4
    ),
    source_dishes as (
      select c.restaurant_id, c.platform_id, c.day, l.dish_name, count(distinct c.id)::int as orders,
             sum(l.quantity * l.unit_price) as revenue
      from counted c
      join order_lines l on l.order_id = c.id
      where (${from}::date is null or c.day >= ${from}::date)
        and (${to}::date is null or c.day <= ${to}::date)
      group by 1, 2, 3, 4
    ),
    rollup_days as (
      select * from report_daily_orders
      where (${restaurant}::text is null or restaurant_id = ${restaurant}::text)
        and (${from}::date is null or day >= ${from}::date)
        and (${to}::date is null or day <= ${to}::date)
    ),
    rollup_dishes as (
      select * from report_daily_dishes
      where (${restaurant}::text is null or restaurant_id = ${restaurant}::text)
        and (${from}::date is null or day >= ${from}::date)
        and (${to}::date is null or day <= ${to}::date)
    )
    select 'report_daily_orders' as table,
           coalesce(t.restaurant_id, s.restaurant_id) as restaurant_id,
           coalesce(t.platform_id, s.platform_id) as platform_id,
           coalesce(t.day, s.day)::text as day,
           coalesce(t.local_day, s.local_day)::text as key,
           t.orders as rollup_orders, t.revenue::text as rollup_revenue,
           s.orders as source_orders, s.revenue::text as source_revenue
    from rollup_days t
    full join source_days s
      on (s.restaurant_id, s.platform_id, s.day, s.local_day)
       = (t.restaurant_id, t.platform_id, t.day, t.local_day)
    where (t.orders, t.revenue) is distinct from (s.orders, s.revenue)
    union all
    select 'report_daily_dishes',
           coalesce(t.restaurant_id, s.restaurant_id),
           coalesce(t.platform_id, s.platform_id),
           coalesce(t.day, s.day)::text,
           coalesce(t.dish_name, s.dish_name),
           t.orders, t.revenue::text, s.orders, s.revenue::text
    from rollup_dishes t
    full join source_dishes s
      on (s.restaurant_id, s.platform_id, s.day, s.dish_name)
       = (t.restaurant_id, t.platform_id, t.day, t.dish_name)
    where (t.orders, t.revenue) is distinct from (s.orders, s.revenue)
    order by 2, 3, 4, 1, 5`;
  return rows.map((row) => ({
    table: row.table,
    restaurantId: row.restaurant_id,
    platformId: row.platform_id,
    day: row.day as IsoDate,
    key: row.key,
    rollup:
      row.rollup_orders === null
        ? null
        : { orders: row.rollup_orders, revenue: row.rollup_revenue ?? '0' },
    source:
      row.source_orders === null
        ? null
        : { orders: row.source_orders, revenue: row.source_revenue ?? '0' },
  }));
};

/** The restaurants of `drift`, sorted, each once. */
export const driftedRestaurants = (drift: readonly Drift[]): string[] =>
  [...new Set(drift.map((row) => row.restaurantId))].sort();

/** Distinct (restaurant, day) pairs of `drift`: the RollupDrift metric. */
export const driftedRestaurantDays = (drift: readonly Drift[]): number =>
  new Set(drift.map((row) => `${row.restaurantId}\u0000${row.day}`)).size;

const figures = (value: RollupFigures | null): string =>
  value === null ? 'no row' : `${String(value.orders)} orders, revenue ${value.revenue}`;

/** One line per drifted rollup row. */
export const formatDrift = (drift: Drift): string => {
  const key =
    drift.table === 'report_daily_orders'
      ? `local day ${drift.key}`
      : `dish ${JSON.stringify(drift.key)}`;
  return `${drift.table} ${drift.restaurantId} ${drift.platformId} ${drift.day} ${key}: rollup ${figures(drift.rollup)}; source ${figures(drift.source)}`;
};

/** One line saying what a check found. */
export const summarise = (drift: readonly Drift[]): string => {
  if (drift.length === 0) return 'rollups equal their source rows';
  const restaurants = driftedRestaurants(drift);
  return `${String(drift.length)} rollup row(s) differ from their source rows: ${String(driftedRestaurantDays(drift))} restaurant-day(s) of ${String(restaurants.length)} restaurant(s) (${restaurants.join(', ')})`;
};

/**
 * Recomputes the rollups of each restaurant from its source rows, one transaction per
 * restaurant: its row lock (FOR NO KEY UPDATE, as a time-zone change takes) waits for that
 * restaurant's writers under way (they hold it FOR SHARE, migration 004) and keeps new ones
 * waiting until the recompute commits; other restaurants' writers are never blocked. A
 * restaurant that no longer exists has its rollup rows deleted (report_rollups_recompute).
 */
export const repairRestaurants = async (
  sql: Sql,
  restaurantIds: readonly string[],
  onRepaired: (restaurantId: string, milliseconds: number) => void = () => undefined,
): Promise<void> => {
  for (const restaurantId of restaurantIds) {
    const started = performance.now();
    await sql.begin(async (tx) => {
      await tx`select 1 from restaurants where id = ${restaurantId} for no key update`;
      await tx`select report_rollups_recompute(${restaurantId}::text)`;
    });
    onRepaired(restaurantId, performance.now() - started);
  }
};

export interface MetricSettings {
  readonly namespace: string;
  readonly service: string;
}

/** METRICS_NAMESPACE (default PortalServiceApi) and METRICS_SERVICE (default portal-service-api). */
export const metricSettings = (env: NodeJS.ProcessEnv): MetricSettings => ({
  namespace: env.METRICS_NAMESPACE?.trim() || 'PortalServiceApi',
  service: env.METRICS_SERVICE?.trim() || 'portal-service-api',
});

/** One Count metric with the dimension Service, as one Embedded Metric Format line. */
const countLine = (
  name: string,
  value: number,
  { namespace, service }: MetricSettings,
  now: Date,
) =>
  JSON.stringify({
    _aws: {
      Timestamp: now.getTime(),
      CloudWatchMetrics: [
        {
          Namespace: namespace,
          Dimensions: [['Service']],
          Metrics: [{ Name: name, Unit: 'Count' }],
        },
      ],
    },
    Service: service,
    [name]: value,
  });

/** The RollupDrift metric (Count, dimension Service) as one Embedded Metric Format line. */
export const driftMetricLine = (
  drifted: number,
  settings: MetricSettings,
  now: Date = new Date(),
): string => countLine('RollupDrift', drifted, settings, now);

/**
 * The RollupCheckFailed metric (Count, 1, dimension Service) as one EMF line: the check could
 * not run (database not reached, a permission or a statement refused), so RollupDrift is not
 * known and not printed.
 */
export const checkFailedMetricLine = (settings: MetricSettings, now: Date = new Date()): string =>
  countLine('RollupCheckFailed', 1, settings, now);

export interface CheckOptions extends DriftScope {
  readonly repair: boolean;
  readonly metrics: boolean;
}

export const CHECK_USAGE =
  'usage: npm run db:check -- [--from YYYY-MM-DD] [--to YYYY-MM-DD] [--restaurant ID] [--repair] [--metrics] [--service-role NAME]';

const CHECK_OPTIONS = {
  from: { type: 'string' },
  to: { type: 'string' },
  restaurant: { type: 'string' },
  repair: { type: 'boolean' },
  metrics: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;

/** `--help`: the usage on standard output, and the process ends with exit code 0. */
const printCheckUsage = (): never => {
  process.stdout.write(`${CHECK_USAGE}\n`);
  return process.exit(0);
};

/**
 * The command line of npm run db:check (without --service-role, which tools/db/check.ts takes
 * out first), or what is wrong with it: an unknown option, a positional argument, a missing
 * value or a value for --repair or --metrics in parseArgs's words, an empty value, a date that
 * is not one, or --from after --to. `--help` (`-h`) calls `help` instead, which by
 * default prints the usage on standard output and ends the process with exit code 0.
 */
export const parseCheckArgs = (
  argv: readonly string[],
  help: () => never = printCheckUsage,
): { readonly options: CheckOptions } | { readonly error: string } => {
  let values;
  try {
    ({ values } = parseArgs({
      args: [...argv],
      options: CHECK_OPTIONS,
      strict: true,
      allowPositionals: false,
    }));
  } catch (error) {
    return { error: complaint(error) };
  }
  if (values.help) help();
  const empty = (['from', 'to', 'restaurant'] as const).find((name) => values[name] === '');
  if (empty !== undefined) return { error: `--${empty} needs a value` };
  const dates: { from?: IsoDate; to?: IsoDate } = {};
  for (const name of ['from', 'to'] as const) {
    const value = values[name];
    if (value === undefined) continue;
    const date = parseIsoDate(value);
    if (date === undefined) {
      return { error: `--${name} must be a date YYYY-MM-DD, not ${JSON.stringify(value)}` };
    }
    dates[name] = date;
  }
  const { from, to } = dates;
  if (from !== undefined && to !== undefined && from > to) {
    return { error: `--from ${from} is after --to ${to}` };
  }
  const { restaurant: restaurantId, repair = false, metrics = false } = values;
  return { options: { from, to, restaurantId, repair, metrics } };
};

/**
 * npm run db:check: prints each drifted row and a summary, with `metrics` the EMF line, with
 * `repair` repairs the drifted restaurants and checks again. 0 when the rollups (after a
 * repair, if asked) equal their source rows, 1 otherwise.
 */
export const runCheck = async (
  sql: Sql,
  options: CheckOptions,
  write: (line: string) => void,
  env: NodeJS.ProcessEnv = process.env,
): Promise<0 | 1> => {
  const scope = { from: options.from, to: options.to, restaurantId: options.restaurantId };
  const drift = await findDrift(sql, scope);
  for (const row of drift) write(formatDrift(row));
  write(summarise(drift));
  if (options.metrics) write(driftMetricLine(driftedRestaurantDays(drift), metricSettings(env)));
  if (drift.length === 0) return 0;
  if (!options.repair) return 1;
  await repairRestaurants(sql, driftedRestaurants(drift), (restaurantId) => {
    write(`repaired ${restaurantId}`);
  });
  const after = await findDrift(sql, scope);
  for (const row of after) write(formatDrift(row));
  write(`after repair: ${summarise(after)}`);
  return after.length === 0 ? 0 : 1;
};
