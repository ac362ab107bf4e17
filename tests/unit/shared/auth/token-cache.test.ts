/**
 * The verified-token cache: createTokenCache on its own (it stores the window
 * it is given), then through createVerifier over a stand-in key set that counts its key
 * lookups (a lookup means the token was verified again) and can announce the removal of keys,
 * as a key-set refresh does. One fake clock drives the verifier and the cache, and jose's own
 * jwtVerify, asked at the same instant, is the oracle for each boundary, to the millisecond.
 */
import { createHash } from 'node:crypto';
import { createLocalJWKSet, jwtVerify, SignJWT } from 'jose';
import type { KeySet } from '../../../../shared/auth/key-set';
import {
  createTokenCache,
  TOKEN_CACHE_DEFAULTS,
  tokenKey,
} from '../../../../shared/auth/token-cache';
import { createVerifier, type Verifier } from '../../../../shared/auth/verifier';
import type { PortalError } from '../../../../shared/errors';
import {
  localGetKey,
  signer,
  stubKeySet,
  type Signer,
  type StubKeySet,
} from '../../../support/local-keys';
import { EXPIRED, INVALID, refusalOf } from '../../../support/token-errors';

const TOLERANCE = 30;
const START = Date.parse('2025-01-01T00:00:00Z');
const START_S = START / 1000;

const RESTAURANTS = [
  { id: 'r-1', platforms: [{ restaurantId: 'p-1', platformId: 'TB_AE', platformKey: 'TB_AE' }] },
];

/** A token signed by `key`, valid from the fake START for `lifetime` seconds. */
const tokenOf = (
  key: Signer,
  claims: Record<string, unknown> = {},
  header: Record<string, unknown> = { kid: key.kid },
): Promise<string> =>
  new SignJWT({
    sub: 'owner-1',
    iat: START_S,
    exp: START_S + 300,
    authSchema: { restaurants: RESTAURANTS },
    ...claims,
  })
    .setProtectedHeader({ alg: 'ES256', ...header })
    .sign(key.privateKey);

let keyA: Signer;
let keyB: Signer;
let keyC: Signer;
let keySet: StubKeySet;
let clock: number;
let verify: Verifier;

const now = (): number => clock;

const cachedVerifier = (
  cache: { maxEntries?: number; maxAgeMs?: number } = {},
  keys: KeySet = keySet,
  maxAgeSeconds?: number,
): Verifier =>
  createVerifier({
    keySet: keys,
    clockToleranceSeconds: TOLERANCE,
    now,
    cache,
    ...(maxAgeSeconds === undefined ? {} : { maxAgeSeconds }),
  });

/**
 * Verifies `token` at START, 1 ms before a minute has passed and when it has: the key lookups
 * counted after each (a lookup means the token was verified, not served from the cache).
 */
const lookupsOverAMinute = async (verifier: Verifier, token: string): Promise<number[]> => {
  const counts: number[] = [];
  for (const at of [START, START + 59_999, START + 60_000]) {
    clock = at;
    await verifier(token);
    counts.push(keySet.lookups.mock.calls.length);
  }
  return counts;
};

/** jose's own verdict on the token at the current fake time, in the spec's codes. */
const joseVerdict = (token: string, maxTokenAge?: number): Promise<unknown> =>
  jwtVerify(token, createLocalJWKSet({ keys: [keyA.publicJwk, keyB.publicJwk] }), {
    algorithms: ['ES256'],
    requiredClaims: ['exp'],
    clockTolerance: TOLERANCE,
    currentDate: new Date(clock),
    ...(maxTokenAge === undefined ? {} : { maxTokenAge }),
  }).then(
    () => 'accepted',
    (error: unknown) =>
      (error as { code?: unknown }).code === 'ERR_JWT_EXPIRED' ? 'TOKEN_EXPIRED' : 'TOKEN_INVALID',
  );

beforeAll(async () => {
  [keyA, keyB, keyC] = await Promise.all([
    signer('key-a', 'ES256'),
    signer('key-b', 'ES256'),
    signer('key-c', 'ES384'),
  ]);
});

