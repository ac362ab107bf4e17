/**
 * A pool from createSql whose connects fail — refused, black-holed, hung up on — fails each
 * waiting query in bounded time and, once the database answers again, serves the next query:
 * no failed connect may leave a pool slot stuck, however many fail in a row. Through a TCP
 * proxy (tests/support/tcp-proxy.ts) in front of the test database (PGlite or PostgreSQL).
 */
import { createSql, type Sql } from '../../../shared/db/client';
import { startTcpProxy, type ProxyMode, type TcpProxy } from '../../support/tcp-proxy';

const CONNECT_TIMEOUT_S = 1;
/** Longer than any bounded failure here: a query still pending then is stuck. */
const STUCK_MS = 4_000;

let proxy: TcpProxy | undefined;
let sql: Sql | undefined;

afterEach(async () => {
  await sql?.end({ timeout: 0 });
  await proxy?.close();
  sql = undefined;
  proxy = undefined;
});

const database = (): URL => new URL(process.env.DATABASE_URL ?? '');

const throughProxy = async (poolMax: number): Promise<{ via: TcpProxy; pool: Sql }> => {
  const target = database();
  const via = await startTcpProxy({
    targetHost: target.hostname,
    targetPort: Number(target.port || '5432'),
  });
  const url = new URL(target);
  url.port = String(via.port);
  const pool = createSql({
    url: url.toString(),
    poolMax,
    statementTimeoutMs: 5_000,
    connectTimeoutSeconds: CONNECT_TIMEOUT_S,
  });
  proxy = via;
  sql = pool;
  return { via, pool };
};

type Outcome = { ok: true } | { ok: false; name: unknown; code: unknown } | { stuck: true };

/** Runs `select 1`, reporting how it settled, or that it had not settled after STUCK_MS. */
const attempt = async (pool: Sql): Promise<Outcome> => {
  let timer: NodeJS.Timeout | undefined;
  const stuck = new Promise<Outcome>((resolve) => {
    timer = setTimeout(() => {
      resolve({ stuck: true });
    }, STUCK_MS);
  });
  const settled = pool`select 1 as one`.then(
    (): Outcome => ({ ok: true }),
    (error: unknown): Outcome => {
      const { name, code } = error as { name?: unknown; code?: unknown };
      return { ok: false, name, code };
    },
  );
  try {
    return await Promise.race([settled, stuck]);
  } finally {
    clearTimeout(timer);
  }
};

const FAULTS: readonly { mode: ProxyMode; failure: { name: string; code: string } }[] = [
  { mode: 'refuse', failure: { name: 'Error', code: 'ECONNREFUSED' } },
  { mode: 'black-hole', failure: { name: 'Error', code: 'CONNECT_TIMEOUT' } },
  { mode: 'hang-up', failure: { name: 'DatabaseHangsUpError', code: 'ERR_DATABASE_HANGS_UP' } },
];

describe('createSql pool after failed connects', () => {
  it.each(FAULTS.flatMap((fault) => [1, 2].map((poolMax) => ({ ...fault, poolMax }))))(
    'database $mode, pool of $poolMax: three queries fail with $failure.code, then the next one is answered',
    async ({ mode, failure, poolMax }) => {
      const { via, pool } = await throughProxy(poolMax);
      await via.setMode(mode);

      const down: Outcome[] = [];
      for (let i = 0; i < 3; i += 1) down.push(await attempt(pool));
      await via.setMode('pass');
      const back = await attempt(pool);

      // ECONNREFUSED comes from node:net, another realm than the test's: compare fields.
      expect(down).toEqual([1, 2, 3].map(() => ({ ok: false, ...failure })));
      expect(back).toEqual({ ok: true });
    },
  );

  it('answers again after failures on every slot of the pool at once', async () => {
    const { via, pool } = await throughProxy(2);
    await via.setMode('refuse');

    const down = await Promise.all([attempt(pool), attempt(pool), attempt(pool)]);
    await via.setMode('pass');
    const back = await Promise.all([attempt(pool), attempt(pool)]);

    expect(down.every((outcome) => 'ok' in outcome && !outcome.ok)).toBe(true);
    expect(back).toEqual([{ ok: true }, { ok: true }]);
  });
});
