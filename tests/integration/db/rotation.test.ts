/**
 * The database credential from a Secrets Manager secret, and its rotation (docs/database.md,
 * "The database credential"), against a PostgreSQL of the test's own that checks passwords
 * (the machine's shared one trusts every login) and a local Parameters and Secrets extension
 * holding the secret in the RDS rotation shape; one warm container per test, configured as on
 * Lambda (DATABASE_SECRET_ARN, no DATABASE_URL). Each container's pool has more slots
 * (DB_POOL_MAX=4) than the connections it opens at initialisation (2); with those kept busy,
 * requests after a rotation open new connections, as a container does after an idle connection
 * closes. No password, user, host or port may appear in any log line. Skipped only where there
 * is no initdb.
 */
import type { APIGatewayProxyResult, Context } from 'aws-lambda';
import { reportEndpoint } from '../../../middleware/compose';
import { migrate } from '../../../tools/db/migrate';
import { SAMPLE_OWNER } from '../../../tools/db/sample-data';
import { seed } from '../../../tools/db/seed';
import { addDays, todayIn } from '../../../tools/dates';
import { loadConfig } from '../../../shared/config';
import { createSql } from '../../../shared/db/client';
import { ordersPerDay } from '../../../shared/reports/orders-per-day';
import { createDependencies, INIT_CONNECTIONS, type Dependencies } from '../../../shared/runtime';
import { jsonBody, lambdaContext, restEvent } from '../../support/events';
import { captureLogs, type LogCapture } from '../../support/log-capture';
import {
  PASSWORDS_OVER_TCP,
  POSTGRES_BIN,
  startPostgresServer,
  type PostgresServer,
} from '../../support/postgres-server';
import {
  startLocalSecretsExtension,
  type LocalSecretsExtension,
} from '../../support/secrets-extension';
import { tokenFor } from '../../support/tokens';

const describeWithServer = POSTGRES_BIN ? describe : describe.skip;

const ADMIN = 'rotation_admin';
const ADMIN_PASSWORD = 'Admin-Rotation-Pw-1';
const USER = 'portal_app';
const CLONE = 'portal_app_clone';
const ARN = 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:portal/production/db-AbC123';
const INTERNAL_ERROR = { state: 'ERROR', code: 'INTERNAL_ERROR', message: 'Unknown error' };
/** Every password a test sets: none may reach a log line. */
const PASSWORDS = ['First-Pa55-word', 'Second-Pa55-word', 'Clone-Pa55-word', 'Never-Valid-Pa55'];
const [FIRST, SECOND, CLONE_PASSWORD, WRONG] = PASSWORDS as [string, string, string, string];

type Handler = (event: unknown, context: Context) => Promise<APIGatewayProxyResult>;
type LogLine = Record<string, unknown>;

let server: PostgresServer | undefined;
let extension: LocalSecretsExtension;
let token = '';
let built: Dependencies[] = [];
let logs: LogCapture | undefined;

const psql = (statement: string): string => server?.psql('reports', statement) ?? '';

/** The secret as Secrets Manager's PostgreSQL rotation keeps it. */
const secretFor = (username: string, password: string): string =>
  JSON.stringify({
    engine: 'postgres',
    host: '127.0.0.1',
    port: server?.port ?? 0,
    dbname: 'reports',
    username,
    password,
  });

