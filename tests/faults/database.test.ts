/**
 * Faults / Database: the report endpoint against a real PostgreSQL server
 * (TEST_DATABASE_URL) that is down at cold start, drops the connection mid-query, runs slower
 * than the statement timeout, or answers slower than the Lambda deadline. Each fault must end in
 * a 500 INTERNAL_ERROR with the spec body and the CORS header in bounded time, logged by name
 * only; the NEXT invocation of the same handler (same dependencies: the same warm container)
 * must answer 200 without a restart. A thousand invocations must not leak connections.
 *
 * The service reaches the database through a TCP proxy on 127.0.0.1 (tests/support/tcp-proxy.ts)
 * that can refuse, black-hole, hang up, drop or delay; its upstream ports identify exactly this
 * suite's backends in pg_stat_activity. Slowness comes from a test schema placed first on the
 * search path (a startup parameter in the URL) holding a view `restaurants` over
 * public.restaurants that sleeps while a flag row says so: switchable without a restart.
 *
 * Each query has a deadline (shared/db/watch.ts): one silent connection among live ones costs
 * that connection only, and behind a real PgBouncer whose one server connection is busy, a
 * query waits in its queue up to DB_PROXY_QUEUE_MS, or fails at the request's deadline with the
 * pool kept.
 */
import type { APIGatewayProxyResult, Context } from 'aws-lambda';
import postgres from 'postgres';
import { reportEndpoint } from '../../middleware/compose';
import { SAMPLE_OWNER, SAMPLE_OWNERS, type SampleOwner } from '../../tools/db/sample-data';
import { loadConfig } from '../../shared/config';
import { QUERY_MARGIN_MS } from '../../shared/db/watch';
import { ANSWER_MARGIN_MS } from '../../shared/deadline';
import type { DateRange } from '../../shared/dates';
import { addDays, eachDay, todayIn } from '../../tools/dates';
import { ordersPerDay } from '../../shared/reports/orders-per-day';
import { createDependencies, type Dependencies } from '../../shared/runtime';
import { jsonBody, lambdaContext, restEvent } from '../support/events';
import { captureLogs, claimSecrets, type LogCapture } from '../support/log-capture';
import { expectedDays, rawOrders } from '../support/oracle';
import { startPgBouncer, type PgBouncer } from '../support/pgbouncer';
import { startTcpProxy, type TcpProxy } from '../support/tcp-proxy';
import { tokenFor } from '../support/tokens';

const ORDERS_DAY = '/v1/restaurants/{id}/reports/orders/day';
const APPLICATION_NAME = 'portal-service-api';
const INTERNAL_ERROR = { state: 'ERROR', code: 'INTERNAL_ERROR', message: 'Unknown error' };
const FORBIDDEN = { state: 'ERROR', code: 'FORBIDDEN', message: 'Forbidden' };
const OUT_OF_RANGE = {
  state: 'ERROR',
  code: 'OUT_OF_RANGE',
  message: 'Only 31 days can be selected',
};
/** What the error line of a 500 may hold: codes, names, ids; never a message, SQL or stack. */
const ERROR_LINE_FIELDS = [
  'level',
  'message',
  'time',
  'route',
  'requestId',
  'status',
  'code',
  'errorName',
  'errorCode',
];
/** The test schema that slows `restaurants` down; one per run so parallel runs never meet. */
const SLOW = `slow_faults_${process.pid}`;
/** Statement timeout and connect timeout of the fault endpoints (function timeout: 10 s). */
const STATEMENT_TIMEOUT_MS = 300;
const POOL_MAX = 2;

type Handler = (event: unknown, context: Context) => Promise<APIGatewayProxyResult>;
interface Endpoint {
  readonly handler: Handler;
  readonly deps: Dependencies;
}

const [owner1] = SAMPLE_OWNERS as [SampleOwner];
let admin: postgres.Sql | undefined;
let target: { host: string; port: number; database: string; user: string; password: string };
let token = '';
let week: DateRange;
let lastWeek: DateRange;
let expectedWeek: unknown;
let expectedWeekWithCompare: unknown;

/** Everything a test builds, closed after it whatever happened. */
let proxies: TcpProxy[] = [];
let built: Dependencies[] = [];
let logs: LogCapture | undefined;

const adminSql = (): postgres.Sql => {
  if (!admin) throw new Error('The suite setup did not run (see the first failure)');
  return admin;
};

