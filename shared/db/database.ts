/**
 * The container's database: one pool, opened from DATABASE_URL, or from the credentials in a
 * Secrets Manager secret, read once per container (during initialisation, beside the key-set
 * prefetch) and again only when the database refuses them.
 *
 * A rotation changes the password in the database and then in the secret: open connections stay
 * logged in, new ones are refused (SQLSTATE 28P01). A query refused that way reads the secret
 * once more and runs once more, on the same pool when only the password changed, on a new pool
 * when the user, host, port or database changed (the old pool ends once its queries are done).
 * Concurrent refusals share one read, and a container reads at most once per REREAD_INTERVAL_MS,
 * so a secret the database keeps refusing costs one read, not one per request. A refused login
 * never reached the database, so every query may run again.
 *
 * The warm-up of initialisation is a head start, never a verdict: Lambda may freeze the
 * environment before its first request, so a query whose wait for the warm-up's secret read
 * ended in a failure reads the secret again itself.
 *
 * Every query has a deadline on the client side too (shared/db/watch.ts): the statement timeout,
 * a margin and DB_PROXY_QUEUE_MS, or the request's own deadline when that comes first. A query
 * that passes it fails with a DatabaseTimeoutError and only the connection it waited on is
 * destroyed. The pool is retired only when a new connection cannot be made either (refused,
 * hung up on, never greeted): its connections are destroyed, never used again, and the next
 * query opens a new pool, whose connections look the host up again.
 */
import type { Logger } from '../logger';
import {
  createSql,
  openConnections,
  type DatabaseOptions,
  type PoolOptions,
  type Sql,
} from './client';
import { requestDeadline } from '../deadline';
import {
  createConnectionWatch,
  QUERY_MARGIN_MS,
  type ConnectionWatch,
  type Deadline,
  type DeadlinePassed,
} from './watch';
import {
  isRejectedLogin,
  parseSecretCredentials,
  sameServer,
  type DatabaseCredentials,
  type DatabaseLocation,
} from './credentials';
import type { ReadSecret } from './secrets-extension';

export interface Database {
  /**
   * Runs `work` on the pool, once the credentials are known. When the database refuses the
   * secret's credentials, reads the secret again and, if it changed, runs `work` once more.
   */
  run<T>(work: (sql: Sql) => Promise<T>): Promise<T>;
  /**
   * `make`'s query methods bound to the pool: each call goes through `run`, on the queries
   * `make` builds once per pool (a definition's `queries`, a registry).
   */
  bind<D>(make: (sql: Sql) => D): D;
  /** Opens `connections` now; resolves with the first failure, or undefined. Never rejects. */
  warmUp(connections: number): Promise<unknown>;
  /**
   * `select 1` through `run`, as every query goes: the secret read when there is one, the
   * pool's TLS, its connect timeout and its deadline. Resolves once the database answered;
   * rejects with the query's failure.
   */
  check(): Promise<void>;
  /** Ends the pool (tests and tooling; a Lambda container never needs it). */
  end(): Promise<void>;
}

/** A connection string, or a secret to read and where to connect when the secret says not. */
export type DatabaseSource =
  | { readonly url: string }
  | { readonly readSecret: ReadSecret; readonly location?: DatabaseLocation };

/**
 * Reads of the secret after a refused login: at most one per this interval per container (the
 * read at initialisation does not count).
 */
export const REREAD_INTERVAL_MS = 5_000;

const ENDING_POOL_TIMEOUT_SECONDS = 5;

interface Pool {
  readonly sql: Sql;
  /** Bounds the pool's queries by their deadlines; drops the connections that passed one. */
  readonly watch: ConnectionWatch;
  /** The credentials it was opened with (undefined for a connection string). */
  readonly credentials?: DatabaseCredentials;
}

/**
 * Stands in for the pool while `make` builds its queries to show their names: `make` only
 * closes over its argument (a definition's `queries`, a registry), so this is never called;
 * if it were, it would fail loudly.
 */
const NOT_A_POOL = (() => {
  throw new TypeError('queries must not run while they are being bound');
}) as unknown as Sql;

