/**
 * Compact JWS verification of the portal's JWTs on `node:crypto`, synchronous once the key is
 * known. It follows jose's rules (the library the tests sign with, and the verifier this
 * replaced) member for member, and is stricter where jose is lenient:
 *
 * - exactly three base64url parts, each strictly base64url (no padding, no `+`/`/`);
 * - the protected header is a JSON object; `alg` must be one of the caller's asymmetric
 *   algorithms, checked before any key is looked up (`none` and HMAC never reach a key);
 * - any `crit` header is refused: we implement no JWS extension, not even `b64` (so an
 *   unencoded payload never verifies); `jku`, `x5u`, `jwk` and `x5c` are ignored — keys come only from the published set;
 * - keys are chosen as jose chooses them (kty and curve fit the algorithm, kid equal when the
 *   token names one, the key's own `alg`/`use`/`key_ops` agree), RSA keys are at least 2048
 *   bits, private or malformed keys are never imported; when several keys fit, the token is
 *   refused as ambiguous;
 * - the payload is strict UTF-8 JSON, a top-level object; `exp` is required and `iss` when an
 *   issuer is configured; `exp`, `nbf` and `iat` must be numbers; expired when
 *   `exp <= now - tolerance`, not yet valid when `nbf > now + tolerance` (`now` in whole
 *   seconds), exactly as jose computes them.
 *
 * Failures carry jose's stable error codes, so callers map them the same way.
 */
import { constants, createPublicKey, verify, type KeyObject } from 'node:crypto';

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

type KeyType = 'RSA' | 'EC' | 'OKP';

interface AlgorithmSpec {
  readonly kty: KeyType;
  readonly crv?: string;
  /** Digest for node:crypto; null for Ed25519, which hashes internally. */
  readonly digest: 'sha256' | 'sha384' | 'sha512' | null;
  readonly padding?: 'pss';
  readonly dsaEncoding?: 'ieee-p1363';
}

const rsa = (digest: AlgorithmSpec['digest'], pss = false): AlgorithmSpec => ({
  kty: 'RSA',
  digest,
  ...(pss ? { padding: 'pss' as const } : {}),
});
const ecdsa = (crv: string, digest: AlgorithmSpec['digest']): AlgorithmSpec => ({
  kty: 'EC',
  crv,
  digest,
  dsaEncoding: 'ieee-p1363',
});
const ed25519: AlgorithmSpec = { kty: 'OKP', crv: 'Ed25519', digest: null };

const ALGORITHMS: Readonly<Record<AsymmetricAlgorithm, AlgorithmSpec>> = {
  RS256: rsa('sha256'),
  RS384: rsa('sha384'),
  RS512: rsa('sha512'),
  PS256: rsa('sha256', true),
  PS384: rsa('sha384', true),
  PS512: rsa('sha512', true),
  ES256: ecdsa('P-256', 'sha256'),
  ES384: ecdsa('P-384', 'sha384'),
  ES512: ecdsa('P-521', 'sha512'),
  EdDSA: ed25519,
  Ed25519: ed25519,
};

export const isAsymmetricAlgorithm = (alg: string): alg is AsymmetricAlgorithm =>
  Object.hasOwn(ALGORITHMS, alg);

/** RFC 7518 3.3 / 3.5: RSA keys below 2048 bits must not verify (jose refuses them too). */
const MIN_RSA_BITS = 2048;

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

export class JwtVerificationError extends Error {
  override readonly name = 'JwtVerificationError';
  constructor(
    readonly code: JwtErrorCode,
    message: string,
  ) {
    super(message);
  }
}

const fail = (code: JwtErrorCode, message: string): never => {
  throw new JwtVerificationError(code, message);
};

export type JsonObject = Readonly<Record<string, unknown>>;

/** A published key, imported once per key-set refresh, with what selects it. */
export interface VerificationKey {
  readonly kty: KeyType;
  readonly kid?: string;
  readonly alg?: string;
  readonly crv?: string;
  readonly key: KeyObject;
}

/** Members that make a JWK private (or symmetric): such a key never verifies a token. */
const PRIVATE_MEMBERS = ['d', 'p', 'q', 'dp', 'dq', 'qi', 'oth', 'k'] as const;

const isUniqueStringList = (value: unknown): value is string[] =>
  Array.isArray(value) &&
  value.every((item, index) => typeof item === 'string' && value.indexOf(item) === index);

/**
 * A key of the published set as a verification key, or undefined when it cannot verify a
 * portal token: not a public RSA/EC/OKP signature key, marked for another use, malformed, or an
 * RSA key under 2048 bits.
 */
export const importVerificationKey = (jwk: JsonObject): VerificationKey | undefined => {
  const { kty, kid, alg, crv, use, key_ops: keyOps, ext } = jwk;
  if (kty !== 'RSA' && kty !== 'EC' && kty !== 'OKP') return undefined;
  if (PRIVATE_MEMBERS.some((member) => Object.hasOwn(jwk, member))) return undefined;
  if (use !== undefined && use !== 'sig') return undefined;
  if (keyOps !== undefined && !(isUniqueStringList(keyOps) && keyOps.includes('verify'))) {
    return undefined;
  }
  if (ext !== undefined && typeof ext !== 'boolean') return undefined;
  if (kid !== undefined && typeof kid !== 'string') return undefined;
  if (alg !== undefined && (typeof alg !== 'string' || !isAsymmetricAlgorithm(alg))) {
    return undefined;
  }
  if (crv !== undefined && typeof crv !== 'string') return undefined;
  let key: KeyObject;
  try {
    key = createPublicKey({ key: { ...jwk }, format: 'jwk' });
  } catch {
    return undefined;
  }
  if (key.type !== 'public') return undefined;
  if (kty === 'RSA' && (key.asymmetricKeyDetails?.modulusLength ?? 0) < MIN_RSA_BITS) {
    return undefined;
  }
  return {
    kty,
    key,
    ...(kid === undefined ? {} : { kid }),
    ...(alg === undefined ? {} : { alg }),
    ...(crv === undefined ? {} : { crv }),
  };
};

