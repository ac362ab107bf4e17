/**
 * jws.ts, the node:crypto verification of portal tokens: which published keys are imported
 * and selected, each asymmetric algorithm verifying its own signatures and nothing else, and a
 * differential property test with jose (the library the tests sign with and the verifier
 * jws.ts replaced) as the oracle: on generated tokens — genuine, tampered, re-headed, with every
 * kind of time and issuer claim — both must accept exactly the same ones and refuse the others
 * the same way (expired vs invalid). The one intended difference: any `crit` is refused.
 */
import { constants, generateKeyPairSync, sign, type JsonWebKey, type KeyObject } from 'node:crypto';
import fc from 'fast-check';
import { createLocalJWKSet, jwtVerify } from 'jose';
import {
  ASYMMETRIC_ALGORITHMS,
  decodeJws,
  importVerificationKey,
  selectKeys,
  validateClaims,
  verifySignature,
  type AsymmetricAlgorithm,
  type JsonObject,
} from '../../../../shared/auth/jws';

const b64url = (value: string | Uint8Array): string => Buffer.from(value).toString('base64url');

interface TestKey {
  readonly alg: AsymmetricAlgorithm;
  readonly privateKey: KeyObject;
  readonly jwk: JsonObject;
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
  return { alg, privateKey: pair.privateKey, jwk: { ...jwk, kid, use: 'sig' } };
};

const digestOf = (alg: AsymmetricAlgorithm): string | null =>
  alg === 'EdDSA' || alg === 'Ed25519' ? null : `sha${alg.slice(2)}`;

/** A compact JWS over exactly these texts, signed as `alg` says with `key`. */
const signText = (
  headerText: string,
  payloadText: string,
  key: KeyObject,
  alg: AsymmetricAlgorithm,
): string => {
  const input = `${b64url(headerText)}.${b64url(payloadText)}`;
  const data = Buffer.from(input);
  const digest = digestOf(alg);
  const signature = alg.startsWith('ES')
    ? sign(digest, data, { key, dsaEncoding: 'ieee-p1363' })
    : alg.startsWith('PS')
      ? sign(digest, data, {
          key,
          padding: constants.RSA_PKCS1_PSS_PADDING,
          saltLength: constants.RSA_PSS_SALTLEN_DIGEST,
        })
      : sign(digest, data, key);
  return `${input}.${b64url(signature)}`;
};

/** The code a synchronous step failed with, or undefined when it did not fail. */
const codeOf = (step: () => unknown): unknown => {
  try {
    step();
  } catch (error) {
    return (error as { code?: unknown }).code;
  }
  return undefined;
};

const NOW = 1_800_000_000;
const ISSUER = 'portal-auth';
const TOLERANCE = 5;

type Verdict = 'accepted' | 'expired' | 'invalid';

const ours = async (token: string, keys: readonly JsonObject[]): Promise<Verdict> => {
  const imported = keys.flatMap((jwk) => importVerificationKey(jwk) ?? []);
  try {
    const jws = decodeJws(token, new Set(ASYMMETRIC_ALGORITHMS));
    verifySignature(jws, selectKeys(imported, jws.alg, jws.kid));
    validateClaims(jws, { nowSeconds: NOW, toleranceSeconds: TOLERANCE, issuer: ISSUER });
    return await Promise.resolve('accepted');
  } catch (error) {
    return (error as { code?: unknown }).code === 'ERR_JWT_EXPIRED' ? 'expired' : 'invalid';
  }
};

const joses = async (token: string, keys: readonly JsonObject[]): Promise<Verdict> => {
  try {
    await jwtVerify(token, createLocalJWKSet({ keys: keys as never }), {
      algorithms: [...ASYMMETRIC_ALGORITHMS],
      requiredClaims: ['exp'],
      issuer: ISSUER,
      clockTolerance: TOLERANCE,
      currentDate: new Date(NOW * 1000 + 999),
    });
    return 'accepted';
  } catch (error) {
    return (error as { code?: unknown }).code === 'ERR_JWT_EXPIRED' ? 'expired' : 'invalid';
  }
};

let keys: Record<AsymmetricAlgorithm, TestKey>;

beforeAll(() => {
  keys = Object.fromEntries(
    ASYMMETRIC_ALGORITHMS.map((alg, i) => [alg, generate(alg, `kid-${i}`)]),
  ) as Record<AsymmetricAlgorithm, TestKey>;
});

const claims = (overrides: Record<string, unknown> = {}): Record<string, unknown> => ({
  iss: ISSUER,
  iat: NOW - 10,
  exp: NOW + 300,
  authSchema: { restaurants: [] },
  ...overrides,
});

