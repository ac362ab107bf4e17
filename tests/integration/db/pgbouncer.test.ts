/**
 * Behind a transaction-pooling proxy (docs/database.md, "Behind a proxy"): a real PgBouncer
 * (Debian's `pgbouncer`) in `pool_mode = transaction`, started here on a free port in front of
 * the PostgreSQL at TEST_DATABASE_URL with two server connections, carries every report's and
 * service's queries for twelve client connections (six containers × DB_POOL_MAX 2) with
 * DB_PREPARE=false, and every answer equals the one given over a direct connection.
 *
 * It also shows why DB_PREPARE=false: with named prepared statements (postgres.js's default), a
 * client whose next transaction lands on another server connection names a statement that
 * server never saw; postgres.js then prepares it again (a failed round trip, and the statement
 * left behind on the first server), which nothing should rely on.
 *
 * Runs wherever the tests run on PostgreSQL (TEST_DATABASE_URL, as in .ci/run); on the embedded
 * PGlite there is no server to put PgBouncer in front of, and the suite is skipped. On
 * PostgreSQL a missing pgbouncer binary fails it.
 *
 * PgBouncer runs without `ignore_startup_parameters`, so it refuses an unknown startup
 * parameter as RDS Proxy does: the statement timeout reaches the database through the role
 * (DB_STATEMENT_TIMEOUT_VIA=role), never as a startup parameter.
 */
import postgres from 'postgres';
import { reportEndpoint, serviceEndpoint } from '../../../middleware/compose';
import { todayIn } from '../../../tools/dates';
import {
  roleStatementTimeout,
  setRoleStatementTimeout,
  toMilliseconds,
} from '../../../tools/db/service-role';
import { catalogue } from '../../../tools/catalogue';
import { loadConfig } from '../../../shared/config';
import type { ReportDefinition, ServiceDefinition } from '../../../shared/reports/report';
import { createDependencies, type Dependencies } from '../../../shared/runtime';
import {
  declaredParameters,
  recentRanges,
  SAMPLE_SCOPES,
  sampleParameters,
  scopeEvent,
} from '../../support/declarations';
import { jsonBody, lambdaContext } from '../../support/events';
import { AS_CLIENT, startPgBouncer, type PgBouncer } from '../../support/pgbouncer';

const SERVER_CONNECTIONS = 2;
const CONTAINERS = 6;
const POOL_MAX = 2;
const ROUNDS = 3;

const onPostgres = process.env.TEST_DATABASE_KIND === 'postgresql';

let bouncer: PgBouncer | undefined;
let proxiedUrl = '';
let bouncerPort = 0;
const TIMEOUT_ROLE = 'portal_proxy_timeout_test';
const ROLE_TIMEOUT_MS = 1000;
const built: Dependencies[] = [];
const pools: postgres.Sql[] = [];

const databaseUrl = (): URL => new URL(process.env.DATABASE_URL ?? '');

/** A pool of this test's own (closed after the suite). */
const pool = (url: string, options: postgres.Options<Record<string, never>> = {}) => {
  const sql = postgres(url, { onnotice: () => undefined, ...options });
  pools.push(sql);
  return sql;
};

/** A container's dependencies on `url`, as a function reads them from its environment. */
const container = (url: string, env: Record<string, string> = {}): Dependencies => {
  const deps = createDependencies(
    loadConfig({ ...process.env, DATABASE_URL: url, DB_POOL_MAX: String(POOL_MAX), ...env }),
  );
  built.push(deps);
  return deps;
};

const startBouncer = async (): Promise<void> => {
  bouncer = await startPgBouncer({
    target: databaseUrl(),
    serverConnections: SERVER_CONNECTIONS,
    users: [TIMEOUT_ROLE],
  });
  proxiedUrl = bouncer.url;
  bouncerPort = bouncer.port;
};

/** PgBouncer's own view of the pool (its admin console, simple protocol only). */
const showPools = async (admin: postgres.Sql) => {
  const rows = await admin.unsafe<Record<string, string | number>[]>('SHOW POOLS').simple();
  const database = decodeURIComponent(databaseUrl().pathname.slice(1));
  return rows
    .filter((row) => row.database === database)
    .map((row) => ({
      clients: Number(row.cl_active) + Number(row.cl_waiting),
      servers:
        Number(row.sv_active) +
        Number(row.sv_idle) +
        Number(row.sv_used) +
        Number(row.sv_tested) +
        Number(row.sv_login),
    }));
};

