/**
 * createVerifier over a stand-in key set: real tokens signed with jose's own builder for what
 * must pass, hand-built tokens for the attacks, and how each failure is mapped to the spec's
 * errors (by class: a jose JOSEError is the token's fault, anything else ours). jose
 * reads the real clock, so times are chosen relative to now with margins far wider than the
 * clock tolerance. The cache has suites of its own (token-cache.test.ts).
 */
import {
  createHmac,
  createPrivateKey,
  createPublicKey,
  generateKeyPairSync,
  sign,
  type KeyObject,
} from 'node:crypto';
import { jest } from '@jest/globals';
import {
  exportJWK,
  exportPKCS8,
  exportSPKI,
  generateKeyPair,
  SignJWT,
  type CryptoKey,
  type JWK,
  type JWTHeaderParameters,
} from 'jose';
import { stubKeySet, type StubKeySet } from '../../../support/local-keys';
import { KeySetUnavailableError } from '../../../../shared/auth/key-set';
import {
  createVerifier,
  type AsymmetricAlgorithm,
  type Verifier,
} from '../../../../shared/auth/verifier';
import { EXPIRED, INVALID, refusalOf } from '../../../support/token-errors';

const ISSUER = 'https://portal-auth.test';
const TOLERANCE = 30;

const RESTAURANTS = [
  { id: 'r-1', platforms: [{ restaurantId: 'p-1', platformId: 'TB_AE', platformKey: 'TB_AE' }] },
];

const nowSeconds = (): number => Math.floor(Date.now() / 1000);

/** A payload the service accepts: an auth schema, an issuer and an expiry five minutes ahead. */
const claims = (overrides: Record<string, unknown> = {}): Record<string, unknown> => ({
  sub: 'owner-1',
  iss: ISSUER,
  iat: nowSeconds(),
  exp: nowSeconds() + 300,
  authSchema: { restaurants: RESTAURANTS },
  ...overrides,
});

interface Signer {
  readonly kid: string;
  readonly privateKey: CryptoKey;
  readonly publicKey: CryptoKey;
  readonly publicJwk: JWK;
  /** The private key as a node KeyObject, to sign hand-built tokens. */
  readonly nodeKey: KeyObject;
}

const signer = async (alg: 'RS256' | 'ES256' | 'EdDSA', kid: string): Promise<Signer> => {
  const { privateKey, publicKey } = await generateKeyPair(alg, { extractable: true });
  const publicJwk = { ...(await exportJWK(publicKey)), kid, use: 'sig' };
  const nodeKey = createPrivateKey(await exportPKCS8(privateKey));
  return { kid, privateKey, publicKey, publicJwk, nodeKey };
};

const b64url = (value: string | Uint8Array): string => Buffer.from(value).toString('base64url');
const segment = (value: unknown): string => b64url(JSON.stringify(value));

/** A compact JWS built by hand: header text as given (so it may repeat members), RSA or ECDSA. */
const handSigned = (
  headerText: string,
  payloadText: string,
  key: KeyObject,
  encodePayload = true,
): string => {
  const input = `${b64url(headerText)}.${encodePayload ? b64url(payloadText) : payloadText}`;
  const signature =
    key.asymmetricKeyType === 'ec'
      ? sign('sha256', Buffer.from(input), { key, dsaEncoding: 'ieee-p1363' })
      : sign('sha256', Buffer.from(input), key);
  return `${input}.${b64url(signature)}`;
};

const signed = (
  header: JWTHeaderParameters,
  key: CryptoKey,
  payload: Record<string, unknown> = claims(),
): Promise<string> => new SignJWT(payload).setProtectedHeader(header).sign(key);

/** Refused as TOKEN_INVALID, mapped from the jose error with this stable code. */
const expectInvalid = async (verification: Promise<unknown>, joseCode: string): Promise<void> => {
  const error = await refusalOf(verification);
  expect(error).toMatchObject(INVALID);
  expect(error.headers).toEqual({ 'WWW-Authenticate': 'Bearer error="invalid_token"' });
  expect(error.cause).toMatchObject({ code: joseCode });
};

