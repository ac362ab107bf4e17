/**
 * Local verification of the portal's JWT (spec 5.1–5.3) against the environment's key set.
 *
 * Keys come only from the published set, chosen by `kid` (the token's own `jwk`, `jku`, `x5u`
 * and `x5c` headers are never consulted); only asymmetric algorithms are accepted and jose
 * checks that the algorithm fits the key; unknown `crit` headers are refused; `exp` is required
 * and `nbf` honoured. jose failures are mapped by their stable `code`, never by message text.
 *
 * With `cache` set (createDependencies sets it, with TOKEN_CACHE_DEFAULTS: 1,000 entries, 60 s),
 * a token verified once is served from the container's cache (token-cache.ts) until the
 * earlier of its expiry (clock tolerance included, exactly as jose counts it) and the maximum
 * age; refusals are never cached; a key-set refresh that removes a key drops every entry that
 * key may have verified (through `keySet.onKeysRemoved`; a key set without it is checked by
 * `kids()` on each hit, and tokens without a kid are then not cached). `now` replaces the
 * clock for both jose and the cache (tests).
 */
import { errors, jwtVerify } from 'jose';
import { internalError, tokenExpired, tokenUnverifiable, type PortalError } from '../errors';
import { parseClaims, type PortalClaims } from './claims';
import { KeySetUnavailableError, type KeySet } from './key-set';
import { createTokenCache, type TokenCacheOptions } from './token-cache';

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

export interface VerifierOptions {
  readonly keySet: KeySet;
  readonly issuer?: string;
  readonly clockToleranceSeconds: number;
  readonly algorithms?: readonly AsymmetricAlgorithm[];
  /** Caches verified tokens (off when absent). */
  readonly cache?: TokenCacheOptions;
  /** The clock, in epoch milliseconds (tests); Date.now by default. */
  readonly now?: () => number;
}

export type Verifier = (token: string) => Promise<PortalClaims>;

interface CachedToken {
  readonly claims: PortalClaims;
  readonly kid: string | undefined;
}

/** jose's stable error codes: ERR_JWT_*, ERR_JWS_*, ERR_JWKS_*, ERR_JOSE_*. */
const JOSE_CODE = /^ERR_J(WT|WS|WKS|WE|WK|OSE)_/;

const toPortalError = (error: unknown): PortalError => {
  if (error instanceof KeySetUnavailableError) return internalError(error);
  const code = (error as { code?: unknown } | null)?.code;
  if (code === errors.JWTExpired.code) return tokenExpired(error);
  if (typeof code === 'string' && JOSE_CODE.test(code)) return tokenUnverifiable(error);
  return internalError(error);
};

export const createVerifier = (options: VerifierOptions): Verifier => {
  const algorithms = [...(options.algorithms ?? ASYMMETRIC_ALGORITHMS)];
  if (algorithms.some((alg) => !(ASYMMETRIC_ALGORITHMS as readonly string[]).includes(alg))) {
    throw new TypeError('only asymmetric JWS algorithms may verify portal tokens');
  }
  const tolerance = options.clockToleranceSeconds;
  if (!Number.isFinite(tolerance) || tolerance < 0) {
    throw new TypeError('clockToleranceSeconds must be a non-negative number of seconds');
  }
  const verifyOptions = {
    algorithms,
    clockTolerance: options.clockToleranceSeconds,
    requiredClaims: ['exp'],
    ...(options.issuer === undefined ? {} : { issuer: options.issuer }),
  };

  const clock = options.now;
  const verify = async (token: string) => {
    try {
      return await jwtVerify(
        token,
        options.keySet.getKey,
        clock === undefined ? verifyOptions : { ...verifyOptions, currentDate: new Date(clock()) },
      );
    } catch (error) {
      throw toPortalError(error);
    }
  };

  if (options.cache === undefined) {
    return async (token) => parseClaims((await verify(token)).payload);
  }

  const now = clock ?? Date.now;
  const { keySet } = options;
  const cache = createTokenCache<CachedToken>(tolerance, options.cache);
  const subscribed = keySet.onKeysRemoved !== undefined;
  keySet.onKeysRemoved?.((removed) => {
    cache.dropKeys(removed);
  });

  return async (token) => {
    const hit = cache.get(token, now());
    if (
      hit !== undefined &&
      (subscribed || (hit.kid !== undefined && keySet.kids().has(hit.kid)))
    ) {
      return hit.claims;
    }
    const generation = cache.generation();
    const { payload, protectedHeader } = await verify(token);
    const claims = deepFreeze(parseClaims(payload));
    const kid = typeof protectedHeader.kid === 'string' ? protectedHeader.kid : undefined;
    if (subscribed || kid !== undefined) {
      cache.set(
        token,
        { claims, kid },
        { kid, exp: claims.exp, nbf: payload.nbf },
        now(),
        generation,
      );
    }
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
