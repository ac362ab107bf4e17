/**
 * The report queries on generated data sets, and the scale goal. A data set of scale S holds S
 * copies of one universe: 500 restaurants × 2,000 orders over two years plus one busy
 * restaurant with ~275 orders a day, ~2.5 order lines per order, the sample data's time zones
 * and currencies (1.2M orders a copy). Scale 1 lives in the database portal_bench, scale 10
 * (BENCH_SCALE=10: 12M orders) in portal_bench_x10; each is built once, a copy per
 * transaction with its rollups deferred and recomputed before commit as a bulk import's are,
 * and reused while its spec matches. The
 * measured restaurants are in the first copy, so at scale 10 they have the same orders a day
 * and the database ten times the orders.
 *
 * Each report's real SQL (shared/reports/<id>.sql.ts on a pool from createSql) runs for the
 * busy restaurant and a typical one, BENCH_QUERY_ITERATIONS (200) times after
 * BENCH_QUERY_WARMUPS (100), calls alternating between the data sets when there are two.
 *
 * Run alone: npx tsx tools/bench/queries.ts  (BENCH_SCALE=10 adds the 12M-order data set).
 */
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import postgres from 'postgres';
import { migrate } from '../db/migrate';
import { CURRENCIES, SAMPLE_OWNERS } from '../db/sample-data';
import { addDays, todayIn } from '../dates';
import { createSql, type Sql } from '../../shared/db/client';
import type { DateRange, IsoDate } from '../../shared/dates';
import { dashboardQueries } from '../../shared/reports/dashboard.sql';
import { dishesQueries } from '../../shared/reports/dishes.sql';
import { ordersPerDayQueries } from '../../shared/reports/orders-per-day.sql';
import { ordersTodayQueries } from '../../shared/reports/orders-today.sql';
import { revenueQueries } from '../../shared/reports/revenue.sql';
import { ratioGoal, type RatioGoal } from './goal';
import { loadAverage } from './deployed';
import { median, round } from './lib';

export const ADMIN_URL =
  process.env.BENCH_ADMIN_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

const RESTAURANTS = 500;
const ORDERS_PER_RESTAURANT = 2_000;
const BUSY_ORDERS = 200_000; // ~275 a day over two years
const DAYS = 730;
export const BUSY = { restaurantId: 'BENCH-BUSY', platformId: 'BX_AE' } as const;
/** A restaurant of the many: ~2.7 orders a day. */
const TYPICAL = { restaurantId: 'BENCH-0007', platformId: 'BP_0' } as const;

const ITERATIONS = Number(process.env.BENCH_QUERY_ITERATIONS ?? 200);
const WARMUPS = Number(process.env.BENCH_QUERY_WARMUPS ?? 100);
const ROLLUP_TABLES = ['report_daily_orders', 'report_daily_dishes'];

const DISHES: readonly (readonly [name: string, price: number])[] = SAMPLE_OWNERS.flatMap((owner) =>
  owner.restaurants.flatMap((restaurant) => restaurant.menu),
);
const ZONES = SAMPLE_OWNERS.flatMap((owner) =>
  owner.restaurants.map((restaurant) => [restaurant.timeZone, restaurant.currency] as const),
);

export interface DataSet {
  readonly scale: number;
  readonly database: string;
  readonly url: string;
  /** Changes whenever the generator changes, so an older data set is rebuilt. */
  readonly spec: string;
}

export const dataSet = (scale: number): DataSet => {
  const database = scale === 1 ? 'portal_bench' : `portal_bench_x${scale}`;
  const url = new URL(ADMIN_URL);
  url.pathname = `/${database}`;
  const universe = `${RESTAURANTS}x${ORDERS_PER_RESTAURANT}+${BUSY_ORDERS}/${DAYS}d`;
  return {
    scale,
    database,
    url: url.toString(),
    spec: scale === 1 ? `v2:${universe}` : `v2:${scale}x(${universe})`,
  };
};