const NO_KEY = 'ERR_JWKS_NO_MATCHING_KEY';
const BAD_SIGNATURE = 'ERR_JWS_SIGNATURE_VERIFICATION_FAILED';
const ALG_NOT_ALLOWED = 'ERR_JOSE_ALG_NOT_ALLOWED';
const JWS_INVALID = 'ERR_JWS_INVALID';
const CLAIM_INVALID = 'ERR_JWT_CLAIM_VALIDATION_FAILED';
const KID_REQUIRED = 'ERR_KID_REQUIRED';

let rsa: Signer;
let rsa2: Signer;
let ec: Signer;
let ed: Signer;
let attacker: Signer;
let keySet: StubKeySet;
let verify: Verifier;

beforeAll(async () => {
  [rsa, rsa2, ec, ed, attacker] = await Promise.all([
    signer('RS256', 'rsa-1'),
    signer('RS256', 'rsa-2'),
    signer('ES256', 'ec-1'),
    signer('EdDSA', 'ed-1'),
    signer('RS256', 'attacker-1'),
  ]);
});

beforeEach(() => {
  keySet = stubKeySet([rsa.publicJwk, rsa2.publicJwk, ec.publicJwk, ed.publicJwk]);
  verify = createVerifier({ keySet, issuer: ISSUER, clockToleranceSeconds: TOLERANCE });
});

afterEach(() => {
  jest.restoreAllMocks();
});

const rsaHeader = (extra: Record<string, unknown> = {}): string =>
  JSON.stringify({ alg: 'RS256', kid: rsa.kid, ...extra });

describe('tokens signed by a key of the set', () => {
  it.each([
    ['RS256', () => rsa],
    ['ES256', () => ec],
    ['EdDSA', () => ed],
  ] as const)('returns the claims of a valid %s token', async (alg, key) => {
    const exp = nowSeconds() + 300;
    const token = await signed(
      { alg, kid: key().kid, typ: 'JWT' },
      key().privateKey,
      claims({ exp }),
    );

    await expect(verify(token)).resolves.toEqual({ sub: 'owner-1', exp, restaurants: RESTAURANTS });
  });

  it('accepts hand-built tokens when nothing is wrong with them (control for the attacks)', async () => {
    const rs = handSigned(rsaHeader(), JSON.stringify(claims()), rsa.nodeKey);
    const es = handSigned(
      JSON.stringify({ alg: 'ES256', kid: ec.kid }),
      JSON.stringify(claims()),
      ec.nodeKey,
    );

    await expect(verify(rs)).resolves.toMatchObject({ sub: 'owner-1' });
    await expect(verify(es)).resolves.toMatchObject({ sub: 'owner-1' });
  });

  it('accepts any issuer, or none, when no issuer is configured', async () => {
    const open = createVerifier({ keySet, clockToleranceSeconds: TOLERANCE });
    const other = await signed(
      { alg: 'RS256', kid: rsa.kid },
      rsa.privateKey,
      claims({ iss: 'x' }),
    );
    const none = await signed(
      { alg: 'RS256', kid: rsa.kid },
      rsa.privateKey,
      claims({ iss: undefined }),
    );

    await expect(open(other)).resolves.toMatchObject({ sub: 'owner-1' });
    await expect(open(none)).resolves.toMatchObject({ sub: 'owner-1' });
  });
});

