/**
 * Local verification of the portal's JWT (spec 5.1–5.3) against the environment's key set, with
 * the container's cache of verified tokens.
 *
 * - jose's `jwtVerify` verifies the token with the key the key set resolves; the token's own
 *   `jwk`, `jku`, `x5u` and `x5c` headers are never consulted. Only asymmetric algorithms are
 *   accepted, checked before any key is looked up; `exp` is required, `nbf` honoured, `iss`
 *   (and `aud`, when configured) checked. Its payload becomes the typed claims (claims.ts).
 * - Failures are mapped by their class, never by message text: JWTExpired → 401 TOKEN_EXPIRED,
 *   any other JOSEError → 401 TOKEN_INVALID; anything else, KeySetUnavailableError included, is
 *   ours (500). The original error is kept as `cause`.
 * - A verified token is served from the cache (token-cache.ts) while jose would accept it again,
 *   at most the cache's maximum age; refusals are never cached, and a key-set refresh that
 *   removes a key drops every entry that key may have verified.
 */
import { errors, jwtVerify, type JWTVerifyOptions } from 'jose';
import { internalError, tokenExpired, tokenUnverifiable, type PortalError } from '../errors';
import { parseClaims, type JsonObject, type PortalClaims } from './claims';
import type { KeySet } from './key-set';
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
  readonly algorithms?: readonly AsymmetricAlgorithm[];
  /** Bounds of the cache of verified tokens; TOKEN_CACHE_DEFAULTS when absent. */
  readonly cache?: TokenCacheOptions;
  /** The clock, in epoch milliseconds (tests); Date.now by default. */
  readonly now?: () => number;
}

export type Verifier = (token: string) => Promise<PortalClaims>;

const toPortalError = (error: unknown): PortalError => {
  if (error instanceof errors.JWTExpired) return tokenExpired(error);
  if (error instanceof errors.JOSEError) return tokenUnverifiable(error);
  return internalError(error);
};

/**
 * Where jose would accept the verified token again, in epoch milliseconds: it calls a token not
 * yet valid when `nbf > now + tolerance` and expired when `exp <= now - tolerance`, `now` in
 * whole seconds; with a whole-number tolerance those are `now < ceil(nbf) - tolerance` and
 * `now >= ceil(exp) + tolerance`.
 */
const validityWindow = (payload: JsonObject, tolerance: number): ValidityWindow => {
  const { nbf, exp } = payload;
  return {
    notBefore:
      typeof nbf === 'number' ? (Math.ceil(nbf) - tolerance) * 1000 : Number.NEGATIVE_INFINITY,
    expiresAt: typeof exp === 'number' ? (Math.ceil(exp) + tolerance) * 1000 : 0,
  };
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
  const now = options.now ?? Date.now;
  const { keySet, issuer, audience } = options;
  const verifyOptions: JWTVerifyOptions = {
    algorithms: [...requested],
    requiredClaims: ['exp'],
    clockTolerance: tolerance,
    ...(issuer === undefined ? {} : { issuer }),
    ...(audience === undefined ? {} : { audience }),
  };
  const cache = createTokenCache<PortalClaims>(options.cache ?? TOKEN_CACHE_DEFAULTS);
  keySet.onKeysRemoved((removed) => {
    cache.dropKeys(removed);
  });

  return async (token) => {
    const hit = cache.get(token, now());
    if (hit !== undefined) return hit;
    const generation = cache.generation();
    const { payload, protectedHeader } = await jwtVerify(token, keySet.getKey, {
      ...verifyOptions,
      currentDate: new Date(now()),
    }).catch((error: unknown) => {
      throw toPortalError(error);
    });
    const claims = deepFreeze(parseClaims(payload));
    const { kid } = protectedHeader;
    cache.set(
      token,
      claims,
      {
        kid: typeof kid === 'string' ? kid : undefined,
        window: validityWindow(payload, tolerance),
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
