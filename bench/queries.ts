/**
 * Goal 5 of issue 5: the report queries at scale. Builds (once; reused while its spec matches)
 * a generated data set in the dedicated PostgreSQL database `portal_bench` — 500 restaurants ×
 * 2,000 orders over two years plus one busy restaurant with ~275 orders a day, ~2.5 order
 * lines per order, the sample data's time zones and currencies — then measures the reports'
 * real SQL (shared/reports/<id>.sql.ts on a postgres.js pool from createSql) for the busy
 * restaurant, median and p95 over BENCH_QUERY_ITERATIONS runs after warm-ups, and captures
 * EXPLAIN (ANALYZE, BUFFERS) of the exact SQL text they send (caught through postgres.js
 * `debug`).
 *
 * The reports read the daily rollups of migration 003. A new data set is written through
 * their triggers, as a pipeline's rows would be: the bulk INSERTs fire the statement-level
 * triggers once each, which aggregate the whole batch set-wise: the one-off build took ~110 s
 * here instead of ~47 s without rollups, and its rollups equalled report_rollups_rebuild()'s
 * row for row. Disabling the triggers and rebuilding afterwards (~25 s) would save ~40 s once,
 * but needs table ownership, an exclusive lock and a window in which the rollups are wrong:
 * not worth a second code path. A data set built before migration 003
 * is upgraded in place: migrate() applies 003, whose backfill (report_rollups_rebuild())
 * computes the rollups from the rows present, and the rollups are then vacuumed and analyzed.
 *
 * Run alone: npx tsx bench/queries.ts  (BENCH_DATABASE_URL overrides the database URL).
 */
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import postgres from 'postgres';
import { migrate } from '../scripts/db/migrate';
import { CURRENCIES, SAMPLE_OWNERS } from '../scripts/db/sample-data';
import type { DateRange, IsoDate } from '../shared/dates';
import { addDays, todayIn } from '../scripts/dates';
import { createSql, type Sql } from '../shared/db/client';
import { dashboardQueries } from '../shared/reports/dashboard.sql';
import { dishesQueries } from '../shared/reports/dishes.sql';
import { ordersPerDayQueries } from '../shared/reports/orders-per-day.sql';
import { ordersTodayQueries } from '../shared/reports/orders-today.sql';
import { revenueQueries } from '../shared/reports/revenue.sql';

export interface QueryBenchResult {
  title: string;
  rows: { name: string; median: number; p95: number; unit: 'ms' }[];
  notes: string[];
}

const MAINTENANCE_URL = 'postgres://postgres@127.0.0.1:5432/postgres';
const DATABASE = 'portal_bench';
const BENCH_URL =
  process.env.BENCH_DATABASE_URL ?? `postgres://postgres@127.0.0.1:5432/${DATABASE}`;

const RESTAURANTS = 500;
const ORDERS_PER_RESTAURANT = 2_000;
const BUSY_ORDERS = 200_000; // ~275 a day over two years
const DAYS = 730;
const BUSY = { restaurantId: 'BENCH-BUSY', platformId: 'BX_AE' } as const;
/** A restaurant of the many: ~2.7 orders a day. */
const TYPICAL = { restaurantId: 'BENCH-0007', platformId: 'BP_0' } as const;
/** Changes whenever the generator changes, so an older data set is rebuilt. */
const SPEC = `v1:${RESTAURANTS}x${ORDERS_PER_RESTAURANT}+${BUSY_ORDERS}/${DAYS}d`;

const ITERATIONS = Number(process.env.BENCH_QUERY_ITERATIONS ?? 200);
const WARMUPS = Number(process.env.BENCH_QUERY_WARMUPS ?? 20);
const DAYS_INDEX = 'report_daily_orders_pkey';
const DISHES_INDEX = 'report_daily_dishes_pkey';
const SOURCE_TABLES = ['orders', 'order_lines'];
const ROLLUP_TABLES = ['report_daily_orders', 'report_daily_dishes'];

