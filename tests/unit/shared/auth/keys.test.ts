/**
 * keys.ts: which published keys become verification keys, and which of the held keys a token's
 * `alg` and `kid` select (jose's selection). Whether a selected key verifies a signature is
 * jws.test.ts's concern.
 */
import { generateKeyPairSync, type JsonWebKey, type KeyObject } from 'node:crypto';
import {
  ALGORITHMS,
  ASYMMETRIC_ALGORITHMS,
  importVerificationKey,
  isAsymmetricAlgorithm,
  selectKeys,
  type AsymmetricAlgorithm,
  type Jwk,
} from '../../../../shared/auth/keys';

interface TestKey {
  readonly privateKey: KeyObject;
  readonly jwk: Jwk;
}

const generate = (alg: AsymmetricAlgorithm, kid: string): TestKey => {
  const pair = alg.startsWith('ES')
    ? generateKeyPairSync('ec', {
        namedCurve: { ES256: 'P-256', ES384: 'P-384', ES512: 'P-521' }[alg as 'ES256'],
      })
    : alg === 'EdDSA' || alg === 'Ed25519'
      ? generateKeyPairSync('ed25519')
      : generateKeyPairSync('rsa', { modulusLength: 2048 });
  const jwk: JsonWebKey = pair.publicKey.export({ format: 'jwk' });
  return { privateKey: pair.privateKey, jwk: { ...jwk, kid, use: 'sig' } };
};

let keys: Record<AsymmetricAlgorithm, TestKey>;

beforeAll(() => {
  keys = Object.fromEntries(
    ASYMMETRIC_ALGORITHMS.map((alg, i) => [alg, generate(alg, `kid-${i}`)]),
  ) as Record<AsymmetricAlgorithm, TestKey>;
});

describe('the algorithms', () => {
  it('are the asymmetric JWS algorithms only: no none, no HMAC, no encryption', () => {
    expect(Object.keys(ALGORITHMS).sort()).toEqual([...ASYMMETRIC_ALGORITHMS].sort());
    for (const alg of ['none', 'HS256', 'HS384', 'HS512', 'RSA-OAEP', 'dir', '']) {
      expect(isAsymmetricAlgorithm(alg)).toBe(false);
    }
    expect(isAsymmetricAlgorithm('toString')).toBe(false);
  });
});

describe('importVerificationKey', () => {
  it('imports the public key of every asymmetric algorithm, with its kid, alg and curve', () => {
    for (const alg of ASYMMETRIC_ALGORITHMS) {
      const { jwk } = keys[alg];
      const imported = importVerificationKey({ ...jwk, alg });
      expect(imported).toMatchObject({ kty: jwk.kty, kid: jwk.kid, alg });
      expect(imported?.crv).toBe(jwk.crv);
      expect(imported?.key.type).toBe('public');
    }
  });

  it('imports a key with verify among its key_ops, and one with a boolean ext', () => {
    expect(importVerificationKey({ ...keys.RS256.jwk, key_ops: ['verify'] })).toBeDefined();
    expect(importVerificationKey({ ...keys.RS256.jwk, ext: true })).toBeDefined();
  });

  it.each([
    ['a private RSA key', () => keys.RS256.privateKey.export({ format: 'jwk' })],
    ['a private EC key', () => keys.ES256.privateKey.export({ format: 'jwk' })],
    ['a private Ed25519 key', () => keys.EdDSA.privateKey.export({ format: 'jwk' })],
    ['a public RSA key carrying a private member', () => ({ ...keys.RS256.jwk, p: 'AQAB' })],
    ['a public key carrying a symmetric k', () => ({ ...keys.ES256.jwk, k: 'c2VjcmV0' })],
    ['a symmetric key', () => ({ kty: 'oct', k: Buffer.from('secret').toString('base64url') })],
    ['an encryption key', () => ({ ...keys.RS256.jwk, use: 'enc' })],
    ['a key whose key_ops lack verify', () => ({ ...keys.RS256.jwk, key_ops: ['encrypt'] })],
    ['a key whose key_ops repeat', () => ({ ...keys.RS256.jwk, key_ops: ['verify', 'verify'] })],
    ['a key with a non-boolean ext', () => ({ ...keys.RS256.jwk, ext: 'yes' })],
    ['a key with a numeric kid', () => ({ ...keys.RS256.jwk, kid: 7 })],
    ['a key for a symmetric algorithm', () => ({ ...keys.RS256.jwk, alg: 'HS256' })],
    ['a key with a numeric crv', () => ({ ...keys.ES256.jwk, crv: 256 })],
    ['a key with a truncated modulus', () => ({ ...keys.RS256.jwk, n: 'AQAB' })],
    ['an EC point off its curve', () => ({ ...keys.ES256.jwk, y: keys.ES256.jwk.x })],
    [
      'an RSA key of 1024 bits',
      () => ({
        ...generateKeyPairSync('rsa', { modulusLength: 1024 }).publicKey.export({ format: 'jwk' }),
        kid: 'small',
      }),
    ],
    ['an unknown key type', () => ({ kty: 'AKP', kid: 'pq', pub: 'AAAA' })],
  ])('refuses %s', (_what, jwk) => {
    expect(importVerificationKey(jwk() as Jwk)).toBeUndefined();
  });
});

describe('selectKeys', () => {
  const held = () =>
    ASYMMETRIC_ALGORITHMS.flatMap((alg) => importVerificationKey(keys[alg].jwk) ?? []);

  it('chooses by kid among keys of the algorithm’s type and curve', () => {
    const selected = selectKeys(held(), 'ES384', keys.ES384.jwk.kid);
    expect(selected.map((key) => key.kid)).toEqual([keys.ES384.jwk.kid]);
  });

  it('finds nothing for a kid of another key type or curve', () => {
    expect(selectKeys(held(), 'RS256', keys.ES256.jwk.kid)).toEqual([]);
    expect(selectKeys(held(), 'ES256', keys.ES384.jwk.kid)).toEqual([]);
    expect(selectKeys(held(), 'EdDSA', keys.ES256.jwk.kid)).toEqual([]);
  });

  it.each([7, null, '', { kid: 'kid-0' }])('finds nothing for the kid %p', (kid) => {
    expect(selectKeys(held(), 'RS256', kid)).toEqual([]);
  });

  it('honours a key’s own alg', () => {
    const pinned = importVerificationKey({ ...keys.RS256.jwk, alg: 'PS256' });
    expect(pinned).toBeDefined();
    const only = pinned ? [pinned] : [];
    expect(selectKeys(only, 'RS256', keys.RS256.jwk.kid)).toEqual([]);
    expect(selectKeys(only, 'PS256', keys.RS256.jwk.kid)).toEqual(only);
  });

  it('without a kid, offers every key of the type (jws.ts then refuses the ambiguity)', () => {
    // RS*, PS* keys are all RSA keys: six of them.
    expect(selectKeys(held(), 'RS256', undefined)).toHaveLength(6);
    // Ed25519 keys serve both EdDSA and Ed25519.
    expect(selectKeys(held(), 'EdDSA', undefined)).toHaveLength(2);
    expect(selectKeys(held(), 'ES512', undefined).map((key) => key.crv)).toEqual(['P-521']);
  });
});