beforeEach(() => {
  keySet = stubKeySet([keyA.publicJwk, keyB.publicJwk]);
  clock = START;
  verify = cachedVerifier({ maxAgeMs: 3_600_000 });
});

describe('createTokenCache', () => {
  const WINDOW = { notBefore: START - 5_000, expiresAt: START + 10_000 };

  it('defaults to 1,000 entries and 60 s', () => {
    expect(TOKEN_CACHE_DEFAULTS).toEqual({ maxEntries: 1_000, maxAgeMs: 60_000 });
    const cache = createTokenCache<string>();
    const window = { notBefore: START, expiresAt: START + 3_600_000 };
    for (let i = 0; i <= 1_000; i += 1) cache.set(`t${i}`, 'v', { kid: 'k', window }, START, 0);
    expect(cache.size()).toBe(1_000);
    expect(cache.get('t1000', START + 59_999)).toBe('v');
    expect(cache.get('t1000', START + 60_000)).toBeUndefined();
  });

  it('refuses bounds that are not positive integers', () => {
    expect(() => createTokenCache({ maxEntries: 0 })).toThrow(TypeError);
    expect(() => createTokenCache({ maxEntries: 1.5 })).toThrow(TypeError);
    expect(() => createTokenCache({ maxAgeMs: -1 })).toThrow(TypeError);
    expect(() => createTokenCache({ maxAgeMs: Number.POSITIVE_INFINITY })).toThrow(TypeError);
  });

  it('keys entries by the SHA-256 of the whole token', () => {
    const token = 'aaa.bbb.ccc';
    expect(tokenKey(token)).toBe(createHash('sha256').update(token).digest('base64'));
    expect(tokenKey('aaa.bbb.ccd')).not.toBe(tokenKey(token));
  });

  it('serves an entry exactly within the window it was given', () => {
    const cache = createTokenCache<string>({ maxAgeMs: 3_600_000 });
    cache.set('t', 'claims', { kid: 'k', window: WINDOW }, START, cache.generation());

    expect(cache.get('t', WINDOW.notBefore - 1)).toBeUndefined();
    // Found outside its window, the entry was dropped: stepping back in does not revive it.
    expect(cache.get('t', WINDOW.notBefore)).toBeUndefined();
    cache.set('t', 'claims', { kid: 'k', window: WINDOW }, START, cache.generation());
    expect(cache.get('t', WINDOW.notBefore)).toBe('claims');
    expect(cache.get('t', WINDOW.expiresAt - 1)).toBe('claims');
    expect(cache.get('t', WINDOW.expiresAt)).toBeUndefined();
    expect(cache.size()).toBe(0);
  });

  it('cuts the window short at maxAgeMs after insertion', () => {
    const cache = createTokenCache<string>({ maxAgeMs: 1_000 });
    cache.set('t', 'claims', { kid: 'k', window: WINDOW }, START + 2_000, cache.generation());

    expect(cache.get('t', START + 2_999)).toBe('claims');
    expect(cache.get('t', START + 3_000)).toBeUndefined();
  });

  it('does not store a token outside its window at insertion', () => {
    const cache = createTokenCache<string>();
    cache.set('early', 'claims', { kid: 'k', window: WINDOW }, WINDOW.notBefore - 1, 0);
    cache.set('late', 'claims', { kid: 'k', window: WINDOW }, WINDOW.expiresAt, 0);
    expect(cache.size()).toBe(0);
  });

  it('does not store a verification that was under way when keys were removed', () => {
    const cache = createTokenCache<string>();
    const since = cache.generation();
    cache.dropKeys({ kids: new Set(['key-a']), withoutKid: false });
    cache.set('t', 'claims', { kid: 'key-b', window: WINDOW }, START, since);
    expect(cache.size()).toBe(0);
    cache.set('t', 'claims', { kid: 'key-b', window: WINDOW }, START, cache.generation());
    expect(cache.get('t', START)).toBe('claims');
  });

  it('drops the entries of removed kids and every entry without a kid', () => {
    const cache = createTokenCache<string>();
    for (const kid of ['key-a', 'key-b', undefined]) {
      cache.set(`t-${kid}`, 'claims', { kid, window: WINDOW }, START, 0);
    }
    cache.dropKeys({ kids: new Set(), withoutKid: false });
    expect(cache.size()).toBe(3);
    cache.dropKeys({ kids: new Set(['key-a']), withoutKid: false });
    expect(cache.get('t-key-a', START)).toBeUndefined();
    expect(cache.get('t-undefined', START)).toBeUndefined();
    expect(cache.get('t-key-b', START)).toBe('claims');
  });
});

