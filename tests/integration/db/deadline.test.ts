/**
 * The container's database (createDatabase) when connections die, through a TCP proxy
 * (tests/support/tcp-proxy.ts) in front of the test database: each query fails with
 * DatabaseTimeoutError at its deadline (the statement timeout, the margin and the proxy's queue
 * allowance); only the connection it waited on is dropped while others keep answering; the
 * pool is replaced only when no new connection can be made; and the same database answers as
 * soon as the path is back. Each line says what happened, never "database silent".
 */
import { createDatabase, type Database } from '../../../shared/db/database';
import { QUERY_MARGIN_MS } from '../../../shared/db/watch';
import { createLogger } from '../../../shared/logger';
import { startTcpProxy, type TcpProxy } from '../../support/tcp-proxy';

const STATEMENT_TIMEOUT_MS = 300;
const BOUND_MS = STATEMENT_TIMEOUT_MS + QUERY_MARGIN_MS;

let proxy: TcpProxy | undefined;
let database: Database | undefined;
const lines: string[] = [];

afterEach(async () => {
  await database?.end();
  await proxy?.close();
  database = undefined;
  proxy = undefined;
  lines.length = 0;
});

const throughProxy = async ({ proxyQueueMs = 0 } = {}): Promise<{
  via: TcpProxy;
  db: Database;
}> => {
  const target = new URL(process.env.DATABASE_URL ?? '');
  const via = await startTcpProxy({
    targetHost: target.hostname,
    targetPort: Number(target.port || '5432'),
  });
  const url = new URL(target);
  url.port = String(via.port);
  const db = createDatabase(
    { url: url.toString() },
    {
      poolMax: 2,
      statementTimeoutMs: STATEMENT_TIMEOUT_MS,
      connectTimeoutSeconds: 1,
      proxyQueueMs,
    },
    createLogger('debug', (line) => lines.push(line)),
  );
  proxy = via;
  database = db;
  return { via, db };
};

type Outcome =
  | { ok: true; ms: number }
  | { ok: false; ms: number; name: unknown; code: unknown; stage?: unknown };

const selectOne = async (db: Database): Promise<Outcome> => {
  const started = performance.now();
  try {
    await db.run((sql) => sql`select 1 as one`.execute());
    return { ok: true, ms: performance.now() - started };
  } catch (error) {
    const { name, code, stage } = error as { name?: unknown; code?: unknown; stage?: unknown };
    return { ok: false, ms: performance.now() - started, name, code, stage };
  }
};

/** Both connections of the pool in use at once, so that each is open. */
const openBoth = async (db: Database) =>
  Promise.all([0, 1].map(() => db.run((sql) => sql`select pg_sleep(0.05)`.execute())));

const logged = (message: string) =>
  lines
    .map((line) => JSON.parse(line) as Record<string, unknown>)
    .filter((line) => line.message === message);

const ANY_MS = expect.any(Number) as unknown;
const TIMED_OUT = { ok: false, name: 'DatabaseTimeoutError', code: 'ERR_DATABASE_TIMEOUT' };