const bindTo = <D>(database: Pick<Database, 'run'>, make: (sql: Sql) => D): D => {
  const built = new WeakMap<Sql, D>();
  const queriesOn = (sql: Sql): D => {
    let queries = built.get(sql);
    if (queries === undefined) {
      queries = make(sql);
      built.set(sql, queries);
    }
    return queries;
  };
  // There is no pool before the secret is read: the method names come from queries built on a
  // stand-in, and each method resolves to the pool's own at call time.
  const names = Object.entries(make(NOT_A_POOL) as object)
    .filter(([, value]) => typeof value === 'function')
    .map(([name]) => name);
  return Object.fromEntries(
    names.map((name) => [
      name,
      (...args: never[]) =>
        database.run((sql) =>
          (queriesOn(sql)[name as keyof D] as (...params: never[]) => Promise<unknown>)(...args),
        ),
    ]),
  ) as D;
};

/** The codes of a connection that could not be made: refused, unreachable, hung up on, not greeted. */
const CONNECT_FAILURES = new Set([
  'CONNECT_TIMEOUT',
  'ECONNREFUSED',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ETIMEDOUT',
  'ERR_DATABASE_HANGS_UP',
]);

/** Whether `error` says a new connection could not be made (rather than a query failed). */
const noConnection = (error: unknown): boolean => {
  if (typeof error !== 'object' || error === null) return false;
  const { code, stage } = error as { code?: unknown; stage?: unknown };
  return (
    (code === 'ERR_DATABASE_TIMEOUT' && stage === 'connect') || CONNECT_FAILURES.has(code as string)
  );
};

