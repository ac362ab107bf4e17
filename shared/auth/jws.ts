/**
 * Compact JWS verification of the portal's JWTs on `node:crypto`: one entry, `verifyJws`, which
 * decodes the token, verifies its signature with the one key the lookup offers for it, checks
 * its claims and returns the payload with the window in which it is valid. The steps are this
 * module's own. It follows jose's rules (the library the tests sign with, and the verifier this
 * replaced) member for member, and is stricter where jose is lenient:
 *
 * - exactly three base64url parts, each strictly base64url (no padding, no `+`/`/`);
 * - the protected header is a JSON object; `alg` must be one of the caller's asymmetric
 *   algorithms, checked before any key is looked up (`none` and HMAC never reach a key);
 * - any `crit` header is refused: we implement no JWS extension, not even `b64` (so an
 *   unencoded payload never verifies); `jku`, `x5u`, `jwk` and `x5c` are ignored — keys come
 *   only from the lookup (keys.ts imports and selects them);
 * - no key offered, or several (a token without a kid beside two keys of its type, or a kid
 *   published twice), refuses the token: no key is tried on a guess;
 * - the payload is strict UTF-8 JSON, a top-level object; `exp` is required and `iss` when an
 *   issuer is configured; `exp`, `nbf` and `iat` must be numbers; the token is valid from second
 *   `ceil(nbf) - tolerance` until before second `ceil(exp) + tolerance` (`now` in whole seconds),
 *   which for a whole-number tolerance is exactly jose's `nbf > now + tolerance` and
 *   `exp <= now - tolerance`; the validity window returned is those two bounds in milliseconds.
 *
 * Every failure of the token is a JwtVerificationError carrying jose's stable error code; a
 * failure of the lookup (the key set unavailable) passes through unchanged.
 */
import { constants, verify } from 'node:crypto';
import { ALGORITHMS, type AsymmetricAlgorithm, type KeyLookup, type VerificationKey } from './keys';

/** jose's error codes, which the verifier maps to the spec's errors. */
export type JwtErrorCode =
  | 'ERR_JWS_INVALID'
  | 'ERR_JWT_INVALID'
  | 'ERR_JOSE_ALG_NOT_ALLOWED'
  | 'ERR_JOSE_NOT_SUPPORTED'
  | 'ERR_JWKS_NO_MATCHING_KEY'
  | 'ERR_JWKS_MULTIPLE_MATCHING_KEYS'
  | 'ERR_JWS_SIGNATURE_VERIFICATION_FAILED'
  | 'ERR_JWT_CLAIM_VALIDATION_FAILED'
  | 'ERR_JWT_EXPIRED';

/** The token was refused: `code` says why (ERR_JWT_EXPIRED: it was genuine but expired). */
export class JwtVerificationError extends Error {
  override readonly name = 'JwtVerificationError';
  constructor(
    readonly code: JwtErrorCode,
    message: string,
    options?: ErrorOptions,
  ) {
    super(message, options);
  }
}

function fail(code: JwtErrorCode, message: string, cause?: unknown): never {
  throw new JwtVerificationError(code, message, cause === undefined ? undefined : { cause });
}

export type JsonObject = Readonly<Record<string, unknown>>;

/** Epoch milliseconds from which a verified token is accepted, and from which it is not. */
export interface ValidityWindow {
  /** The first instant its `nbf` allows (-Infinity without `nbf`). */
  readonly notBefore: number;
  /** The first instant it is expired. */
  readonly expiresAt: number;
}

export interface VerifiedJws {
  /** The JWT claims set, its signature, times and issuer verified. */
  readonly payload: JsonObject;
  /** The `kid` of the protected header, when it is a string. */
  readonly kid: string | undefined;
  /** Where the same token, verified at another instant, would be accepted: `now` lies in it. */
  readonly window: ValidityWindow;
}