describe('createDatabase when connections die', () => {
  it(`fails a query on a silent connection at ${BOUND_MS} ms, each connect never greeted at the same deadline (the pool replaced), then answers as soon as new connections reach the database`, async () => {
    const { via, db } = await throughProxy();
    expect(await selectOne(db)).toMatchObject({ ok: true });
    const before = via.stats().accepted;

    via.silenceAll();
    await via.setMode('black-hole');
    const silent: Outcome[] = [];
    for (let i = 0; i < 3; i += 1) silent.push(await selectOne(db));
    await via.setMode('pass');
    const back = await selectOne(db);
    const after: Outcome[] = [];
    for (let i = 0; i < 5; i += 1) after.push(await selectOne(db));

    expect(silent).toEqual([
      { ...TIMED_OUT, stage: 'query', ms: ANY_MS },
      // New connections accepted and never greeted: the deadline (before the 1 s connect
      // timeout) ends them at the connect stage.
      ...silent.slice(1).map(() => ({ ...TIMED_OUT, stage: 'connect', ms: ANY_MS })),
    ]);
    expect(silent[0]!.ms).toBeGreaterThanOrEqual(BOUND_MS - 50);
    for (const { ms } of silent) expect(ms).toBeLessThan(STATEMENT_TIMEOUT_MS + 1500);
    expect(back).toMatchObject({ ok: true });
    expect(back.ms).toBeLessThan(5000);
    expect(after.every((outcome) => outcome.ok)).toBe(true);
    expect(via.stats().accepted).toBeGreaterThan(before);
    expect(via.stats().open).toBeLessThanOrEqual(2);
    expect(logged('database query passed its deadline')).toEqual(
      ['query', 'connect', 'connect'].map(
        (stage) =>
          expect.objectContaining({
            level: 'warn',
            deadline: 'query',
            stage,
            path: 'direct',
            dropped: 1,
            waitedMs: ANY_MS,
          }) as unknown,
      ),
    );
    // The silent connection alone is no reason to replace the pool; a failed connect is.
    expect(logged('database unreachable: no connection could be made; pool replaced')).toEqual(
      silent.slice(1).map(
        () =>
          expect.objectContaining({
            level: 'warn',
            errorCode: 'ERR_DATABASE_TIMEOUT',
            path: 'direct',
          }) as unknown,
      ),
    );
    expect(lines.join('\n')).not.toContain('silent');
  });

  it('drops only the dead connection while the other answers: the pool is kept and its live connection used on', async () => {
    const { via, db } = await throughProxy();
    await openBoth(db);
    expect(via.stats()).toMatchObject({ accepted: 2, open: 2 });
    via.silenceFirst(1);

    const both = await Promise.all([selectOne(db), selectOne(db)]);
    const steady: Outcome[] = [];
    for (let i = 0; i < 10; i += 1) steady.push(await selectOne(db));

    expect(both.filter((outcome) => outcome.ok)).toHaveLength(1);
    expect(both.filter((outcome) => !outcome.ok)).toEqual([
      { ...TIMED_OUT, stage: 'query', ms: ANY_MS },
    ]);
    expect(steady.every((outcome) => outcome.ok)).toBe(true);
    // The live connection served the steady load: nothing was opened after the dead one closed.
    expect(via.stats()).toMatchObject({ accepted: 2, open: 1 });
    expect(logged('database query passed its deadline')).toMatchObject([{ dropped: 1 }]);
    expect(logged('database unreachable: no connection could be made; pool replaced')).toEqual([]);
  });

  it('a slow answer within the bound is no failure: the statement timeout still decides', async () => {
    const { via, db } = await throughProxy();
    expect(await selectOne(db)).toMatchObject({ ok: true });
    via.setResponseDelay(BOUND_MS - 300);

    const slow = await selectOne(db);
    via.setResponseDelay(0);

    expect(slow).toMatchObject({ ok: true });
    expect(logged('database query passed its deadline')).toEqual([]);
  });

  it("allows a proxy's queue its DB_PROXY_QUEUE_MS: an answer that late is taken, one later still is not, and the line says the wait was in the proxy", async () => {
    const queueMs = 1_000;
    const { via, db } = await throughProxy({ proxyQueueMs: queueMs });
    expect(await selectOne(db)).toMatchObject({ ok: true });

    via.setResponseDelay(BOUND_MS + queueMs / 2);
    const queued = await selectOne(db);
    via.setResponseDelay(BOUND_MS + queueMs + 1_000);
    const tooLong = await selectOne(db);
    via.setResponseDelay(0);
    const next = await selectOne(db);

    expect(queued).toMatchObject({ ok: true });
    expect(tooLong).toMatchObject({ ...TIMED_OUT, stage: 'query' });
    expect(tooLong.ms).toBeGreaterThanOrEqual(BOUND_MS + queueMs - 50);
    expect(next).toMatchObject({ ok: true });
    const [line] = logged('database query passed its deadline');
    expect(line).toMatchObject({ path: 'proxy', stage: 'query', dropped: 1 });
    expect(line!.queuedAtLeastMs).toBeGreaterThanOrEqual(queueMs - 50);
  });
});
