/**
 * Workarounds for postgres.js (pinned in package.json to the version they were written
 * against) and the upstream issues they answer. Each relies on behaviour of that version that
 * its types do not promise: the untyped `socket` option (a factory of connected sockets), when it
 * writes to a socket, and how it treats one that closes. tests/integration/db/
 * postgres-workarounds.test.ts fails when an upgrade changes what they rely on, or fixes what
 * they work around; shared/db/watch.ts relies on the same option.
 *
 * - porsager/postgres#1193: a connection closed cleanly before the server answered leaves its
 *   query unsettled and reconnects at once, without end. `guardedSocket` counts such hang-ups
 *   and refuses the next connect after HANG_UP_LIMIT in a row, which fails the query.
 * - porsager/postgres#1179: a failed connect is retried at once, in a tight loop, by every
 *   connection of the pool. `guardedSocket` bounds the TCP connect, and a refusal reaches
 *   postgres.js as a `FailedConnection`, which takes its own path for a failed connect.
 * - TLS is negotiated here, not by postgres.js (which is given `ssl: false`), so that the pool's
 *   watch holds the socket postgres.js writes to: destroying a connection that passed its
 *   deadline destroys that socket, whose later writes then fail quietly. Destroyed under
 *   postgres.js's own TLS socket, the TCP socket leaves that one writing to a closed handle
 *   (EBADF, raised after postgres.js stopped listening for errors).
 */
import { once } from 'node:events';
import { connect, isIP, Socket, type LookupFunction } from 'node:net';
import { connect as connectTls, type ConnectionOptions } from 'node:tls';
import type { ConnectionWatch } from './watch';

/** postgres.js's version these were written against, and the one package.json pins. */
export const POSTGRES_JS_VERSION = '3.4.9';

/** A database that keeps accepting connections and closing them before it says anything. */
export class DatabaseHangsUpError extends Error {
  override readonly name = 'DatabaseHangsUpError';
  readonly code = 'ERR_DATABASE_HANGS_UP';
}

/** What postgres.js hands a socket factory (its `socket` option, missing from its types). */
export interface SocketTarget {
  readonly host: readonly string[];
  readonly port: readonly number[];
  readonly path?: string | false;
}

export const HANG_UP_LIMIT = 3;

/** A database that answered PostgreSQL's SSLRequest with anything but `S`. */
export class DatabaseTlsRefusedError extends Error {
  override readonly name = 'DatabaseTlsRefusedError';
  readonly code = 'ERR_DATABASE_TLS_REFUSED';
}

/** PostgreSQL's SSLRequest: length 8, code 80877103. */
const SSL_REQUEST = Buffer.from([0, 0, 0, 8, 0x04, 0xd2, 0x16, 0x2f]);
const WILLING = 0x53; // 'S'

/**
 * The SSLRequest, then the TLS handshake on `socket`. Only the single byte `S` is accepted: bytes
 * after it, before the handshake, would be read as if they came over TLS.
 */
const secure = async (
  socket: Socket,
  options: ConnectionOptions,
  host: string,
): Promise<Socket> => {
  socket.write(SSL_REQUEST);
  const [reply] = (await once(socket, 'data')) as [Buffer];
  if (reply.length !== 1 || reply[0] !== WILLING) {
    throw new DatabaseTlsRefusedError('the database did not accept TLS');
  }
  const secured = connectTls({
    ...(isIP(host) ? {} : { servername: host }),
    ...options,
    socket,
  });
  await once(secured, 'secureConnect');
  return secured;
};
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
  {
    watch,
    lookup,
    tls,
  }: {
    readonly watch?: ConnectionWatch;
    readonly lookup?: LookupFunction;
    /** TLS to negotiate before handing the socket over (shared/db/tls.ts); absent: none. */
    readonly tls?: ConnectionOptions;
  } = {},
) => {
  let hangUps = 0;
  return (target: SocketTarget): Promise<Socket> => {
    if (hangUps >= HANG_UP_LIMIT) {
      hangUps = 0;
      return Promise.reject(new DatabaseHangsUpError('the database closes every connection'));
    }
    const host = target.host[0] ?? 'localhost';
    return new Promise((resolve, reject) => {
      // A host name is looked up again for every connection (Node keeps no DNS cache): after a
      // failover moves the name, the next connection reaches the new server.
      const socket = target.path
        ? connect(target.path)
        : connect({
            port: target.port[0] ?? 5432,
            host,
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
        if (tls === undefined) {
          clearTimeout(timer);
          resolve(socket);
          return;
        }
        // The connect timeout bounds the handshake too.
        // Its failure is handed on as it is: a TLS error's code says what was refused.
        const secured = secure(socket, tls, host).then(
          (tlsSocket) => {
            watch?.secured(socket, tlsSocket);
            return tlsSocket;
          },
          (error: unknown) => {
            socket.destroy();
            throw error;
          },
        );
        secured
          .finally(() => {
            clearTimeout(timer);
          })
          .catch(() => undefined);
        resolve(secured);
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
export class FailedConnection extends Socket {
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
export const poolSocket = (
  connectTimeoutMs: number,
  { watch, tls }: { readonly watch?: ConnectionWatch; readonly tls?: ConnectionOptions } = {},
) => {
  const guarded = guardedSocket(connectTimeoutMs, {
    ...(watch === undefined ? {} : { watch }),
    ...(tls === undefined ? {} : { tls }),
  });
  return (target: SocketTarget): Promise<Socket> =>
    guarded(target).catch((error: unknown) => new FailedConnection(error as Error));
};
