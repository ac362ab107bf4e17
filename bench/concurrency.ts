/**
 * Issue 13's goal 4, for information: whole invocations of the packaged orders-per-day bundle
 * (built with serverless.yml's custom.esbuild, run on the deployed Node with its NODE_OPTIONS
 * and environment defaults: a pool of DB_POOL_MAX = 2) at 1, 8 and 32 concurrent invocations
 * in one process, i.e. one container sharing one pool, against the 1.2M-order data set of
 * bench/queries.ts (database portal_bench, which section 5 builds) for its busy restaurant, 31
 * days with a 31-day compare range (two queries). Each mode: fresh tokens (one never seen
 * before per invocation) and one repeated token. Beside each, the database's share: the same
 * two queries issued straight through postgres.js (its own pool of 2, prepared as the
 * handler's are) at the same
 * concurrency, no handler around them. p50 and p99 of per-invocation latency, from the call
 * to its resolved 200, after a warm-up of 100 invocations. Through PgBouncer: not measured
 * (no PgBouncer on the benchmark machine).
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { addDays, todayIn } from '../scripts/dates';
import { createIssuer, serveKeySet } from '../scripts/local/issuer';
import { loadAverage, nodeBinary, readDeployed } from './deployed';
import { orderDayEvent } from './fixtures';
import { bundle, ROOT, runChild } from './lib';

const BUSY = {
  id: 'BENCH-BUSY',
  platforms: [{ restaurantId: 'bx-busy', platformId: 'BX_AE', platformKey: 'BX_AE' }],
};
const CONCURRENCY = [1, 8, 32];
const SAMPLES = Number(process.env.BENCH_CONCURRENCY_SAMPLES ?? 640);

export interface ConcurrencyRow {
  readonly concurrency: number;
  readonly mode: 'fresh token' | 'repeated token' | 'queries alone';
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly samples: number;
}

export interface ConcurrencyResult {
  readonly loadAverage: string;
  readonly rows: ConcurrencyRow[];
  readonly pgBouncer: string;
}

/** The child: requires the bundle (argv[2]), then runs every concurrency level and mode. */
const CHILD = String.raw`
const fs = require('node:fs');
const [bundlePath, eventsFile, postgresPath, databaseUrl, sqlText, samplesText, levelsText] = process.argv.slice(2);
const { fresh, repeated, ranges } = JSON.parse(fs.readFileSync(eventsFile, 'utf8'));
const samples = Number(samplesText);
const levels = JSON.parse(levelsText);
const context = {
  awsRequestId: 'bench', functionName: 'bench', functionVersion: '$LATEST',
  invokedFunctionArn: 'arn:aws:lambda:eu-west-1:123456789012:function:bench',
  memoryLimitInMB: '512', logGroupName: 'bench', logStreamName: 'bench',
  callbackWaitsForEmptyEventLoop: true, getRemainingTimeInMillis: () => 9000,
  done() {}, fail() {}, succeed() {},
};
// The access line of every invocation goes to stdout as deployed; keep only our own line.
const write = process.stdout.write.bind(process.stdout);
process.stdout.write = () => true;
const { handler } = require(bundlePath);
const postgres = require(postgresPath);
const sql = postgres(databaseUrl, { max: 2, fetch_types: false, onnotice: () => undefined });
const quantile = (values, q) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.round(q * (sorted.length - 1)))];
};
let next = 0;
const freshEvent = () => fresh[next++ % fresh.length];
const timed = async (work) => {
  const start = process.hrtime.bigint();
  await work();
  return Number(process.hrtime.bigint() - start) / 1e6;
};
const invoke = async (event) => {
  const result = await handler(event, context);
  if (result.statusCode !== 200) throw new Error('status ' + result.statusCode + ': ' + result.body);
};
const queries = () =>
  Promise.all(ranges.map(([from, to]) => sql.unsafe(sqlText, [from, to], { prepare: true })));
const modes = {
  'fresh token': () => invoke(freshEvent()),
  'repeated token': () => invoke(repeated),
  'queries alone': queries,
};
(async () => {
  const first = await handler(repeated, context);
  if (!JSON.parse(first.body).data.some((row) => row.data.orderCount > 0)) {
    throw new Error('the busy restaurant has no orders in the range: ' + first.body.slice(0, 200));
  }
  for (let i = 0; i < 100; i += 1) {
    await modes['fresh token']();
    await modes['repeated token']();
    await queries();
  }
  const rows = [];
  for (const concurrency of levels) {
    for (const [mode, run] of Object.entries(modes)) {
      const times = [];
      while (times.length < samples) {
        times.push(...(await Promise.all(Array.from({ length: concurrency }, () => timed(run)))));
      }
      rows.push({ concurrency, mode, p50Ms: Math.round(quantile(times, 0.5) * 100) / 100,
        p99Ms: Math.round(quantile(times, 0.99) * 100) / 100, samples: times.length });
    }
  }
  await sql.end({ timeout: 1 });
  write('\nBENCH ' + JSON.stringify({ rows }) + '\n');
  process.exit(0);
})().catch((error) => {
  process.stderr.write(String(error && error.stack || error) + '\n');
  process.exit(1);
});
`;

