/**
 * Each query's deadline, on the client side. PostgreSQL's `statement_timeout` bounds a statement
 * only while the server can answer; a failover, a dropped route or a proxy that lost its backend
 * leaves a connection silent (bytes accepted, nothing answered, never closed), and postgres.js
 * has no query timeout of its own: a query would wait for ever.
 *
 * One watch per pool. Each piece of work on the pool (`bound`) has a deadline: the earlier of
 * the query's own bound (the statement timeout, a margin, and a proxy's queue allowance) and
 * the request's (shared/deadline.ts). While work waits, the watch reads every socket's byte
 * counters (the TCP socket's, which count TLS records too) and notes, for each, since when it
 * has sent something and received nothing. When work passes its deadline it is rejected with a
 * DatabaseTimeoutError, and the sockets that have sent since that work began and heard nothing
 * since are destroyed: postgres.js fails whatever else waited on them and opens new ones for
 * the next queries. A connection that answers, and an idle one, are kept: one dead connection
 * among live ones costs that connection, not the pool.
 *
 * A check that runs late (an environment frozen by Lambda, an event loop held up) is a stall of
 * this process, not of the database: a query's own bound starts again. A request's deadline
 * does not move: Lambda's clock ran on.
 */
import { once } from 'node:events';
import type { Socket } from 'node:net';

/** What held a query when its deadline passed. */
export type DeadlineStage =
  /** A connection that sent its startup and was never greeted. */
  | 'connect'
  /** A connection that sent the query and heard nothing since. */
  | 'query'
  /** No connection at all: every one of the pool's was busy. */
  | 'pool';

/** Whose deadline it was: the query's own bound, or the request's (Lambda's remaining time). */
export type DeadlineKind = 'query' | 'request';

/** A query passed its deadline. */
export class DatabaseTimeoutError extends Error {
  override readonly name = 'DatabaseTimeoutError';
  readonly code = 'ERR_DATABASE_TIMEOUT';

  constructor(
    readonly waitedMs: number,
    readonly deadline: DeadlineKind,
    readonly stage: DeadlineStage,
  ) {
    super(`the query waited ${waitedMs} ms (${stage}) and passed its ${deadline} deadline`);
  }
}

/** What the query's own bound adds to DB_STATEMENT_TIMEOUT_MS: the server's own cancel must win. */
export const QUERY_MARGIN_MS = 500;
/** How often a watch with waiting work reads the sockets' counters and its deadlines. */
export const WATCH_CHECK_MS = 100;
/** A check this much later than due means this process was stalled, not the database silent. */
const STALLED_MS = 1_000;
/**
 * The longest wait for a destroyed connection's close to reach postgres.js (it comes within a
 * tick or two): until then a query sent would be queued on it and fail.
 */
const CLOSE_SEEN_MS = 100;

export interface Deadline {
  /** `performance.now()` time. */
  readonly at: number;
  readonly kind: DeadlineKind;
}

/** What the watch did when a query passed its deadline, for its owner's log line. */
export interface DeadlinePassed {
  readonly waitedMs: number;
  readonly deadline: DeadlineKind;
  readonly stage: DeadlineStage;
  /** Connections destroyed. */
  readonly dropped: number;
}

export interface ConnectionWatch {
  /** A socket the pool opened: watched until it closes. */
  opened(socket: Socket): void;
  /** `socket` now carries `secured`, its TLS socket: the one destroyed when it must be. */
  secured(socket: Socket, secured: Socket): void;
  /**
   * Settles as `work` does, unless `deadline` passes first: then rejects with a
   * DatabaseTimeoutError (`work`'s own later failure is ignored) and destroys the connections
   * that `work` left unanswered.
   */
  bound<T>(work: () => Promise<T>, deadline: Deadline): Promise<T>;
  /** Destroys every socket the watch holds (a retired pool). */
  destroySockets(): void;
}

export interface ConnectionWatchOptions {
  /** Told after each deadline passed, once the waiting work was rejected. */
  readonly onDeadline: (passed: DeadlinePassed) => void;
  readonly checkMs?: number;
}

/**
 * A socket's counters at the last check, and when (check times) each last grew. Checks are
 * coarse: bytes sent and received between the same two checks count as answered.
 */
interface Watched {
  /** The socket postgres.js uses: the TCP socket, or the TLS socket over it. */
  outer: Socket;
  read: number;
  written: number;
  readAt: number;
  wroteAt: number;
}

interface Waiting {
  readonly startedAt: number;
  deadline: Deadline;
  readonly reject: (error: DatabaseTimeoutError) => void;
  /** Set once the deadline passed: what the work fails with, whatever it settles with. */
  passed?: DatabaseTimeoutError;
}

