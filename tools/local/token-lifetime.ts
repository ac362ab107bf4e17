/**
 * How long a token of the local issuer is accepted by the functions `npm start` runs: until its
 * `exp`, and, when JWT_MAX_AGE is set, no longer than that many seconds after its `iat` (the
 * verifier refuses older ones, docs/authentication.md). The curl token of `npm start`, the
 * preview's sign-in tokens and `npm run token`'s default are given an `exp` no later than that, so
 * that the lifetime they are announced with is the one they have.
 */
import { FUNCTION_SETTINGS } from '../../shared/settings';
import { resolveSetting, type Scope } from '../generators/variables';

/** The curl token's lifetime when nothing shortens it. */
export const CURL_TOKEN_SECONDS = 12 * 3600;

/** serverless-offline's stage, in provider.region's default (`npm start` passes no --region). */
const LOCAL_SCOPE: Scope = { stage: 'local', region: 'eu-west-1', portal: false };

/**
 * JWT_MAX_AGE as `npm start`'s functions read it (JWT_MAX_AGE_LOCAL_EU_WEST_1, JWT_MAX_AGE_LOCAL,
 * JWT_MAX_AGE_EU_WEST_1, JWT_MAX_AGE): undefined when unset, an Error when the functions would
 * refuse it.
 */
export const localMaxAge = (env: NodeJS.ProcessEnv): number | undefined | Error => {
  const { variable, value } = resolveSetting(
    'JWT_MAX_AGE',
    LOCAL_SCOPE,
    (name) => env[name]?.trim() ?? '',
  );
  if (value === '') return undefined;
  const { min, max } = FUNCTION_SETTINGS.JWT_MAX_AGE;
  const seconds = Number(value);
  if (!/^\d+$/.test(value) || seconds < min || seconds > max) {
    return new Error(`${variable} must be a whole number from ${min} to ${max}`);
  }
  return seconds;
};

export interface TokenLifetime {
  /** From `iat` to `exp`. */
  readonly seconds: number;
  /** JWT_MAX_AGE made it shorter than asked. */
  readonly byMaxAge: boolean;
}

/** `askedSeconds`, or `maxAgeSeconds` when that is shorter. */
export const tokenLifetime = (
  askedSeconds: number,
  maxAgeSeconds: number | undefined,
): TokenLifetime =>
  maxAgeSeconds !== undefined && maxAgeSeconds < askedSeconds
    ? { seconds: maxAgeSeconds, byMaxAge: true }
    : { seconds: askedSeconds, byMaxAge: false };

/** `npm run token`'s lifetime without --expires-in. */
export const TOKEN_COMMAND_SECONDS = 3600;

/**
 * `npm run token`'s lifetime, and what it says of it on stderr: its default is shortened to
 * JWT_MAX_AGE; an --expires-in (`askedSeconds`) is kept, with a warning when JWT_MAX_AGE is
 * shorter.
 */
export const tokenCommandLifetime = (
  askedSeconds: number | undefined,
  maxAgeSeconds: number | undefined,
): { readonly seconds: number; readonly notice: string | undefined } => {
  if (askedSeconds === undefined) {
    const { seconds, byMaxAge } = tokenLifetime(TOKEN_COMMAND_SECONDS, maxAgeSeconds);
    return {
      seconds,
      notice: byMaxAge ? `valid ${describeSeconds(seconds)} (JWT_MAX_AGE)` : undefined,
    };
  }
  const refusedSooner = maxAgeSeconds !== undefined && maxAgeSeconds < askedSeconds;
  return {
    seconds: askedSeconds,
    notice: refusedSooner
      ? `refused ${describeSeconds(maxAgeSeconds)} after it is signed (JWT_MAX_AGE), before its exp`
      : undefined,
  };
};

/** `90s`, `15m`, `1h`, `7d` in seconds; undefined for anything else. */
export const durationSeconds = (text: string): number | undefined => {
  const match = /^(\d+)([smhd])$/.exec(text);
  if (!match) return undefined;
  const unit = { s: 1, m: 60, h: 3600, d: 86_400 }[match[2] as 's' | 'm' | 'h' | 'd'];
  return Number(match[1]) * unit;
};

/** `12 h`, `15 min`, `90 s`: the largest unit that divides it (minutes from 2 min up). */
export const describeSeconds = (seconds: number): string => {
  if (seconds >= 3600 && seconds % 3600 === 0) return `${seconds / 3600} h`;
  if (seconds >= 120 && seconds % 60 === 0) return `${seconds / 60} min`;
  return `${seconds} s`;
};
