/**
 * Local verification of the portal's JWT (spec 5.1–5.3) against the environment's key set, with
 * the container's cache of verified tokens.
 *
 * - The token is verified by jws.ts's `verifyJws` on node:crypto (jose's rules, stricter where
 *   jose is lenient), with keys only from the key set, imported and selected by keys.ts (the
 *   token's own `jwk`, `jku`, `x5u` and `x5c` headers are never consulted); only asymmetric
 *   algorithms are accepted and the algorithm must fit the key; any `crit` header is refused;
 *   `exp` is required and `nbf` honoured. Its payload becomes the typed claims (claims.ts).
 * - Failures are mapped by their class, never by message text or a pattern over codes: a
 *   JwtVerificationError is the token's fault (ERR_JWT_EXPIRED → 401 TOKEN_EXPIRED, any other
 *   → 401 TOKEN_INVALID); anything else, KeySetUnavailableError included, is ours (500). The
 *   original error is kept as `cause`.
 * - A token verified once is served from the cache (token-cache.ts; `cache` defaults to
 *   TOKEN_CACHE_DEFAULTS: 1,000 entries, 60 s) for the validity window `verifyJws` returned, at
 *   most the cache's maximum age; refusals are never cached; a key-set refresh that removes a
 *   key drops every entry that key may have verified (`keySet.onKeysRemoved`).
 * - `now` replaces the clock for both the claims checks and the cache (tests).
 */
import { internalError, tokenExpired, tokenUnverifiable, type PortalError } from '../errors';
import { parseClaims, type PortalClaims } from './claims';
import { JwtVerificationError, verifyJws } from './jws';
import type { KeySet } from './key-set';
import { ASYMMETRIC_ALGORITHMS, isAsymmetricAlgorithm, type AsymmetricAlgorithm } from './keys';
import { createTokenCache, TOKEN_CACHE_DEFAULTS, type TokenCacheOptions } from './token-cache';

export { ASYMMETRIC_ALGORITHMS, type AsymmetricAlgorithm } from './keys';

export interface VerifierOptions {
  readonly keySet: KeySet;
  readonly issuer?: string;
  /** A non-negative whole number of seconds, as jose's `clockTolerance`. */
  readonly clockToleranceSeconds: number;
  readonly algorithms?: readonly AsymmetricAlgorithm[];
  /** Bounds of the cache of verified tokens; TOKEN_CACHE_DEFAULTS when absent. */
  readonly cache?: TokenCacheOptions;
  /** The clock, in epoch milliseconds (tests); Date.now by default. */
  readonly now?: () => number;
}

export type Verifier = (token: string) => Promise<PortalClaims>;

const toPortalError = (error: unknown): PortalError => {
  if (!(error instanceof JwtVerificationError)) return internalError(error);
  return error.code === 'ERR_JWT_EXPIRED' ? tokenExpired(error) : tokenUnverifiable(error);
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
  const algorithms = new Set<AsymmetricAlgorithm>(requested);
  const now = options.now ?? Date.now;
  const { keySet, issuer } = options;
  const cache = createTokenCache<PortalClaims>(options.cache ?? TOKEN_CACHE_DEFAULTS);
  keySet.onKeysRemoved((removed) => {
    cache.dropKeys(removed);
  });

  return async (token) => {
    const hit = cache.get(token, now());
    if (hit !== undefined) return hit;
    const generation = cache.generation();
    const verified = await verifyJws(token, (alg, kid) => keySet.keysFor(alg, kid), {
      algorithms,
      clockToleranceSeconds: tolerance,
      now: now(),
      ...(issuer === undefined ? {} : { issuer }),
    }).catch((error: unknown) => {
      throw toPortalError(error);
    });
    const claims = deepFreeze(parseClaims(verified.payload));
    cache.set(token, claims, verified, now(), generation);
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