export const createConnectionWatch = ({
  onDeadline,
  checkMs = WATCH_CHECK_MS,
}: ConnectionWatchOptions): ConnectionWatch => {
  const sockets = new Map<Socket, Watched>();
  const waiting = new Set<Waiting>();
  let checkedAt = 0;
  let timer: NodeJS.Timeout | undefined;
  /** Settles once postgres.js has seen the close of every connection destroyed so far. */
  let closing: Promise<unknown> = Promise.resolve();
  /** The last deadline that destroyed connections: other work on them fails with its error. */
  let lastDrop: { readonly at: number; readonly error: DatabaseTimeoutError } | undefined;

  const sample = (now: number) => {
    for (const [socket, watched] of sockets) {
      if (socket.destroyed || watched.outer.destroyed) {
        sockets.delete(socket);
        continue;
      }
      const { bytesRead, bytesWritten } = socket;
      if (bytesRead !== watched.read) {
        watched.read = bytesRead;
        watched.readAt = now;
      }
      if (bytesWritten !== watched.written) {
        watched.written = bytesWritten;
        watched.wroteAt = now;
      }
    }
  };

  /** Sent something after `since` (a check time), and has heard nothing since it last sent. */
  const unanswered = (watched: Watched, since: number) =>
    watched.wroteAt > since && watched.readAt < watched.wroteAt;

  const expire = (item: Waiting, now: number) => {
    waiting.delete(item);
    let dropped = 0;
    let stage: DeadlineStage = 'pool';
    const closes: Promise<unknown>[] = [];
    for (const [socket, watched] of sockets) {
      if (!unanswered(watched, item.startedAt)) continue;
      if (stage !== 'connect') stage = watched.read === 0 ? 'connect' : 'query';
      sockets.delete(socket);
      closes.push(once(watched.outer, 'close'));
      watched.outer.destroy();
      dropped += 1;
    }
    if (closes.length > 0) {
      closing = Promise.race([
        Promise.all([closing, ...closes]),
        new Promise((resolve) => setTimeout(resolve, CLOSE_SEEN_MS)),
      ]);
    }
    const waitedMs = Math.round(now - item.startedAt);
    const error = new DatabaseTimeoutError(waitedMs, item.deadline.kind, stage);
    item.passed = error;
    if (dropped > 0) lastDrop = { at: now, error };
    onDeadline({ waitedMs, deadline: item.deadline.kind, stage, dropped });
    // The caller may send its next query at once: not before postgres.js saw the closes.
    void closing.then(() => {
      item.reject(error);
    });
  };

  const check = () => {
    const now = performance.now();
    const late = now - checkedAt - checkMs;
    checkedAt = now;
    if (late > STALLED_MS) {
      for (const item of waiting) {
        if (item.deadline.kind === 'query') {
          item.deadline = { ...item.deadline, at: item.deadline.at + late };
        }
      }
    }
    sample(now);
    for (const item of [...waiting]) if (item.deadline.at <= now) expire(item, now);
    stopWhenIdle();
  };

  const stopWhenIdle = () => {
    if (waiting.size > 0 || timer === undefined) return;
    clearInterval(timer);
    timer = undefined;
  };

  return {
    opened: (socket) => {
      for (const [old, { outer }] of sockets)
        if (old.destroyed || outer.destroyed) sockets.delete(old);
      const now = performance.now();
      sockets.set(socket, {
        outer: socket,
        read: socket.bytesRead,
        written: socket.bytesWritten,
        readAt: now,
        wroteAt: now,
      });
    },
    bound: async <T>(work: () => Promise<T>, deadline: Deadline): Promise<T> => {
      // What was sent before is not this work's: its own sending is noted by later checks.
      const startedAt = performance.now();
      sample(startedAt);
      if (timer === undefined) {
        checkedAt = startedAt;
        timer = setInterval(check, checkMs);
      }
      let reject: (error: DatabaseTimeoutError) => void = () => undefined;
      const passed = new Promise<never>((_, rejectPassed) => {
        reject = rejectPassed;
      });
      // Not on a connection that is closing: postgres.js has not let go of it yet.
      const running = closing.then(work);
      const item: Waiting = {
        startedAt,
        deadline,
        reject: (error) => {
          reject(error);
        },
      };
      waiting.add(item);
      try {
        return await Promise.race([running, passed]);
      } catch (error) {
        if (item.passed) throw item.passed;
        // Sent on a connection another query's deadline destroyed: failed for the same reason.
        const { code } = error as { code?: unknown };
        if (
          (code === 'CONNECTION_CLOSED' || code === 'CONNECTION_DESTROYED') &&
          lastDrop !== undefined &&
          lastDrop.at >= startedAt
        ) {
          throw lastDrop.error;
        }
        throw error;
      } finally {
        waiting.delete(item);
        stopWhenIdle();
      }
    },
    secured: (socket, secured) => {
      const watched = sockets.get(socket);
      if (watched !== undefined) watched.outer = secured;
    },
    destroySockets: () => {
      for (const { outer } of sockets.values()) outer.destroy();
      sockets.clear();
    },
  };
};