/** Every report and service of the catalogue, with what it runs on given dependencies. */
const ENDPOINTS = catalogue.flatMap((endpoint) => {
  const { answers } = endpoint;
  const build =
    answers.kind === 'report'
      ? (deps: Dependencies) => {
          const report = answers.report as ReportDefinition<unknown, unknown>;
          return reportEndpoint(report, deps.database.bind(report.queries), deps);
        }
      : answers.kind === 'service'
        ? (deps: Dependencies) => {
            const service = answers.service as ServiceDefinition<unknown, unknown, unknown>;
            return serviceEndpoint(service, deps.database.bind(service.queries), deps);
          }
        : undefined;
  return build
    ? [
        {
          fn: endpoint.function,
          path: endpoint.paths[0],
          parameters: declaredParameters(endpoint),
          build,
        },
      ]
    : [];
});

/** One request per endpoint, sample restaurant and platform, with and without a compare range. */
const requests = async () =>
  Promise.all(
    ENDPOINTS.flatMap((endpoint) =>
      SAMPLE_SCOPES.map(async (scope) => {
        const query = sampleParameters(
          endpoint.fn,
          endpoint.parameters,
          recentRanges(todayIn(scope.timeZone), 14),
        );
        return {
          name: `${endpoint.fn} ${scope.id} on ${scope.platformId}`,
          endpoint,
          event: await scopeEvent(scope, endpoint.path, query),
        };
      }),
    ),
  );

type Answer = { status: number; body: unknown };

const answer = async (handler: unknown, event: unknown): Promise<Answer> => {
  const result = await (
    handler as (e: unknown, c: unknown) => Promise<{ statusCode: number; body: string }>
  )(event, lambdaContext());
  return {
    status: result.statusCode,
    body: result.statusCode === 200 ? jsonBody(result) : result.body,
  };
};

afterAll(async () => {
  await Promise.allSettled([
    ...built.map((deps) => deps.close()),
    ...pools.map((sql) => sql.end({ timeout: 1 })),
  ]);
  await bouncer?.stop();
});