const DISHES: readonly (readonly [name: string, price: number])[] = SAMPLE_OWNERS.flatMap((owner) =>
  owner.restaurants.flatMap((restaurant) => restaurant.menu),
);
const ZONES = SAMPLE_OWNERS.flatMap((owner) =>
  owner.restaurants.map((restaurant) => [restaurant.timeZone, restaurant.currency] as const),
);

const ensureDatabase = async (log: (line: string) => void): Promise<void> => {
  if (process.env.BENCH_DATABASE_URL) return;
  const admin = postgres(MAINTENANCE_URL, { max: 1, onnotice: () => undefined });
  try {
    const found = await admin`select 1 from pg_database where datname = ${DATABASE}`;
    if (found.length === 0) {
      log(`creating database ${DATABASE}`);
      await admin.unsafe(`create database ${DATABASE}`);
    }
  } finally {
    await admin.end();
  }
};

const analyzeRollups = async (sql: Sql): Promise<void> => {
  for (const table of ROLLUP_TABLES) await sql`vacuum analyze ${sql(table)}`;
};

/**
 * Generates the data set in SQL unless the one present has this SPEC; an existing one gets the
 * migrations it lacks (the rollups' backfill included).
 */
const ensureData = async (sql: Sql, log: (line: string) => void): Promise<string> => {
  const migrationStarted = performance.now();
  const applied = await migrate(sql);
  await sql`create table if not exists bench_dataset (spec text primary key, built_at timestamptz not null default now())`;
  const [present] = await sql<{ spec: string }[]>`select spec from bench_dataset`;
  if (present?.spec === SPEC) {
    if (applied.length === 0) return 'reused';
    log(
      `applied ${applied.join(', ')} to the data set in ${((performance.now() - migrationStarted) / 1000).toFixed(1)} s; vacuum analyze`,
    );
    await analyzeRollups(sql);
    return `reused, upgraded with ${applied.join(', ')}`;
  }
  log(`generating the data set ${SPEC} (about two minutes)`);
  const started = performance.now();
  await sql.begin(async (tx) => {
    await tx`truncate order_lines, orders, restaurant_platforms, restaurants, bench_dataset cascade`;
    for (const [code, minorUnits] of CURRENCIES) {
      await tx`insert into currencies values (${code}, ${minorUnits}) on conflict (code) do nothing`;
    }
    await tx`
      insert into restaurants (id, name, time_zone, currency)
      select 'BENCH-' || lpad(i::text, 4, '0'), 'Bench restaurant ' || i,
             (${ZONES.map(([zone]) => zone)}::text[])[1 + i % ${ZONES.length}],
             (${ZONES.map(([, currency]) => currency)}::text[])[1 + i % ${ZONES.length}]
      from generate_series(1, ${RESTAURANTS}) as i
      union all
      select ${BUSY.restaurantId}, 'Bench busy restaurant', 'Asia/Dubai', 'AED'`;
    await tx`
      insert into restaurant_platforms (restaurant_id, platform_id, platform_restaurant_id)
      select id, 'BP_' || (right(id, 4)::int % 7), lower(id) from restaurants where id <> ${BUSY.restaurantId}
      union all
      select ${BUSY.restaurantId}, ${BUSY.platformId}, 'bx-busy'
      union all
      select ${BUSY.restaurantId}, 'BY_AE', 'by-busy'`;
    // Orders arrive in time order across all restaurants, as a live table's heap would hold them.
    await tx`
      insert into orders (restaurant_id, platform_id, placed_at, state, total)
      select restaurant_id, platform_id, placed_at,
             case when s < 0.90 then 'DELIVERED' when s < 0.93 then 'ACCEPTED'
                  when s < 0.95 then 'PLACED' when s < 0.99 then 'CANCELLED' else 'REJECTED' end,
             round((5 + random() * 120)::numeric, 3)
      from (
        select rp.restaurant_id, rp.platform_id,
               now() - random() * (${DAYS}::int * interval '1 day') as placed_at,
               random() as s
        from restaurant_platforms rp
        cross join generate_series(1, ${ORDERS_PER_RESTAURANT})
        where rp.restaurant_id <> ${BUSY.restaurantId}
        union all
        select ${BUSY.restaurantId},
               case when g % 10 = 0 then 'BY_AE' else ${BUSY.platformId} end,
               now() - random() * (${DAYS}::int * interval '1 day'), random()
        from generate_series(1, ${BUSY_ORDERS}) as g
      ) generated
      order by placed_at`;
    await tx`
      insert into order_lines (order_id, line_no, dish_name, quantity, unit_price)
      select o.id, n,
             (${DISHES.map(([name]) => name)}::text[])[1 + (o.id * 7 + n * 13) % ${DISHES.length}],
             1 + (o.id + n) % 3,
             (${DISHES.map(([, price]) => String(price))}::text[]::numeric[])[1 + (o.id * 7 + n * 13) % ${DISHES.length}]
      from orders o
      cross join lateral generate_series(1, 1 + (o.id % 4)::int) as n
      order by o.id, n`;
    await tx`insert into bench_dataset (spec) values (${SPEC})`;
  });
  log(`generated in ${((performance.now() - started) / 1000).toFixed(1)} s; vacuum analyze`);
  await sql`vacuum analyze orders`;
  await sql`vacuum analyze order_lines`;
  await sql`analyze restaurants`;
  await sql`analyze restaurant_platforms`;
  await sql`analyze currencies`;
  await analyzeRollups(sql);
  return 'generated';
};