export const createDatabase = (
  source: DatabaseSource,
  options: PoolOptions,
  logger: Pick<Logger, 'log'>,
  rereadIntervalMs = REREAD_INTERVAL_MS,
): Database => {
  let pool: Promise<Pool> | undefined;
  let credentials: DatabaseCredentials | undefined;
  let reading: Promise<DatabaseCredentials> | undefined;
  let lastReread = Number.NEGATIVE_INFINITY;
  /** The pool opened last: the one a failed connect replaces. */
  let latest: Pool | undefined;
  const proxyQueueMs = options.proxyQueueMs ?? 0;
  const path = proxyQueueMs > 0 ? 'proxy' : 'direct';
  /** A query's own bound: the server cancels a statement first; a proxy may queue it before. */
  const queryBoundMs = options.statementTimeoutMs + QUERY_MARGIN_MS + proxyQueueMs;
  /** Pools being opened by the warm-up: a query retries the opening when one fails. */
  const openedByWarmUp = new WeakSet<Promise<Pool>>();
  /** Each retired pool's reason: what its other queries, destroyed with it, fail with. */
  const retiredBy = new WeakMap<Pool, unknown>();

  /** The query's own bound from now, or the request's deadline when that comes first. */
  const deadline = (): Deadline => {
    const own = performance.now() + queryBoundMs;
    const request = requestDeadline();
    return request < own ? { at: request, kind: 'request' } : { at: own, kind: 'query' };
  };

  /**
   * The line for a query that passed its deadline: how long it waited and on what. Behind a
   * proxy, a wait beyond the statement's own bound was, at least in part, in the proxy's queue:
   * the server would have cancelled the statement.
   */
  const passedDeadline = ({ waitedMs, deadline: kind, stage, dropped }: DeadlinePassed) => {
    const queuedMs = waitedMs - options.statementTimeoutMs - QUERY_MARGIN_MS;
    logger.log('warn', 'database query passed its deadline', {
      waitedMs,
      deadline: kind,
      stage,
      path,
      dropped,
      ...(path === 'proxy' && stage === 'query' && queuedMs > 0
        ? { queuedAtLeastMs: queuedMs }
        : {}),
    });
  };

  const readCredentials = (): Promise<DatabaseCredentials> => {
    if (!('readSecret' in source)) throw new TypeError('no secret to read');
    reading ??= source
      .readSecret()
      .then((secret) => parseSecretCredentials(secret, source.location))
      .finally(() => {
        reading = undefined;
      });
    return reading;
  };

  /** Where a pool connects: the secret's credentials `opened`, or the connection string. */
  const target = (opened?: DatabaseCredentials): DatabaseOptions => {
    if (opened === undefined) {
      if (!('url' in source)) throw new TypeError('no credentials to open a pool with');
      return { ...options, url: source.url };
    }
    return {
      ...options,
      server: {
        host: opened.host,
        port: opened.port,
        database: opened.database,
        username: opened.username,
        // The latest password read: a rotation of the password alone keeps the pool.
        password: () =>
          credentials !== undefined && sameServer(credentials, opened)
            ? credentials.password
            : opened.password,
      },
    };
  };

  /** A new pool, its queries bounded by their deadlines; the one a failed connect replaces. */
  const open = (opened?: DatabaseCredentials): Pool => {
    const watch = createConnectionWatch({ onDeadline: passedDeadline });
    const sql = createSql(target(opened), watch);
    const created: Pool =
      opened === undefined ? { sql, watch } : { sql, watch, credentials: opened };
    latest = created;
    return created;
  };

  /**
   * After a connection could not be made: the pool's other connections share its path, so the
   * next query opens a new pool (when `failed` is still the current one), and `failed` ends at
   * once, every socket of it destroyed.
   */
  const retire = (failed: Pool, error: unknown) => {
    if (!retiredBy.has(failed)) retiredBy.set(failed, error);
    if (latest === failed) {
      logger.log('warn', 'database unreachable: no connection could be made; pool replaced', {
        errorCode: String((error as { code?: unknown }).code),
        path,
      });
      pool = Promise.resolve(open(failed.credentials));
    }
    void failed.sql
      .end({ timeout: 0 })
      .catch(() => undefined)
      .finally(() => {
        failed.watch.destroySockets();
      });
  };

  /** The pool, opened on first use; a failed secret read is tried again by the next call. */
  const current = (byWarmUp = false): Promise<Pool> => {
    if (pool !== undefined) return pool;
    if ('url' in source) {
      pool = Promise.resolve(open());
      return pool;
    }
    const opening = readCredentials().then((read) => {
      credentials = read;
      return open(read);
    });
    pool = opening;
    if (byWarmUp) openedByWarmUp.add(opening);
    opening.catch(() => {
      if (pool === opening) pool = undefined;
    });
    return opening;
  };

  /**
   * After a login with `attempted` (the credentials in force when the work started) was refused
   * on `refused`: the pool for the secret's credentials as read now, or undefined when there is
   * nothing new to try (no secret, read too recently, unchanged).
   */
  const renewed = async (
    refused: Pool,
    attempted: DatabaseCredentials | undefined,
  ): Promise<Pool | undefined> => {
    if (attempted === undefined) return undefined;
    // Another call has read newer credentials since this work started: try with those.
    if (credentials !== attempted) return current();
    if (reading === undefined) {
      if (Date.now() - lastReread < rereadIntervalMs) return undefined;
      lastReread = Date.now();
    }
    const read = await readCredentials();
    if (credentials !== attempted) return current();
    const newServer = !sameServer(read, attempted);
    if (read.password === attempted.password && !newServer) return undefined;
    credentials = read;
    logger.log('warn', 'database login refused: credentials read again from the secret', {
      newServer,
    });
    if (!newServer) return refused;
    const next = open(read);
    pool = Promise.resolve(next);
    void refused.sql.end({ timeout: ENDING_POOL_TIMEOUT_SECONDS });
    return next;
  };

  /** The pool for a query: when the warm-up's opening failed, opened once more. */
  const poolForQuery = async (): Promise<Pool> => {
    const pending = current();
    try {
      return await pending;
    } catch (error) {
      if (!openedByWarmUp.has(pending)) throw error;
      return current();
    }
  };

  const run = async <T>(work: (sql: Sql) => Promise<T>, byWarmUp = false): Promise<T> => {
    const used = await (byWarmUp ? current(true) : poolForQuery());
    const attempted = credentials;
    try {
      return await used.watch.bound(() => work(used.sql), deadline());
    } catch (error) {
      if (noConnection(error)) retire(used, error);
      // Destroyed with its pool: the reason the pool was retired is this query's too.
      if (retiredBy.has(used) && (error as { code?: unknown }).code === 'CONNECTION_DESTROYED') {
        throw retiredBy.get(used);
      }
      if (!isRejectedLogin(error)) throw error;
      const next = await renewed(used, attempted);
      if (next === undefined) throw error;
      return next.watch.bound(() => work(next.sql), deadline());
    }
  };

  const database: Database = {
    run: (work) => run(work),
    bind: (make) => bindTo(database, make),
    warmUp: async (connections) => {
      try {
        await run(async (sql) => {
          const failure = await openConnections(sql, connections);
          // openConnections resolves with a query's rejection: postgres.js rejects with Errors.
          if (failure !== undefined) throw failure as Error;
        }, true);
        return undefined;
      } catch (error) {
        return error;
      }
    },
    check: () =>
      run(async (sql) => {
        await sql`select 1`;
      }),
    end: async () => {
      const opened = await pool?.catch(() => undefined);
      await opened?.sql.end({ timeout: 1 });
    },
  };
  return database;
};
