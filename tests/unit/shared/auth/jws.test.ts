/**
 * jws.ts's one entry, verifyJws: each asymmetric algorithm verifying its own signatures and
 * nothing else, strict decoding, the lookup's answer (no key, several keys, a failure of its
 * own), the claims and the validity window it returns, and a differential property test with
 * jose (the library the tests sign with and the verifier jws.ts replaced) as the oracle: on
 * generated tokens — genuine, tampered, re-headed, signed by foreign keys, with every kind of
 * time and issuer claim — both must accept exactly the same ones and refuse the others the same
 * way (expired vs invalid), and jose must agree with the window's edges to the millisecond. The
 * one intended difference: any `crit` is refused.
 */
import { constants, generateKeyPairSync, sign, type JsonWebKey, type KeyObject } from 'node:crypto';
import fc from 'fast-check';
import { createLocalJWKSet, jwtVerify } from 'jose';
import {
  JwtVerificationError,
  verifyJws,
  type JsonObject,
  type VerifiedJws,
  type VerifyJwsOptions,
} from '../../../../shared/auth/jws';
import {
  ASYMMETRIC_ALGORITHMS,
  type AsymmetricAlgorithm,
  type KeyLookup,
} from '../../../../shared/auth/keys';
import { localKeysFor } from '../../../support/local-keys';

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

const NOW = 1_800_000_000;
const ISSUER = 'portal-auth';
const TOLERANCE = 5;

const OPTIONS: VerifyJwsOptions = {
  algorithms: new Set(ASYMMETRIC_ALGORITHMS),
  clockToleranceSeconds: TOLERANCE,
  issuer: ISSUER,
  now: NOW * 1000,
};

/** What verifyJws refused the token with: a JwtVerificationError's code, or the error itself. */
const refusalOf = async (verification: Promise<unknown>): Promise<unknown> => {
  const outcome = await verification.then(
    () => new Error('the token was accepted'),
    (error: unknown) => error,
  );
  return outcome instanceof JwtVerificationError ? outcome.code : outcome;
};

type Verdict = 'accepted' | 'expired' | 'invalid';

const verdictOf = (error: unknown): Verdict =>
  (error as { code?: unknown }).code === 'ERR_JWT_EXPIRED' ? 'expired' : 'invalid';

interface At {
  readonly nowMs: number;
  readonly tolerance: number;
}

const DEFAULT_AT: At = { nowMs: NOW * 1000 + 999, tolerance: TOLERANCE };

/** verifyJws's answer over these published keys (selected as the key set selects them). */
const ours = async (
  token: string,
  keys: readonly JsonObject[],
  { nowMs, tolerance }: At = DEFAULT_AT,
): Promise<{ verdict: Verdict; verified?: VerifiedJws }> => {
  try {
    const verified = await verifyJws(token, localKeysFor(keys), {
      ...OPTIONS,
      clockToleranceSeconds: tolerance,
      now: nowMs,
    });
    return { verdict: 'accepted', verified };
  } catch (error) {
    if (!(error instanceof JwtVerificationError)) throw error;
    return { verdict: verdictOf(error) };
  }
};

const joses = async (
  token: string,
  keys: readonly JsonObject[],
  { nowMs, tolerance }: At = DEFAULT_AT,
): Promise<Verdict> => {
  try {
    await jwtVerify(token, createLocalJWKSet({ keys: keys as never }), {
      algorithms: [...ASYMMETRIC_ALGORITHMS],
      requiredClaims: ['exp'],
      issuer: ISSUER,
      clockTolerance: tolerance,
      currentDate: new Date(nowMs),
    });
    return 'accepted';
  } catch (error) {
    return verdictOf(error);
  }
};

/** The latest instant a Date can hold: window edges beyond it cannot be asked of jose. */
const MAX_DATE_MS = 8.64e15;

let keys: Record<AsymmetricAlgorithm, TestKey>;
/** Keys of each algorithm nobody published, under the published key's kid. */
let foreign: Record<AsymmetricAlgorithm, TestKey>;

