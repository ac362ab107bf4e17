/**
 * What the release's checkers (the pre-traffic hook and the heartbeat, functions/release/) and
 * the functions they check (shared/release/pre-traffic-answer.ts) agree on: the event that asks
 * a function for its check, the answer it gives, and how a failure is named in it and in the
 * checkers' log lines (its name and code only, each a short word: never a message).
 */

/** The `source` of the event that asks a function for its pre-traffic check. */
export const PRE_TRAFFIC_SOURCE = 'portal-service-api.pre-traffic';

/** The event the hook and the heartbeat send. */
export interface PreTrafficEvent {
  readonly source: typeof PRE_TRAFFIC_SOURCE;
}

/** The pre-traffic event, as the functions recognise it. */
export const preTrafficEvent = (): PreTrafficEvent => ({ source: PRE_TRAFFIC_SOURCE });

/** Whether a chain that verifies tokens has its issuer setting. */
export type IssuerSetting = 'set' | 'unset';

/** What a function answers to it. */
export type PreTrafficAnswer = {
  readonly check: 'pre-traffic';
  readonly database: 'ok' | 'none' | 'failed';
  readonly error?: string;
  readonly code?: string;
  readonly keySet: 'ok' | 'none' | 'failed';
  readonly keySetError?: string;
  readonly keySetCode?: string;
  readonly issuer: IssuerSetting | 'none';
};

const NAME = /^[A-Za-z0-9_.-]{1,64}$/;

/** A name or code that may leave the function or be logged: a short word, else nothing. */
export const safeName = (value: unknown): string | undefined =>
  typeof value === 'string' && NAME.test(value) ? value : undefined;

/** A failure named by its name (`fallback` when it is not a safe one) and code: `<name>[ <code>]`. */
export const nameAndCode = (name: unknown, code: unknown, fallback: string): string => {
  const errorCode = safeName(code);
  const errorName = safeName(name) ?? fallback;
  return errorCode === undefined ? errorName : `${errorName} ${errorCode}`;
};

/** An error's `name` and `code`, whatever was thrown. */
export const errorFields = (error: unknown): { name?: unknown; code?: unknown } =>
  typeof error === 'object' && error !== null ? error : {};

/** An error as a cause: its name and code, never its message. */
export const causeOf = (error: unknown): string => {
  const { name, code } = errorFields(error);
  return nameAndCode(name, code, typeof error);
};
