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
 * to its resolved 200, after a warm-up of 100 invocations. Then the same through PgBouncer in
 * transaction mode (DB_PREPARE=false) when a `pgbouncer` binary is installed: started here on a
 * free port with a configuration of its own (as tests/integration/db/pgbouncer.test.ts does:
 * two server connections, statement_timeout ignored, `-u postgres` when run as root), stopped
 * afterwards.
 */
import { execFileSync, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chmod, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { connect, createServer, type AddressInfo } from 'node:net';
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
const SAMPLES = Number(process.env.BENCH_CONCURRENCY_SAMPLES ?? 400);

export interface ConcurrencyRow {
  /** Straight to PostgreSQL through the pool, or through PgBouncer. */
  readonly path: string;
  readonly loadAverage: string;
  readonly concurrency: number;
  readonly mode: 'fresh token' | 'repeated token' | 'queries alone';
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly samples: number;
}

export interface ConcurrencyResult {
  readonly rows: ConcurrencyRow[];
  readonly pgBouncer: string;
}

/** The child: requires the bundle (argv[2]), then runs every concurrency level and mode. */
const CHILD = String.raw`
const fs = require('node:fs');
const [bundlePath, eventsFile, postgresPath, databaseUrl, sqlText, samplesText, levelsText, prepareText] = process.argv.slice(2);
const prepare = prepareText === 'true';
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
const sql = postgres(databaseUrl, { max: 2, fetch_types: false, prepare, onnotice: () => undefined });
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
  Promise.all(ranges.map(([from, to]) => sql.unsafe(sqlText, [from, to], { prepare })));
const modes = {
  'fresh token': () => invoke(freshEvent()),
  'repeated token': () => invoke(repeated),
  'queries alone': queries,
};
(async () => {
  const first = await handler(repeated, context);
  if (!JSON.parse(first.body).data.some((row) => row.data.orderCount > 0)) {
    throw new Error('the busy restaurant has no orders in the range: ' + first.statusCode + ' ' + first.body.slice(0, 300));
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
      JWT_ISSUER: issuer.issuer,
      NODE_ENV: 'production',
    };
    const run = async (url: string, prepare: boolean, path: string) => {
      const load = loadAverage();
      log(`  ${path} (load ${load}): ${SAMPLES} invocations per level and mode`);
      const result = await runChild(
        child,
        [
          outfile,
          eventsFile,
          join(ROOT, 'node_modules/postgres/cjs/src/index.js'),
          url,
          ORDERS_PER_DAY_SQL,
          String(SAMPLES),
          JSON.stringify(CONCURRENCY),
          String(prepare),
        ],
        { ...env, DATABASE_URL: url, DB_PREPARE: String(prepare) },
        600_000,
        node,
      );
      const rows = (result.rows as Omit<ConcurrencyRow, 'path' | 'loadAverage'>[]).map((r) => ({
        ...r,
        path,
        loadAverage: load,
      }));
      for (const r of rows) {
        log(
          `  ${path}, ${r.concurrency} concurrent, ${r.mode}: p50 ${r.p50Ms} ms, p99 ${r.p99Ms} ms`,
        );
      }
      return rows;
    };
    const rows = await run(databaseUrl, deployed.environment.DB_PREPARE !== 'false', 'one pool');
    const bouncer = await startPgBouncer(dir, databaseUrl);
    let pgBouncer: string;
    if (typeof bouncer === 'string') pgBouncer = `not measured: ${bouncer}`;
    else {
      try {
        // Transaction pooling: no named statements (DB_PREPARE=false, as serverless.yml says).
        rows.push(...(await run(bouncer.url, false, 'PgBouncer (transaction mode)')));
        pgBouncer = `${bouncer.version}, pool_mode transaction, default_pool_size 2`;
      } finally {
        bouncer.stop();
      }
    }
    return { rows, pgBouncer };
  } finally {
    await server.close();
    await rm(dir, { recursive: true, force: true });
  }
};

interface Bouncer {
  readonly url: string;
  readonly version: string;
  readonly stop: () => void;
}

const PGBOUNCER_PATHS = ['/usr/sbin/pgbouncer', '/usr/bin/pgbouncer', '/usr/local/bin/pgbouncer'];

/** Starts PgBouncer in front of `databaseUrl`, or says why not. */
const startPgBouncer = async (dir: string, databaseUrl: string): Promise<Bouncer | string> => {
  const binary = PGBOUNCER_PATHS.find((path) => existsSync(path));
  if (!binary) return 'no pgbouncer binary installed (apt-get install pgbouncer)';
  const target = new URL(databaseUrl);
  const port = await freePort();
  const work = join(dir, 'pgbouncer');
  await mkdir(work, { recursive: true });
  const user = decodeURIComponent(target.username || 'postgres');
  await writeFile(join(work, 'users.txt'), `"${user}" ""\n`);
  await writeFile(
    join(work, 'pgbouncer.ini'),
    [
      '[databases]',
      `bench = host=${target.hostname} port=${target.port || '5432'} dbname=${target.pathname.slice(1)} user=${user}`,
      '[pgbouncer]',
      'listen_addr = 127.0.0.1',
      `listen_port = ${port}`,
      'unix_socket_dir =',
      'auth_type = trust',
      `auth_file = ${join(work, 'users.txt')}`,
      'pool_mode = transaction',
      'default_pool_size = 2',
      'max_client_conn = 200',
      // The service's startup parameter PgBouncer does not track (docs/database.md, "Behind a proxy").
      'ignore_startup_parameters = statement_timeout',
      `logfile = ${join(work, 'pgbouncer.log')}`,
      '',
    ].join('\n'),
  );
  const asRoot = process.getuid?.() === 0;
  if (asRoot) {
    await chmod(dir, 0o755);
    await chmod(work, 0o777);
  }
  const version = execFileSync(binary, ['--version'], { encoding: 'utf8' }).split('\n')[0] ?? '';
  const child = spawn(
    binary,
    [...(asRoot ? ['-u', 'postgres'] : []), join(work, 'pgbouncer.ini')],
    {
      stdio: 'ignore',
    },
  );
  const stop = () => {
    child.kill('SIGTERM');
  };
  const url = `postgres://${encodeURIComponent(user)}@127.0.0.1:${port}/bench`;
  for (let i = 0; i < 50; i += 1) {
    if (child.exitCode !== null) return `pgbouncer exited with ${child.exitCode}`;
    if (await accepts(port)) return { url, version, stop };
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  stop();
  return 'pgbouncer did not listen within 5 s';
};

const freePort = (): Promise<number> =>
  new Promise((resolve, reject) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => {
        resolve(port);
      });
    });
    server.on('error', reject);
  });

const accepts = (port: number): Promise<boolean> =>
  new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.on('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.on('error', () => {
      resolve(false);
    });
  });