describe('token times', () => {
  const rsaToken = (overrides: Record<string, unknown>): Promise<string> =>
    signed({ alg: 'RS256', kid: rsa.kid }, rsa.privateKey, claims(overrides));

  it.each([
    ['just past, beyond the tolerance', () => nowSeconds() - TOLERANCE - 5],
    ['an hour ago', () => nowSeconds() - 3600],
  ])('refuses a token that expired %s as TOKEN_EXPIRED', async (_when, exp) => {
    const error = await refusalOf(verify(await rsaToken({ exp: exp() })));

    expect(error).toMatchObject(EXPIRED);
    expect(error.headers).toEqual({ 'WWW-Authenticate': 'Bearer error="invalid_token"' });
    expect(error.cause).toMatchObject({ code: 'ERR_JWT_EXPIRED' });
  });

  it('accepts a token whose expiry passed within the clock tolerance', async () => {
    const exp = nowSeconds() - TOLERANCE + 5;

    await expect(verify(await rsaToken({ exp }))).resolves.toMatchObject({ exp });
  });

  it.each([
    ['a numeric string', () => String(nowSeconds() + 300)],
    ['null', () => null],
    ['missing', () => undefined],
  ])('refuses exp that is %s as TOKEN_INVALID', async (_what, exp) => {
    await expectInvalid(verify(await rsaToken({ exp: exp() })), CLAIM_INVALID);
  });

  it('refuses a token whose nbf lies beyond the tolerance in the future', async () => {
    await expectInvalid(
      verify(await rsaToken({ nbf: nowSeconds() + TOLERANCE + 60 })),
      CLAIM_INVALID,
    );
  });

  it('accepts a token whose nbf lies within the clock tolerance', async () => {
    const token = await rsaToken({ nbf: nowSeconds() + TOLERANCE - 5 });

    await expect(verify(token)).resolves.toMatchObject({ sub: 'owner-1' });
  });
});

describe('issuer', () => {
  it.each([
    ['another issuer', 'https://evil.test'],
    ['the issuer with a trailing slash', `${ISSUER}/`],
    ['no issuer', undefined],
  ])('refuses %s when an issuer is configured', async (_what, iss) => {
    const token = await signed({ alg: 'RS256', kid: rsa.kid }, rsa.privateKey, claims({ iss }));

    await expectInvalid(verify(token), CLAIM_INVALID);
  });
});

describe('algorithms', () => {
  it.each(['none', 'None', 'NONE', 'nOnE'])(
    'refuses alg %s, with and without a signature, before any key is looked up',
    async (alg) => {
      const unsigned = `${segment({ alg, kid: rsa.kid })}.${segment(claims())}`;

      for (const token of [`${unsigned}.`, `${unsigned}.${b64url('signature')}`]) {
        await expectInvalid(verify(token), ALG_NOT_ALLOWED);
      }
      expect(keySet.lookups).not.toHaveBeenCalled();
    },
  );

  it('refuses an RS256 token with an empty signature', async () => {
    const token = `${segment({ alg: 'RS256', kid: rsa.kid })}.${segment(claims())}.`;

    await expectInvalid(verify(token), BAD_SIGNATURE);
  });

  const publicKeyAs = async (form: string): Promise<Buffer> => {
    const pem = await exportSPKI(rsa.publicKey);
    if (form === 'PEM text') return Buffer.from(pem);
    if (form === 'DER bytes') return createPublicKey(pem).export({ type: 'spki', format: 'der' });
    return Buffer.from(JSON.stringify(rsa.publicJwk));
  };

  it.each(
    (['HS256', 'HS384', 'HS512'] as const).flatMap((alg) =>
      ['PEM text', 'DER bytes', 'JWK JSON text'].map((form) => [alg, form] as const),
    ),
  )('refuses %s signed with the public key as %s', async (alg, form) => {
    const input = `${segment({ alg, kid: rsa.kid, typ: 'JWT' })}.${segment(claims())}`;
    const mac = createHmac(`sha${alg.slice(2)}`, await publicKeyAs(form))
      .update(input)
      .digest('base64url');

    await expectInvalid(verify(`${input}.${mac}`), ALG_NOT_ALLOWED);
    expect(keySet.lookups).not.toHaveBeenCalled();
  });

  it('refuses an RSA signature presented under an ES256 header with the RSA kid', async () => {
    const token = handSigned(
      JSON.stringify({ alg: 'ES256', kid: rsa.kid }),
      JSON.stringify(claims()),
      rsa.nodeKey,
    );

    await expectInvalid(verify(token), NO_KEY);
  });

  it('refuses an ES384 header naming the P-256 key', async () => {
    const signature = b64url(new Uint8Array(96));
    const token = `${segment({ alg: 'ES384', kid: ec.kid })}.${segment(claims())}.${signature}`;

    await expectInvalid(verify(token), NO_KEY);
  });

  it('refuses the ECDSA psychic signature (r = s = 0) on ES256', async () => {
    const signature = b64url(new Uint8Array(64));
    const token = `${segment({ alg: 'ES256', kid: ec.kid })}.${segment(claims())}.${signature}`;

    await expectInvalid(verify(token), BAD_SIGNATURE);
  });

  it('refuses a valid token whose algorithm is outside the configured list', async () => {
    const algorithms: AsymmetricAlgorithm[] = ['ES256'];
    const only = createVerifier({ keySet, clockToleranceSeconds: TOLERANCE, algorithms });
    const token = await signed({ alg: 'RS256', kid: rsa.kid }, rsa.privateKey);

    await expectInvalid(only(token), ALG_NOT_ALLOWED);
  });

  it.each(['HS256', 'HS512', 'none', 'PBES2-HS256+A128KW'])(
    'createVerifier refuses %s in its options with a TypeError',
    (alg) => {
      const algorithms = [alg] as unknown as AsymmetricAlgorithm[];

      expect(() => createVerifier({ keySet, clockToleranceSeconds: 0, algorithms })).toThrow(
        new TypeError('only asymmetric JWS algorithms may verify portal tokens'),
      );
    },
  );

  it.each([-1, 0.5, Number.NaN, Number.POSITIVE_INFINITY])(
    'createVerifier refuses a clock tolerance of %s when it is built, not on the first request',
    (clockToleranceSeconds) => {
      expect(() => createVerifier({ keySet, clockToleranceSeconds })).toThrow(
        new TypeError('clockToleranceSeconds must be a non-negative whole number of seconds'),
      );
    },
  );
});