beforeAll(async () => {
  const url = process.env.TEST_DATABASE_URL?.trim();
  if (!url || process.env.TEST_DATABASE_KIND !== 'postgresql') {
    throw new Error(
      'tests/faults need a real PostgreSQL server: set TEST_DATABASE_URL ' +
        '(e.g. TEST_DATABASE_URL=postgres://postgres@127.0.0.1:5432/test npm run test:faults). ' +
        'PGlite has neither a statement timeout nor backends to terminate.',
    );
  }
  const parsed = new URL(url);
  target = {
    host: parsed.hostname,
    port: Number(parsed.port || '5432'),
    database: decodeURIComponent(parsed.pathname.slice(1)),
    user: decodeURIComponent(parsed.username),
    password: decodeURIComponent(parsed.password),
  };
  admin = postgres(url, {
    max: 1,
    onnotice: () => undefined,
    connection: { application_name: 'portal-faults-admin' },
  });
  const sql = adminSql();
  await sql.unsafe(`
    drop schema if exists ${SLOW} cascade;
    create schema ${SLOW};
    create table ${SLOW}.delay (seconds double precision not null);
    insert into ${SLOW}.delay values (0);
    create function ${SLOW}.pause() returns boolean language plpgsql volatile as $$
      begin
        perform pg_sleep((select seconds from ${SLOW}.delay));
        return true;
      end
    $$;
    create view ${SLOW}.restaurants as
      select r.* from public.restaurants r where ${SLOW}.pause();
  `);
  token = await tokenFor(SAMPLE_OWNER);
  const today = todayIn('Asia/Dubai');
  week = { from: addDays(today, -6), to: today };
  lastWeek = { from: addDays(today, -13), to: addDays(today, -7) };
  const orders = await rawOrders('R-1001', 'TB_AE');
  const main = expectedDays(orders, 'Asia/Dubai', eachDay(week), 2);
  const compare = expectedDays(orders, 'Asia/Dubai', eachDay(lastWeek), 2);
  expectedWeek = { data: main.map((data) => ({ data })) };
  expectedWeekWithCompare = { data: main.map((data, i) => ({ data, compare: compare[i] })) };
});

afterEach(async () => {
  logs?.stop();
  logs = undefined;
  await Promise.all(built.map((deps) => deps.close()));
  const ports = proxies.flatMap((proxy) => proxy.upstreamPorts());
  await Promise.all(proxies.map((proxy) => proxy.close()));
  built = [];
  proxies = [];
  if (!admin) return;
  await admin`update ${admin(SLOW)}.delay set seconds = 0`;
  // A backend sleeping behind a dropped socket only notices when it next writes: end it.
  if (ports.length > 0) {
    await admin`
      select pg_terminate_backend(pid) from pg_stat_activity
      where client_port = any(${ports}::int[]) and pid <> pg_backend_pid()`;
  }
});

afterAll(async () => {
  if (!admin) return;
  await admin.unsafe(`drop schema if exists ${SLOW} cascade`);
  await admin.end();
});

// --- helpers -------------------------------------------------------------------------------

const proxy = async (): Promise<TcpProxy> => {
  const started = await startTcpProxy({ targetHost: target.host, targetPort: target.port });
  proxies.push(started);
  return started;
};

/** The database URL through the proxy; `slow` puts the test schema first on the search path. */
const urlThrough = (via: TcpProxy, { slow = false } = {}): string => {
  const url = new URL('postgres://127.0.0.1');
  url.port = String(via.port);
  url.pathname = `/${target.database}`;
  url.username = target.user;
  url.password = target.password;
  if (slow) url.searchParams.set('search_path', `${SLOW},public`);
  return url.toString();
};

/** A report endpoint with its own dependencies: one warm container. */
const endpoint = (
  databaseUrl: string,
  {
    statementTimeoutMs = STATEMENT_TIMEOUT_MS,
    env = {},
  }: { statementTimeoutMs?: number; env?: Record<string, string> } = {},
): Endpoint => {
  const deps = createDependencies(
    loadConfig({
      ...process.env,
      DATABASE_URL: databaseUrl,
      DB_STATEMENT_TIMEOUT_MS: String(statementTimeoutMs),
      DB_CONNECT_TIMEOUT_SECONDS: '1',
      DB_POOL_MAX: String(POOL_MAX),
      LOG_LEVEL: 'info',
      ...env,
    }),
  );
  built.push(deps);
  return {
    handler: reportEndpoint(
      ordersPerDay,
      deps.database.bind(ordersPerDay.queries),
      deps,
    ) as unknown as Handler,
    deps,
  };
};