/** The SQL of shared/reports/orders-per-day.sql.ts for the busy restaurant, $1..$2 the range. */
const ORDERS_PER_DAY_SQL = `
  with restaurant as (
    select r.time_zone, c.minor_units
    from restaurants r join currencies c on c.code = r.currency
    where r.id = '${BUSY.id}'
  ),
  totals as (
    select d.local_day as day, sum(d.orders) as orders, sum(d.revenue) as revenue
    from report_daily_orders d
    where d.restaurant_id = '${BUSY.id}'
      and d.platform_id = '${BUSY.platforms[0]?.platformId ?? ''}'
      and d.day >= $1::date
      and d.day <= $2::date
    group by 1
  )
  select to_char(days.day, 'YYYY-MM-DD') as date,
         coalesce(totals.orders, 0)::int as order_count,
         round(coalesce(totals.revenue, 0),
               coalesce((select minor_units from restaurant), 2))::text as revenue
  from generate_series($1::date, $2::date, interval '1 day') as days(day)
  left join totals on totals.day = days.day::date
  order by days.day`;

export const concurrency = async (
  log: (line: string) => void,
  databaseUrl = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/portal_bench',
): Promise<ConcurrencyResult> => {
  const deployed = readDeployed();
  const node = nodeBinary(deployed.nodeMajor);
  if (!node) throw new Error(`npx -p node@${deployed.nodeMajor} could not provide Node`);
  const dir = await mkdtemp(join(tmpdir(), 'portal-bench-concurrency-'));
  const issuer = await createIssuer();
  const server = await serveKeySet(() => issuer.publicKeySet);
  try {
    const outfile = join(dir, 'orders-per-day.cjs');
    await bundle(join(ROOT, 'functions/orders-per-day.ts'), outfile, ['pg-native']);
    const today = todayIn('Asia/Dubai');
    const ranges = [
      [addDays(today, -30), today],
      [addDays(today, -61), addDays(today, -31)],
    ];
    const eventFor = (token: string) => {
      const event = orderDayEvent(token, today);
      const query = {
        from: ranges[0]?.[0] ?? '',
        to: ranges[0]?.[1] ?? '',
        'compare[from]': ranges[1]?.[0] ?? '',
        'compare[to]': ranges[1]?.[1] ?? '',
      };
      return {
        ...event,
        path: `/v1/restaurants/${BUSY.id}/reports/orders/day`,
        pathParameters: { id: BUSY.id },
        headers: { ...event.headers, 'X-Platform-Id': 'BX_AE' },
        multiValueHeaders: { ...event.multiValueHeaders, 'X-Platform-Id': ['BX_AE'] },
        queryStringParameters: query,
        multiValueQueryStringParameters: Object.fromEntries(
          Object.entries(query).map(([k, v]) => [k, [v]]),
        ),
      };
    };
    const claims = (i: number) => ({
      sub: 'bench-busy-owner',
      authSchema: JSON.stringify({ restaurants: [BUSY] }),
      jti: `concurrency-${i}`,
    });
    const total = 100 + SAMPLES * CONCURRENCY.length + 32;
    log(`  signing ${total} tokens`);
    const fresh = [];
    for (let i = 0; i < total; i += 1) {
      fresh.push(eventFor(await issuer.sign(claims(i), { expiresIn: '2h' })));
    }
    const repeated = eventFor(await issuer.sign(claims(-1), { expiresIn: '2h' }));
    const eventsFile = join(dir, 'events.json');
    await writeFile(eventsFile, JSON.stringify({ fresh, repeated, ranges }));
    const child = join(dir, 'child.cjs');
    await writeFile(child, CHILD);
    const env = {
      ...deployed.environment,
      ...(deployed.nodeOptions ? { NODE_OPTIONS: deployed.nodeOptions } : {}),
      JWKS_URL: server.url,
      DATABASE_URL: databaseUrl,
      JWT_ISSUER: issuer.issuer,
      NODE_ENV: 'production',
    };
    const load = loadAverage();
    log(`  load ${load}; ${SAMPLES} invocations per level and mode`);
    const result = await runChild(
      child,
      [
        outfile,
        eventsFile,
        join(ROOT, 'node_modules/postgres/cjs/src/index.js'),
        databaseUrl,
        ORDERS_PER_DAY_SQL,
        String(SAMPLES),
        JSON.stringify(CONCURRENCY),
      ],
      env,
      600_000,
      node,
    );
    const rows = result.rows as ConcurrencyRow[];
    for (const r of rows) {
      log(`  ${r.concurrency} concurrent, ${r.mode}: p50 ${r.p50Ms} ms, p99 ${r.p99Ms} ms`);
    }
    return {
      loadAverage: load,
      rows,
      pgBouncer: 'not measured: no PgBouncer on the benchmark machine',
    };
  } finally {
    await server.close();
    await rm(dir, { recursive: true, force: true });
  }
};
