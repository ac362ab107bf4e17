/**
 * The request's deadline: Lambda's remaining time when the invocation started, less a margin
 * for the answer, so that a query bounded by it fails, and the contract's 500 (with CORS) is
 * sent, before the function timeout cuts the invocation off. Entered once per invocation
 * (the chain's start, middleware/compose.ts) and read by the database (shared/db/database.ts) through async
 * context, so queries need no parameter for it. Outside an invocation, or with a context that
 * has no remaining time (tests, tools), there is none.
 */
import { AsyncLocalStorage } from 'node:async_hooks';

/** Kept for the answer after a query passed the request's deadline: the error line and body. */
export const ANSWER_MARGIN_MS = 300;

const requests = new AsyncLocalStorage<number>();

export interface RemainingTime {
  readonly getRemainingTimeInMillis?: () => number;
}

/**
 * Starts this invocation's deadline for the rest of it (and what it awaits). `enterWith`, not
 * `run`: Middy's hooks cannot wrap the chain; each invocation enters its own, so an earlier
 * one's never applies to a later one.
 */
export const enterRequestDeadline = (context: RemainingTime): void => {
  const remainingMs =
    typeof context.getRemainingTimeInMillis === 'function'
      ? context.getRemainingTimeInMillis()
      : Number.POSITIVE_INFINITY;
  requests.enterWith(performance.now() + remainingMs - ANSWER_MARGIN_MS);
};

/** The deadline (`performance.now()` time) of the invocation running, or Infinity. */
export const requestDeadline = (): number => requests.getStore() ?? Number.POSITIVE_INFINITY;