const ensureDatabase = async (set: DataSet, log: (line: string) => void): Promise<void> => {
  const admin = postgres(ADMIN_URL, { max: 1, onnotice: () => undefined });
  try {
    const found = await admin`select 1 from pg_database where datname = ${set.database}`;
    if (found.length === 0) {
      log(`  creating database ${set.database}`);
      await admin.unsafe(`create database ${set.database}`);
    }
  } finally {
    await admin.end();
  }
};

const openSql = (set: DataSet, poolMax = 2): Sql =>
  createSql({ url: set.url, poolMax, statementTimeoutMs: 3_600_000, connectTimeoutSeconds: 10 });

/** One copy of the universe: restaurants of ids `offset`+1.., its busy restaurant `busy`. */
const writeCopy = async (sql: Sql, copy: number) => {
  const offset = copy * RESTAURANTS;
  const busy = copy === 0 ? BUSY.restaurantId : `BENCH-BUSY-${copy + 1}`;
  const platform = BUSY.platformId;
  const suffix = copy === 0 ? 'busy' : `busy-${copy + 1}`;
  await sql.begin(async (tx) => {
    // The rollups are deferred and recomputed set-wise before commit (migration 004), as a
    // bulk import does: the per-statement line trigger plans its work per order.
    await tx`select report_rollups_defer()`;
    await tx`
      insert into restaurants (id, name, time_zone, currency)
      select 'BENCH-' || lpad(i::text, 4, '0'), 'Bench restaurant ' || i,
             (${ZONES.map(([zone]) => zone)}::text[])[1 + i % ${ZONES.length}],
             (${ZONES.map(([, currency]) => currency)}::text[])[1 + i % ${ZONES.length}]
      from generate_series(${offset + 1}::int, ${offset + RESTAURANTS}::int) as i
      union all
      select ${busy}, 'Bench busy restaurant', 'Asia/Dubai', 'AED'`;
    await tx`
      insert into restaurant_platforms (restaurant_id, platform_id, platform_restaurant_id)
      select 'BENCH-' || lpad(i::text, 4, '0'), 'BP_' || (i % 7), 'bench-' || lpad(i::text, 4, '0')
      from generate_series(${offset + 1}::int, ${offset + RESTAURANTS}::int) as i
      union all
      select ${busy}, ${platform}, ${'bx-' + suffix}
      union all
      select ${busy}, 'BY_AE', ${'by-' + suffix}`;
    const [{ last } = { last: '0' }] = await tx<{ last: string }[]>`
      select coalesce(max(id), 0)::text as last from orders`;
    // Orders arrive in time order across the copy's restaurants, as a live table's heap would
    // hold them.
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
        where rp.restaurant_id between 'BENCH-' || lpad(${offset + 1}::text, 4, '0')
                                   and 'BENCH-' || lpad(${offset + RESTAURANTS}::text, 4, '0')
        union all
        select ${busy},
               case when g % 10 = 0 then 'BY_AE' else ${platform} end,
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
      where o.id > ${last}::bigint
      order by o.id, n`;
    await tx`
      select report_rollups_refresh(
        array_agg(restaurant_id), array_agg(platform_id), array_agg(placed_at))
      from orders where id > ${last}::bigint`;
  });
};

/**
 * Builds the data set unless the one present has its spec; an existing one gets the
 * migrations it lacks. Returns what was done.
 */
export const ensureDataSet = async (set: DataSet, log: (line: string) => void): Promise<string> => {
  await ensureDatabase(set, log);
  const sql = openSql(set);
  try {
    const applied = await migrate(sql);
    await sql`create table if not exists bench_dataset (spec text primary key, built_at timestamptz not null default now())`;
    const [present] = await sql<{ spec: string }[]>`select spec from bench_dataset`;
    if (present?.spec === set.spec) {
      if (applied.length === 0) return 'reused';
      for (const table of ROLLUP_TABLES) await sql`vacuum analyze ${sql(table)}`;
      return `reused, upgraded with ${applied.join(', ')}`;
    }
    log(`  generating ${set.database} (${set.spec}): ~2 min per 1.2M orders on 2 cores`);
    const started = performance.now();
    await sql`truncate order_lines, orders, restaurant_platforms, restaurants, bench_dataset cascade`;
    for (const [code, minorUnits] of CURRENCIES) {
      await sql`insert into currencies values (${code}, ${minorUnits}) on conflict (code) do nothing`;
    }
    for (let copy = 0; copy < set.scale; copy += 1) {
      await writeCopy(sql, copy);
      log(
        `  copy ${copy + 1}/${set.scale} written at ${((performance.now() - started) / 1000).toFixed(0)} s`,
      );
    }
    for (const table of ['orders', 'order_lines', 'restaurants', 'restaurant_platforms']) {
      await sql`vacuum analyze ${sql(table)}`;
    }
    for (const table of ROLLUP_TABLES) await sql`vacuum analyze ${sql(table)}`;
    await sql`insert into bench_dataset (spec) values (${set.spec})`;
    log(`  generated in ${((performance.now() - started) / 1000).toFixed(0)} s`);
    return 'generated';
  } finally {
    await sql.end();
  }
};

/** The dates every report is asked for: the last 31 full days, a compare range, 12 months. */
export const benchRanges = () => {
  const end = addDays(todayIn('Asia/Dubai'), -1);
  const range: DateRange = { from: addDays(end, -30), to: end };
  const compare: DateRange = { from: addDays(end, -61), to: addDays(end, -31) };
  const monthStart = `${end.slice(0, 7)}-01` as IsoDate;
  const [y, m] = monthStart.split('-').map(Number) as [number, number];
  const firstMonth = new Date(Date.UTC(y, m - 1 - 11, 1)).toISOString().slice(0, 10) as IsoDate;
  return { range, compare, months: { from: firstMonth, to: monthStart } as DateRange };
};

type Case = readonly [name: string, run: (sql: Sql) => Promise<unknown>];

const reportCases = (): readonly Case[] => {
  const { range, compare, months } = benchRanges();
  return [
    ['orders/day, 31 days', (sql) => ordersPerDayQueries(sql).ordersPerDay(BUSY, range)],
    [
      'orders/day, 31 days + compare',
      (sql) => {
        const q = ordersPerDayQueries(sql);
        return Promise.all([q.ordersPerDay(BUSY, range), q.ordersPerDay(BUSY, compare)]);
      },
    ],
    ['dishes, 31 days', (sql) => dishesQueries(sql).dishes(BUSY, range)],
    ['revenue, 12 months', (sql) => revenueQueries(sql).revenuePerMonth(BUSY, months)],
    ['orders today', (sql) => ordersTodayQueries(sql).ordersToday(BUSY)],
    ['dashboard', (sql) => dashboardQueries(sql).todayFigures(BUSY)],
    ['typical: dishes, 31 days', (sql) => dishesQueries(sql).dishes(TYPICAL, range)],
    ['typical: revenue, 12 months', (sql) => revenueQueries(sql).revenuePerMonth(TYPICAL, months)],
  ];
};

export interface Captured {
  readonly string: string;
  readonly parameters: readonly unknown[];
}

/** The SQL texts and parameters `run` sends, caught with postgres.js' debug hook. */
export const captureSql = async (
  url: string,
  run: (sql: Sql) => Promise<unknown>,
): Promise<Captured[]> => {
  const captured: Captured[] = [];
  const spy = postgres(url, {
    max: 2,
    // Without it, the array types' look-up of each new connection would be caught too.
    fetch_types: false,
    onnotice: () => undefined,
    debug: (_connection, string, parameters) => {
      captured.push({ string, parameters: [...(parameters as readonly unknown[])] });
    },
  });
  try {
    await run(spy);
    return captured;
  } finally {
    await spy.end();
  }
};

export interface QueryRow {
  readonly name: string;
  /** Median of each repetition, per scale. */
  readonly medianMs: Record<string, number[]>;
  readonly p95Ms: Record<string, number[]>;
}

export interface QueryResult {
  readonly sets: { database: string; spec: string; state: string; orders: number }[];
  readonly repetitions: { loadAverage: string }[];
  readonly rows: QueryRow[];
  /** With two data sets: the slowest query at scale 1, its median at scale 10 over scale 1. */
  readonly scaleGoal?: RatioGoal & { readonly query: string };
}

/**
 * Every report query on each data set of `scales`, in `repetitions` rounds; with scales 1 and
 * 10, the scale goal on the query slowest at scale 1.
 */
export const reportQueries = async (
  log: (line: string) => void,
  scales: readonly number[],
  repetitions: number,
): Promise<QueryResult> => {
  const sets = scales.map(dataSet);
  const described: QueryResult['sets'] = [];
  for (const set of sets) {
    const state = await ensureDataSet(set, log);
    const sql = openSql(set);
    const [count] = await sql<{ n: string }[]>`select count(*)::text as n from orders`;
    await sql.end();
    described.push({ ...set, state, orders: Number(count?.n) });
    log(`  ${set.database}: ${count?.n} orders (${state})`);
  }
  const pools = sets.map((set) => openSql(set));
  const cases = reportCases();
  const rows: QueryRow[] = cases.map(([name]) => ({
    name,
    medianMs: Object.fromEntries(sets.map((s) => [s.database, []])),
    p95Ms: Object.fromEntries(sets.map((s) => [s.database, []])),
  }));
  const reps: QueryResult['repetitions'] = [];
  try {
    for (let rep = 0; rep < repetitions; rep += 1) {
      const load = loadAverage();
      reps.push({ loadAverage: load });
      for (const [i, [name, run]] of cases.entries()) {
        const times: number[][] = sets.map(() => []);
        for (let k = 0; k < WARMUPS + ITERATIONS; k += 1) {
          for (const [s, pool] of pools.entries()) {
            const start = performance.now();
            await run(pool);
            if (k >= WARMUPS) times[s]?.push(performance.now() - start);
          }
        }
        const row = rows[i];
        for (const [s, set] of sets.entries()) {
          const sorted = [...(times[s] ?? [])].sort((a, b) => a - b);
          row?.medianMs[set.database]?.push(round(median(sorted), 3));
          row?.p95Ms[set.database]?.push(
            round(sorted[Math.ceil(0.95 * sorted.length) - 1] ?? NaN, 3),
          );
        }
        log(
          `  rep ${rep + 1} (load ${load}) ${name}: ` +
            sets.map((set) => `${row?.medianMs[set.database]?.at(-1)} ms`).join(' / '),
        );
      }
    }
  } finally {
    await Promise.all(pools.map((pool) => pool.end()));
  }
  const base = sets[0]?.database ?? '';
  const large = sets.find((set) => set.scale === 10)?.database;
  if (sets[0]?.scale !== 1 || large === undefined)
    return { sets: described, repetitions: reps, rows };
  const slowest = rows.reduce((a, b) =>
    median(b.medianMs[base] ?? []) > median(a.medianMs[base] ?? []) ? b : a,
  );
  const ratios = (slowest.medianMs[base] ?? []).map((small, r) =>
    round((slowest.medianMs[large]?.[r] ?? NaN) / small),
  );
  return {
    sets: described,
    repetitions: reps,
    rows,
    scaleGoal: { ...ratioGoal(ratios, 1.2), query: slowest.name },
  };
};

const isMain =
  process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href;
if (isMain) {
  const scales = process.env.BENCH_SCALE === '10' ? [1, 10] : [1];
  const result = await reportQueries(
    (line) => {
      console.error(line);
    },
    scales,
    1,
  );
  console.log(JSON.stringify(result, null, 2));
}