describe('a repeated token', () => {
  it('is served from the cache: jose does not verify it again', async () => {
    const token = await tokenOf(keyA);
    const first = await verify(token);
    const second = await verify(token);
    const third = await verify(token);

    expect(first).toEqual({ sub: 'owner-1', exp: START_S + 300, restaurants: RESTAURANTS });
    expect(second).toBe(first);
    expect(third).toBe(first);
    expect(keySet.lookups).toHaveBeenCalledTimes(1);
  });

  it('hands out claims nobody can change', async () => {
    const claims = await verify(await tokenOf(keyA));
    expect(Object.isFrozen(claims)).toBe(true);
    expect(Object.isFrozen(claims.restaurants)).toBe(true);
    expect(Object.isFrozen(claims.restaurants[0]?.platforms[0])).toBe(true);
  });

  it('is cached by a verifier built without cache options, for TOKEN_CACHE_DEFAULTS’ 60 s', async () => {
    const defaults = createVerifier({ keySet, clockToleranceSeconds: TOLERANCE, now });
    expect(await lookupsOverAMinute(defaults, await tokenOf(keyA))).toEqual([1, 1, 2]);
  });

  it('is a different entry from a token of another owner', async () => {
    const mine = await tokenOf(keyA);
    const theirs = await tokenOf(keyA, { sub: 'owner-2', authSchema: { restaurants: [] } });
    await expect(verify(mine)).resolves.toMatchObject({ sub: 'owner-1' });
    await expect(verify(theirs)).resolves.toEqual({
      sub: 'owner-2',
      exp: START_S + 300,
      restaurants: [],
    });
    await expect(verify(mine)).resolves.toMatchObject({ sub: 'owner-1' });
    expect(keySet.lookups).toHaveBeenCalledTimes(2);
  });
});

describe('expiry', () => {
  it('serves an entry exactly as long as jose would accept the token, never after', async () => {
    const exp = START_S + 100;
    const token = await tokenOf(keyA, { exp });
    const lastAccepted = (exp + TOLERANCE) * 1000 - 1;

    await verify(token);
    clock = lastAccepted;
    await expect(joseVerdict(token)).resolves.toBe('accepted');
    keySet.lookups.mockClear();
    await expect(verify(token)).resolves.toMatchObject({ exp });
    expect(keySet.lookups).not.toHaveBeenCalled();

    clock = lastAccepted + 1;
    await expect(joseVerdict(token)).resolves.toBe('TOKEN_EXPIRED');
    keySet.lookups.mockClear();
    expect(await refusalOf(verify(token))).toMatchObject(EXPIRED);
    expect(keySet.lookups).toHaveBeenCalledTimes(1);

    // The entry is gone: back before the expiry, the token is verified afresh.
    clock = START;
    keySet.lookups.mockClear();
    await verify(token);
    expect(keySet.lookups).toHaveBeenCalledTimes(1);
  });

  it('follows jose for an exp that is not a whole second', async () => {
    const exp = START_S + 100.5;
    const token = await tokenOf(keyA, { exp });
    await verify(token);
    for (const at of [(START_S + 130) * 1000, (START_S + 131) * 1000 - 1, (START_S + 131) * 1000]) {
      clock = at;
      const jose = await joseVerdict(token);
      const cached = await verify(token).then(
        () => 'accepted',
        (error: unknown) => (error as PortalError).code,
      );
      expect(cached).toBe(jose);
    }
  });

  it('drops an entry after maxAgeMs even when the token is still valid', async () => {
    const short = cachedVerifier({ maxAgeMs: 60_000 });
    const token = await tokenOf(keyA);
    expect(await lookupsOverAMinute(short, token)).toEqual([1, 1, 2]);
    // Re-verified and cached again from then on.
    clock = START + 60_001;
    await short(token);
    expect(keySet.lookups).toHaveBeenCalledTimes(2);
  });
});