const percentile = (sorted: readonly number[], p: number): number =>
  sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? Number.NaN;

const measure = async (run: () => Promise<unknown>) => {
  for (let i = 0; i < WARMUPS; i += 1) await run();
  const times: number[] = [];
  for (let i = 0; i < ITERATIONS; i += 1) {
    const start = performance.now();
    await run();
    times.push(performance.now() - start);
  }
  times.sort((a, b) => a - b);
  return { median: percentile(times, 50), p95: percentile(times, 95) };
};

interface Captured {
  readonly string: string;
  readonly parameters: readonly unknown[];
}

/** The SQL text and parameters a port sends, caught with postgres.js' debug hook. */
const captureSql = async (url: string, run: (sql: Sql) => Promise<unknown>): Promise<Captured> => {
  let captured: Captured | undefined;
  const spy = postgres(url, {
    max: 1,
    onnotice: () => undefined,
    debug: (_connection, string, parameters) => {
      captured = { string, parameters: [...(parameters as readonly unknown[])] };
    },
  });
  try {
    await run(spy);
    if (!captured) throw new Error('no query captured');
    return captured;
  } finally {
    await spy.end();
  }
};

interface PlanCheck {
  readonly text: string;
  readonly usesIndex: boolean;
  readonly seqScans: string[];
  readonly readsSource: boolean;
}

const explain = async (
  sql: Sql,
  { string, parameters }: Captured,
  index: string,
): Promise<PlanCheck> => {
  const rows = await sql.unsafe<{ 'QUERY PLAN': string }[]>(
    `explain (analyze, buffers) ${string}`,
    parameters as postgres.ParameterOrJSON<never>[],
  );
  const text = rows.map((row) => row['QUERY PLAN']).join('\n');
  const usesIndex = new RegExp(
    `(Index Scan|Index Only Scan|Bitmap Index Scan) (using|on) ${index}`,
  ).test(text);
  const seqScans = [...text.matchAll(/Seq Scan on (\w+)/g)]
    .map((match) => match[1] ?? '')
    .filter((table) => [...SOURCE_TABLES, ...ROLLUP_TABLES].includes(table));
  const readsSource = SOURCE_TABLES.some((table) =>
    new RegExp(`\\bon ${table}\\b|using ${table}_`).test(text),
  );
  return { text, usesIndex, seqScans, readsSource };
};

const round2 = (value: number) => Math.round(value * 100) / 100;

