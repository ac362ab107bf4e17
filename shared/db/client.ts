/**
 * One small PostgreSQL pool per warm container (postgres.js), reused across invocations, with
 * the TLS, timeout and reconnect behaviour the functions need. DATE values stay YYYY-MM-DD
 * strings and numerics stay decimal strings: nothing is shifted through a JavaScript Date or
 * rounded through a float on the way in. postgres.js's lookup of array types is off
 * (`fetch_types`), so the one array type the queries send, text[], is declared here.
 */
import { connect, Socket, type LookupFunction } from 'node:net';
import postgres from 'postgres';
import { urlHost } from './credentials';
import type { SilenceWatch } from './silence';
import { tlsOptions, type DatabaseTls } from './tls';

export type Sql = postgres.Sql;

/**
 * Where to connect and as whom, as parts: a password-less location with credentials from a
 * secret (shared/db/database.ts). `password` is called at each new connection, so a pool
 * picks up a rotated password without being rebuilt.
 */
export interface DatabaseServer {
  readonly host: string;
  readonly port: number;
  readonly database: string;
  readonly username: string;
  readonly password: () => string;
}

/** What a pool is, whoever it connects as. */
export interface PoolOptions {
  readonly poolMax: number;
  /** The limit on one statement (PostgreSQL's `statement_timeout`). */
  readonly statementTimeoutMs: number;
  /**
   * Where that limit is set. `startup` (default): sent as a startup parameter when connecting.
   * `role`: not sent, so that a proxy that refuses unknown startup parameters (RDS Proxy,
   * PgBouncer without `ignore_startup_parameters`) lets the connection in; the database role's
   * own `statement_timeout` applies (`npm run db:migrate -- --service-role`).
   */
  readonly statementTimeoutVia?: 'startup' | 'role';
  readonly connectTimeoutSeconds: number;
  /**
   * Named prepared statements, postgres.js's default (true). A proxy that pools by transaction
   * (PgBouncer in `transaction` mode) hands each transaction whichever server connection is
   * free, where a statement prepared in an earlier one does not exist: the bind fails and
   * postgres.js parses it again, leaving the old one behind (tests/integration/db/pgbouncer.test.ts);
   * RDS Proxy pins the session to one database connection instead. false (DB_PREPARE=false):
   * every query is parsed anew, unnamed, in the same round trip as its execution.
   */
  readonly prepare?: boolean;
  /** TLS to the database; absent: none (tools and tests on this machine). See `tlsOptions`. */
  readonly tls?: DatabaseTls;
}

/** A pool on a connection string (`url`), or on a server and a password source (`server`). */
export type DatabaseOptions = PoolOptions &
  ({ readonly url: string } | { readonly server: DatabaseServer });

const DATE_OID = 1082;
const keepText = {
  to: DATE_OID,
  from: [DATE_OID],
  serialize: (value: string) => value,
  parse: (value: string) => value,
};

/**
 * text[] (the same OID in every PostgreSQL), for the `= any(${[...]})` lists of states and
 * platform ids. Declared here because postgres.js learns array types from a catalog query on
 * every new connection, which a cold start or a reconnect would wait for; any other array
 * type fails loudly (a TypeError here, or the server's "malformed array literal") until declared.
 */
const TEXT_ARRAY_OID = 1009;