describe('nbf', () => {
  it('is honoured: a token not yet valid is refused, not cached, and accepted once valid', async () => {
    const nbf = START_S + 100;
    const token = await tokenOf(keyA, { nbf });
    expect(await refusalOf(verify(token))).toMatchObject(INVALID);

    clock = (nbf - TOLERANCE) * 1000 - 1;
    expect(await refusalOf(verify(token))).toMatchObject(INVALID);
    expect(keySet.lookups).toHaveBeenCalledTimes(2);

    clock = (nbf - TOLERANCE) * 1000;
    await expect(joseVerdict(token)).resolves.toBe('accepted');
    keySet.lookups.mockClear();
    await verify(token);
    await verify(token);
    expect(keySet.lookups).toHaveBeenCalledTimes(1);

    // A clock that steps back before nbf does not get the entry served.
    clock = (nbf - TOLERANCE) * 1000 - 1;
    expect(await refusalOf(verify(token))).toMatchObject(INVALID);
    expect(keySet.lookups).toHaveBeenCalledTimes(2);
  });
});

describe('iat under a maximum age (JWT_MAX_AGE)', () => {
  it.each([START_S + 100, START_S + 100.5])(
    'serves an entry exactly while jose would accept iat %s, from its first accepted millisecond to its last',
    async (iat) => {
      // Prepare: exp far beyond both bounds of the age
      const MAX_AGE = 600;
      const token = await tokenOf(keyA, { iat, exp: START_S + 7200 });
      const first = (Math.ceil(iat) - TOLERANCE) * 1000;
      const last = (Math.floor(iat) + MAX_AGE + TOLERANCE + 1) * 1000 - 1;

      // Act: a fresh cache stores the token at a moment both bounds allow, then is asked at each
      // bound and a millisecond beyond it
      const verdicts = [];
      for (const at of [first, last, last + 1, first - 1]) {
        const aged = cachedVerifier({ maxAgeMs: 3_600_000 }, keySet, MAX_AGE);
        clock = first + 1000;
        await aged(token);
        clock = at;
        keySet.lookups.mockClear();
        const cached = await aged(token).then(
          () => 'accepted',
          (error: unknown) => (error as PortalError).code,
        );
        verdicts.push({
          at,
          cached,
          jose: await joseVerdict(token, MAX_AGE),
          verified: keySet.lookups.mock.calls.length,
        });
      }

      // Assess: served from the cache inside the window, verified afresh and refused outside
      expect(verdicts).toEqual([
        { at: first, cached: 'accepted', jose: 'accepted', verified: 0 },
        { at: last, cached: 'accepted', jose: 'accepted', verified: 0 },
        { at: last + 1, cached: 'TOKEN_EXPIRED', jose: 'TOKEN_EXPIRED', verified: 1 },
        { at: first - 1, cached: 'TOKEN_INVALID', jose: 'TOKEN_INVALID', verified: 1 },
      ]);
    },
  );
});

describe('errors', () => {
  it('are never cached: the same bad token is verified, and refused, every time', async () => {
    const good = await tokenOf(keyA);
    const [header, payload] = good.split('.');
    const forged = `${header}.${payload}.${(await tokenOf(keyB)).split('.')[2]}`;

    expect(await refusalOf(verify(forged))).toMatchObject(INVALID);
    expect(await refusalOf(verify(forged))).toMatchObject(INVALID);
    expect(keySet.lookups).toHaveBeenCalledTimes(2);

    await expect(verify(good)).resolves.toMatchObject({ sub: 'owner-1' });
    await expect(verify(good)).resolves.toMatchObject({ sub: 'owner-1' });
    expect(keySet.lookups).toHaveBeenCalledTimes(3);
  });

  it('a token refused for its claims is not cached either', async () => {
    const token = await tokenOf(keyA, { authSchema: 'not json' });
    expect(await refusalOf(verify(token))).toMatchObject(INVALID);
    expect(await refusalOf(verify(token))).toMatchObject(INVALID);
    expect(keySet.lookups).toHaveBeenCalledTimes(2);
  });

  it('a token differing only in its signature is another entry, and the forgery fails', async () => {
    const good = await tokenOf(keyA);
    await verify(good);
    const [header, payload, signature] = good.split('.');
    const bytes = Buffer.from(signature ?? '', 'base64url');
    bytes[0] = (bytes[0] ?? 0) ^ 1;
    const forged = `${header}.${payload}.${bytes.toString('base64url')}`;

    expect(forged).not.toBe(good);
    expect(await refusalOf(verify(forged))).toMatchObject(INVALID);
    expect(keySet.lookups).toHaveBeenCalledTimes(2);
    await verify(good);
    expect(keySet.lookups).toHaveBeenCalledTimes(2);
  });
});

