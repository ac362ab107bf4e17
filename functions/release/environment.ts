/**
 * The pre-traffic hook's environment, as the template writes it (tools/generators/pre-traffic.ts)
 * and read again at each run: PRE_TRAFFIC_TARGETS, PRE_TRAFFIC_INVOKE_TIMEOUT_MS,
 * PRE_TRAFFIC_ORIGIN, and the release functions' LOG_LEVEL (functions/release/hook.ts says what
 * each holds). What is not as written is a PreTrafficConfigError naming the variable and the
 * entry, never its content.
 */
import type { HttpMethod } from '../../shared/answers';
import type { LogLevel } from '../../shared/logger';
import { FUNCTION_SETTINGS } from '../../shared/settings';
import { LAMBDA_MAX_TIMEOUT_SECONDS } from './bounds';
import { isObject } from './fields';

export type Env = Readonly<Record<string, string | undefined>>;

/** The Origin of the unauthenticated request when PRE_TRAFFIC_ORIGIN is unset. */
export const DEFAULT_ORIGIN = 'https://pre-traffic.portal-service-api.invalid';

/** One function's new version and its route: an entry of PRE_TRAFFIC_TARGETS. */
export interface PreTrafficTarget {
  readonly function: string;
  readonly version: string;
  readonly method: HttpMethod;
  readonly path: string;
}

/** PRE_TRAFFIC_TARGETS or PRE_TRAFFIC_ORIGIN is not what this module reads. */
export class PreTrafficConfigError extends TypeError {
  override readonly name = 'PreTrafficConfigError';
}

/** Every HttpMethod, so that a method added to the type must be added here. */
const METHODS: Readonly<Record<HttpMethod, true>> = { GET: true, PUT: true };
const isMethod = (value: unknown): value is HttpMethod =>
  typeof value === 'string' && Object.hasOwn(METHODS, value);

/** A function name as serverless names it (the key of `functions`). */
export const FUNCTION_NAME = /^[A-Za-z][A-Za-z0-9_-]{0,63}$/;
/** A qualified ARN of a published version: arn:<partition>:lambda:<region>:<account>:function:<name>:<number>. */
const VERSION_ARN =
  /^arn:aws(?:-[a-z]+)*:lambda:[a-z]{2}(?:-[a-z]+)+-\d:\d{12}:function:[A-Za-z0-9_-]{1,64}:\d+$/;
/** A route: `/` then segments, each literal or one `{name}`. */
const ROUTE = /^(?:\/(?:[A-Za-z0-9._~-]+|\{[A-Za-z0-9_]+\}))+$/;

/** One entry of PRE_TRAFFIC_TARGETS, or a PreTrafficConfigError naming it and its field. */
const parseTarget = (entry: unknown, index: number): PreTrafficTarget => {
  const at = `PRE_TRAFFIC_TARGETS entry ${index + 1}`;
  if (!isObject(entry)) throw new PreTrafficConfigError(`${at} is not an object`);
  const { function: name, version, method, path } = entry;
  if (typeof name !== 'string' || !FUNCTION_NAME.test(name)) {
    throw new PreTrafficConfigError(`${at}: "function" is not a function name`);
  }
  if (typeof version !== 'string' || !VERSION_ARN.test(version)) {
    throw new PreTrafficConfigError(`${at} (${name}): "version" is not a qualified version ARN`);
  }
  if (!isMethod(method)) {
    throw new PreTrafficConfigError(
      `${at} (${name}): "method" is not one of ${Object.keys(METHODS).join(', ')}`,
    );
  }
  if (typeof path !== 'string' || !ROUTE.test(path)) {
    throw new PreTrafficConfigError(`${at} (${name}): "path" is not a route`);
  }
  return { function: name, version, method, path };
};

/** PRE_TRAFFIC_TARGETS: a non-empty JSON array of targets, no function twice. */
export const parseTargets = (raw: string | undefined): readonly PreTrafficTarget[] => {
  if (raw === undefined || raw.trim() === '') {
    throw new PreTrafficConfigError('PRE_TRAFFIC_TARGETS is not set');
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    throw new PreTrafficConfigError('PRE_TRAFFIC_TARGETS is not JSON');
  }
  if (!Array.isArray(parsed) || parsed.length === 0) {
    throw new PreTrafficConfigError('PRE_TRAFFIC_TARGETS is not a non-empty JSON array');
  }
  const targets = parsed.map(parseTarget);
  const seen = new Set<string>();
  for (const target of targets) {
    if (seen.has(target.function)) {
      throw new PreTrafficConfigError(`PRE_TRAFFIC_TARGETS names ${target.function} twice`);
    }
    seen.add(target.function);
  }
  return targets;
};

/** PRE_TRAFFIC_INVOKE_TIMEOUT_MS: whole milliseconds, from 1 s to Lambda's longest timeout. */
export const parseInvokeTimeout = (raw: string | undefined): number => {
  const value = raw?.trim() ?? '';
  if (value === '') throw new PreTrafficConfigError('PRE_TRAFFIC_INVOKE_TIMEOUT_MS is not set');
  const ms = /^\d{1,7}$/.test(value) ? Number(value) : Number.NaN;
  if (!(ms >= 1_000 && ms <= LAMBDA_MAX_TIMEOUT_SECONDS * 1000)) {
    throw new PreTrafficConfigError(
      `PRE_TRAFFIC_INVOKE_TIMEOUT_MS is not a whole number of milliseconds from 1000 to ${LAMBDA_MAX_TIMEOUT_SECONDS * 1000}`,
    );
  }
  return ms;
};

/** PRE_TRAFFIC_ORIGIN: an http(s) origin (scheme, host, port only), or DEFAULT_ORIGIN. */
export const parseOrigin = (raw: string | undefined): string => {
  const value = raw?.trim();
  if (!value) return DEFAULT_ORIGIN;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new PreTrafficConfigError('PRE_TRAFFIC_ORIGIN is not a URL');
  }
  if ((url.protocol !== 'https:' && url.protocol !== 'http:') || url.origin !== value) {
    throw new PreTrafficConfigError('PRE_TRAFFIC_ORIGIN must be an origin: https://host[:port]');
  }
  return value;
};

/** The LOG_LEVEL of the environment, the functions' default when unset or unknown. */
export const hookLogLevel = (env: Env): LogLevel => {
  const { choices, default: fallback } = FUNCTION_SETTINGS.LOG_LEVEL;
  return choices.find((level) => level === env.LOG_LEVEL?.trim()) ?? fallback;
};