describe('key selection', () => {
  it.each([
    ['a kid outside the set', 'attacker-1', NO_KEY],
    ['the kid of the real key', 'rsa-1', BAD_SIGNATURE],
  ])('ignores an embedded jwk header with %s', async (_what, kid, joseCode) => {
    const token = await signed({ alg: 'RS256', kid, jwk: attacker.publicJwk }, attacker.privateKey);

    await expectInvalid(verify(token), joseCode);
  });

  it.each(
    (['jku', 'x5u'] as const).flatMap((member) =>
      [
        ['attacker-1', NO_KEY],
        ['rsa-1', BAD_SIGNATURE],
      ].map(([kid = '', joseCode = '']) => [member, kid, joseCode] as const),
    ),
  )('never fetches a %s header (kid %s)', async (member, kid, joseCode) => {
    const fetchSpy = jest.spyOn(globalThis, 'fetch');
    const token = await signed(
      { alg: 'RS256', kid, [member]: 'http://127.0.0.1:9/' },
      attacker.privateKey,
    );

    await expectInvalid(verify(token), joseCode);
    expect(fetchSpy).not.toHaveBeenCalled();
  });

  it('ignores an x5c header carrying a certificate chain', async () => {
    const x5c = [Buffer.from('attacker certificate').toString('base64')];
    const token = await signed({ alg: 'RS256', kid: rsa.kid, x5c }, attacker.privateKey);

    await expectInvalid(verify(token), BAD_SIGNATURE);
  });

  it('refuses a token signed by another key set’s key that carries the same kid', async () => {
    const impostor = await signer('RS256', rsa.kid);
    const token = await signed({ alg: 'RS256', kid: rsa.kid }, impostor.privateKey);

    await expectInvalid(verify(token), BAD_SIGNATURE);
  });

  it.each([
    ['a path', '../../etc/passwd', NO_KEY],
    ['SQL', "' OR 1=1 --", NO_KEY],
    ['a shell command', '$(rm -rf /)', NO_KEY],
    ['10,000 characters', 'k'.repeat(10_000), NO_KEY],
    ['a number', 42, KID_REQUIRED],
    ['an object', { kid: 'rsa-1' }, KID_REQUIRED],
    ['an array', ['rsa-1'], KID_REQUIRED],
    ['null', null, KID_REQUIRED],
    ['empty', '', KID_REQUIRED],
  ])(
    'refuses a kid that is %s, even on a token the real key signed',
    async (_what, kid, joseCode) => {
      const token = handSigned(rsaHeader({ kid }), JSON.stringify(claims()), rsa.nodeKey);

      await expectInvalid(verify(token), joseCode);
      // A kid that names no key is refused before the set is asked, so it cannot refetch it.
      expect(keySet.lookups).toHaveBeenCalledTimes(joseCode === KID_REQUIRED ? 0 : 1);
    },
  );

  describe('a correctly signed token without kid, refused before any key lookup', () => {
    it.each([
      ['one key', () => [rsa.publicJwk]],
      ['one key of its algorithm among others', () => [rsa.publicJwk, ec.publicJwk, ed.publicJwk]],
      ['two keys of its algorithm', () => [rsa.publicJwk, rsa2.publicJwk]],
    ])('on a set of %s', async (_what, keys) => {
      const held = stubKeySet(keys());
      const verifier = createVerifier({ keySet: held, issuer: ISSUER, clockToleranceSeconds: 0 });
      const withKid = await signed({ alg: 'RS256', kid: rsa.kid }, rsa.privateKey);
      const withoutKid = await signed({ alg: 'RS256' }, rsa.privateKey);

      await expect(verifier(withKid)).resolves.toMatchObject({ sub: 'owner-1' });
      await expectInvalid(verifier(withoutKid), KID_REQUIRED);
      await expectInvalid(verifier(withoutKid), KID_REQUIRED);
      expect(held.lookups).toHaveBeenCalledTimes(1);
    });
  });
});