describe('size bound', () => {
  it('holds at most maxEntries, evicting the least recently inserted', async () => {
    const small = cachedVerifier({ maxEntries: 2 });
    const [a, b, c] = await Promise.all(
      ['owner-a', 'owner-b', 'owner-c'].map((sub) => tokenOf(keyA, { sub })),
    );
    await small(a ?? '');
    await small(b ?? '');
    await small(c ?? ''); // evicts a
    expect(keySet.lookups).toHaveBeenCalledTimes(3);

    await small(b ?? '');
    await small(c ?? '');
    expect(keySet.lookups).toHaveBeenCalledTimes(3);

    await small(a ?? ''); // verified again; evicts b (reading b did not refresh it)
    expect(keySet.lookups).toHaveBeenCalledTimes(4);
    await small(c ?? '');
    await small(a ?? '');
    expect(keySet.lookups).toHaveBeenCalledTimes(4);
    await small(b ?? '');
    expect(keySet.lookups).toHaveBeenCalledTimes(5);
  });

  it('holds with many tokens', async () => {
    const small = cachedVerifier({ maxEntries: 10 });
    const tokens = await Promise.all(
      Array.from({ length: 25 }, (_, i) => tokenOf(keyA, { sub: `owner-${i}` })),
    );
    for (const token of tokens) await small(token);
    keySet.lookups.mockClear();
    for (const token of tokens.slice(15)) await small(token);
    expect(keySet.lookups).not.toHaveBeenCalled();
    for (const token of tokens.slice(0, 15)) await small(token);
    expect(keySet.lookups).toHaveBeenCalledTimes(15);
  });
});

describe('key removal', () => {
  it('a token whose key was removed is never served from the cache', async () => {
    const token = await tokenOf(keyA);
    await verify(token);
    keySet.remove([keyA.kid]);

    const error = await refusalOf(verify(token));
    expect(error).toMatchObject(INVALID);
    expect(error.cause).toMatchObject({ code: 'ERR_JWKS_NO_MATCHING_KEY' });
    expect(keySet.lookups).toHaveBeenCalledTimes(2);
  });

  it('a token of a key still held stays cached', async () => {
    const token = await tokenOf(keyB);
    await verify(token);
    keySet.remove([keyA.kid]);
    await verify(token);
    expect(keySet.lookups).toHaveBeenCalledTimes(1);
  });

  it('a token without a kid is never verified, so never cached', async () => {
    // One P-256 key only: jose alone would let a token without a kid pick it.
    const mixed = stubKeySet([keyB.publicJwk, keyC.publicJwk]);
    const cached = cachedVerifier({}, mixed);
    const token = await tokenOf(keyB, {}, {});
    for (const _attempt of [1, 2]) {
      const error = await refusalOf(cached(token));
      expect(error).toMatchObject(INVALID);
      expect(error.cause).toMatchObject({ code: 'ERR_KID_REQUIRED' });
    }
    expect(mixed.lookups).not.toHaveBeenCalled();
  });

  it('a verification under way across a removal is not cached', async () => {
    const token = await tokenOf(keyB);
    const local = localGetKey([keyA.publicJwk, keyB.publicJwk]);
    keySet.lookups.mockImplementationOnce((header, jws) => {
      keySet.remove([keyA.kid]);
      return local(header, jws);
    });
    await verify(token);
    await verify(token);
    expect(keySet.lookups).toHaveBeenCalledTimes(2);
    await verify(token);
    expect(keySet.lookups).toHaveBeenCalledTimes(2);
  });
});