const until = async (what: string, done: () => boolean): Promise<void> => {
  const deadline = Date.now() + 5_000;
  while (!done()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
};

/** Sessions of the users named like `user` (a LIKE pattern) in `state`. */
const sessionsOf = (user: string, state = '%'): number =>
  Number(
    psql(
      `select count(*) from pg_stat_activity where usename like '${user}' and coalesce(state, '') like '${state}'`,
    ),
  );

/**
 * Waits for the container's pool to settle: at least its first connections open, and every
 * connection idle (fewer than the pool's 4, so that more concurrent queries open new ones).
 */
const settle = async (deps: Dependencies, user: string): Promise<void> => {
  expect(await deps.database.warmUp(INIT_CONNECTIONS)).toBeUndefined();
  await until('the connections to be idle', () => {
    const idle = sessionsOf(user, 'idle');
    return idle >= INIT_CONNECTIONS && idle === sessionsOf(user);
  });
  expect(sessionsOf(user)).toBeLessThan(4);
};

/** Requests at once after a rotation. */
const CONCURRENT = 6;

/**
 * Keeps every open connection of the pool busy for a moment, so that the next queries need a
 * new connection (a pool slot still closed), as when a container's idle connection has closed.
 * Resolves when the connections are free again.
 */
const occupyOpenConnections = (deps: Dependencies, user: string): Promise<unknown> => {
  const open = sessionsOf(user);
  return Promise.all(
    Array.from({ length: open }, () => deps.database.run((sql) => sql`select pg_sleep(0.5)`)),
  );
};

beforeAll(async () => {
  if (!POSTGRES_BIN) return;
  server = await startPostgresServer({
    superuser: ADMIN,
    password: ADMIN_PASSWORD,
    hba: PASSWORDS_OVER_TCP,
  });
  server.createDatabase('reports');
  const sql = createSql({
    url: `postgres://${ADMIN}:${ADMIN_PASSWORD}@127.0.0.1:${server.port}/reports`,
    poolMax: 1,
    statementTimeoutMs: 60_000,
    connectTimeoutSeconds: 10,
  });
  try {
    await migrate(sql);
    await seed(sql);
  } finally {
    await sql.end();
  }
  for (const user of [USER, CLONE]) {
    psql(`create role ${user} login password '${WRONG}' in role pg_read_all_data`);
  }
  token = await tokenFor(SAMPLE_OWNER);
}, 60_000);

beforeEach(async () => {
  extension = await startLocalSecretsExtension();
  psql(`alter role ${USER} password '${FIRST}'`);
  psql(`alter role ${CLONE} password '${CLONE_PASSWORD}'`);
  extension.put(ARN, secretFor(USER, FIRST));
});

afterEach(async () => {
  logs?.stop();
  logs = undefined;
  await Promise.all(built.map((deps) => deps.close()));
  built = [];
  await extension.close();
  // Each test starts with no session of its users: `settle` and `dropSessions` count them.
  if (server) await until('the sessions to close', () => sessionsOf(`${USER}%`) === 0);
});

afterAll(() => {
  server?.stop();
});

/** One warm container configured as on Lambda: the secret's ARN, no DATABASE_URL. */
const container = (): { handler: Handler; deps: Dependencies } => {
  const deps = createDependencies(
    loadConfig({
      ...process.env,
      ...extension.env,
      DATABASE_URL: '',
      DATABASE_SECRET_ARN: ARN,
      DB_TLS: 'disable',
      DB_POOL_MAX: '4',
      DB_CONNECT_TIMEOUT_SECONDS: '2',
      LOG_LEVEL: 'info',
    }),
  );
  built.push(deps);
  const handler = reportEndpoint(ordersPerDay, deps.database.bind(ordersPerDay.queries), deps);
  return { handler: handler as unknown as Handler, deps };
};

const report = (handler: Handler): Promise<APIGatewayProxyResult> => {
  const today = todayIn('Asia/Dubai');
  return handler(
    restEvent({
      resource: '/v1/restaurants/{id}/reports/orders/day',
      pathParameters: { id: 'R-1001' },
      headers: { Authorization: `Bearer ${token}`, 'X-Platform-Id': 'TB_AE' },
      query: { from: addDays(today, -6), to: today },
    }),
    lambdaContext(),
  );
};

const expectNothingLeaked = (capture: LogCapture): void => {
  capture.expectClean([...PASSWORDS, ADMIN_PASSWORD, USER, CLONE, String(server?.port)]);
};

describeWithServer('the database credential from Secrets Manager', () => {
  it('reads the secret during initialisation, before any request, and answers 200', async () => {
    const { handler } = container();
    await until('the read at initialisation', () => extension.reads(ARN) === 1);
    const result = await report(handler);

    expect(result.statusCode).toBe(200);
    expect(jsonBody(result)).toMatchObject({ data: expect.any(Array) as unknown });
    expect(extension.reads(ARN)).toBe(1);
  });

  /**
   * A warm container, settled; then `rotate`, and CONCURRENT requests at once while its open
   * connections are busy.
   */
  const afterRotation = async (rotate: () => void) => {
    const { handler, deps } = container();
    expect((await report(handler)).statusCode).toBe(200);
    await settle(deps, USER);
    logs = captureLogs();
    rotate();
    const busy = occupyOpenConnections(deps, USER);
    const results = await Promise.all(Array.from({ length: CONCURRENT }, () => report(handler)));
    await busy;
    logs.stop();
    return { deps, results, capture: logs };
  };

  it('after a password rotation, reads the secret once more, once, and answers 200 (no redeploy)', async () => {
    // The rotation: database first, then the secret.
    const { results, capture } = await afterRotation(() => {
      psql(`alter role ${USER} password '${SECOND}'`);
      extension.put(ARN, secretFor(USER, SECOND));
    });

    const lines = capture.lines().map((line) => JSON.parse(line) as LogLine);
    expect({
      statuses: results.map((result) => result.statusCode),
      errors: lines.filter((line) => line.level === 'error'),
    }).toEqual({ statuses: Array(CONCURRENT).fill(200), errors: [] });
    expect(extension.reads(ARN)).toBe(2);
    expect(lines.filter((line) => line.level === 'warn')).toEqual([
      expect.objectContaining({
        message: 'database login refused: credentials read again from the secret',
        newServer: false,
      }),
    ]);
    expectNothingLeaked(capture);
  });

  it('after a rotation to another user, logs in as that user on a new pool', async () => {
    // Alternating users: the clone becomes current and the old user's password changes.
    const { deps, results } = await afterRotation(() => {
      extension.put(ARN, secretFor(CLONE, CLONE_PASSWORD));
      psql(`alter role ${USER} password '${SECOND}'`);
    });

    expect(results.map((result) => result.statusCode)).toEqual(Array(CONCURRENT).fill(200));
    expect(extension.reads(ARN)).toBe(2);
    const [row] = await deps.database.run(
      (sql) => sql<{ user: string }[]>`select current_user as user`,
    );
    expect(row?.user).toBe(CLONE);
    await until('the old pool to end', () => sessionsOf(USER) === 0);
  });

  it('answers a logged 500 when the database keeps refusing, re-reading at most once per interval', async () => {
    // The secret holds a password the database never accepts.
    extension.put(ARN, secretFor(USER, WRONG));
    logs = captureLogs();
    const { handler } = container();

    const first = await report(handler);
    const second = await report(handler);

    // The read at initialisation, one more after the first refusal, then none.
    logs.stop();
    for (const result of [first, second]) {
      expect({ status: result.statusCode, body: jsonBody(result) }).toEqual({
        status: 500,
        body: INTERNAL_ERROR,
      });
    }
    expect(extension.reads(ARN)).toBe(2);
    const lines = logs.lines().map((line) => JSON.parse(line) as LogLine);
    const errors = lines.filter((line) => line.level === 'error');
    expect(errors).toHaveLength(2);
    for (const error of errors) expect(error).toMatchObject({ status: 500, errorCode: '28P01' });
    expectNothingLeaked(logs);
  });

  it('answers a logged 500 when the role may not read the secret', async () => {
    extension.deny(ARN);
    logs = captureLogs();
    const { handler } = container();

    const result = await report(handler);

    logs.stop();
    expect({ status: result.statusCode, body: jsonBody(result) }).toEqual({
      status: 500,
      body: INTERNAL_ERROR,
    });
    const errors = logs
      .lines()
      .map((line) => JSON.parse(line) as LogLine)
      .filter((line) => line.level === 'error');
    expect(errors).toEqual([
      expect.objectContaining({ status: 500, errorName: 'SecretReadError' }),
    ]);
    expectNothingLeaked(logs);
    expect(logs.lines().join('\n')).not.toContain('secretsmanager');
  });

  it('answers 200 when the extension is not ready yet at initialisation', async () => {
    extension.notReadyFor(4);

    const { handler } = container();
    const result = await report(handler);

    expect(result.statusCode).toBe(200);
    expect(extension.reads(ARN)).toBe(1);
    expect(extension.refused).toBe(4);
  });
});
