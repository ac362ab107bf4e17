/**
 * The container's database before any connection is made: binding, secret reads and their
 * failures, the retry after a refused login, and ending (shared/db/database.ts). No database
 * server is needed: postgres.js connects only when a query runs, and these run none.
 */
import { jest } from '@jest/globals';
import type { Sql } from '../../../../shared/db/client';
import { SecretShapeError } from '../../../../shared/db/credentials';
import { createDatabase, type Database } from '../../../../shared/db/database';
import { createLogger } from '../../../../shared/logger';

const poolOptions = { poolMax: 1, statementTimeoutMs: 1000, connectTimeoutSeconds: 1 };
const URL_SOURCE = { url: 'postgres://127.0.0.1:1/x' };
const PASSWORD = 'Zq9!distinctive-PASSWORD-7781';

const secretOf = (fields: Record<string, unknown>): string => JSON.stringify(fields);
const GOOD_SECRET = secretOf({
  username: 'reports',
  password: PASSWORD,
  host: '127.0.0.1',
  port: 1,
  dbname: 'x',
});

/**
 * A secret reader that answers GOOD_SECRET first, then GOOD_SECRET with each of `changes` in
 * turn, the last one from then on.
 */
const rotatingSecret = (...changes: Record<string, unknown>[]) => {
  const read = jest.fn<() => Promise<string>>().mockResolvedValueOnce(GOOD_SECRET);
  const versions = changes.map((change) =>
    secretOf({ ...(JSON.parse(GOOD_SECRET) as object), ...change }),
  );
  for (const version of versions.slice(0, -1)) read.mockResolvedValueOnce(version);
  const last = versions.at(-1);
  if (last !== undefined) read.mockResolvedValue(last);
  return read;
};

/** A logger whose lines the test reads. */
const capturedLogger = () => {
  const lines: string[] = [];
  return { lines, logger: createLogger('debug', (line) => lines.push(line)) };
};

/** The login refusal postgres.js rejects with after a rotation. */
const refusedLogin = (): Error =>
  Object.assign(new Error('password authentication failed'), { code: '28P01' });

