/**
 * Local verification of the portal's JWT (spec 5.1–5.3) against the environment's key set, with
 * the container's cache of verified tokens.
 *
 * - jose's `jwtVerify` verifies the token with the key the key set resolves; the token's own
 *   `jwk`, `jku`, `x5u` and `x5c` headers are never consulted. Only asymmetric algorithms are
 *   accepted, checked before any key is looked up; `exp` is required, `nbf` honoured, `iss`
 *   (and `aud`, when configured) checked. Its payload becomes the typed claims (claims.ts).
 * - The key is the one the header's `kid` names: a token without a `kid` (or with an empty or
 *   non-string one) is refused before the key set is asked (KidRequiredError), whatever it holds.
 *   jose would let such a token pick the set's only key fitting its algorithm, so it would
 *   verify while the set holds one key and fail once a second is published for a rotation.
 * - Failures are mapped by their class, never by message text: JWTExpired → 401 TOKEN_EXPIRED,
 *   any other JOSEError → 401 TOKEN_INVALID; anything else, KeySetUnavailableError included, is
 *   ours (500). The original error is kept as `cause`.
 * - One spelling per token: each of the three parts is unpadded base64url in its one canonical
 *   form (jose would also read `=` padding and a last character whose unused bits are set), and
 *   a `b64` header other than true is refused whether or not it is critical (jose reads it only
 *   when it is). Otherwise one token would have many spellings, each a miss of the cache and a
 *   way around anything keyed on the token.
 * - `maxAgeSeconds` (JWT_MAX_AGE): `iat` required, no older than that, and not in the future
 *   beyond the clock tolerance (jose's `maxTokenAge`).
 * - A verified token is served from the cache (token-cache.ts) while jose would accept it again,
 *   at most the cache's maximum age; refusals are never cached, and a key-set refresh that
 *   removes a key drops every entry that key may have verified.
 */
import { decodeProtectedHeader, errors, jwtVerify, type JWTVerifyOptions } from 'jose';
import { internalError, tokenExpired, tokenUnverifiable, type PortalError } from '../errors';
import { parseClaims, type JsonObject, type PortalClaims } from './claims';
import type { KeyResolver, KeySet } from './key-set';
import {
  createTokenCache,
  TOKEN_CACHE_DEFAULTS,
  type TokenCacheOptions,
  type ValidityWindow,
} from './token-cache';

export const ASYMMETRIC_ALGORITHMS = [
  'RS256',
  'RS384',
  'RS512',
  'PS256',
  'PS384',
  'PS512',
  'ES256',
  'ES384',
  'ES512',
  'EdDSA',
  'Ed25519',
] as const;

export type AsymmetricAlgorithm = (typeof ASYMMETRIC_ALGORITHMS)[number];

const isAsymmetricAlgorithm = (alg: string): alg is AsymmetricAlgorithm =>
  (ASYMMETRIC_ALGORITHMS as readonly string[]).includes(alg);

export interface VerifierOptions {
  readonly keySet: KeySet;
  readonly issuer?: string;
  /** When set, the token's `aud` must name it. */
  readonly audience?: string;
  /** A non-negative whole number of seconds, as jose's `clockTolerance`. */
  readonly clockToleranceSeconds: number;
  /** When set, a positive whole number of seconds: the oldest `iat` accepted. */
  readonly maxAgeSeconds?: number;
  readonly algorithms?: readonly AsymmetricAlgorithm[];
  /** Bounds of the cache of verified tokens; TOKEN_CACHE_DEFAULTS when absent. */
  readonly cache?: TokenCacheOptions;
  /** The clock, in epoch milliseconds (tests); Date.now by default. */
  readonly now?: () => number;
}

export type Verifier = (token: string) => Promise<PortalClaims>;

/** A token whose header names no key: no `kid`, or one that is not a non-empty string. */
export class KidRequiredError extends errors.JOSEError {
  static override code = 'ERR_KID_REQUIRED';
  override code = 'ERR_KID_REQUIRED';
}

/** The key set's resolver, asked only for a header whose `kid` names a key (module header). */
const byKid =
  (keySet: KeySet): KeyResolver =>
  (protectedHeader, token) => {
    const { kid } = protectedHeader;
    if (typeof kid !== 'string' || kid === '') {
      return Promise.reject(new KidRequiredError('the token names no key (kid)'));
    }
    return keySet.getKey(protectedHeader, token);
  };

const toPortalError = (error: unknown): PortalError => {
  if (error instanceof errors.JWTExpired) return tokenExpired(error);
  if (error instanceof errors.JOSEError) return tokenUnverifiable(error);
  return internalError(error);
};