describe('importVerificationKey', () => {
  it('imports the public key of every asymmetric algorithm, with its kid, alg and curve', () => {
    for (const alg of ASYMMETRIC_ALGORITHMS) {
      const { jwk } = keys[alg];
      const imported = importVerificationKey({ ...jwk, alg });
      expect(imported).toMatchObject({ kty: jwk.kty, kid: jwk.kid, alg });
      expect(imported?.key.type).toBe('public');
    }
  });

  it.each([
    ['a private RSA key', () => keys.RS256.privateKey.export({ format: 'jwk' })],
    ['a private EC key', () => keys.ES256.privateKey.export({ format: 'jwk' })],
    ['a private Ed25519 key', () => keys.EdDSA.privateKey.export({ format: 'jwk' })],
    ['a symmetric key', () => ({ kty: 'oct', k: b64url('secret') })],
    ['an encryption key', () => ({ ...keys.RS256.jwk, use: 'enc' })],
    ['a key whose key_ops lack verify', () => ({ ...keys.RS256.jwk, key_ops: ['encrypt'] })],
    ['a key whose key_ops repeat', () => ({ ...keys.RS256.jwk, key_ops: ['verify', 'verify'] })],
    ['a key with a non-boolean ext', () => ({ ...keys.RS256.jwk, ext: 'yes' })],
    ['a key with a numeric kid', () => ({ ...keys.RS256.jwk, kid: 7 })],
    ['a key for a symmetric algorithm', () => ({ ...keys.RS256.jwk, alg: 'HS256' })],
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
    expect(importVerificationKey(jwk() as JsonObject)).toBeUndefined();
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
  });

  it('finds nothing for a kid that is not a string', () => {
    expect(selectKeys(held(), 'RS256', 7)).toEqual([]);
  });

  it('honours a key’s own alg', () => {
    const pinned = importVerificationKey({ ...keys.RS256.jwk, alg: 'PS256' });
    expect(pinned).toBeDefined();
    const only = pinned ? [pinned] : [];
    expect(selectKeys(only, 'RS256', keys.RS256.jwk.kid)).toEqual([]);
    expect(selectKeys(only, 'PS256', keys.RS256.jwk.kid)).toEqual(only);
  });

  it('without a kid, offers every key of the type (verifySignature then refuses two)', () => {
    const rsaKeys = selectKeys(held(), 'RS256', undefined);
    // RS*, PS* keys are all RSA keys: six of them.
    expect(rsaKeys).toHaveLength(6);
    const token = signText(
      '{"alg":"RS256"}',
      JSON.stringify(claims()),
      keys.RS256.privateKey,
      'RS256',
    );
    expect(codeOf(() => verifySignature(decodeJws(token, new Set(['RS256'])), rsaKeys))).toBe(
      'ERR_JWKS_MULTIPLE_MATCHING_KEYS',
    );
  });
});

describe('each algorithm', () => {
  it.each(ASYMMETRIC_ALGORITHMS)('%s verifies its own signature and no other key’s', (alg) => {
    const key = keys[alg];
    const header = JSON.stringify({ alg, kid: key.jwk.kid });
    const token = signText(header, JSON.stringify(claims()), key.privateKey, alg);
    const jws = decodeJws(token, new Set([alg]));
    const own = importVerificationKey(key.jwk);
    expect(own).toBeDefined();
    expect(verifySignature(jws, own ? [own] : [])).toBe(own);

    const impostor = generate(alg, String(key.jwk.kid));
    const forged = signText(header, JSON.stringify(claims()), impostor.privateKey, alg);
    expect(codeOf(() => verifySignature(decodeJws(forged, new Set([alg])), own ? [own] : []))).toBe(
      'ERR_JWS_SIGNATURE_VERIFICATION_FAILED',
    );
  });

  it('refuses an algorithm the caller did not allow before looking for a key', () => {
    const token = signText(
      '{"alg":"RS256"}',
      JSON.stringify(claims()),
      keys.RS256.privateKey,
      'RS256',
    );
    expect(codeOf(() => decodeJws(token, new Set(['ES256'])))).toBe('ERR_JOSE_ALG_NOT_ALLOWED');
  });
});

describe('strict decoding', () => {
  const genuine = () =>
    signText(
      JSON.stringify({ alg: 'RS256', kid: keys.RS256.jwk.kid }),
      JSON.stringify(claims()),
      keys.RS256.privateKey,
      'RS256',
    );

  it.each([
    ['padding', (t: string) => `${t}=`],
    ['a standard-base64 character', (t: string) => t.replace(/-|_/, '+')],
    ['four parts', (t: string) => `${t}.AAAA`],
    ['two parts', (t: string) => t.slice(0, t.lastIndexOf('.'))],
    ['an impossible base64 length', (t: string) => `${t.slice(0, t.lastIndexOf('.'))}.A`],
  ])('refuses %s', (_what, mangle) => {
    expect(codeOf(() => decodeJws(mangle(genuine()), new Set(ASYMMETRIC_ALGORITHMS)))).toBe(
      'ERR_JWS_INVALID',
    );
  });

  it('refuses a claims set that is not strict UTF-8', () => {
    const input = `${b64url(JSON.stringify({ alg: 'RS256' }))}.${b64url(Buffer.from([0x7b, 0xff, 0x7d]))}`;
    const token = `${input}.${b64url(sign('sha256', Buffer.from(input), keys.RS256.privateKey))}`;
    const jws = decodeJws(token, new Set(ASYMMETRIC_ALGORITHMS));
    expect(codeOf(() => validateClaims(jws, { nowSeconds: NOW, toleranceSeconds: 0 }))).toBe(
      'ERR_JWT_INVALID',
    );
  });
});