describe('createDatabase', () => {
  const opened: Database[] = [];
  const track = (database: Database): Database => {
    opened.push(database);
    return database;
  };
  afterEach(async () => {
    await Promise.all(opened.splice(0).map((database) => database.end()));
  });
  /** A tracked database on `source` that logs nowhere the test reads. */
  const open = (source: Parameters<typeof createDatabase>[0], rereadIntervalMs?: number) =>
    track(createDatabase(source, poolOptions, capturedLogger().logger, rereadIntervalMs));

  describe('bind', () => {
    it('is not a thenable, so awaiting the bound queries does not hang', async () => {
      // Prepare
      const database = open(URL_SOURCE);

      // Act
      const bound = database.bind(() => ({ a: () => Promise.resolve(1) }));
      const value: unknown = bound;
      const awaited = await value;

      // Assess
      expect((bound as Record<string, unknown>).then).toBeUndefined();
      expect(awaited).toBe(bound);
    });

    it('has no symbol properties', () => {
      // Prepare
      const database = open(URL_SOURCE);

      // Act
      const bound: Record<symbol, unknown> = database.bind(() => ({ a: () => Promise.resolve(1) }));

      // Assess
      for (const symbol of [
        Symbol.iterator,
        Symbol.toPrimitive,
        Symbol.asyncIterator,
        Symbol.toStringTag,
      ]) {
        expect(bound[symbol]).toBeUndefined();
      }
    });

    it('runs a named method on the pool, building the queries once per pool (and once to name them)', async () => {
      // Prepare
      const database = open(URL_SOURCE);
      const make = jest.fn((sql: Sql) => ({ a: (n: number) => Promise.resolve([typeof sql, n]) }));
      const bound = database.bind(make);

      // Act
      const first = await bound.a(1);
      const second = await bound.a(2);

      // Assess
      expect([first, second]).toEqual([
        ['function', 1],
        ['function', 2],
      ]);
      expect(make).toHaveBeenCalledTimes(2);
    });

    it('has exactly the query methods: serialising it runs nothing', () => {
      // Prepare
      const database = open(URL_SOURCE);
      const run = jest.spyOn(database, 'run');

      // Act / Assess
      const bound = database.bind(() => ({ a: () => Promise.resolve(1), b: 'not a query' }));
      expect(Object.keys(bound)).toEqual(['a']);
      expect(JSON.stringify(bound)).toBe('{}');
      expect(run).not.toHaveBeenCalled();
    });

    it('refuses queries that run while they are being bound', () => {
      // Prepare
      const database = open(URL_SOURCE);

      // Act
      const binding = () =>
        database.bind((sql) => {
          void sql`select 1`;
          return { a: () => Promise.resolve(1) };
        });

      // Assess
      expect(binding).toThrow('queries must not run while they are being bound');
    });
  });

  describe('on a secret', () => {
    it('rejects with a SecretShapeError on a malformed secret, and reads it again next time', async () => {
      // Prepare
      const readSecret = jest.fn(() => Promise.resolve(`{"username":"u","password":"${PASSWORD}"`));
      const database = open({ readSecret });
      const work = jest.fn(() => Promise.resolve(1));

      // Act
      const first = database.run(work);
      await expect(first).rejects.toBeInstanceOf(SecretShapeError);
      const second = database.run(work);
      await expect(second).rejects.toBeInstanceOf(SecretShapeError);

      // Assess
      expect(readSecret).toHaveBeenCalledTimes(2);
      expect(work).not.toHaveBeenCalled();
    });

    it('opens the pool once a later read succeeds, and does not read again', async () => {
      // Prepare
      const readSecret = jest
        .fn<() => Promise<string>>()
        .mockRejectedValueOnce(new Error('extension not ready'))
        .mockResolvedValue(GOOD_SECRET);
      const database = open({ readSecret });

      // Act
      await expect(database.run(() => Promise.resolve(1))).rejects.toThrow('extension not ready');
      expect([
        await database.run(() => Promise.resolve(2)),
        await database.run(() => Promise.resolve(3)),

        // Assess
      ]).toEqual([2, 3]);
      expect(readSecret).toHaveBeenCalledTimes(2);
    });

    it('shares one read between concurrent runs', async () => {
      // Prepare
      let answer: (secret: string) => void = () => undefined;
      const readSecret = jest.fn(
        () =>
          new Promise<string>((resolve) => {
            answer = resolve;
          }),
      );
      const database = open({ readSecret });

      // Act
      const runs = [
        database.run(() => Promise.resolve('a')),
        database.run(() => Promise.resolve('b')),
      ];
      answer(GOOD_SECRET);

      // Assess
      await expect(Promise.all(runs)).resolves.toEqual(['a', 'b']);
      expect(readSecret).toHaveBeenCalledTimes(1);
    });

    it('resolves warmUp with the error, never rejecting, when the read fails', async () => {
      // Prepare
      const failure = new Error('the secrets extension refused the read');
      const readSecret = jest.fn((): Promise<string> => Promise.reject(failure));
      const database = open({ readSecret });

      // Act / Assess
      expect(await database.warmUp(2)).toBe(failure);
    });

    it("lets a query that waited for the warm-up's secret read, which failed, read the secret once more itself", async () => {
      // Prepare: the first read (the warm-up's, at initialisation) fails once a query waits for it
      let failFirst: (error: Error) => void = () => undefined;
      const readSecret = jest.fn((): Promise<string> =>
        readSecret.mock.calls.length === 1
          ? new Promise((_resolve, reject) => {
              failFirst = reject;
            })
          : Promise.resolve(GOOD_SECRET),
      );
      const database = open({ readSecret });

      // Act
      const warming = database.warmUp(1);
      const query = database.run(() => Promise.resolve('answered'));
      failFirst(new Error('the extension is not ready'));

      // Assess
      await expect(query).resolves.toBe('answered');
      expect(readSecret).toHaveBeenCalledTimes(2);
      expect(await warming).toBeInstanceOf(Error);
    });

    it('fails a query whose own secret read fails, without reading again', async () => {
      // Prepare
      const failure = new Error('the secrets extension refused the read');
      const readSecret = jest.fn((): Promise<string> => Promise.reject(failure));
      const database = open({ readSecret });

      // Act / Assess
      const query = database.run(() => Promise.resolve('answered'));
      await expect(query).rejects.toBe(failure);
      expect(readSecret).toHaveBeenCalledTimes(1);
    });

    it('resolves warmUp with the SecretShapeError of a malformed secret', async () => {
      // Prepare
      const database = open({ readSecret: () => Promise.resolve('[]') });

      // Act / Assess
      expect(await database.warmUp(1)).toBeInstanceOf(SecretShapeError);
    });

    it('reads the secret again after a refused login and retries on the same pool when only the password changed', async () => {
      // Prepare
      const readSecret = rotatingSecret({ password: 'rotated' });
      const { lines, logger } = capturedLogger();
      const database = track(createDatabase({ readSecret }, poolOptions, logger, 0));
      const pools: Sql[] = [];
      let refusals = 1;

      // Act / Assess
      expect(
        await database.run((sql) => {
          pools.push(sql);
          return refusals-- > 0 ? Promise.reject(refusedLogin()) : Promise.resolve('ran');
        }),
      ).toBe('ran');
      expect(readSecret).toHaveBeenCalledTimes(2);
      expect(pools).toHaveLength(2);
      expect(pools[1]).toBe(pools[0]);
      expect(lines).toHaveLength(1);
      expect(JSON.parse(lines[0]!)).toMatchObject({ level: 'warn', newServer: false });
      expect(lines[0]).not.toContain(PASSWORD);
      expect(lines[0]).not.toContain('rotated');
    });

    it('reads the secret again at each later rotation of the password, on the same pool', async () => {
      // Prepare: three versions of the password, each refused once its successor is current.
      const readSecret = rotatingSecret({ password: 'second' }, { password: 'third' });
      const database = open({ readSecret }, 0);
      const refuseOnce = () => {
        let refused = false;
        return () => {
          if (refused) return Promise.resolve('ran');
          refused = true;
          return Promise.reject(refusedLogin());
        };
      };

      // Act: a rotation, then another one.
      const first = await database.run(refuseOnce());
      const second = await database.run(refuseOnce());

      // Assess: each refusal read the secret again and the work then ran.
      expect([first, second]).toEqual(['ran', 'ran']);
      expect(readSecret).toHaveBeenCalledTimes(3);
    });

    it('opens a new pool after a refused login when the secret names another user', async () => {
      // Prepare
      const readSecret = rotatingSecret({ username: 'reports_clone' });
      const { lines, logger } = capturedLogger();
      const database = track(createDatabase({ readSecret }, poolOptions, logger, 0));
      const pools: Sql[] = [];

      // Act
      await expect(
        database.run((sql) => {
          pools.push(sql);
          return pools.length === 1 ? Promise.reject(refusedLogin()) : Promise.resolve('ran');
        }),
      ).resolves.toBe('ran');
      await database.run((sql) => Promise.resolve(pools.push(sql)));

      // Assess
      expect(pools).toHaveLength(3);
      expect(pools[1]).not.toBe(pools[0]);
      expect(pools[2]).toBe(pools[1]);
      expect(JSON.parse(lines[0]!)).toMatchObject({ level: 'warn', newServer: true });
    });

    it('rethrows the refusal when the secret has not changed', async () => {
      // Prepare
      const readSecret = jest.fn(() => Promise.resolve(GOOD_SECRET));
      const database = open({ readSecret }, 0);
      const refusal = refusedLogin();
      const work = jest.fn((): Promise<never> => Promise.reject(refusal));

      // Act / Assess
      const run = database.run(work);
      await expect(run).rejects.toBe(refusal);
      expect(readSecret).toHaveBeenCalledTimes(2);
      expect(work).toHaveBeenCalledTimes(1);
    });

    it('reads at most once per interval after refused logins', async () => {
      // Prepare
      const readSecret = jest.fn(() => Promise.resolve(GOOD_SECRET));
      const database = open({ readSecret }, 60_000);
      const refuse = (): Promise<never> => Promise.reject(refusedLogin());

      // Act
      for (let run = 0; run < 3; run += 1) {
        await expect(database.run(refuse)).rejects.toMatchObject({ code: '28P01' });
      }

      // Assess: the read at initialisation and one reread.
      expect(readSecret).toHaveBeenCalledTimes(2);
    });

    it('does not read the secret again for a failure other than a refused login', async () => {
      // Prepare
      const readSecret = jest.fn(() => Promise.resolve(GOOD_SECRET));
      const database = open({ readSecret }, 0);
      const failure = Object.assign(new Error('canceling statement'), { code: '57014' });

      // Act / Assess
      const run = database.run(() => Promise.reject(failure));
      await expect(run).rejects.toBe(failure);
      expect(readSecret).toHaveBeenCalledTimes(1);
    });
  });

  describe('warmUp on a connection string', () => {
    it('resolves with the connection failure when nothing listens, never rejecting', async () => {
      // Prepare
      const database = open(URL_SOURCE);

      // Act / Assess
      const outcome = await database.warmUp(1);
      // (Node's socket errors come from outside the test's realm: no instanceof Error here.)
      expect(outcome).toMatchObject({ code: 'ECONNREFUSED' });
    });
  });

  describe('end', () => {
    type Source = Parameters<typeof createDatabase>[0];
    it.each<[string, Source, (database: Database) => Promise<unknown>]>([
      ['when nothing was opened', URL_SOURCE, () => Promise.resolve()],
      [
        'after a failed secret read',
        { readSecret: () => Promise.resolve('not json') },
        (database) =>
          expect(database.run(() => Promise.resolve(1))).rejects.toBeInstanceOf(SecretShapeError),
      ],
      [
        'on a pool that was opened but never connected',
        URL_SOURCE,
        (database) => database.run(() => Promise.resolve(undefined)),
      ],
    ])('resolves %s', async (_case, source, before) => {
      // Prepare
      const database = createDatabase(source, poolOptions, capturedLogger().logger);
      await before(database);

      // Act / Assess
      await expect(database.end()).resolves.toBeUndefined();
    });
  });
});