describe('keys the set must not use', () => {
  /** An RSA key of `bits` published under kid `weak-1`, its modulus as `spell` writes it. */
  const rsaVerifier = (bits: number, spell: (modulus: Buffer) => Buffer = (n) => n) => {
    const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: bits });
    const jwk = publicKey.export({ format: 'jwk' });
    const n = spell(Buffer.from(jwk.n ?? '', 'base64url'));
    const published = { ...jwk, n: n.toString('base64url'), kid: 'weak-1', use: 'sig' };
    const token = handSigned(
      JSON.stringify({ alg: 'RS256', kid: 'weak-1' }),
      JSON.stringify(claims()),
      privateKey,
    );
    const verifier = createVerifier({
      keySet: stubKeySet([published, ec.publicJwk]),
      clockToleranceSeconds: TOLERANCE,
    });
    return { verify: () => verifier(token) };
  };

  const behindZeros = (count: number) => (n: Buffer) => Buffer.concat([Buffer.alloc(count), n]);

  it.each([
    ['1024 bits', 1024, undefined],
    ['2047 bits', 2047, undefined],
    ['1024 bits behind 129 zero bytes (257 bytes long)', 1024, behindZeros(129)],
    ['an empty modulus', 1024, () => Buffer.alloc(0)],
  ])(
    'refuses, as 401, a token whose kid names an RSA key under 2048 bits: %s',
    async (_what, bits, spell) => {
      // Prepare
      const weak = rsaVerifier(bits, spell);

      // Act / Assess: the key is never held, so no key matches
      await expectInvalid(weak.verify(), NO_KEY);
    },
  );

  it('counts the bits of a modulus without its leading zero bytes: 2048 bits behind one verifies (control)', async () => {
    // Prepare
    const strong = rsaVerifier(2048, behindZeros(1));

    // Act / Assess
    await expect(strong.verify()).resolves.toMatchObject({ sub: 'owner-1' });
  });

  it('refuses, as 401, a token whose kid names a key of malformed material', async () => {
    const broken = { ...ec.publicJwk, kid: 'broken-1', x: 'AAAA' };
    const verifyBroken = createVerifier({
      keySet: stubKeySet([broken]),
      clockToleranceSeconds: TOLERANCE,
    });
    const token = await signed({ alg: 'ES256', kid: 'broken-1' }, ec.privateKey);

    await expectInvalid(verifyBroken(token), 'ERR_JWKS_INVALID');
  });

  it('never verifies with a published private key', async () => {
    const { privateKey } = await generateKeyPair('ES256', { extractable: true });
    const leaked = { ...(await exportJWK(privateKey)), kid: 'leaked-1' };
    const verifyLeaked = createVerifier({
      keySet: stubKeySet([leaked]),
      clockToleranceSeconds: TOLERANCE,
    });
    const token = await signed({ alg: 'ES256', kid: 'leaked-1' }, privateKey);

    await expectInvalid(verifyLeaked(token), NO_KEY);
  });
});