const reportEvent = ({
  id = 'R-1001',
  query = { from: week.from, to: week.to },
}: { id?: string; query?: Record<string, string> } = {}) =>
  restEvent({
    resource: ORDERS_DAY,
    pathParameters: { id },
    headers: { Authorization: `Bearer ${token}`, 'X-Platform-Id': 'TB_AE' },
    query,
  });

const withCompare = () => ({
  from: week.from,
  to: week.to,
  'compare[from]': lastWeek.from,
  'compare[to]': lastWeek.to,
});

/** A Lambda context whose deadline is `ms` from now: Middy's early timeout is on. */
const contextWithDeadline = (ms: number): Context => {
  const deadline = Date.now() + ms;
  return { ...lambdaContext(), getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()) };
};

const timed = async (
  { handler }: Endpoint,
  event: unknown = reportEvent(),
  context: Context = lambdaContext(),
): Promise<{ result: APIGatewayProxyResult; ms: number }> => {
  const started = performance.now();
  const result = await handler(event, context);
  return { result, ms: performance.now() - started };
};

const expectInternalError = (result: APIGatewayProxyResult) => {
  expect({ status: result.statusCode, body: jsonBody(result) }).toEqual({
    status: 500,
    body: INTERNAL_ERROR,
  });
  expect(result.body).toBe(JSON.stringify(INTERNAL_ERROR));
  expect(result.headers).toMatchObject({
    'Access-Control-Allow-Origin': '*',
    'Content-Type': 'application/json',
  });
};

const expectRecovered = (result: APIGatewayProxyResult, expected: unknown = expectedWeek) => {
  expect({ status: result.statusCode, body: jsonBody(result) }).toEqual({
    status: 200,
    body: expected,
  });
  expect(result.headers).toMatchObject({ 'Access-Control-Allow-Origin': '*' });
};

type LogLine = Record<string, unknown>;
const parsedLines = (capture: LogCapture): LogLine[] =>
  capture.lines().map((line) => JSON.parse(line) as LogLine);

/**
 * Exactly one error line for the failure, by name and code only; no token, claim value, SQL,
 * stack, database message or address anywhere in the logs.
 */
const expectFailureLogged = (
  capture: LogCapture,
  via: TcpProxy,
  fault: { errorName: unknown; errorCode?: string },
) => {
  const failures = parsedLines(capture).filter((line) => line.message === 'request failed');
  expect(failures).toHaveLength(1);
  const [line] = failures as [LogLine];
  expect(line).toMatchObject({
    level: 'error',
    status: 500,
    code: 'INTERNAL_ERROR',
    route: `GET ${ORDERS_DAY}`,
    ...fault,
  });
  expect(Object.keys(line).filter((key) => !ERROR_LINE_FIELDS.includes(key))).toEqual([]);
  capture.expectClean([
    token,
    ...claimSecrets(owner1),
    owner1.sub,
    `127.0.0.1:${via.port}`,
    SLOW,
    'pg_sleep',
    'canceling statement',
    'terminating connection',
    'restaurants r',
  ]);
};

/** The log lines with `message`. */
const linesSaying = (capture: LogCapture, message: string): LogLine[] =>
  parsedLines(capture).filter((line) => line.message === message);

const sleepMs = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls until `check` returns a value, for at most `limitMs`. */
const waitFor = async <T>(
  what: string,
  check: () => Promise<T | undefined>,
  limitMs = 5000,
): Promise<T> => {
  const deadline = performance.now() + limitMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (performance.now() > deadline) throw new Error(`Timed out waiting for ${what}`);
    await sleepMs(20);
  }
};

const setSlow = async (seconds: number) => {
  const sql = adminSql();
  await sql`update ${sql(SLOW)}.delay set seconds = ${seconds}`;
};

/** The service's backends behind this proxy, from the server's own view. */
const serviceBackends = async (via: TcpProxy) => {
  const sql = adminSql();
  return sql<{ pid: number; state: string | null; wait_event: string | null }[]>`
    select pid, state, wait_event from pg_stat_activity
    where application_name = ${APPLICATION_NAME}
      and client_port = any(${via.upstreamPorts()}::int[])`;
};

