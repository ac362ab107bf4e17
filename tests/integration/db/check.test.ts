/**
 * Database.check (shared/db/database.ts), the pre-traffic check's `select 1`, against the test
 * database (PGlite or PostgreSQL): it resolves once the database answered through the pool,
 * and rejects with the failure when the database refuses connections or goes silent, each
 * within the pool's own bounds (the connect timeout, the query's deadline), and the pool answers again once the database does.
 */
import { createDatabase, type Database } from '../../../shared/db/database';
import { DatabaseTimeoutError, QUERY_MARGIN_MS } from '../../../shared/db/watch';
import { createLogger } from '../../../shared/logger';
import { freePort } from '../../support/processes';
import { startTcpProxy, type TcpProxy } from '../../support/tcp-proxy';

const STATEMENT_TIMEOUT_MS = 300;
const POOL = { poolMax: 1, statementTimeoutMs: STATEMENT_TIMEOUT_MS, connectTimeoutSeconds: 1 };

let databases: Database[] = [];
let proxies: TcpProxy[] = [];
afterEach(async () => {
  await Promise.all(databases.map((database) => database.end()));
  await Promise.all(proxies.map((proxy) => proxy.close()));
  databases = [];
  proxies = [];
});

const open = (url: string): Database => {
  const database = createDatabase(
    { url },
    POOL,
    createLogger('error', () => undefined),
  );
  databases.push(database);
  return database;
};

/** The test database's URL at `port` of 127.0.0.1. */
const urlAt = (port: number): string => {
  const url = new URL(process.env.DATABASE_URL ?? '');
  url.hostname = '127.0.0.1';
  url.port = String(port);
  return url.toString();
};

const proxy = async (): Promise<TcpProxy> => {
  const target = new URL(process.env.DATABASE_URL ?? '');
  const via = await startTcpProxy({
    targetHost: target.hostname,
    targetPort: Number(target.port || '5432'),
  });
  proxies.push(via);
  return via;
};

describe('Database.check', () => {
  it('resolves once the database answered select 1', async () => {
    const via = await proxy();
    const database = open(urlAt(via.port));

    await expect(database.check()).resolves.toBeUndefined();
    expect(via.stats().accepted).toBe(1);
  });

  it('rejects with the refusal when nothing listens', async () => {
    const database = open(urlAt(await freePort()));

    await expect(database.check()).rejects.toMatchObject({ code: 'ECONNREFUSED' });
  });

  it('rejects within the statement timeout and its margin when the database goes silent, and the next check answers on a new connection', async () => {
    // A connection made, then every byte swallowed.
    const via = await proxy();
    const database = open(urlAt(via.port));
    await database.check();
    via.silenceAll();

    const started = performance.now();
    const outcome = await database.check().then(
      () => 'answered',
      (error: unknown) => error,
    );

    expect(outcome).toBeInstanceOf(DatabaseTimeoutError);
    expect(performance.now() - started).toBeLessThan(
      STATEMENT_TIMEOUT_MS + QUERY_MARGIN_MS + 1_000,
    );
    await expect(database.check()).resolves.toBeUndefined();
  });
});