describe('audience', () => {
  const withAudience = () =>
    createVerifier({ keySet, clockToleranceSeconds: TOLERANCE, audience: 'portal-reports' });

  it.each([
    ['equal to it', 'portal-reports'],
    ['a list holding it', ['portal-web', 'portal-reports']],
  ])('accepts aud %s when an audience is configured', async (_what, aud) => {
    const token = await signed({ alg: 'RS256', kid: rsa.kid }, rsa.privateKey, claims({ aud }));

    await expect(withAudience()(token)).resolves.toMatchObject({ sub: 'owner-1' });
  });

  it.each([
    ['another audience', 'portal-admin'],
    ['a list without it', ['portal-web']],
    ['none', undefined],
  ])('refuses aud that is %s when an audience is configured', async (_what, aud) => {
    const token = await signed({ alg: 'RS256', kid: rsa.kid }, rsa.privateKey, claims({ aud }));

    await expectInvalid(withAudience()(token), CLAIM_INVALID);
  });

  it('accepts any aud, or none, when no audience is configured', async () => {
    const token = await signed(
      { alg: 'RS256', kid: rsa.kid },
      rsa.privateKey,
      claims({ aud: 'elsewhere' }),
    );

    await expect(verify(token)).resolves.toMatchObject({ sub: 'owner-1' });
  });
});

describe('header parameters', () => {
  it('refuses an unknown critical header parameter', async () => {
    const header = rsaHeader({ crit: ['urn:example:policy'], 'urn:example:policy': 1 });
    const token = handSigned(header, JSON.stringify(claims()), rsa.nodeKey);

    await expectInvalid(verify(token), 'ERR_JOSE_NOT_SUPPORTED');
  });

  it('refuses an unencoded payload (b64: false, critical): its payload is no base64url', async () => {
    const header = rsaHeader({ b64: false, crit: ['b64'] });
    // compact serialisation: the unencoded payload must not contain a '.'
    const payload = JSON.stringify(claims({ iss: 'portal-auth' }));
    const token = handSigned(header, payload, rsa.nodeKey, false);

    expect(token.split('.')).toHaveLength(3);

    await expectInvalid(verify(token), JWS_INVALID);
  });

  it.each([false, 'false', 0, null])(
    'refuses b64: %j without crit, which jose alone would ignore',
    async (b64) => {
      const token = handSigned(rsaHeader({ b64 }), JSON.stringify(claims()), rsa.nodeKey);

      await expectInvalid(verify(token), JWS_INVALID);
    },
  );

  it('accepts b64: true, the encoding every token has (control)', async () => {
    const token = handSigned(rsaHeader({ b64: true }), JSON.stringify(claims()), rsa.nodeKey);

    await expect(verify(token)).resolves.toMatchObject({ sub: 'owner-1' });
  });

  it.each([
    ['alg RS256 then HS256', '{"alg":"RS256","kid":"rsa-1","alg":"HS256"}', ALG_NOT_ALLOWED],
    ['alg RS256 then none', '{"alg":"RS256","kid":"rsa-1","alg":"none"}', ALG_NOT_ALLOWED],
    ['the real kid then an unknown one', '{"alg":"RS256","kid":"rsa-1","kid":"x"}', NO_KEY],
  ])('refuses duplicate header members (%s): the last one counts', async (_what, header, code) => {
    const token = handSigned(header, JSON.stringify(claims()), rsa.nodeKey);

    await expectInvalid(verify(token), code);
  });
});

