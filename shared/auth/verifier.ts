/**
 * Local verification of the portal's JWT (spec 5.1–5.3) against the environment's key set.
 *
 * Keys come only from the published set, chosen by `kid` (the token's own `jwk`, `jku`, `x5u`
 * and `x5c` headers are never consulted); only asymmetric algorithms are accepted and jose
 * checks that the algorithm fits the key; unknown `crit` headers are refused; `exp` is required
 * and `nbf` honoured. jose failures are mapped by their stable `code`, never by message text.
 */
import { errors, jwtVerify } from 'jose';
import { internalError, tokenExpired, tokenUnverifiable, type PortalError } from '../errors';
import { parseClaims, type PortalClaims } from './claims';
import { KeySetUnavailableError, type KeySet } from './key-set';

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
}

export type Verifier = (token: string) => Promise<PortalClaims>;

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

  return async (token) => {
    let payload;
    try {
      ({ payload } = await jwtVerify(token, options.keySet.getKey, verifyOptions));
    } catch (error) {
      throw toPortalError(error);
    }
    return parseClaims(payload);
  };
};