/** The held keys that may verify a token with this `alg` and `kid` (jose's selection). */
export const selectKeys = (
  keys: readonly VerificationKey[],
  alg: AsymmetricAlgorithm,
  kid: unknown,
): VerificationKey[] => {
  const spec = ALGORITHMS[alg];
  return keys.filter(
    (key) =>
      key.kty === spec.kty &&
      (spec.crv === undefined || key.crv === spec.crv) &&
      (kid === undefined || (typeof kid === 'string' && key.kid === kid)) &&
      (key.alg === undefined || key.alg === alg),
  );
};

const BASE64URL = /^[A-Za-z0-9_-]*$/;

/** Strict base64url: its alphabet only, no padding, no impossible length. */
const decodePart = (part: string, code: JwtErrorCode, what: string): Buffer => {
  if (!BASE64URL.test(part) || part.length % 4 === 1) fail(code, `${what} is not base64url`);
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
  } catch {
    return fail(code, `${what} is not JSON`);
  }
  return isJsonObject(parsed) ? parsed : fail(code, `${what} is not a JSON object`);
};

/** A compact JWS split and its protected header parsed; nothing verified yet. */
export interface DecodedJws {
  readonly header: JsonObject;
  readonly alg: AsymmetricAlgorithm;
  readonly kid: unknown;
  readonly signingInput: string;
  readonly payloadPart: string;
  readonly signature: Buffer;
}

export const decodeJws = (
  token: string,
  algorithms: ReadonlySet<AsymmetricAlgorithm>,
): DecodedJws => {
  const parts = token.split('.');
  if (parts.length !== 3) fail('ERR_JWS_INVALID', 'not a compact JWS');
  const [headerPart = '', payloadPart = '', signaturePart = ''] = parts;
  const header = parseObject(
    decodePart(headerPart, 'ERR_JWS_INVALID', 'header'),
    'ERR_JWS_INVALID',
    'header',
  );
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
    header,
    alg: alg as AsymmetricAlgorithm,
    kid: header.kid,
    signingInput: `${headerPart}.${payloadPart}`,
    payloadPart,
    signature: decodePart(signaturePart, 'ERR_JWS_INVALID', 'signature'),
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

/**
 * The signature verified by the one key that fits the token, or a failure. Several keys that
 * fit (a token without a kid beside two keys of its type, or a kid published twice) are
 * ambiguous and refused, as jose refuses them: no key is tried on a guess.
 */
export const verifySignature = (
  jws: DecodedJws,
  candidates: readonly VerificationKey[],
): VerificationKey => {
  const [key, ...others] = candidates;
  if (key === undefined) return fail('ERR_JWKS_NO_MATCHING_KEY', 'no key fits the token');
  if (others.length > 0) fail('ERR_JWKS_MULTIPLE_MATCHING_KEYS', 'several keys fit the token');
  if (!verifiesWith(jws, key)) {
    fail('ERR_JWS_SIGNATURE_VERIFICATION_FAILED', 'signature verification failed');
  }
  return key;
};

export interface ClaimsOptions {
  /** Whole seconds since the epoch (jose floors the clock the same way). */
  readonly nowSeconds: number;
  readonly toleranceSeconds: number;
  readonly issuer?: string;
}

const numericDate = (claims: JsonObject, name: string): number | undefined => {
  const value = claims[name];
  if (value === undefined) return undefined;
  return typeof value === 'number'
    ? value
    : fail('ERR_JWT_CLAIM_VALIDATION_FAILED', `${name} must be a number`);
};

/** The payload of a verified JWS as a JWT claims set, its times and issuer checked. */
export const validateClaims = (jws: DecodedJws, options: ClaimsOptions): JsonObject => {
  const claims = parseObject(
    decodePart(jws.payloadPart, 'ERR_JWS_INVALID', 'payload'),
    'ERR_JWT_INVALID',
    'claims set',
  );
  if (!Object.hasOwn(claims, 'exp')) fail('ERR_JWT_CLAIM_VALIDATION_FAILED', 'exp missing');
  if (options.issuer !== undefined) {
    if (!Object.hasOwn(claims, 'iss')) fail('ERR_JWT_CLAIM_VALIDATION_FAILED', 'iss missing');
    if (claims.iss !== options.issuer) fail('ERR_JWT_CLAIM_VALIDATION_FAILED', 'iss unexpected');
  }
  const { nowSeconds: now, toleranceSeconds: tolerance } = options;
  numericDate(claims, 'iat');
  const nbf = numericDate(claims, 'nbf');
  if (nbf !== undefined && nbf > now + tolerance) {
    fail('ERR_JWT_CLAIM_VALIDATION_FAILED', 'nbf in the future');
  }
  const exp = numericDate(claims, 'exp');
  if (exp !== undefined && exp <= now - tolerance) fail('ERR_JWT_EXPIRED', 'expired');
  return claims;
};