describe('malformed tokens', () => {
  it.each([
    ['empty', ''],
    ['two parts', 'a.b'],
    ['three junk parts', 'a.b.c'],
    ['not base64url', '!!!.***.###'],
    ['a header that is not JSON', `${b64url('not json')}.${b64url('{}')}.${b64url('sig')}`],
    ['a header that is a JSON array', `${segment(['RS256'])}.${b64url('{}')}.${b64url('sig')}`],
    ['four parts', 'a.b.c.d'],
  ])('refuses a token that is %s', async (_what, token) => {
    await expectInvalid(verify(token), JWS_INVALID);
    expect(keySet.lookups).not.toHaveBeenCalled();
  });

  it('refuses a 5-part JWE with a huge PBES2 count in well under 100 ms', async () => {
    const header = { alg: 'PBES2-HS512+A256KW', enc: 'A256GCM', p2c: 2 ** 40, p2s: b64url('salt') };
    const parts = [segment(header), b64url('key'), b64url('iv'), b64url('ct'), b64url('tag')];

    const started = performance.now();
    await expectInvalid(verify(parts.join('.')), JWS_INVALID);
    const elapsed = performance.now() - started;

    expect(elapsed).toBeLessThan(100);
    expect(keySet.lookups).not.toHaveBeenCalled();
  });
});

describe('failures of our own', () => {
  const failingWith = (error: Error): Verifier => {
    keySet.lookups.mockImplementation(() => Promise.reject(error));
    return createVerifier({ keySet, issuer: ISSUER, clockToleranceSeconds: TOLERANCE });
  };

  it('maps the key set unavailable to 500 INTERNAL_ERROR, keeping it as the cause', async () => {
    const unavailable = new KeySetUnavailableError('no usable key set');
    const token = await signed({ alg: 'RS256', kid: rsa.kid }, rsa.privateKey);

    const error = await refusalOf(failingWith(unavailable)(token));

    expect(error).toMatchObject({ statusCode: 500, code: 'INTERNAL_ERROR' });
    expect(error.cause).toBe(unavailable);
  });

  it.each(['ERR_JWT_EXPIRED', 'ERR_JWS_INVALID', 'ERR_JWKS_TIMEOUT'])(
    'maps any other error to 500, even one whose code reads %s: only the class counts',
    async (code) => {
      const lookalike = Object.assign(new Error('not a token failure'), { code });
      const token = await signed({ alg: 'RS256', kid: rsa.kid }, rsa.privateKey);

      const error = await refusalOf(failingWith(lookalike)(token));

      expect(error).toMatchObject({ statusCode: 500, code: 'INTERNAL_ERROR' });
      expect(error.cause).toBe(lookalike);
    },
  );
});

