/**
 * The pre-traffic check, the side being checked: what a function answers when the release's
 * BeforeAllowTraffic hook (functions/release/hook.ts) invokes a new version, or the heartbeat
 * its `live` alias, with `{ "source": "portal-service-api.pre-traffic" }`
 * (shared/release/pre-traffic-contract.ts).
 *
 * The function runs `select 1` on its own database, as every query does (the secret read when
 * there is one, the pool's TLS, its connect timeout and deadline: Database.check), and holds
 * a usable key set from its own key-set URL (KeySet.check: fetched as a request would), both at
 * once, and answers
 *
 *   { "check": "pre-traffic", "database": "ok", "keySet": "ok", "issuer": "set" }
 *   { "check": "pre-traffic", "database": "none", "keySet": "none", "issuer": "none" }
 *                                                      (a chain built without them)
 *   { "check": "pre-traffic", "database": "failed", "error": "<name>", "code": "<code>",
 *     "keySet": "failed", "keySetError": "<name>", "keySetCode": "<code>" }
 *
 * `issuer` says whether a chain that verifies tokens has its issuer setting (JWT_ISSUER): `unset`
 * would let a token of any issuer verify, so the hook and the heartbeat count it a failure.
 *
 * A failure is named by its class name and stable code only (the code absent when it has none),
 * each limited to a short run of name characters: never its message, which can carry a host, a
 * user, SQL or a secret, and never a stack. A key set that cannot be fetched means every token
 * would be refused: the release must not take traffic, and the heartbeat pages.
 *
 * The check is bounded twice: by the pool's and the key set's own timeouts, and by `boundMs` (the
 * invocation's remaining time less PRE_TRAFFIC_MARGIN_MS), which answers PreTrafficTimeoutError
 * before Lambda's own timeout could.
 */
import type { KeySet } from '../auth/key-set';
import type { Database } from '../db/database';
import {
  errorFields,
  safeName,
  type IssuerSetting,
  type PreTrafficAnswer,
} from './pre-traffic-contract';

/** One part's outcome: held, not part of this chain, or failed by name and code. */
export type PartAnswer =
  | { readonly state: 'ok' | 'none' }
  | { readonly state: 'failed'; readonly error: string; readonly code?: string };

/** What the check looks at: each absent from a chain built without it. */
export interface PreTrafficParts {
  readonly database?: Pick<Database, 'check'>;
  readonly keySet?: Pick<KeySet, 'check'>;
  readonly issuer?: IssuerSetting;
}

/** What the check keeps free of the invocation's remaining time: the answer must get out. */
export const PRE_TRAFFIC_MARGIN_MS = 1_000;

/** The check did not end within the invocation's remaining time. */
export class PreTrafficTimeoutError extends Error {
  override readonly name = 'PreTrafficTimeoutError';
  readonly code = 'ERR_PRE_TRAFFIC_TIMEOUT';
}

/** A failure as it may leave the function: its class name and code, nothing else of it. */
export const failedPart = (error: unknown): PartAnswer => {
  const { name, code } = errorFields(error);
  const errorCode = safeName(code);
  return {
    state: 'failed',
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

/** `part`'s check within `boundMs` when given. Never rejects: a failure is its answer. */
const checkPart = async (
  part: { check(): Promise<void> } | undefined,
  boundMs: number | undefined,
): Promise<PartAnswer> => {
  if (part === undefined) return { state: 'none' };
  try {
    const checked = part.check();
    await (boundMs === undefined ? checked : within(checked, boundMs));
    return { state: 'ok' };
  } catch (error) {
    return failedPart(error);
  }
};

/**
 * The database's answer to `select 1` and the key set's, side by side, within `boundMs` when
 * given. Never rejects: a failure is in the answer.
 */
export const preTrafficCheck = async (
  { database, keySet, issuer }: PreTrafficParts,
  boundMs?: number,
): Promise<PreTrafficAnswer> => {
  const [db, keys] = await Promise.all([checkPart(database, boundMs), checkPart(keySet, boundMs)]);
  return {
    check: 'pre-traffic',
    database: db.state,
    ...(db.state === 'failed' ? { error: db.error, ...(db.code ? { code: db.code } : {}) } : {}),
    keySet: keys.state,
    ...(keys.state === 'failed'
      ? { keySetError: keys.error, ...(keys.code ? { keySetCode: keys.code } : {}) }
      : {}),
    issuer: issuer ?? 'none',
  };
};
