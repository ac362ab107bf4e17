/**
 * Local verification of the portal's JWT (spec 5.1–5.3) against the environment's key set.
 *
 * The token is checked by jws.ts on node:crypto (jose's rules, stricter where jose is lenient;
 * synchronous once the key is known): keys come only from the published set, chosen by `kid`
 * (the token's own `jwk`, `jku`, `x5u` and `x5c` headers are never consulted); only asymmetric
 * algorithms are accepted and the algorithm must fit the key; any `crit` header is refused;
 * `exp` is required and `nbf` honoured. Failures are mapped by their stable `code`
 * (ERR_JWT_EXPIRED → 401 TOKEN_EXPIRED, other token codes → 401, the key set unavailable →
 * 500), never by message text.
 *
 * With `cache` set (createDependencies sets it, with TOKEN_CACHE_DEFAULTS: 1,000 entries, 60 s),
 * a token verified once is served from the container's cache (token-cache.ts) until the
 * earlier of its expiry (clock tolerance included, exactly as jws.ts counts it) and the maximum
 * age; refusals are never cached; a key-set refresh that removes a key drops every entry that
 * key may have verified (through `keySet.onKeysRemoved`; a key set without it is checked by
 * `kids()` on each hit, and tokens without a kid are then not cached). `now` replaces the
 * clock for both the claims checks and the cache (tests).
 */
import { internalError, tokenExpired, tokenUnverifiable, type PortalError } from '../errors';
import { parseClaims, type PortalClaims } from './claims';
import {
  ASYMMETRIC_ALGORITHMS,
  decodeJws,
  isAsymmetricAlgorithm,
  validateClaims,
  verifySignature,
  type AsymmetricAlgorithm,
  type JsonObject,
} from './jws';
import { KeySetUnavailableError, type KeySet } from './key-set';
import { createTokenCache, type TokenCacheOptions } from './token-cache';

export { ASYMMETRIC_ALGORITHMS, type AsymmetricAlgorithm } from './jws';

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

/** A token whose signature and claims verified, and the kid its header names. */
interface Verified {
  readonly payload: JsonObject;
  readonly kid: string | undefined;
}

/** Stable error codes of jws.ts (jose's): ERR_JWT_*, ERR_JWS_*, ERR_JWKS_*, ERR_JOSE_*. */
const JWT_CODE = /^ERR_J(WT|WS|WKS|WE|WK|OSE)_/;

const toPortalError = (error: unknown): PortalError => {
  if (error instanceof KeySetUnavailableError) return internalError(error);
  const code = (error as { code?: unknown } | null)?.code;
  if (code === 'ERR_JWT_EXPIRED') return tokenExpired(error);
  if (typeof code === 'string' && JWT_CODE.test(code)) return tokenUnverifiable(error);
  return internalError(error);
};

export const createVerifier = (options: VerifierOptions): Verifier => {
  const requested = options.algorithms ?? ASYMMETRIC_ALGORITHMS;
  if (requested.some((alg) => !isAsymmetricAlgorithm(alg))) {
    throw new TypeError('only asymmetric JWS algorithms may verify portal tokens');
  }
  const algorithms = new Set<AsymmetricAlgorithm>(requested);
  const tolerance = options.clockToleranceSeconds;
  if (!Number.isFinite(tolerance) || tolerance < 0) {
    throw new TypeError('clockToleranceSeconds must be a non-negative number of seconds');
  }
  const now = options.now ?? Date.now;
  const { keySet, issuer } = options;

  const verify = async (token: string): Promise<Verified> => {
    try {
      const jws = decodeJws(token, algorithms);
      // The signature first: nothing of an unverified payload may shape the answer.
      verifySignature(jws, await keySet.keysFor(jws.alg, jws.kid));
      const payload = validateClaims(jws, {
        nowSeconds: Math.floor(now() / 1000),
        toleranceSeconds: tolerance,
        ...(issuer === undefined ? {} : { issuer }),
      });
      return { payload, kid: typeof jws.kid === 'string' ? jws.kid : undefined };
    } catch (error) {
      throw toPortalError(error);
    }
  };

  if (options.cache === undefined) {
    return async (token) => parseClaims((await verify(token)).payload);
  }

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
    const { payload, kid } = await verify(token);
    const claims = deepFreeze(parseClaims(payload));
    if (subscribed || kid !== undefined) {
      const nbf = typeof payload.nbf === 'number' ? payload.nbf : undefined;
      cache.set(token, { claims, kid }, { kid, exp: claims.exp, nbf }, now(), generation);
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