beforeAll(() => {
  keys = Object.fromEntries(
    ASYMMETRIC_ALGORITHMS.map((alg, i) => [alg, generate(alg, `kid-${i}`)]),
  ) as Record<AsymmetricAlgorithm, TestKey>;
  foreign = Object.fromEntries(
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

/** A token `alg`'s test key signed, its header naming that key. */
const tokenOf = (
  alg: AsymmetricAlgorithm,
  payload: Record<string, unknown> = claims(),
  header: Record<string, unknown> = { alg, kid: keys[alg].jwk.kid },
): string => signText(JSON.stringify(header), JSON.stringify(payload), keys[alg].privateKey, alg);

/** A lookup over every test key, counting its calls. */
const countingLookup = (
  published: readonly JsonObject[] = ASYMMETRIC_ALGORITHMS.map((alg) => keys[alg].jwk),
): KeyLookup & { calls: number } => {
  const local = localKeysFor(published);
  const lookup = Object.assign(
    (alg: AsymmetricAlgorithm, kid: unknown) => {
      lookup.calls += 1;
      return local(alg, kid);
    },
    { calls: 0 },
  );
  return lookup;
};

describe('each algorithm', () => {
  it.each(ASYMMETRIC_ALGORITHMS)(
    '%s verifies its own signature and no other key’s',
    async (alg) => {
      const key = keys[alg];
      const token = tokenOf(alg);

      await expect(verifyJws(token, localKeysFor([key.jwk]), OPTIONS)).resolves.toEqual({
        payload: claims(),
        kid: key.jwk.kid,
        window: { notBefore: Number.NEGATIVE_INFINITY, expiresAt: (NOW + 300 + TOLERANCE) * 1000 },
      });

      const impostor = generate(alg, String(key.jwk.kid));
      const forged = signText(
        JSON.stringify({ alg, kid: key.jwk.kid }),
        JSON.stringify(claims()),
        impostor.privateKey,
        alg,
      );
      expect(await refusalOf(verifyJws(forged, localKeysFor([key.jwk]), OPTIONS))).toBe(
        'ERR_JWS_SIGNATURE_VERIFICATION_FAILED',
      );
    },
  );

  it('refuses an algorithm the caller did not allow before looking for a key', async () => {
    const lookup = countingLookup();
    const only = { ...OPTIONS, algorithms: new Set<AsymmetricAlgorithm>(['ES256']) };

    expect(await refusalOf(verifyJws(tokenOf('RS256'), lookup, only))).toBe(
      'ERR_JOSE_ALG_NOT_ALLOWED',
    );
    expect(lookup.calls).toBe(0);
  });
});

describe('the lookup', () => {
  it('is asked once, with the header’s alg and kid as they are', async () => {
    const seen: unknown[] = [];
    const local = localKeysFor([keys.ES256.jwk]);
    const lookup: KeyLookup = (alg, kid) => {
      seen.push([alg, kid]);
      return local(alg, kid);
    };

    await verifyJws(tokenOf('ES256'), lookup, OPTIONS);
    await refusalOf(
      verifyJws(tokenOf('ES256', claims(), { alg: 'ES256', kid: 7 }), lookup, OPTIONS),
    );

    expect(seen).toEqual([
      ['ES256', keys.ES256.jwk.kid],
      ['ES256', 7],
    ]);
  });

  it('offering no key refuses the token: ERR_JWKS_NO_MATCHING_KEY', async () => {
    expect(await refusalOf(verifyJws(tokenOf('RS256'), () => Promise.resolve([]), OPTIONS))).toBe(
      'ERR_JWKS_NO_MATCHING_KEY',
    );
  });

  it('offering several keys refuses the token, even when one of them signed it', async () => {
    // RS*, PS* keys are all RSA keys: a token without a kid selects six.
    const token = tokenOf('RS256', claims(), { alg: 'RS256' });

    expect(await refusalOf(verifyJws(token, countingLookup(), OPTIONS))).toBe(
      'ERR_JWKS_MULTIPLE_MATCHING_KEYS',
    );
    await expect(verifyJws(token, localKeysFor([keys.RS256.jwk]), OPTIONS)).resolves.toMatchObject({
      kid: undefined,
    });
  });

  it('failing passes its own error through, not as a token failure', async () => {
    const failure = Object.assign(new Error('key set unavailable'), { code: 'ERR_JWKS_TIMEOUT' });

    expect(
      await refusalOf(verifyJws(tokenOf('RS256'), () => Promise.reject(failure), OPTIONS)),
    ).toBe(failure);
  });
});

describe('strict decoding', () => {
  const genuine = () => tokenOf('RS256');

  it.each([
    ['padding', (t: string) => `${t}=`],
    ['a standard-base64 character', (t: string) => t.replace(/-|_/, '+')],
    ['four parts', (t: string) => `${t}.AAAA`],
    ['two parts', (t: string) => t.slice(0, t.lastIndexOf('.'))],
    ['an impossible base64 length', (t: string) => `${t.slice(0, t.lastIndexOf('.'))}.A`],
  ])('refuses %s before any key is looked up', async (_what, mangle) => {
    const lookup = countingLookup();

    expect(await refusalOf(verifyJws(mangle(genuine()), lookup, OPTIONS))).toBe('ERR_JWS_INVALID');
    expect(lookup.calls).toBe(0);
  });

  it('refuses a header that is not JSON, keeping the parser’s error as the cause', async () => {
    const token = `${b64url('{"alg":')}.${b64url(JSON.stringify(claims()))}.${b64url('sig')}`;
    const error = await verifyJws(token, countingLookup(), OPTIONS).catch((e: unknown) => e);

    expect(error).toBeInstanceOf(JwtVerificationError);
    expect(error).toMatchObject({ code: 'ERR_JWS_INVALID' });
    expect((error as Error).cause).toBeInstanceOf(SyntaxError);
  });

  it('refuses a claims set that is not strict UTF-8', async () => {
    const input = `${b64url(JSON.stringify({ alg: 'RS256' }))}.${b64url(Buffer.from([0x7b, 0xff, 0x7d]))}`;
    const token = `${input}.${b64url(sign('sha256', Buffer.from(input), keys.RS256.privateKey))}`;

    expect(await refusalOf(verifyJws(token, localKeysFor([keys.RS256.jwk]), OPTIONS))).toBe(
      'ERR_JWT_INVALID',
    );
  });
});

describe('the validity window', () => {
  const at = (nowMs: number, tolerance = TOLERANCE): VerifyJwsOptions => ({
    ...OPTIONS,
    clockToleranceSeconds: tolerance,
    now: nowMs,
  });
  const windowOf = async (
    payload: Record<string, unknown>,
    options: VerifyJwsOptions,
  ): Promise<unknown> =>
    (await verifyJws(tokenOf('ES256', payload), localKeysFor([keys.ES256.jwk]), options)).window;

  it('runs from nbf to exp, each widened by the tolerance, in milliseconds', async () => {
    await expect(
      windowOf(claims({ nbf: NOW - 60, exp: NOW + 60 }), at(NOW * 1000)),
    ).resolves.toEqual({ notBefore: (NOW - 65) * 1000, expiresAt: (NOW + 65) * 1000 });
    await expect(
      windowOf(claims({ nbf: NOW - 60, exp: NOW + 60 }), at(NOW * 1000, 0)),
    ).resolves.toEqual({ notBefore: (NOW - 60) * 1000, expiresAt: (NOW + 60) * 1000 });
  });

  it('rounds fractional times as jose does: whole seconds, up', async () => {
    await expect(
      windowOf(claims({ nbf: NOW - 0.5, exp: NOW + 0.25 }), at(NOW * 1000)),
    ).resolves.toEqual({ notBefore: (NOW - 5) * 1000, expiresAt: (NOW + 6) * 1000 });
  });

  it('is exact where exp + tolerance would round: exp = 1 + 2^-52, tolerance 5', async () => {
    // exp + 5 rounds to 6 in doubles, but jose calls the token valid at second 6 (exp <= 6 - 5
    // is false) and expired only at second 7.
    const exp = 1 + 2 ** -52;
    const token = tokenOf('ES256', claims({ exp, iat: 0 }));
    const local = [keys.ES256.jwk];

    expect(await joses(token, local, { nowMs: 6_999, tolerance: 5 })).toBe('accepted');
    expect(await joses(token, local, { nowMs: 7_000, tolerance: 5 })).toBe('expired');
    await expect(windowOf(claims({ exp, iat: 0 }), at(6_500))).resolves.toEqual({
      notBefore: Number.NEGATIVE_INFINITY,
      expiresAt: 7_000,
    });
  });

  it('is the same for every instant of a second: jose counts whole seconds', async () => {
    const payload = claims({ nbf: NOW + 3, exp: NOW + 9 });
    const windows = await Promise.all(
      [0, 1, 500, 999].map((ms) => windowOf(payload, at(NOW * 1000 + ms))),
    );

    expect(new Set(windows.map((window) => JSON.stringify(window))).size).toBe(1);
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
      // the doubles beside the edges (2^-22 is a unit in the last place at NOW)
      NOW - TOLERANCE - 2 ** -22,
      NOW - TOLERANCE + 2 ** -22,
      NOW + TOLERANCE - 2 ** -22,
      NOW + TOLERANCE + 2 ** -22,
      1e300,
      -1e300,
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

/**
 * Both verdicts at `at`; when ours accepts, jose asked at each finite edge of the returned
 * window: accepted at its first and last millisecond, refused just outside (not yet valid
 * before, expired after). The window is the cache's: no off-by-one may hide in it.
 */
const expectAgreement = async (
  token: string,
  set: readonly JsonObject[],
  at: At = DEFAULT_AT,
): Promise<void> => {
  const { verdict, verified } = await ours(token, set, at);
  expect(verdict).toBe(await joses(token, set, at));
  if (verified === undefined) return;
  const { notBefore, expiresAt } = verified.window;
  expect(notBefore <= at.nowMs && at.nowMs < expiresAt).toBe(true);
  const edge = (nowMs: number) => joses(token, set, { ...at, nowMs });
  if (Number.isFinite(notBefore) && notBefore > -MAX_DATE_MS) {
    expect(await edge(notBefore - 1)).toBe('invalid');
    expect(await edge(notBefore)).toBe('accepted');
  }
  if (Number.isFinite(expiresAt) && expiresAt < MAX_DATE_MS) {
    expect(await edge(expiresAt - 1)).toBe('accepted');
    expect(await edge(expiresAt)).toBe('expired');
  }
};

/** Small times, and the doubles just beside whole seconds, where rounding would show. */
const smallTimeArb = fc.oneof(
  fc.integer({ min: -40, max: 40 }),
  fc.double({ min: -40, max: 40, noNaN: true, noDefaultInfinity: true }),
  fc
    .tuple(fc.integer({ min: -40, max: 40 }), fc.constantFrom(-2, -1, 1, 2))
    .map(([n, ulps]) => n + ulps * Number.EPSILON * Math.max(1, Math.abs(n))),
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
        fc.integer({ min: 0, max: 999 }),
        async ([alg, header], signer, withKidlessSet, tamper, payload, millis) => {
          const key = keys[alg];
          // Mostly the token's own key; sometimes another algorithm's, or a foreign key of
          // the token's own algorithm (not published) under the same kid.
          const signingKey = signer === null ? key : signer === alg ? foreign[alg] : keys[signer];
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
          await expectAgreement(token, set, { nowMs: NOW * 1000 + millis, tolerance: TOLERANCE });
        },
      ),
      { numRuns: 300 },
    );
  });

  it('on every time and tolerance, fractions and near-integers included, at any millisecond', async () => {
    const set = [keys.EdDSA.jwk];
    await fc.assert(
      fc.asyncProperty(
        fc.record(
          { exp: smallTimeArb, nbf: smallTimeArb, iat: smallTimeArb },
          { requiredKeys: ['exp'] },
        ),
        fc.constantFrom(0, 1, 5, 30, 300),
        fc.integer({ min: -50_000, max: 50_000 }),
        async (times, tolerance, nowMs) => {
          const token = tokenOf('EdDSA', {
            iss: ISSUER,
            authSchema: { restaurants: [] },
            ...times,
          });
          await expectAgreement(token, set, { nowMs, tolerance });
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
    expect((await ours(token, [key.jwk])).verdict).toBe('invalid');
  });
});
