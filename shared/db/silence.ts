/**
 * A client-side bound on a database that stops answering. PostgreSQL's `statement_timeout`
 * bounds a statement only while the server can still answer; a failover, a dropped route or a
 * proxy that lost its backend leaves every open connection silent (bytes accepted, nothing
 * answered, never closed), and postgres.js has no query timeout of its own: a query would wait
 * for ever.
 *
 * One watch per pool. While a query waits on the pool, the watch reads how many bytes each of
 * the pool's sockets has received (the TCP socket's counters, which count TLS records too):
 * when none has received a byte for `silenceMs` (DB_STATEMENT_TIMEOUT_MS plus a margin: no
 * statement may run longer, and a busy server answers each one when it ends), the database is
 * silent. Every waiting query is then rejected with a DatabaseTimeoutError, and `onSilent` is
 * told so that the pool's owner retires the pool: a silent path usually means every connection
 * on it is dead, so none opened before is used again.
 *
 * A socket that has received nothing yet is still connecting: the connect timeout bounds it
 * (postgres.js's CONNECT_TIMEOUT), and no verdict is given while one is. Opening a socket counts
 * as hearing from the database, and so does the first query after a quiet spell. A check that runs late
 * (an environment frozen by Lambda, an event loop held up) is a stall of this process, not of
 * the database: the clock starts again.
 */
import type { Socket } from 'node:net';

/** The database accepted a query and then said nothing for longer than any statement may run. */
export class DatabaseTimeoutError extends Error {
  override readonly name = 'DatabaseTimeoutError';
  readonly code = 'ERR_DATABASE_TIMEOUT';
}

/** What a silence bound adds to DB_STATEMENT_TIMEOUT_MS: the server's own cancel must win. */
export const SILENCE_MARGIN_MS = 500;
/** How often a watch with waiting queries reads the sockets' counters. */
export const SILENCE_CHECK_MS = 100;
/** A check this much later than due means this process was stalled, not the database silent. */
const STALLED_MS = 1_000;

export interface SilenceWatch {
  /** A socket the pool opened: watched until it closes. */
  opened(socket: Socket): void;
  /**
   * Settles as `work` does, unless the database goes silent while it waits: then rejects with
   * a DatabaseTimeoutError (and `work`'s own later failure is ignored).
   */
  bound<T>(work: () => Promise<T>): Promise<T>;
  /** Destroys every socket the watch holds (a retired pool). */
  destroySockets(): void;
}

export interface SilenceWatchOptions {
  readonly silenceMs: number;
  /** Told once per silence, after the waiting queries were rejected. */
  readonly onSilent: () => void;
  readonly checkMs?: number;
}

export const createSilenceWatch = ({
  silenceMs,
  onSilent,
  checkMs = SILENCE_CHECK_MS,
}: SilenceWatchOptions): SilenceWatch => {
  /** Each open socket and the bytes it had received at the last check. */
  const sockets = new Map<Socket, number>();
  const waiting = new Set<(error: DatabaseTimeoutError) => void>();
  let heardAt = 0;
  let checkedAt = 0;
  let timer: NodeJS.Timeout | undefined;

  const check = () => {
    const now = performance.now();
    if (now - checkedAt > checkMs + STALLED_MS) heardAt = now;
    checkedAt = now;
    // Only connections that have spoken can fall silent; one still connecting has its own bound.
    let connected = false;
    let connecting = false;
    for (const [socket, seen] of sockets) {
      if (socket.destroyed) {
        sockets.delete(socket);
        continue;
      }
      const read = socket.bytesRead;
      if (read === 0) {
        connecting = true;
      } else {
        connected = true;
        if (read !== seen) {
          sockets.set(socket, read);
          heardAt = now;
        }
      }
    }
    if (!connected || connecting || now - heardAt < silenceMs) return;
    const error = new DatabaseTimeoutError(`the database said nothing for ${silenceMs} ms`);
    for (const reject of [...waiting]) reject(error);
    heardAt = now;
    onSilent();
  };

  const startWaiting = () => {
    if (waiting.size > 0) return;
    heardAt = checkedAt = performance.now();
    timer = setInterval(check, checkMs);
  };

  const stopWaiting = () => {
    if (waiting.size > 0 || timer === undefined) return;
    clearInterval(timer);
    timer = undefined;
  };

  return {
    opened: (socket) => {
      // Closed sockets go here rather than on 'close': postgres.js removes every listener of a
      // socket it upgrades to TLS, and the TLS socket's end destroys this one.
      for (const old of sockets.keys()) if (old.destroyed) sockets.delete(old);
      sockets.set(socket, socket.bytesRead);
      heardAt = performance.now();
    },
    bound: async <T>(work: () => Promise<T>): Promise<T> => {
      startWaiting();
      let silenced: (error: DatabaseTimeoutError) => void = () => undefined;
      const silence = new Promise<never>((_, reject) => {
        silenced = reject;
      });
      waiting.add(silenced);
      const running = Promise.resolve().then(work);
      // Once silenced, the work fails too (its pool is retired): nobody waits for that.
      running.catch(() => undefined);
      try {
        return await Promise.race([running, silence]);
      } finally {
        waiting.delete(silenced);
        stopWaiting();
      }
    },
    destroySockets: () => {
      for (const socket of sockets.keys()) socket.destroy();
      sockets.clear();
    },
  };
};