(onPostgres ? describe : describe.skip)(
  'behind PgBouncer in transaction pooling (PostgreSQL)',
  () => {
    beforeAll(startBouncer, 20_000);

    it(`answers every report and service exactly as a direct connection, ${CONTAINERS * POOL_MAX} clients on ${SERVER_CONNECTIONS} server connections, with DB_PREPARE=false`, async () => {
      // Prepare
      const direct = container(databaseUrl().href);
      const proxied = Array.from({ length: CONTAINERS }, () =>
        container(proxiedUrl, { DB_PREPARE: 'false', DB_STATEMENT_TIMEOUT_VIA: 'role' }),
      );
      const admin = pool(bouncer!.adminUrl, {
        max: 1,
        prepare: false,
        fetch_types: false,
      });
      const all = await requests();
      const directly = async () =>
        Promise.all(all.map(({ endpoint, event }) => answer(endpoint.build(direct), event)));
      const before = await directly();
      const handlers = proxied.map((deps) => ENDPOINTS.map((endpoint) => endpoint.build(deps)));
      const seen: { clients: number; servers: number }[] = [];
      const watch = { running: true };
      const watching = (async () => {
        while (watch.running) {
          seen.push(...(await showPools(admin)));
          await new Promise((resolve) => setTimeout(resolve, 10));
        }
      })();

      // Act: every request on every container, ROUNDS times, all at once
      const answers = await Promise.all(
        Array.from({ length: ROUNDS }, () =>
          proxied.flatMap((_deps, c) =>
            all.map(({ endpoint, event }) =>
              answer(handlers[c]?.[ENDPOINTS.indexOf(endpoint)], event),
            ),
          ),
        ).flat(),
      );
      watch.running = false;
      await watching;
      const after = await directly();

      // Assess: the dashboard reads the database clock, so its sums may grow while the proxied
      // requests run; each answer equals the direct one before them or the one after.
      expect(before.map(({ status }) => status)).toEqual(all.map(() => 200));
      const perRequest = answers.length / all.length;
      const mismatches = answers
        .map((got, i) => ({
          name: all[i % all.length]?.name,
          got,
          want: [before[i % all.length], after[i % all.length]],
        }))
        .filter(
          ({ got, want }) => !want.some((one) => JSON.stringify(one) === JSON.stringify(got)),
        );
      expect(perRequest).toBe(CONTAINERS * ROUNDS);
      expect(mismatches).toEqual([]);
      expect(Math.max(...seen.map(({ servers }) => servers))).toBeLessThanOrEqual(
        SERVER_CONNECTIONS,
      );
      expect(Math.max(...seen.map(({ clients }) => clients))).toBeGreaterThan(SERVER_CONNECTIONS);
    });

    it('refuses a connection that sends statement_timeout as a startup parameter, as RDS Proxy does: DB_STATEMENT_TIMEOUT_VIA=startup fails, role connects', async () => {
      // Prepare
      const viaStartup = container(proxiedUrl, { DB_PREPARE: 'false' });
      const viaRole = container(proxiedUrl, {
        DB_PREPARE: 'false',
        DB_STATEMENT_TIMEOUT_VIA: 'role',
      });

      // Act
      const refused = await viaStartup.database
        .run((sql) => sql`select 1 as one`)
        .then(
          () => undefined,
          (error: unknown) => error,
        );
      const [row] = await viaRole.database.run((sql) => sql<{ one: number }[]>`select 1 as one`);

      // Assess
      expect(String((refused as Error | undefined)?.message)).toMatch(
        /unsupported startup parameter/i,
      );
      expect(row?.one).toBe(1);
    });

    it("applies the role's statement_timeout through the proxy: every report answers 200, and a query over the limit is cancelled (57014)", async () => {
      // Prepare: a login role of the service's own, its timeout set as db:migrate sets it
      const admin = pool(databaseUrl().href, { max: 1 });
      await admin.unsafe(`drop role if exists ${TIMEOUT_ROLE}`);
      await admin.unsafe(`create role ${TIMEOUT_ROLE} login in role postgres`);
      try {
        await setRoleStatementTimeout(admin, TIMEOUT_ROLE, ROLE_TIMEOUT_MS);
        const url = `postgres://${TIMEOUT_ROLE}@127.0.0.1:${bouncerPort}/${AS_CLIENT}`;
        const deps = container(url, { DB_PREPARE: 'false', DB_STATEMENT_TIMEOUT_VIA: 'role' });
        const all = await requests();

        // Act
        const statuses = await Promise.all(
          all.map(
            async ({ endpoint, event }) => (await answer(endpoint.build(deps), event)).status,
          ),
        );
        const [setting] = await deps.database.run(
          (sql) =>
            sql<{ timeout: string }[]>`select current_setting('statement_timeout') as timeout`,
        );
        const started = performance.now();
        const slow = await deps.database
          .run((sql) => sql`select pg_sleep(${(ROLE_TIMEOUT_MS * 4) / 1000})`)
          .then(
            () => undefined,
            (error: unknown) => error as { code?: string },
          );
        const elapsed = performance.now() - started;

        // Assess
        expect(await roleStatementTimeout(admin, TIMEOUT_ROLE)).toBe(ROLE_TIMEOUT_MS);
        expect(statuses).toEqual(all.map(() => 200));
        expect(toMilliseconds(setting?.timeout ?? '')).toBe(ROLE_TIMEOUT_MS);
        expect(slow?.code).toBe('57014');
        expect(elapsed).toBeLessThan(ROLE_TIMEOUT_MS * 3);
      } finally {
        await Promise.allSettled(built.splice(0).map((deps) => deps.close()));
        await admin.unsafe(`drop role if exists ${TIMEOUT_ROLE}`);
      }
    });

    it.each([
      [
        true,
        'the statement prepared on the first is missing: the bind fails and postgres.js parses it again',
        2,
      ],
      [false, 'the statement is parsed anew, unnamed, in the same round trip', 1],
    ] as const)(
      'with prepare: %s, a client whose next transaction lands on another server connection: %s',
      async (prepare, _what, expectedBuilds) => {
        // Prepare: one client, and two holders of both server connections
        const builds: string[] = [];
        const client = pool(proxiedUrl, {
          max: 1,
          prepare,
          debug: (_connection, query) => builds.push(query),
        });
        const [first] = await client<
          { pid: number }[]
        >`select pg_backend_pid() as pid, ${1}::int as n`;
        const holders = [
          pool(proxiedUrl, { max: 1, prepare: false }),
          pool(proxiedUrl, { max: 1, prepare: false }),
        ];
        const held = holders.map((holder) => holder.reserve());
        const reserved = await Promise.all(held);
        const pids = await Promise.all(
          reserved.map(async (connection) => {
            await connection`begin`;
            const [row] = await connection<{ pid: number }[]>`select pg_backend_pid() as pid`;
            return { connection, pid: row?.pid };
          }),
        );
        // Free the server connection that did not prepare the statement; hold the one that did.
        const kept = pids.find(({ pid }) => pid === first?.pid);
        for (const { connection, pid } of pids) {
          if (pid !== first?.pid) {
            await connection`commit`;
            connection.release();
          }
        }
        expect(pids.map(({ pid }) => pid).sort()).toContain(first?.pid);
        builds.length = 0;

        // Act: the same statement again, on the other server connection
        const [second] = await client<
          { pid: number }[]
        >`select pg_backend_pid() as pid, ${2}::int as n`;
        if (kept) {
          await kept.connection`commit`;
          kept.connection.release();
        }

        // Assess: another server; with named statements, the query built twice (bind, then parse)
        expect(second?.pid).not.toBe(first?.pid);
        expect(builds).toHaveLength(expectedBuilds);
      },
    );
  },
);