/** Header variations: the right key, others, hostile members. */
const headerArb = (alg: AsymmetricAlgorithm): fc.Arbitrary<Record<string, unknown>> =>
  fc.record(
    {
      alg: fc.oneof(
        { weight: 12, arbitrary: fc.constant<unknown>(alg) },
        { weight: 1, arbitrary: fc.constantFrom<unknown>(...ASYMMETRIC_ALGORITHMS) },
        { weight: 1, arbitrary: fc.constantFrom<unknown>('none', 'HS256', '', 7, null) },
      ),
      kid: fc.oneof(
        { weight: 12, arbitrary: fc.constant<unknown>(keys[alg].jwk.kid) },
        { weight: 1, arbitrary: fc.constantFrom<unknown>('kid-404', 3, null) },
        {
          weight: 1,
          arbitrary: fc.constantFrom<unknown>(...ASYMMETRIC_ALGORITHMS.map((a) => keys[a].jwk.kid)),
        },
      ),
      typ: fc.constantFrom<unknown>('JWT', 'at+jwt', 1),
      jku: fc.constant<unknown>('https://attacker.example/jwks.json'),
    },
    { requiredKeys: ['alg'] },
  );

/** Times around both edges of the tolerance window, where an off-by-one would show. */
const timeArb = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.constantFrom<unknown>(
      ...[
        -TOLERANCE - 1,
        -TOLERANCE,
        -TOLERANCE + 1,
        0,
        TOLERANCE - 1,
        TOLERANCE,
        TOLERANCE + 1,
      ].map((offset) => NOW + offset),
    ),
  },
  { weight: 2, arbitrary: fc.integer({ min: NOW - 600, max: NOW + 600 }) },
  {
    weight: 1,
    arbitrary: fc.constantFrom<unknown>(
      '1800000000',
      null,
      true,
      NOW + 0.5,
      NOW - TOLERANCE + 0.25,
      1e300,
    ),
  },
);

const claimsArb = fc.record(
  {
    iss: fc.oneof(
      { weight: 6, arbitrary: fc.constant<unknown>(ISSUER) },
      { weight: 1, arbitrary: fc.constantFrom<unknown>('someone-else', 42) },
    ),
    exp: timeArb,
    nbf: timeArb,
    iat: timeArb,
    sub: fc.string(),
    authSchema: fc.constant<unknown>({ restaurants: [] }),
  },
  { requiredKeys: ['authSchema'] },
);

describe('agrees with jose', () => {
  it('on generated tokens: the same ones accepted, the others refused the same way', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc
          .constantFrom(...ASYMMETRIC_ALGORITHMS)
          .chain((alg) => fc.tuple(fc.constant(alg), headerArb(alg))),
        fc.option(fc.constantFrom(...ASYMMETRIC_ALGORITHMS), { freq: 4 }),
        fc.boolean(),
        fc.integer({ min: 0, max: 3 }),
        claimsArb,
        async ([alg, header], signer, withKidlessSet, tamper, payload) => {
          const key = keys[alg];
          // Mostly the token's own key; sometimes another algorithm's.
          const signingKey = keys[signer ?? alg];
          let token = signText(
            JSON.stringify(header),
            JSON.stringify(payload),
            signingKey.privateKey,
            signingKey.alg,
          );
          if (tamper === 0) {
            // flip one character of the signature
            const last = token.at(-2) === 'A' ? 'B' : 'A';
            token = `${token.slice(0, -2)}${last}${token.slice(-1)}`;
          }
          const set = withKidlessSet
            ? [key.jwk, keys.ES256.jwk, keys.EdDSA.jwk]
            : ASYMMETRIC_ALGORITHMS.map((a) => keys[a].jwk);
          expect(await ours(token, set)).toBe(await joses(token, set));
        },
      ),
      { numRuns: 300 },
    );
  });

  it('refuses every crit, where jose would accept a critical b64: true', async () => {
    const key = keys.RS256;
    const token = signText(
      JSON.stringify({ alg: 'RS256', kid: key.jwk.kid, b64: true, crit: ['b64'] }),
      JSON.stringify(claims()),
      key.privateKey,
      'RS256',
    );
    expect(await joses(token, [key.jwk])).toBe('accepted');
    expect(await ours(token, [key.jwk])).toBe('invalid');
  });
});
