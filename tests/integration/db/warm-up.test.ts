/**
 * The database connections opened at container initialisation (openConnections, called by
 * createDependencies next to the key-set prefetch): opened before any request, then used by
 * the first queries instead of new ones; with the database down they fail quietly — one info
 * line by name and code, no metric, no unhandled rejection — and the container still starts. Through a TCP
 * proxy in front of the test database (PGlite or PostgreSQL).
 */
import { createSql, openConnections, type Sql } from '../../../shared/db/client';
import { loadConfig } from '../../../shared/config';
import { createLogger } from '../../../shared/logger';
import { createDependencies, INIT_CONNECTIONS, type Dependencies } from '../../../shared/runtime';
import { startTcpProxy, type TcpProxy } from '../../support/tcp-proxy';

const PASSWORD = 'warm-up-secret-password';

let proxies: TcpProxy[] = [];
let pools: Sql[] = [];
let containers: Dependencies[] = [];

afterEach(async () => {
  await Promise.all(pools.map((pool) => pool.end({ timeout: 0 })));
  await Promise.all(containers.map((deps) => deps.close()));
  await Promise.all(proxies.map((proxy) => proxy.close()));
  proxies = [];
  pools = [];
  containers = [];
});

const proxy = async (): Promise<{ via: TcpProxy; url: string }> => {
  const target = new URL(process.env.DATABASE_URL ?? '');
  const via = await startTcpProxy({
    targetHost: target.hostname,
    targetPort: Number(target.port || '5432'),
  });
  proxies.push(via);
  const url = new URL(target);
  url.port = String(via.port);
  return { via, url: url.toString() };
};

const pool = (url: string, poolMax = 2): Sql => {
  const sql = createSql({ url, poolMax, statementTimeoutMs: 5_000, connectTimeoutSeconds: 1 });
  pools.push(sql);
  return sql;
};

describe('openConnections', () => {
  it('opens the connections before any query, and the first queries use them', async () => {
    const { via, url } = await proxy();
    const sql = pool(url);

    const failure = await openConnections(sql, 2);
    const opened = via.stats();
    const answers = await Promise.all([sql`select 1 as one`, sql`select 2 as two`]);

    expect(failure).toBeUndefined();
    expect(opened).toMatchObject({ accepted: 2, open: 2 });
    expect(answers).toEqual([[{ one: 1 }], [{ two: 2 }]]);
    expect(via.stats().accepted).toBe(2);
  });

  it('resolves with the failure when the database refuses, and the pool connects once it is back', async () => {
    const { via, url } = await proxy();
    await via.setMode('refuse');
    const sql = pool(url);

    const failure = await openConnections(sql, 2);
    await via.setMode('pass');
    const [row] = await sql`select 1 as one`;

    expect(failure).toMatchObject({ code: 'ECONNREFUSED' });
    expect(row).toEqual({ one: 1 });
  });
});

describe('createDependencies opens the pool at initialisation', () => {
  const container = (url: string, env: Record<string, string> = {}) => {
    const lines: Record<string, unknown>[] = [];
    const deps = createDependencies(
      loadConfig({ ...process.env, DATABASE_URL: url, LOG_LEVEL: 'debug', ...env }),
      createLogger('debug', (line) => lines.push(JSON.parse(line) as Record<string, unknown>)),
    );
    containers.push(deps);
    return { deps, lines };
  };

  it(`opens min(DB_POOL_MAX, ${INIT_CONNECTIONS}) connections before any request`, async () => {
    const two = await proxy();
    const one = await proxy();

    // Once initialised (the warm-up done), it opens no other connection.
    const started = [
      container(two.url, { DB_POOL_MAX: '5' }),
      container(one.url, { DB_POOL_MAX: '1' }),
    ];
    await Promise.all(started.map(({ deps }) => deps.ready));

    expect([two.via.stats().accepted, one.via.stats().accepted]).toEqual([INIT_CONNECTIONS, 1]);
  });

  it('starts with the database down: one info line by name and code, no metric, no unhandled rejection, then answers', async () => {
    const { via, url } = await proxy();
    await via.setMode('refuse');
    const withPassword = new URL(url);
    withPassword.password = PASSWORD;
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', onUnhandled);
    try {
      const { deps, lines } = container(withPassword.toString());
      await deps.ready;
      await via.setMode('pass');
      const answer = await deps.database.run((sql) => sql`select 1 as one`);

      const anyText: unknown = expect.any(String);
      const warnings = lines.filter((line) => line.message === 'database warm-up failed');
      expect(warnings).toEqual([
        {
          level: 'info',
          message: 'database warm-up failed',
          time: anyText,
          errorName: anyText,
          errorCode: 'ECONNREFUSED',
        },
      ]);
      const text = JSON.stringify(lines);
      expect(text).not.toContain(PASSWORD);
      expect(text).not.toContain(String(via.port));
      expect(answer).toEqual([{ one: 1 }]);
      expect(unhandled).toEqual([]);
    } finally {
      process.off('unhandledRejection', onUnhandled);
    }
  });
});