describe('one spelling per token', () => {
  /** The same bytes spelt otherwise: jose decodes each to the token it was made from. */
  const respellings = (token: string): [string, string][] => {
    const [header = '', payload = '', signature = ''] = token.split('.');
    const last = signature.at(-1) ?? 'A';
    // A 256-byte RSA signature is 342 characters: the last one's 4 low bits are unused.
    const sibling = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_'.charAt(
      'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_'.indexOf(last) ^ 1,
    );
    return [
      ['padding after the signature (==)', `${token}==`],
      ['padding after the signature (=)', `${token}=`],
      ['padding in the header', `${header}=.${payload}.${signature}`],
      ['padding in the payload', `${header}.${payload}==.${signature}`],
      [
        'unused bits set in the signature',
        `${header}.${payload}.${signature.slice(0, -1)}${sibling}`,
      ],
      [
        'standard base64 in the signature',
        `${header}.${payload}.${Buffer.from(signature, 'base64url').toString('base64')}`,
      ],
      ['a fourth part', `${token}.`],
    ];
  };

  it('refuses every other spelling of a valid token, which jose alone accepts, also once it is cached', async () => {
    // Arrange: a valid RS256 token, verified once (so it is cached).
    const token = handSigned(rsaHeader(), JSON.stringify(claims()), rsa.nodeKey);
    await expect(verify(token)).resolves.toMatchObject({ sub: 'owner-1' });
    const variants = respellings(token);
    const { jwtVerify } = await import('jose');
    const unusedBits = variants.find(([what]) => what.startsWith('unused'))?.[1] ?? '';
    expect(Buffer.from(unusedBits.split('.')[2] ?? '', 'base64url')).toEqual(
      Buffer.from(token.split('.')[2] ?? '', 'base64url'),
    );
    await expect(jwtVerify(`${token}==`, rsa.publicKey)).resolves.toBeDefined();

    // Act & Assess
    for (const [what, variant] of variants) {
      expect({ what, differs: variant !== token }).toEqual({ what, differs: true });
      await expectInvalid(verify(variant), JWS_INVALID);
    }
    await expect(verify(token)).resolves.toMatchObject({ sub: 'owner-1' });
  });
});

describe('maximum token age (JWT_MAX_AGE)', () => {
  const MAX_AGE = 600;
  const aged = (now?: () => number) =>
    createVerifier({
      keySet,
      issuer: ISSUER,
      clockToleranceSeconds: TOLERANCE,
      maxAgeSeconds: MAX_AGE,
      ...(now === undefined ? {} : { now }),
    });
  const rsaToken = (overrides: Record<string, unknown>): Promise<string> =>
    signed({ alg: 'RS256', kid: rsa.kid }, rsa.privateKey, claims(overrides));

  it('accepts a token issued within the maximum age', async () => {
    await expect(
      aged()(await rsaToken({ iat: nowSeconds() - MAX_AGE + 60 })),
    ).resolves.toMatchObject({ sub: 'owner-1' });
  });

  it('refuses a token issued longer ago as TOKEN_EXPIRED', async () => {
    const error = await refusalOf(
      aged()(await rsaToken({ iat: nowSeconds() - MAX_AGE - TOLERANCE - 60 })),
    );

    expect(error).toMatchObject(EXPIRED);
    expect(error.cause).toMatchObject({ code: 'ERR_JWT_EXPIRED' });
  });

  it.each([
    ['in the future beyond the tolerance', () => nowSeconds() + TOLERANCE + 60],
    ['missing', () => undefined],
  ])('refuses an iat %s as TOKEN_INVALID', async (_what, iat) => {
    await expectInvalid(aged()(await rsaToken({ iat: iat() })), CLAIM_INVALID);
  });

  it('stops serving a cached token once it is older than the maximum age', async () => {
    // Arrange: a token issued now, valid for an hour, verified at once (cached).
    let clock = Date.now();
    const verifyAt = aged(() => clock);
    const token = await rsaToken({ iat: nowSeconds(), exp: nowSeconds() + 3600 });
    await expect(verifyAt(token)).resolves.toMatchObject({ sub: 'owner-1' });

    // Act: past the maximum age and the tolerance, long before exp.
    clock += (MAX_AGE + TOLERANCE + 2) * 1000;
    const error = await refusalOf(verifyAt(token));

    // Assess
    expect(error).toMatchObject(EXPIRED);
  });

  it.each([0, -1, 1.5])('refuses a maximum age of %s', (maxAgeSeconds) => {
    expect(() =>
      createVerifier({ keySet, clockToleranceSeconds: TOLERANCE, maxAgeSeconds }),
    ).toThrow(/maxAgeSeconds/);
  });
});