export interface VerifyJwsOptions {
  /** The algorithms a token may name (createVerifier checks they are asymmetric). */
  readonly algorithms: ReadonlySet<AsymmetricAlgorithm>;
  /** A non-negative whole number of seconds (createVerifier checks it). */
  readonly clockToleranceSeconds: number;
  readonly issuer?: string;
  /** The instant of verification, in epoch milliseconds. */
  readonly now: number;
}

const BASE64URL = /^[A-Za-z0-9_-]*$/;

/** Strict base64url: its alphabet only, no padding, no impossible length. */
const decodePart = (part: string, what: string): Buffer => {
  if (!BASE64URL.test(part) || part.length % 4 === 1) {
    fail('ERR_JWS_INVALID', `${what} is not base64url`);
  }
  return Buffer.from(part, 'base64url');
};

const utf8 = new TextDecoder('utf-8', { fatal: true });

const isJsonObject = (value: unknown): value is JsonObject =>
  typeof value === 'object' &&
  value !== null &&
  Object.prototype.toString.call(value) === '[object Object]';

const parseObject = (bytes: Buffer, code: JwtErrorCode, what: string): JsonObject => {
  let parsed: unknown;
  try {
    parsed = JSON.parse(utf8.decode(bytes));
  } catch (error) {
    return fail(code, `${what} is not JSON`, error);
  }
  return isJsonObject(parsed) ? parsed : fail(code, `${what} is not a JSON object`);
};

/** A compact JWS split and its protected header parsed; nothing verified yet. */
interface DecodedJws {
  readonly alg: AsymmetricAlgorithm;
  readonly kid: unknown;
  readonly signingInput: string;
  readonly payloadPart: string;
  readonly signature: Buffer;
}

const decode = (token: string, algorithms: ReadonlySet<AsymmetricAlgorithm>): DecodedJws => {
  const parts = token.split('.');
  if (parts.length !== 3) fail('ERR_JWS_INVALID', 'not a compact JWS');
  const [headerPart = '', payloadPart = '', signaturePart = ''] = parts;
  const header = parseObject(decodePart(headerPart, 'header'), 'ERR_JWS_INVALID', 'header');
  if (Object.hasOwn(header, 'crit')) {
    const { crit } = header;
    if (
      !Array.isArray(crit) ||
      crit.length === 0 ||
      !crit.every((name) => typeof name === 'string')
    ) {
      fail('ERR_JWS_INVALID', 'crit must be a non-empty list of names');
    }
    fail('ERR_JOSE_NOT_SUPPORTED', 'no JWS extension is supported');
  }
  const { alg } = header;
  if (typeof alg !== 'string' || alg === '') fail('ERR_JWS_INVALID', 'alg missing');
  if (!algorithms.has(alg as AsymmetricAlgorithm)) {
    fail('ERR_JOSE_ALG_NOT_ALLOWED', 'alg not allowed');
  }
  return {
    alg: alg as AsymmetricAlgorithm,
    kid: header.kid,
    signingInput: `${headerPart}.${payloadPart}`,
    payloadPart,
    signature: decodePart(signaturePart, 'signature'),
  };
};

const verifiesWith = (jws: DecodedJws, candidate: VerificationKey): boolean => {
  const spec = ALGORITHMS[jws.alg];
  const data = Buffer.from(jws.signingInput, 'latin1');
  try {
    return verify(
      spec.digest,
      data,
      spec.padding === 'pss'
        ? {
            key: candidate.key,
            padding: constants.RSA_PKCS1_PSS_PADDING,
            saltLength: constants.RSA_PSS_SALTLEN_DIGEST,
          }
        : spec.dsaEncoding
          ? { key: candidate.key, dsaEncoding: spec.dsaEncoding }
          : candidate.key,
      jws.signature,
    );
  } catch {
    return false;
  }
};