export const queryBench = async (log: (line: string) => void): Promise<QueryBenchResult> => {
  await ensureDatabase(log);
  const sql = createSql({
    url: BENCH_URL,
    poolMax: 2,
    statementTimeoutMs: 600_000,
    connectTimeoutSeconds: 10,
  });
  const notes: string[] = [];
  const rows: QueryBenchResult['rows'] = [];
  try {
    const state = await ensureData(sql, log);
    const [counts] = await sql<{ orders: string; lines: string; restaurants: string }[]>`
      select (select count(*) from orders)::text as orders,
             (select count(*) from order_lines)::text as lines,
             (select count(*) from restaurants)::text as restaurants`;
    notes.push(
      `data set ${SPEC} (${state}): ${counts?.orders} orders, ${counts?.lines} order lines, ` +
        `${counts?.restaurants} restaurants in portal_bench; busy restaurant ` +
        `${BUSY.restaurantId}/${BUSY.platformId} (Asia/Dubai, ~250 orders/day on that platform)`,
    );

    const perDay = ordersPerDayQueries(sql);
    const dishes = dishesQueries(sql);
    const revenue = revenueQueries(sql);
    const today = ordersTodayQueries(sql);
    const dashboard = dashboardQueries(sql);
    const end = addDays(todayIn('Asia/Dubai'), -1);
    const range: DateRange = { from: addDays(end, -30), to: end };
    const compare: DateRange = { from: addDays(end, -61), to: addDays(end, -31) };
    const monthStart = `${end.slice(0, 7)}-01` as IsoDate;
    const [y, m] = monthStart.split('-').map(Number) as [number, number];
    const firstMonth = new Date(Date.UTC(y, m - 1 - 11, 1)).toISOString().slice(0, 10) as IsoDate;
    const months: DateRange = { from: firstMonth, to: monthStart };

    const cases: readonly (readonly [string, () => Promise<unknown>])[] = [
      ['orders/day, 31 days', () => perDay.ordersPerDay(BUSY, range)],
      [
        'orders/day, 31 days + compare (2 queries)',
        () => Promise.all([perDay.ordersPerDay(BUSY, range), perDay.ordersPerDay(BUSY, compare)]),
      ],
      ['dishes, 31 days', () => dishes.dishes(BUSY, range)],
      ['revenue, 12 months', () => revenue.revenuePerMonth(BUSY, months)],
      ['orders today', () => today.ordersToday(BUSY)],
      ['dashboard (today vs a week ago)', () => dashboard.todayFigures(BUSY)],
      ['typical restaurant: dishes, 31 days', () => dishes.dishes(TYPICAL, range)],
      ['typical restaurant: revenue, 12 months', () => revenue.revenuePerMonth(TYPICAL, months)],
    ];
    const [volume] = await sql<
      {
        month: string;
        year: string;
        lines: string;
        rollup_month: string;
        rollup_year: string;
        day_rows: string;
        dish_rows: string;
        year_rows: string;
      }[]
    >`
      with month as (
        select id from orders
        where restaurant_id = ${BUSY.restaurantId} and platform_id = ${BUSY.platformId}
          and placed_at >= (${range.from}::date::timestamp at time zone 'Asia/Dubai')
          and placed_at < ((${range.to}::date + 1)::timestamp at time zone 'Asia/Dubai')
          and state in ('PLACED', 'ACCEPTED', 'DELIVERED')
      )
      select (select count(*) from month)::text as month,
             (select count(*) from order_lines where order_id in (select id from month))::text as lines,
             (select count(*) from orders
              where restaurant_id = ${BUSY.restaurantId} and platform_id = ${BUSY.platformId}
                and placed_at >= (${months.from}::date::timestamp at time zone 'Asia/Dubai')
                and state in ('PLACED', 'ACCEPTED', 'DELIVERED'))::text as year,
             (select coalesce(sum(orders), 0) from report_daily_orders
              where restaurant_id = ${BUSY.restaurantId} and platform_id = ${BUSY.platformId}
                and day between ${range.from}::date and ${range.to}::date)::text as rollup_month,
             (select coalesce(sum(orders), 0) from report_daily_orders
              where restaurant_id = ${BUSY.restaurantId} and platform_id = ${BUSY.platformId}
                and day >= ${months.from}::date)::text as rollup_year,
             (select count(*) from report_daily_orders
              where restaurant_id = ${BUSY.restaurantId} and platform_id = ${BUSY.platformId}
                and day between ${range.from}::date and ${range.to}::date)::text as day_rows,
             (select count(*) from report_daily_dishes
              where restaurant_id = ${BUSY.restaurantId} and platform_id = ${BUSY.platformId}
                and day between ${range.from}::date and ${range.to}::date)::text as dish_rows,
             (select count(*) from report_daily_orders
              where restaurant_id = ${BUSY.restaurantId} and platform_id = ${BUSY.platformId}
                and day >= ${months.from}::date
                and day < (${months.to}::date + interval '1 month')::date)::text as year_rows`;
    notes.push(
      `busy restaurant: 31 days = ${volume?.month} counted orders (${volume?.lines} order lines); 12 months = ${volume?.year} counted orders; ` +
        `the rollups hold ${volume?.rollup_month} and ${volume?.rollup_year} of them (${volume?.month === volume?.rollup_month && volume?.year === volume?.rollup_year ? 'equal' : 'NOT EQUAL'})`,
    );
    for (const [name, run] of cases) {
      const { median, p95 } = await measure(run);
      rows.push({ name, median: round2(median), p95: round2(p95), unit: 'ms' });
      log(`${name}: median ${median.toFixed(2)} ms, p95 ${p95.toFixed(2)} ms`);
    }
    notes.push(
      `${ITERATIONS} iterations after ${WARMUPS} warm-ups each, sequential, postgres.js pool of 2 (createSql), range ${range.from}..${range.to}`,
    );
    const slow = rows.filter((row) => row.median > 10);
    const perRow = (name: string) => rows.find((row) => row.name === name)?.median ?? Number.NaN;
    notes.push(
      slow.length === 0
        ? 'goal met: every report query ≤ 10 ms median'
        : `goal missed by: ${slow.map((row) => `${row.name} ${row.median} ms (${round2(row.median / 10)}× the 10 ms goal)`).join(', ')}`,
    );
    notes.push(
      `what the queries read: the daily rollups of migration 003, not orders — orders/day ${volume?.day_rows} rows of report_daily_orders, ` +
        `dishes ${volume?.dish_rows} rows of report_daily_dishes, revenue ${volume?.year_rows} rows of report_daily_orders; ` +
        `the rest is a round trip and postgres.js (orders/day ${perRow('orders/day, 31 days')} ms for 31 rows)`,
    );

    const plans: readonly (readonly [string, string, (spy: Sql) => Promise<unknown>])[] = [
      ['orders/day', DAYS_INDEX, (spy) => ordersPerDayQueries(spy).ordersPerDay(BUSY, range)],
      ['dishes', DISHES_INDEX, (spy) => dishesQueries(spy).dishes(BUSY, range)],
      ['revenue', DAYS_INDEX, (spy) => revenueQueries(spy).revenuePerMonth(BUSY, months)],
    ];
    for (const [name, index, run] of plans) {
      const plan = await explain(sql, await captureSql(BENCH_URL, run), index);
      log(`EXPLAIN (ANALYZE, BUFFERS) ${name}:\n${plan.text}`);
      const verdict =
        plan.usesIndex && plan.seqScans.length === 0 && !plan.readsSource
          ? `index range scan on ${index}, no sequential scan, orders and order_lines not read`
          : `NOT as expected: index ${plan.usesIndex ? 'used' : 'NOT used'}, seq scans on [${plan.seqScans.join(', ')}], orders or order_lines ${plan.readsSource ? 'read' : 'not read'}`;
      const execution = /Execution Time: ([\d.]+) ms/.exec(plan.text)?.[1];
      notes.push(`plan of ${name}: ${verdict} (EXPLAIN ANALYZE execution ${execution ?? '?'} ms)`);
    }
  } finally {
    await sql.end();
  }
  return { title: 'Report queries on 1M+ orders (PostgreSQL)', rows, notes };
};

const isMain =
  process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href;
if (isMain) {
  const result = await queryBench((line) => {
    console.error(line);
  });
  console.log(result.title);
  console.table(result.rows);
  for (const note of result.notes) console.log(`- ${note}`);
}
