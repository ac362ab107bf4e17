/**
 * The published keys that may verify a portal token (RFC 7517 JWKs, RFC 7518 algorithms), on
 * `node:crypto`: which JWS algorithms we accept and what each needs of a key, how a JWK of the
 * key set becomes a verification key, and which held keys a token's `alg` and `kid` select.
 * It follows jose's rules (the verifier this replaced), and is stricter where jose is lenient:
 *
 * - only asymmetric algorithms exist here: `none` and HMAC have no entry, so no key is ever
 *   selected for them;
 * - a JWK is imported only when it is a public RSA, EC or OKP signature key: private members
 *   (`d`, `p`, `q`, `dp`, `dq`, `qi`, `oth`) and symmetric `k` refuse it, as do `use` other than
 *   `sig`, `key_ops` without `verify` (or with repeats), malformed `kid`, `alg`, `crv` or `ext`,
 *   key material `node:crypto` cannot read, and RSA moduli under 2048 bits;
 * - keys are selected as jose selects them: kty and curve fit the algorithm, the kid is equal
 *   when the token names one (a kid that is not a string selects nothing), and a key's own
 *   `alg` agrees. Choosing among several keys is not done here: jws.ts refuses the token.
 */
import { createPublicKey, type KeyObject } from 'node:crypto';

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

/** What an algorithm needs of a key, and how `node:crypto` verifies its signatures. */
export interface AlgorithmSpec {
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

export const ALGORITHMS: Readonly<Record<AsymmetricAlgorithm, AlgorithmSpec>> = {
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

/** A JSON Web Key as parsed from the key set: an object, members not yet checked. */
export type Jwk = Readonly<Record<string, unknown>>;

/** A published key, imported once per key-set refresh, with what selects it. */
export interface VerificationKey {
  readonly kty: KeyType;
  readonly kid?: string;
  readonly alg?: string;
  readonly crv?: string;
  readonly key: KeyObject;
}

/**
 * The held keys that may verify a token with this `alg` and header `kid` (the key set's
 * `keysFor`): an empty list when none fits. Rejects only when no key set can be had.
 */
export type KeyLookup = (
  alg: AsymmetricAlgorithm,
  kid: unknown,
) => Promise<readonly VerificationKey[]>;

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
export const importVerificationKey = (jwk: Jwk): VerificationKey | undefined => {
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