/** A text[] value as a PostgreSQL array literal; every element quoted, so any text is safe. */
export const serializeTextArray = (values: readonly (string | null)[]): string =>
  `{${values
    .map((value) => (value === null ? 'NULL' : `"${value.replace(/["\\]/g, '\\$&')}"`))
    .join(',')}}`;

/**
 * A one-dimensional text[] as PostgreSQL writes it: `{}`, bare elements, `NULL`, and quoted
 * elements with backslash escapes. Anything else (several dimensions, explicit bounds) is a
 * TypeError rather than a guess.
 */
export const parseTextArray = (literal: string): (string | null)[] => {
  const malformed = (): TypeError => new TypeError('not a one-dimensional text[] literal');
  if (!literal.startsWith('{') || !literal.endsWith('}')) throw malformed();
  const values: (string | null)[] = [];
  const end = literal.length - 1;
  if (end === 1) return values;
  let i = 1;
  for (;;) {
    if (literal[i] === '"') {
      let value = '';
      i += 1;
      while (i < end && literal[i] !== '"') {
        if (literal[i] === '\\') i += 1;
        value += literal[i] ?? '';
        i += 1;
      }
      if (i >= end) throw malformed();
      i += 1;
      values.push(value);
    } else {
      let next = i;
      while (next < end && literal[next] !== ',') next += 1;
      const bare = literal.slice(i, next);
      if (bare === '' || /["{}\\]/.test(bare)) throw malformed();
      values.push(bare === 'NULL' ? null : bare);
      i = next;
    }
    if (i === end) return values;
    if (literal[i] !== ',') throw malformed();
    i += 1;
  }
};

const textArray = {
  to: TEXT_ARRAY_OID,
  from: [TEXT_ARRAY_OID],
  serialize: serializeTextArray,
  parse: parseTextArray,
};

/** A database that keeps accepting connections and closing them before it says anything. */
export class DatabaseHangsUpError extends Error {
  override readonly name = 'DatabaseHangsUpError';
  readonly code = 'ERR_DATABASE_HANGS_UP';
}

/** What postgres.js hands a socket factory (its `socket` option, missing from its types). */
interface SocketTarget {
  readonly host: readonly string[];
  readonly port: readonly number[];
  readonly path?: string | false;
}

export const HANG_UP_LIMIT = 3;

/**
 * postgres.js reconnects at once, without limit, when a connection closes before the server
 * answered while a query waits for it: against an endpoint that accepts and hangs up (a load
 * balancer without a healthy target) that is hundreds of connects a second and a query that
 * never settles. This factory opens the sockets itself: after HANG_UP_LIMIT such hang-ups in a
 * row it refuses the next connect, which fails the waiting query (a 500), and starts counting
 * afresh, so each invocation makes a few attempts at most and the next one recovers as soon as
 * the database answers. It also bounds the TCP connect, which postgres.js only times once the
 * socket exists.
 */
export const guardedSocket = (
  connectTimeoutMs: number,
  { watch, lookup }: { readonly watch?: SilenceWatch; readonly lookup?: LookupFunction } = {},
) => {
  let hangUps = 0;
  return (target: SocketTarget): Promise<Socket> => {
    if (hangUps >= HANG_UP_LIMIT) {
      hangUps = 0;
      return Promise.reject(new DatabaseHangsUpError('the database closes every connection'));
    }
    return new Promise((resolve, reject) => {
      // A host name is looked up again for every connection (Node keeps no DNS cache): after a
      // failover moves the name, the next connection reaches the new server.
      const socket = target.path
        ? connect(target.path)
        : connect({
            port: target.port[0] ?? 5432,
            host: target.host[0] ?? 'localhost',
            ...(lookup === undefined ? {} : { lookup }),
          });
      watch?.opened(socket);
      let connected = false;
      let answered = false;
      let closedByPeer = false;
      const timer = setTimeout(() => {
        socket.destroy();
        reject(Object.assign(new Error('connect timeout'), { code: 'CONNECT_TIMEOUT' }));
      }, connectTimeoutMs);
      socket.once('data', () => {
        answered = true;
        hangUps = 0;
      });
      socket.once('end', () => {
        closedByPeer = true;
      });
      // A hang-up is an accepted connection that the other side closed (or reset) before the
      // server said a word. A refused connect, or one we gave up on (a connect timeout), fails
      // its query at once and cannot make postgres.js loop: neither counts.
      socket.once('close', (hadError) => {
        if (connected && !answered && (closedByPeer || hadError)) hangUps += 1;
      });
      socket.once('error', (error) => {
        clearTimeout(timer);
        reject(error);
      });
      socket.once('connect', () => {
        connected = true;
        clearTimeout(timer);
        resolve(socket);
      });
    });
  };
};

/**
 * A connection that failed before postgres.js had it, handed over as a socket that fails.
 *
 * postgres.js (3.4) handles a socket factory that rejects by failing the waiting query but
 * never marks the connection closed: that pool slot stays "connecting" for good, and once every
 * slot has failed a connect (the database restarting, a failover) each later query waits
 * forever. A socket that errors takes postgres.js's own path for a failed connect instead: the
 * query fails with this error, the slot is closed, and the next query connects again (at once:
 * an unconnected socket closes without `hadError`, so postgres.js adds no reconnect back-off —
 * a refused database answers 500s fast rather than after a growing wait). It errors just after postgres.js's first write (the startup
 * or SSL request), not before: postgres.js keeps a write pending until then, and a connection
 * that closed with one pending would never send its next startup message.
 */
class FailedConnection extends Socket {
  readonly #failure: Error;

  constructor(failure: Error) {
    super();
    this.#failure = failure;
  }

  /** postgres.js's first write (it passes no callback there): fail once it is flushed. */
  override write(..._ignored: unknown[]): boolean {
    setImmediate(() => this.destroy(this.#failure));
    return true;
  }
}

/** The guard as postgres.js's `socket` option: its refusals become sockets that fail. */
const poolSocket = (connectTimeoutMs: number, watch?: SilenceWatch) => {
  const guarded = guardedSocket(connectTimeoutMs, watch === undefined ? {} : { watch });
  return (target: SocketTarget): Promise<Socket> =>
    guarded(target).catch((error: unknown) => new FailedConnection(error as Error));
};

/**
 * The longest wait, in seconds, before a connection that failed is opened again. postgres.js
 * waits longer after each failure in a row (up to 20 s); a query waits that long before its
 * connect even starts, so a database back after a failover would stay unreachable for that
 * long. Each connect here is asked for by a request, which bounds how often they come.
 */
export const RECONNECT_BACKOFF_MAX_SECONDS = 0.25;

/** postgres.js's own growth (3^retries / 100 s, with jitter), up to the cap. */
const reconnectBackoff = (retries: number): number =>
  (0.5 + Math.random() / 2) * Math.min(3 ** retries / 100, RECONNECT_BACKOFF_MAX_SECONDS);

/**
 * A pool. With `watch`, its sockets are watched for silence (shared/db/silence.ts): the caller
 * bounds its queries with `watch.bound` and retires the pool when the watch says so.
 */
export const createSql = (options: DatabaseOptions, watch?: SilenceWatch): Sql => {
  const settings: postgres.Options<Record<string, postgres.PostgresType>> & {
    socket: ReturnType<typeof poolSocket>;
  } = {
    max: options.poolMax,
    prepare: options.prepare ?? true,
    idle_timeout: 60,
    connect_timeout: options.connectTimeoutSeconds,
    backoff: reconnectBackoff,
    connection: {
      application_name: 'portal-service-api',
      ...(options.statementTimeoutVia === 'role'
        ? {}
        : { statement_timeout: options.statementTimeoutMs }),
    },
    types: { date: keepText, textArray },
    fetch_types: false,
    onnotice: () => undefined,
    socket: poolSocket(options.connectTimeoutSeconds * 1000, watch),
  };
  if ('url' in options) {
    return postgres(options.url, {
      ...settings,
      ssl: tlsOptions(options.tls, urlHost(options.url)),
    });
  }
  const { host, port, database, username, password } = options.server;
  return postgres({
    ...settings,
    host,
    port,
    database,
    username,
    password,
    ssl: tlsOptions(options.tls, host),
  });
};

/**
 * Opens `connections` of the pool's connections now, concurrently — at container
 * initialisation, while the key set is being fetched — so that the first request finds them
 * ready instead of paying TCP, the startup exchange and authentication in its own time.
 * Resolves once each has connected or failed, with the first failure (or undefined); it never
 * rejects. A connection that failed is opened again by the next query that needs it, as without
 * the warm-up. A query that arrives while these are still connecting waits for them, and if
 * they then fail it tries once itself: with a database that accepts and never answers, that
 * first request fails after up to two connect timeouts instead of one.
 */
export const openConnections = async (sql: Sql, connections: number): Promise<unknown> => {
  const outcomes = await Promise.allSettled(
    Array.from({ length: connections }, () => sql`select 1`.execute()),
  );
  return outcomes.find((outcome) => outcome.status === 'rejected')?.reason;
};