/** Waits for the service's query to be asleep in the slow view, and returns its backend. */
const sleepingBackend = (via: TcpProxy) =>
  waitFor('the report query to be running', async () =>
    (await serviceBackends(via)).find(
      (backend) => backend.state === 'active' && backend.wait_event === 'PgSleep',
    ),
  );

// --- the faults ----------------------------------------------------------------------------

describe('Faults / Database (real PostgreSQL at TEST_DATABASE_URL)', () => {
  beforeEach(() => {
    logs = captureLogs();
  });

  describe('down at cold start', () => {
    it('nothing listening (connection refused): 500 at once, then 200 from the same container once it is back', async () => {
      const via = await proxy();
      await via.setMode('refuse');
      const service = endpoint(urlThrough(via));

      const down = await timed(service);
      await via.setMode('pass');
      const back = await timed(service);

      expectInternalError(down.result);
      expect(down.ms).toBeLessThan(2000);
      expectRecovered(back.result);
      // ECONNREFUSED comes from node:net, another realm than Jest's test context, where
      // `instanceof Error` fails and describeError logs only its type; in Lambda it is 'Error'.
      expectFailureLogged(logs!, via, { errorName: expect.any(String) });
    });

    it("connection accepted but never answered (black hole): 500 at the query's deadline (statement timeout + margin, before the 1 s connect timeout), then 200", async () => {
      const via = await proxy();
      await via.setMode('black-hole');
      const service = endpoint(urlThrough(via));

      const down = await timed(service);
      await via.setMode('pass');
      const back = await timed(service);

      expectInternalError(down.result);
      expect(down.ms).toBeGreaterThanOrEqual(STATEMENT_TIMEOUT_MS + QUERY_MARGIN_MS - 50);
      expect(down.ms).toBeLessThan(3000);
      expectRecovered(back.result);
      expectFailureLogged(logs!, via, {
        errorName: 'DatabaseTimeoutError',
        errorCode: 'ERR_DATABASE_TIMEOUT',
      });
      // The warm-up's, on connections never greeted, and the request's: on those, or on none
      // left when the warm-up's deadline had destroyed them first.
      const passed = linesSaying(logs!, 'database query passed its deadline');
      expect(passed.map((line) => line.stage)).toContain('connect');
      expect(passed.filter((line) => line.stage === 'query')).toEqual([]);
    });

    it('connection accepted and closed at once without a word (hang-up): 500 before the Lambda deadline, a bounded number of connection attempts, then 200', async () => {
      const via = await proxy();
      await via.setMode('hang-up');
      const service = endpoint(urlThrough(via));

      // The 1 s connect timeout does not apply here (each attempt ends before it); what bounds
      // the answer today is Middy's early timeout before the Lambda deadline.
      const down = await timed(service, reportEvent(), contextWithDeadline(2000));
      const attempts = via.stats().accepted;
      await sleepMs(500);
      const attemptsAfterAnswer = via.stats().accepted - attempts;
      await via.setMode('pass');
      const back = await timed(service, reportEvent(), contextWithDeadline(10_000));

      expectInternalError(down.result);
      expect(down.ms).toBeLessThan(2500);
      expectRecovered(back.result);
      expectFailureLogged(logs!, via, { errorName: expect.any(String) });
      // A pool of 2 may retry a few times, but must not hammer a failing server, neither
      // while the invocation waits nor after it was answered.
      expect(attempts).toBeGreaterThanOrEqual(1);
      expect({
        attempts,
        attemptsAfterAnswer,
        bounded: attempts <= 20 && attemptsAfterAnswer <= 10,
      }).toEqual({
        attempts,
        attemptsAfterAnswer,
        bounded: true,
      });
    });
  });

  describe('dropped mid-query', () => {
    it('backend terminated by the server while the query runs: 500 at once, then 200 on the next invocation', async () => {
      const via = await proxy();
      const service = endpoint(urlThrough(via, { slow: true }), { statementTimeoutMs: 5000 });
      expectRecovered((await timed(service)).result);
      await setSlow(10);

      const pending = timed(service);
      const backend = await sleepingBackend(via);
      const terminatedAt = performance.now();
      await adminSql()`select pg_terminate_backend(${backend.pid})`;
      const dropped = await pending;
      const answeredAfterMs = performance.now() - terminatedAt;
      await setSlow(0);
      const back = await timed(service);

      expectInternalError(dropped.result);
      expect(answeredAfterMs).toBeLessThan(1000);
      expectRecovered(back.result);
      // The server's FATAL 57P01 arrives, but postgres.js reports the closed connection.
      expectFailureLogged(logs!, via, { errorName: 'Error', errorCode: 'CONNECTION_CLOSED' });
    });

    it('every connection dropped by the network while the query runs: 500 at once, then 200 on the next invocation', async () => {
      const via = await proxy();
      const service = endpoint(urlThrough(via, { slow: true }), { statementTimeoutMs: 5000 });
      expectRecovered((await timed(service)).result);
      await setSlow(10);

      const pending = timed(service);
      await sleepingBackend(via);
      const droppedAt = performance.now();
      via.dropAll();
      const dropped = await pending;
      const answeredAfterMs = performance.now() - droppedAt;
      await setSlow(0);
      const back = await timed(service);

      expectInternalError(dropped.result);
      expect(answeredAfterMs).toBeLessThan(1000);
      expectRecovered(back.result);
      expect(via.stats().accepted).toBeGreaterThan(1);
      expectFailureLogged(logs!, via, { errorName: 'Error', errorCode: 'CONNECTION_CLOSED' });
    });
  });

  describe('slow beyond the statement timeout', () => {
    it(`a 5 s query is cancelled by the server at ${STATEMENT_TIMEOUT_MS} ms (57014): 500 well under a second, then 200`, async () => {
      const via = await proxy();
      const service = endpoint(urlThrough(via, { slow: true }));
      expectRecovered((await timed(service)).result);
      // The pool's connections, opened at initialisation (shared/runtime.ts).
      const opened = via.stats().accepted;
      await setSlow(5);

      const slow = await timed(service);
      await setSlow(0);
      const back = await timed(service);

      expectInternalError(slow.result);
      expect(slow.ms).toBeGreaterThanOrEqual(STATEMENT_TIMEOUT_MS - 50);
      expect(slow.ms).toBeLessThan(1500);
      expectRecovered(back.result);
      // The server cancelled the statement; the connection survived: no new one was needed.
      expect(via.stats().accepted).toBe(opened);
      expectFailureLogged(logs!, via, { errorName: 'PostgresError', errorCode: '57014' });
    });

    it('both queries of a compared report are cancelled: 500, then 200 with the comparison', async () => {
      const via = await proxy();
      const service = endpoint(urlThrough(via, { slow: true }));
      const compared = () => reportEvent({ query: withCompare() });
      expectRecovered((await timed(service, compared())).result, expectedWeekWithCompare);
      await setSlow(5);

      const slow = await timed(service, compared());
      await setSlow(0);
      const back = await timed(service, compared());

      expectInternalError(slow.result);
      expect(slow.ms).toBeLessThan(1500);
      expectRecovered(back.result, expectedWeekWithCompare);
      expectFailureLogged(logs!, via, { errorName: 'PostgresError', errorCode: '57014' });
    });
  });

  describe('repeated faults', () => {
    it('ten statement timeouts, each followed by a success, leave no connection behind', async () => {
      const via = await proxy();
      const service = endpoint(urlThrough(via, { slow: true }));
      const statuses: number[] = [];

      for (let round = 0; round < 10; round += 1) {
        await setSlow(5);
        statuses.push((await timed(service)).result.statusCode);
        await setSlow(0);
        statuses.push((await timed(service)).result.statusCode);
      }
      const backends = await serviceBackends(via);

      expect(statuses).toEqual(Array.from({ length: 10 }, () => [500, 200]).flat());
      expect(via.stats().accepted).toBeLessThanOrEqual(POOL_MAX);
      expect(backends.length).toBeLessThanOrEqual(POOL_MAX);
      expect(backends.every((backend) => backend.state === 'idle')).toBe(true);
    });
  });

  describe('hung network, no server-side bound', () => {
    it("responses delayed 2 s: the request's deadline answers 500 before a 500 ms Lambda deadline, with the answer's margin left, then 200", async () => {
      const via = await proxy();
      const service = endpoint(urlThrough(via));
      expectRecovered((await timed(service, reportEvent(), contextWithDeadline(10_000))).result);
      via.setResponseDelay(2000);

      const hung = await timed(service, reportEvent(), contextWithDeadline(500));
      via.setResponseDelay(0);
      const back = await timed(service, reportEvent(), contextWithDeadline(10_000));

      expectInternalError(hung.result);
      expect(hung.ms).toBeGreaterThanOrEqual(500 - ANSWER_MARGIN_MS - 50);
      expect(hung.ms).toBeLessThan(500);
      expectRecovered(back.result);
      expectFailureLogged(logs!, via, {
        errorName: 'DatabaseTimeoutError',
        errorCode: 'ERR_DATABASE_TIMEOUT',
      });
      expect(linesSaying(logs!, 'database query passed its deadline')).toMatchObject([
        { stage: 'query', deadline: 'request', dropped: 1 },
      ]);
    });
  });

  describe('silent database, then a failover', () => {
    it(`every connection silent and new ones never greeted: each request 500 within the statement timeout + 1 s, counted as a database timeout; after the failover the same container answers 200 within 5 s and stays 200`, async () => {
      const via = await proxy();
      const service = endpoint(urlThrough(via));
      // A warm container: initialisation's connections open and answered.
      await service.deps.ready;
      expectRecovered((await timed(service)).result);
      // A deadline 10 s away, as the function timeout: every answer must come well before it.
      const deadline = () => contextWithDeadline(10_000);

      via.silenceAll();
      await via.setMode('black-hole');
      const silent: { result: APIGatewayProxyResult; ms: number }[] = [];
      for (let i = 0; i < 4; i += 1) silent.push(await timed(service, reportEvent(), deadline()));
      await via.setMode('pass');
      const failoverAt = performance.now();
      const first = await timed(service, reportEvent(), deadline());
      const recoveredAfterMs = performance.now() - failoverAt;
      const after: number[] = [];
      for (let i = 0; i < 5; i += 1) {
        after.push((await timed(service, reportEvent(), deadline())).result.statusCode);
      }

      for (const { result, ms } of silent) {
        expectInternalError(result);
        expect(ms).toBeLessThan(STATEMENT_TIMEOUT_MS + 1000);
      }
      expectRecovered(first.result);
      expect(recoveredAfterMs).toBeLessThan(5000);
      expect(after).toEqual([200, 200, 200, 200, 200]);
      const lines = parsedLines(logs!);
      const failures = lines.filter((line) => line.message === 'request failed');
      expect(failures).toHaveLength(silent.length);
      // The first two wait on the pool's two silent connections, each dropped in turn; the
      // later ones on new connections that are never greeted, which replace the pool.
      expect(failures.map((line) => line.errorCode)).toEqual(
        silent.map(() => 'ERR_DATABASE_TIMEOUT'),
      );
      // Each request drops the silent connections its queries waited on; once none is left,
      // new connections are never greeted, and each such failure replaces the pool.
      const stages = linesSaying(logs!, 'database query passed its deadline').map(
        (line) => line.stage,
      );
      expect(stages).toContain('query');
      expect(stages).toContain('connect');
      expect(
        stages.filter((stage) => !['query', 'connect', 'pool'].includes(stage as string)),
      ).toEqual([]);
      expect(
        linesSaying(logs!, 'database unreachable: no connection could be made; pool replaced')
          .length,
      ).toBeGreaterThanOrEqual(1);
      const requests = lines.filter((line) => line.message === 'request');
      expect(requests.map((line) => [line.status, line.DatabaseErrors])).toEqual([
        [200, 0],
        ...silent.map(() => [500, 1]),
        [200, 0],
        ...after.map(() => [200, 0]),
      ]);
      logs!.expectClean([token, ...claimSecrets(owner1), owner1.sub, `127.0.0.1:${via.port}`]);
    });
  });

  describe('one connection dead among live ones', () => {
    it("a compared report with one of its two connections silent: 500 with CORS at the query's deadline, only that connection dropped, and a steady load after it all 200 on the other", async () => {
      const via = await proxy();
      const service = endpoint(urlThrough(via));
      const compared = () => reportEvent({ query: withCompare() });
      await service.deps.ready;
      expectRecovered((await timed(service, compared())).result, expectedWeekWithCompare);
      expect(via.stats()).toMatchObject({ accepted: POOL_MAX, open: POOL_MAX });
      const [silencedPort] = via.silenceFirst(1);

      // Compared reports until one sends a query on the silent connection (the first, or the
      // next: postgres.js picks among idle connections), then a steady single-query load.
      const compares: { result: APIGatewayProxyResult; ms: number }[] = [];
      while (compares.length < 5 && compares.every(({ result }) => result.statusCode === 200)) {
        compares.push(await timed(service, compared(), contextWithDeadline(10_000)));
      }
      const failed = compares.at(-1)!;
      const steady: number[] = [];
      for (let i = 0; i < 20; i += 1) {
        steady.push(
          (await timed(service, reportEvent(), contextWithDeadline(10_000))).result.statusCode,
        );
      }
      const backends = await serviceBackends(via);

      expectInternalError(failed.result);
      expect(failed.ms).toBeGreaterThanOrEqual(STATEMENT_TIMEOUT_MS + QUERY_MARGIN_MS - 50);
      expect(failed.ms).toBeLessThan(STATEMENT_TIMEOUT_MS + QUERY_MARGIN_MS + 1000);
      expect(steady).toEqual(steady.map(() => 200));
      // The live connection carried the load: the dead one closed, none was opened.
      expect(via.stats()).toMatchObject({ accepted: POOL_MAX, open: POOL_MAX - 1 });
      expect(backends.length).toBeGreaterThanOrEqual(1);
      // One connection dropped, by the query on it; the report's other queries, waiting their
      // turn on the pool, may pass the same deadline with nothing to drop.
      const passed = linesSaying(logs!, 'database query passed its deadline');
      expect(passed.filter((line) => line.dropped !== 0)).toMatchObject([
        { stage: 'query', deadline: 'query', path: 'direct', dropped: 1 },
      ]);
      expect(passed.map((line) => line.stage).sort()).toEqual(
        ['query', ...passed.slice(1).map(() => 'pool')].sort(),
      );
      expect(
        linesSaying(logs!, 'database unreachable: no connection could be made; pool replaced'),
      ).toEqual([]);
      expect(silencedPort).toEqual(expect.any(Number));
      expectFailureLogged(logs!, via, {
        errorName: 'DatabaseTimeoutError',
        errorCode: 'ERR_DATABASE_TIMEOUT',
      });
    });
  });

  describe('behind a busy PgBouncer (transaction pooling, one server connection)', () => {
    /** The statement timeout behind the proxy, and how long its queue may hold a query. */
    const PROXIED_STATEMENT_MS = 1_000;
    const QUEUE_MS = 3_000;
    let bouncer: PgBouncer | undefined;
    let others: postgres.Sql[] = [];
    beforeAll(async () => {
      bouncer = await startPgBouncer({
        target: new URL(process.env.TEST_DATABASE_URL ?? ''),
        serverConnections: 1,
      });
    }, 20_000);
    afterEach(async () => {
      await Promise.all(others.map((sql) => sql.end({ timeout: 1 })));
      others = [];
    });
    afterAll(async () => {
      await bouncer?.stop();
    });

    /** The service through a TCP proxy in front of PgBouncer, as RDS Proxy is configured. */
    const proxied = async () => {
      const started = await startTcpProxy({ targetHost: '127.0.0.1', targetPort: bouncer!.port });
      proxies.push(started);
      const url = new URL(bouncer!.url);
      url.port = String(started.port);
      const service = endpoint(url.toString(), {
        statementTimeoutMs: PROXIED_STATEMENT_MS,
        env: {
          DB_STATEMENT_TIMEOUT_VIA: 'role',
          DB_PREPARE: 'false',
          DB_PROXY_QUEUE_MS: String(QUEUE_MS),
        },
      });
      await service.deps.ready;
      expectRecovered((await timed(service, reportEvent(), contextWithDeadline(10_000))).result);
      return { via: started, service };
    };

    /** Another client's statement of `seconds`, holding PgBouncer's one server connection. */
    const queueAhead = async (seconds: number): Promise<{ done: Promise<unknown> }> => {
      const other = postgres(bouncer!.url, { max: 1, prepare: false, onnotice: () => undefined });
      others.push(other);
      const running = other`select pg_sleep(${seconds})`.execute();
      // Running on the server, not still at the connection's type lookup.
      await waitFor('the statement to hold the server connection', async () => {
        const sql = adminSql();
        const [sleeping] = await sql`
          select 1 from pg_stat_activity
          where wait_event = 'PgSleep' and query like 'select pg_sleep%' and pid <> pg_backend_pid()`;
        return sleeping === undefined ? undefined : true;
      });
      return { done: running };
    };

    it("a queue longer than the statement timeout but within DB_PROXY_QUEUE_MS and the request's deadline: answered 200", async () => {
      const { via, service } = await proxied();
      const ahead = await queueAhead(2.5);

      const queued = await timed(service, reportEvent(), contextWithDeadline(10_000));
      await ahead.done;

      expectRecovered(queued.result);
      expect(queued.ms).toBeGreaterThan(PROXIED_STATEMENT_MS + QUERY_MARGIN_MS);
      expect(linesSaying(logs!, 'database query passed its deadline')).toEqual([]);
      expect(via.stats().accepted).toBe(POOL_MAX);
    });

    it("a queue longer than the request's deadline: 500 with CORS before it, the waiting connection alone dropped, the pool kept and its other connection used next", async () => {
      const { via, service } = await proxied();
      const ahead = await queueAhead(2.5);

      const lambdaMs = 2_000;
      const queued = await timed(service, reportEvent(), contextWithDeadline(lambdaMs));
      await ahead.done;
      const next = await timed(service, reportEvent(), contextWithDeadline(10_000));

      expectInternalError(queued.result);
      expect(queued.ms).toBeGreaterThanOrEqual(lambdaMs - ANSWER_MARGIN_MS - 50);
      expect(queued.ms).toBeLessThan(lambdaMs);
      expectRecovered(next.result);
      // The other connection answered the next request: nothing new was opened.
      expect(via.stats()).toMatchObject({ accepted: POOL_MAX, open: POOL_MAX - 1 });
      expect(linesSaying(logs!, 'database query passed its deadline')).toMatchObject([
        { stage: 'query', deadline: 'request', path: 'proxy', dropped: 1 },
      ]);
      expect(
        linesSaying(logs!, 'database unreachable: no connection could be made; pool replaced'),
      ).toEqual([]);
      expect(logs!.lines().join('\n')).not.toMatch(/silent/);
    });
  });

  describe('no connection leaks', () => {
    it(`1,000 sequential invocations and batches of 20 at once (200, 403, 400) never hold more than DB_POOL_MAX=${POOL_MAX} connections, and closing ends them`, async () => {
      const via = await proxy();
      const service = endpoint(urlThrough(via));
      const kinds = [
        { status: 200, event: () => reportEvent(), body: expectedWeek },
        {
          status: 200,
          event: () => reportEvent({ query: withCompare() }),
          body: expectedWeekWithCompare,
        },
        { status: 403, event: () => reportEvent({ id: 'R-2001' }), body: FORBIDDEN },
        {
          status: 400,
          event: () => reportEvent({ query: { from: addDays(week.to, -40), to: week.to } }),
          body: OUT_OF_RANGE,
        },
      ] as const;
      const kindOf = (i: number) => kinds[[0, 0, 1, 0, 2, 0, 3, 1, 2, 3][i % 10] as number]!;
      const unexpected: string[] = [];
      const check = async (i: number) => {
        const kind = kindOf(i);
        const result = await service.handler(kind.event(), lambdaContext());
        const body = jsonBody(result);
        if (
          result.statusCode !== kind.status ||
          JSON.stringify(body) !== JSON.stringify(kind.body)
        ) {
          unexpected.push(`#${i}: ${result.statusCode} ${result.body.slice(0, 200)}`);
        }
      };
      const samples: number[] = [];
      const sample = async () => {
        samples.push((await serviceBackends(via)).length);
      };

      for (let i = 0; i < 1000; i += 1) {
        await check(i);
        if (i % 25 === 0) await sample();
        if (i % 100 === 50) {
          await Promise.all([...Array.from({ length: 20 }, (_, j) => check(i * 20 + j)), sample()]);
        }
      }
      await sample();
      const whileWarm = via.stats();
      await service.deps.close();
      built = built.filter((deps) => deps !== service.deps);
      const left = await waitFor('the pool to close', async () => {
        const count = (await serviceBackends(via)).length;
        return count === 0 && via.stats().open === 0 ? count : undefined;
      });

      expect(unexpected).toEqual([]);
      expect(samples.length).toBeGreaterThan(40);
      expect(Math.max(...samples)).toBeLessThanOrEqual(POOL_MAX);
      expect(Math.max(...samples)).toBeGreaterThan(0);
      expect(whileWarm.peakOpen).toBeLessThanOrEqual(POOL_MAX);
      // Connections are reused, not churned: no more were ever opened than the pool holds.
      expect(whileWarm.accepted).toBeLessThanOrEqual(POOL_MAX);
      expect(left).toBe(0);
      expect(parsedLines(logs!).filter((line) => line.message === 'request failed')).toEqual([]);
      logs!.expectClean([token, ...claimSecrets(owner1), owner1.sub]);
    }, 180_000);
  });
});
