/**
 * The container's database (createDatabase) when the database goes silent, as in a failover
 * behind a path that keeps the old connections: through a TCP proxy (tests/support/tcp-proxy.ts)
 * in front of the test database, every open connection stops answering and new ones are
 * accepted but never greeted; then new connections reach the database again while the old ones
 * stay silent for good. Each query must fail with DatabaseTimeoutError within the bound
 * (statement timeout plus the margin), no connection opened before the silence may be used
 * again, and the same database must answer once the path is back.
 */
import { createDatabase, type Database } from '../../../shared/db/database';
import { SILENCE_MARGIN_MS } from '../../../shared/db/silence';
import { createLogger } from '../../../shared/logger';
import { startTcpProxy, type TcpProxy } from '../../support/tcp-proxy';

const STATEMENT_TIMEOUT_MS = 300;
const BOUND_MS = STATEMENT_TIMEOUT_MS + SILENCE_MARGIN_MS;

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

const throughProxy = async (poolMax = 2): Promise<{ via: TcpProxy; db: Database }> => {
  const target = new URL(process.env.DATABASE_URL ?? '');
  const via = await startTcpProxy({
    targetHost: target.hostname,
    targetPort: Number(target.port || '5432'),
  });
  const url = new URL(target);
  url.port = String(via.port);
  const db = createDatabase(
    { url: url.toString() },
    { poolMax, statementTimeoutMs: STATEMENT_TIMEOUT_MS, connectTimeoutSeconds: 1 },
    createLogger('debug', (line) => lines.push(line)),
  );
  proxy = via;
  database = db;
  return { via, db };
};

type Outcome = { ok: true; ms: number } | { ok: false; ms: number; name: unknown; code: unknown };

const selectOne = async (db: Database): Promise<Outcome> => {
  const started = performance.now();
  try {
    await db.run((sql) => sql`select 1 as one`.execute());
    return { ok: true, ms: performance.now() - started };
  } catch (error) {
    const { name, code } = error as { name?: unknown; code?: unknown };
    return { ok: false, ms: performance.now() - started, name, code };
  }
};

const TIMED_OUT = { ok: false, name: 'DatabaseTimeoutError', code: 'ERR_DATABASE_TIMEOUT' };
const CONNECT_TIMED_OUT = { ok: false, name: 'Error', code: 'CONNECT_TIMEOUT' };

describe('createDatabase when the database goes silent', () => {
  it(`fails each query within ${BOUND_MS} ms (+ a check) on a silent connection, each connect within the connect timeout, then answers as soon as new connections reach the database`, async () => {
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

    // The first query waits on a silent connection; the later ones on new connections that
    // are never greeted, which the 1 s connect timeout ends.
    expect(silent).toEqual([
      { ...TIMED_OUT, ms: expect.any(Number) as unknown },
      ...silent.slice(1).map(() => ({ ...CONNECT_TIMED_OUT, ms: expect.any(Number) as unknown })),
    ]);
    expect(silent[0]!.ms).toBeGreaterThanOrEqual(BOUND_MS - 50);
    for (const { ms } of silent) expect(ms).toBeLessThan(STATEMENT_TIMEOUT_MS + 1000);
    expect(back).toMatchObject({ ok: true });
    expect(back.ms).toBeLessThan(5000);
    expect(after.every((outcome) => outcome.ok)).toBe(true);
    // Every connection of the silent pools was closed by the client: only the new pool's are
    // open, and new ones were opened.
    expect(via.stats().accepted).toBeGreaterThan(before);
    expect(via.stats().open).toBeLessThanOrEqual(2);
    const warnings = lines.filter((line) => line.includes('database silent'));
    expect(warnings.length).toBeGreaterThanOrEqual(1);
  });

  it('fails both queries waiting at once, and never hands a silent connection back', async () => {
    const { via, db } = await throughProxy();
    expect(await selectOne(db)).toMatchObject({ ok: true });
    expect(await Promise.all([selectOne(db), selectOne(db)])).toMatchObject([
      { ok: true },
      { ok: true },
    ]);

    via.silenceAll();
    const silent = await Promise.all([selectOne(db), selectOne(db)]);
    const back = await selectOne(db);

    expect(silent).toEqual(silent.map(() => ({ ...TIMED_OUT, ms: expect.any(Number) as unknown })));
    expect(back).toMatchObject({ ok: true });
    expect(via.stats().open).toBeLessThanOrEqual(2);
  });

  it('a slow answer within the bound is not silence: the statement timeout still decides', async () => {
    const { via, db } = await throughProxy();
    expect(await selectOne(db)).toMatchObject({ ok: true });
    via.setResponseDelay(BOUND_MS - 300);

    const slow = await selectOne(db);
    via.setResponseDelay(0);

    expect(slow).toMatchObject({ ok: true });
    expect(lines.filter((line) => line.includes('database silent'))).toEqual([]);
  });
});
