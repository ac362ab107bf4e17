/**
 * The pre-traffic check, function side: what a new version of a function answers when the
 * release's BeforeAllowTraffic hook (shared/release/pre-traffic.ts) invokes it with
 * `{ "source": "portal-service-api.pre-traffic" }` before CodeDeploy moves any traffic to it.
 *
 * The function runs `select 1` on its own database, as every query does (the secret read when
 * there is one, the pool's TLS, its connect timeout and silence bound: Database.check), and
 * answers
 *
 *   { "check": "pre-traffic", "database": "ok" }
 *   { "check": "pre-traffic", "database": "none" }     (a chain built without a database)
 *   { "check": "pre-traffic", "database": "failed", "error": "<error name>", "code": "<code>" }
 *
 * A failure is named by its class name and stable code only (`code` absent when it has none),
 * each limited to a short run of name characters: never its message, which can carry a host, a
 * user, SQL or a secret, and never a stack.
 *
 * The check is bounded twice: by the pool's own timeouts (DB_SECRET_TIMEOUT_MS for the read,
 * DB_CONNECT_TIMEOUT_SECONDS for TCP, TLS and the login, DB_STATEMENT_TIMEOUT_MS plus the
 * silence margin for the answer), and by `boundMs` (the invocation's remaining time less
 * PRE_TRAFFIC_MARGIN_MS), which answers PreTrafficTimeoutError before Lambda's own timeout could.
 */
import type { Database } from '../db/database';

/** The `source` of the event that asks a function for its pre-traffic check. */
export const PRE_TRAFFIC_SOURCE = 'portal-service-api.pre-traffic';

/** The event the hook sends. */
export interface PreTrafficEvent {
  readonly source: typeof PRE_TRAFFIC_SOURCE;
}

/** What a function answers to it. */
export type PreTrafficAnswer =
  | { readonly check: 'pre-traffic'; readonly database: 'ok' | 'none' }
  | {
      readonly check: 'pre-traffic';
      readonly database: 'failed';
      readonly error: string;
      readonly code?: string;
    };

/** What the check keeps free of the invocation's remaining time: the answer must get out. */
export const PRE_TRAFFIC_MARGIN_MS = 1_000;

/** The check did not end within the invocation's remaining time. */
export class PreTrafficTimeoutError extends Error {
  override readonly name = 'PreTrafficTimeoutError';
  readonly code = 'ERR_PRE_TRAFFIC_TIMEOUT';
}

/** An error's name or code as it may leave the function: a short word, else nothing. */
const NAME = /^[A-Za-z0-9_.-]{1,64}$/;

const safeName = (value: unknown): string | undefined =>
  typeof value === 'string' && NAME.test(value) ? value : undefined;

/** The answer to a failure: its class name and code, nothing else of it. */
export const failedAnswer = (error: unknown): PreTrafficAnswer => {
  const { name, code } =
    typeof error === 'object' && error !== null
      ? (error as { name?: unknown; code?: unknown })
      : {};
  const errorCode = safeName(code);
  return {
    check: 'pre-traffic',
    database: 'failed',
    error: safeName(name) ?? 'Error',
    ...(errorCode === undefined ? {} : { code: errorCode }),
  };
};

/** `work`, or a PreTrafficTimeoutError once `boundMs` has passed. */
const within = async (work: Promise<void>, boundMs: number): Promise<void> => {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => {
        reject(new PreTrafficTimeoutError(`no answer within ${boundMs} ms`));
      },
      Math.max(boundMs, 0),
    );
  });
  // Given up on, the check's own later failure is nobody's concern.
  work.catch(() => undefined);
  try {
    await Promise.race([work, late]);
  } finally {
    clearTimeout(timer);
  }
};

/**
 * The database's answer to `select 1`, within `boundMs` when given. Never rejects: a failure is
 * the `failed` answer.
 */
export const preTrafficCheck = async (
  database: Pick<Database, 'check'> | undefined,
  boundMs?: number,
): Promise<PreTrafficAnswer> => {
  if (database === undefined) return { check: 'pre-traffic', database: 'none' };
  try {
    const checked = database.check();
    await (boundMs === undefined ? checked : within(checked, boundMs));
    return { check: 'pre-traffic', database: 'ok' };
  } catch (error) {
    return failedAnswer(error);
  }
};