/**
 * Where jose would accept the verified token again, in epoch milliseconds: it calls a token not
 * yet valid when `nbf > now + tolerance` and expired when `exp <= now - tolerance`, `now` in
 * whole seconds; with a whole-number tolerance those are `now < ceil(nbf) - tolerance` and
 * `now >= ceil(exp) + tolerance`. With a maximum age it also refuses `now - iat > maxAge +
 * tolerance` (`now >= floor(iat) + maxAge + tolerance + 1`) and `now - iat < -tolerance`
 * (`now < ceil(iat) - tolerance`).
 */
const validityWindow = (
  payload: JsonObject,
  tolerance: number,
  maxAgeSeconds: number | undefined,
): ValidityWindow => {
  const { nbf, exp, iat } = payload;
  const bounds = { notBefore: [Number.NEGATIVE_INFINITY], expiresAt: [0] };
  if (typeof nbf === 'number') bounds.notBefore.push((Math.ceil(nbf) - tolerance) * 1000);
  if (typeof exp === 'number') bounds.expiresAt = [(Math.ceil(exp) + tolerance) * 1000];
  if (maxAgeSeconds !== undefined && typeof iat === 'number') {
    bounds.notBefore.push((Math.ceil(iat) - tolerance) * 1000);
    bounds.expiresAt.push((Math.floor(iat) + maxAgeSeconds + tolerance + 1) * 1000);
  }
  return {
    notBefore: Math.max(...bounds.notBefore),
    expiresAt: Math.min(...bounds.expiresAt),
  };
};

/** base64url without padding, as exactly one string encodes these bytes (none: empty). */
const isCanonicalPart = (part: string): boolean =>
  /^[A-Za-z0-9_-]*$/.test(part) && Buffer.from(part, 'base64url').toString('base64url') === part;

/** Refuses, as jose's JWSInvalid, any spelling of a compact JWS but its one canonical form. */
const checkSpelling = (token: string): void => {
  const parts = token.split('.');
  if (parts.length !== 3 || !parts.every(isCanonicalPart)) {
    throw new errors.JWSInvalid('the token is not a compact JWS in canonical base64url');
  }
  let header: { b64?: unknown };
  try {
    header = decodeProtectedHeader(token);
  } catch {
    return; // jose refuses a header it cannot read, with its own error.
  }
  if (header.b64 !== undefined && header.b64 !== true) {
    throw new errors.JWSInvalid('an unencoded payload (b64) is not accepted');
  }
};

export const createVerifier = (options: VerifierOptions): Verifier => {
  const requested = options.algorithms ?? ASYMMETRIC_ALGORITHMS;
  if (requested.some((alg) => !isAsymmetricAlgorithm(alg))) {
    throw new TypeError('only asymmetric JWS algorithms may verify portal tokens');
  }
  const tolerance = options.clockToleranceSeconds;
  if (!Number.isSafeInteger(tolerance) || tolerance < 0) {
    throw new TypeError('clockToleranceSeconds must be a non-negative whole number of seconds');
  }
  const { keySet, issuer, audience, maxAgeSeconds } = options;
  if (maxAgeSeconds !== undefined && (!Number.isSafeInteger(maxAgeSeconds) || maxAgeSeconds < 1)) {
    throw new TypeError('maxAgeSeconds must be a positive whole number of seconds');
  }
  const now = options.now ?? Date.now;
  const verifyOptions: JWTVerifyOptions = {
    algorithms: [...requested],
    requiredClaims: ['exp'],
    clockTolerance: tolerance,
    ...(issuer === undefined ? {} : { issuer }),
    ...(audience === undefined ? {} : { audience }),
    ...(maxAgeSeconds === undefined ? {} : { maxTokenAge: maxAgeSeconds }),
  };
  const getKey = byKid(keySet);
  const cache = createTokenCache<PortalClaims>(options.cache ?? TOKEN_CACHE_DEFAULTS);
  keySet.onKeysRemoved((removed) => {
    cache.dropKeys(removed);
  });

  return async (token) => {
    const hit = cache.get(token, now());
    if (hit !== undefined) return hit;
    const generation = cache.generation();
    const { payload, protectedHeader } = await Promise.resolve()
      .then(() => {
        checkSpelling(token);
        return jwtVerify(token, getKey, { ...verifyOptions, currentDate: new Date(now()) });
      })
      .catch((error: unknown) => {
        throw toPortalError(error);
      });
    const claims = deepFreeze(parseClaims(payload));
    const { kid } = protectedHeader;
    cache.set(
      token,
      claims,
      {
        kid: typeof kid === 'string' ? kid : undefined,
        window: validityWindow(payload, tolerance, maxAgeSeconds),
      },
      now(),
      generation,
    );
    return claims;
  };
};

/** A cached value is handed to many invocations: none of them may change it. */
const deepFreeze = <T>(value: T): T => {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const member of Object.values(value)) deepFreeze(member);
  }
  return value;
};