/** The signature verified by the one key offered for the token, or a failure. */
const verifySignature = (jws: DecodedJws, candidates: readonly VerificationKey[]): void => {
  const [key, ...others] = candidates;
  if (key === undefined) fail('ERR_JWKS_NO_MATCHING_KEY', 'no key of the set fits the token');
  if (others.length > 0) fail('ERR_JWKS_MULTIPLE_MATCHING_KEYS', 'several keys fit the token');
  if (!verifiesWith(jws, key)) {
    fail('ERR_JWS_SIGNATURE_VERIFICATION_FAILED', 'signature verification failed');
  }
};

const numericDate = (claims: JsonObject, name: string): number | undefined => {
  const value = claims[name];
  if (value === undefined) return undefined;
  return typeof value === 'number'
    ? value
    : fail('ERR_JWT_CLAIM_VALIDATION_FAILED', `${name} must be a number`);
};

/**
 * The payload of a verified JWS as a JWT claims set, its times and issuer checked, and the
 * window in which those times hold.
 *
 * jose calls a token not yet valid when `nbf > now + tolerance` and expired when
 * `exp <= now - tolerance`, `now` in whole seconds. With a whole-number tolerance,
 * `now + tolerance` and `now - tolerance` are whole numbers, and a whole number is below `nbf`
 * exactly when it is below `ceil(nbf)` (at least `exp` exactly when at least `ceil(exp)`). So
 * the checks below, `now < ceil(nbf) - tolerance` and `now >= ceil(exp) + tolerance`, refuse
 * exactly the tokens jose refuses, whatever fractions the claims carry, and the window they
 * return is exact to the millisecond (unlike `ceil(exp + tolerance)`, which may round down).
 */
const validateClaims = (
  jws: DecodedJws,
  options: VerifyJwsOptions,
): { readonly claims: JsonObject; readonly window: ValidityWindow } => {
  const claims = parseObject(
    decodePart(jws.payloadPart, 'payload'),
    'ERR_JWT_INVALID',
    'claims set',
  );
  if (!Object.hasOwn(claims, 'exp')) fail('ERR_JWT_CLAIM_VALIDATION_FAILED', 'exp missing');
  if (options.issuer !== undefined) {
    if (!Object.hasOwn(claims, 'iss')) fail('ERR_JWT_CLAIM_VALIDATION_FAILED', 'iss missing');
    if (claims.iss !== options.issuer) fail('ERR_JWT_CLAIM_VALIDATION_FAILED', 'iss unexpected');
  }
  const tolerance = options.clockToleranceSeconds;
  const now = Math.floor(options.now / 1000);
  numericDate(claims, 'iat');
  const nbf = numericDate(claims, 'nbf');
  const notBefore = nbf === undefined ? Number.NEGATIVE_INFINITY : Math.ceil(nbf) - tolerance;
  if (now < notBefore) fail('ERR_JWT_CLAIM_VALIDATION_FAILED', 'nbf in the future');
  const exp = numericDate(claims, 'exp') ?? fail('ERR_JWT_CLAIM_VALIDATION_FAILED', 'exp missing');
  const expiresAt = Math.ceil(exp) + tolerance;
  if (now >= expiresAt) fail('ERR_JWT_EXPIRED', 'expired');
  return { claims, window: { notBefore: notBefore * 1000, expiresAt: expiresAt * 1000 } };
};

/**
 * Verifies a compact JWS whose keys `lookup` offers, at `options.now`: its payload, header kid
 * and validity window, or a JwtVerificationError. The signature is verified before anything of
 * the payload is read, so nothing of an unverified payload may shape the answer.
 */
export const verifyJws = async (
  token: string,
  lookup: KeyLookup,
  options: VerifyJwsOptions,
): Promise<VerifiedJws> => {
  const jws = decode(token, options.algorithms);
  verifySignature(jws, await lookup(jws.alg, jws.kid));
  const { claims, window } = validateClaims(jws, options);
  return { payload: claims, kid: typeof jws.kid === 'string' ? jws.kid : undefined, window };
};
