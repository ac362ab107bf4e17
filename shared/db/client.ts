/**
 * One small PostgreSQL pool per warm container (postgres.js), reused across invocations, with
 * the TLS, timeout and reconnect behaviour the functions need. DATE values stay YYYY-MM-DD
 * strings and numerics stay decimal strings: nothing is shifted through a JavaScript Date or
 * rounded through a float on the way in (shared/db/types.ts). Beside it: the CAs and TLS
 * options (shared/db/tls.ts) and the workarounds for postgres.js (shared/db/postgres-workarounds.ts).
 */
import postgres from 'postgres';
import { urlHost } from './credentials';
import { poolSocket } from './postgres-workarounds';
import { keepText, textArray } from './types';
import type { ConnectionWatch } from './watch';
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
  /**
   * How long a query may wait in a proxy's queue (RDS Proxy, PgBouncer) for a database
   * connection, on top of the statement's own bound (shared/db/watch.ts); 0: a direct
   * connection, where no one queues it.
   */
  readonly proxyQueueMs?: number;
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
 * A pool. With `watch`, its sockets are watched (shared/db/watch.ts): the caller bounds its
 * queries with `watch.bound`, which drops the connections a query passed its deadline on.
 */
export const createSql = (options: DatabaseOptions, watch?: ConnectionWatch): Sql => {
  const tls = tlsOptions(
    options.tls,
    'url' in options ? urlHost(options.url) : options.server.host,
  );
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
    // TLS is negotiated by the socket factory (shared/db/postgres-workarounds.ts), never by
    // postgres.js, whatever the URL says.
    ssl: false,
    socket: poolSocket(options.connectTimeoutSeconds * 1000, {
      ...(watch === undefined ? {} : { watch }),
      ...(tls === false ? {} : { tls }),
    }),
  };
  if ('url' in options) return postgres(options.url, settings);
  const { host, port, database, username, password } = options.server;
  return postgres({
    ...settings,
    host,
    port,
    database,
    username,
    password,
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
