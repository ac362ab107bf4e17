/**
 * The verified-token cache (issue 5, goal 3), through createVerifier over a key-set stub that
 * counts its key lookups (a lookup means jose verified the token again) and can announce the
 * removal of keys, as a key-set refresh does. One fake clock drives jose and the cache, so
 * each boundary is checked to the millisecond against jose's own verdict.
 */
import { createHash } from 'node:crypto';
import { jest } from '@jest/globals';
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWK } from 'jose';
import type { KeySet, KeysRemovedListener, RemovedKeys } from '../../../../shared/auth/key-set';
import {
  createTokenCache,
  TOKEN_CACHE_DEFAULTS,
  tokenKey,
} from '../../../../shared/auth/token-cache';
import { createVerifier, type Verifier } from '../../../../shared/auth/verifier';
import { MESSAGES, PortalError } from '../../../../shared/errors';
import { localKeysFor } from '../../../support/local-keys';

const TOLERANCE = 30;
const START = Date.parse('2025-01-01T00:00:00Z');
const START_S = START / 1000;

const INVALID = { statusCode: 401, code: 'TOKEN_INVALID', message: MESSAGES.tokenUnverifiable };
const EXPIRED = { statusCode: 401, code: 'TOKEN_EXPIRED', message: MESSAGES.tokenExpired };

interface Signer {
  readonly kid: string;
  readonly privateKey: CryptoKey;
  readonly publicJwk: JWK;
}

const signer = async (kid: string, alg = 'ES256'): Promise<Signer> => {
  const { privateKey, publicKey } = await generateKeyPair(alg);
  return { kid, privateKey, publicJwk: { ...(await exportJWK(publicKey)), kid, use: 'sig' } };
};

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

type KeysFor = KeySet['keysFor'];

interface StubKeySet extends KeySet {
  readonly lookups: jest.Mock<KeysFor>;
  /** Drops these keys, as a refresh would, and tells the listeners. */
  remove(kids: readonly string[]): void;
}

const stubKeySet = (keys: readonly JWK[], subscribable = true): StubKeySet => {
  let held = [...keys];
  let local = localKeysFor(held);
  const listeners = new Set<KeysRemovedListener>();
  const lookups = jest.fn<KeysFor>((alg, kid) => local(alg, kid));
  return {
    keysFor: lookups,
    lookups,
    prefetch() {
      // the stub holds its keys from the start
    },
    kids: () => new Set(held.flatMap((key) => (key.kid === undefined ? [] : [key.kid]))),
    ...(subscribable
      ? {
          onKeysRemoved(listener: KeysRemovedListener) {
            listeners.add(listener);
            return () => {
              listeners.delete(listener);
            };
          },
        }
      : {}),
    remove(kids) {
      held = held.filter((key) => key.kid === undefined || !kids.includes(key.kid));
      local = localKeysFor(held);
      const removed: RemovedKeys = { kids: new Set(kids), withoutKid: false };
      for (const listener of listeners) listener(removed);
    },
  };
};

const refusalOf = async (verification: Promise<unknown>): Promise<PortalError> => {
  const outcome = await verification.then(
    () => new Error('the token was accepted'),
    (error: unknown) => error,
  );
  expect(outcome).toBeInstanceOf(PortalError);
  return outcome as PortalError;
};

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
): Verifier => createVerifier({ keySet: keys, clockToleranceSeconds: TOLERANCE, now, cache });

/** The same verifier without a cache: jose's own verdict at the current fake time. */
const joseVerdict = (token: string): Promise<unknown> =>
  createVerifier({ keySet, clockToleranceSeconds: TOLERANCE, now })(token).then(
    () => 'accepted',
    (error: unknown) => (error as PortalError).code,
  );

beforeAll(async () => {
  [keyA, keyB, keyC] = await Promise.all([
    signer('key-a'),
    signer('key-b'),
    signer('key-c', 'ES384'),
  ]);
});

beforeEach(() => {
  keySet = stubKeySet([keyA.publicJwk, keyB.publicJwk]);
  clock = START;
  verify = cachedVerifier({ maxAgeMs: 3_600_000 });
});

describe('createTokenCache', () => {
  it('defaults to 1,000 entries and 60 s', () => {
    expect(TOKEN_CACHE_DEFAULTS).toEqual({ maxEntries: 1_000, maxAgeMs: 60_000 });
  });

  it('refuses bounds that are not positive integers', () => {
    expect(() => createTokenCache(0, { maxEntries: 0 })).toThrow(TypeError);
    expect(() => createTokenCache(0, { maxEntries: 1.5 })).toThrow(TypeError);
    expect(() => createTokenCache(0, { maxAgeMs: -1 })).toThrow(TypeError);
    expect(() => createTokenCache(0, { maxAgeMs: Number.POSITIVE_INFINITY })).toThrow(TypeError);
  });

  it('keys entries by the SHA-256 of the whole token', () => {
    const token = 'aaa.bbb.ccc';
    expect(tokenKey(token)).toBe(createHash('sha256').update(token).digest('base64'));
    expect(tokenKey('aaa.bbb.ccd')).not.toBe(tokenKey(token));
  });

  it('does not store a verification that was under way when keys were removed', () => {
    const cache = createTokenCache<string>(0);
    const since = cache.generation();
    cache.dropKeys({ kids: new Set(['key-a']), withoutKid: false });
    cache.set('t', 'claims', { kid: 'key-b', exp: START_S + 300, nbf: undefined }, START, since);
    expect(cache.size()).toBe(0);
    cache.set(
      't',
      'claims',
      { kid: 'key-b', exp: START_S + 300, nbf: undefined },
      START,
      cache.generation(),
    );
    expect(cache.get('t', START)).toBe('claims');
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

  it('is not cached by a verifier without the cache option', async () => {
    const plain = createVerifier({ keySet, clockToleranceSeconds: TOLERANCE, now });
    const token = await tokenOf(keyA);
    await plain(token);
    await plain(token);
    expect(keySet.lookups).toHaveBeenCalledTimes(2);
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
    await short(token);
    clock = START + 59_999;
    await short(token);
    expect(keySet.lookups).toHaveBeenCalledTimes(1);
    clock = START + 60_000;
    await short(token);
    expect(keySet.lookups).toHaveBeenCalledTimes(2);
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

  it('a token without a kid is dropped on any removal', async () => {
    // One P-256 key only, so that a token without a kid has a single candidate.
    const mixed = stubKeySet([keyB.publicJwk, keyC.publicJwk]);
    const cached = cachedVerifier({}, mixed);
    const token = await tokenOf(keyB, {}, {});
    await cached(token);
    await cached(token);
    expect(mixed.lookups).toHaveBeenCalledTimes(1);
    mixed.remove([keyC.kid]);
    await cached(token);
    expect(mixed.lookups).toHaveBeenCalledTimes(2);
  });

  it('a verification under way across a removal is not cached', async () => {
    const token = await tokenOf(keyB);
    const local = localKeysFor([keyA.publicJwk, keyB.publicJwk]);
    keySet.lookups.mockImplementationOnce((alg, kid) => {
      keySet.remove([keyA.kid]);
      return local(alg, kid);
    });
    await verify(token);
    await verify(token);
    expect(keySet.lookups).toHaveBeenCalledTimes(2);
    await verify(token);
    expect(keySet.lookups).toHaveBeenCalledTimes(2);
  });

  it('without a subscription, the kids of the set are checked on each hit', async () => {
    const bare = stubKeySet([keyA.publicJwk, keyB.publicJwk], false);
    const cached = cachedVerifier({}, bare);
    const token = await tokenOf(keyA);
    await cached(token);
    await cached(token);
    expect(bare.lookups).toHaveBeenCalledTimes(1);

    bare.remove([keyA.kid]);
    expect(await refusalOf(cached(token))).toMatchObject(INVALID);
    expect(bare.lookups).toHaveBeenCalledTimes(2);

    // Tokens without a kid are then never cached.
    const kidless = await tokenOf(keyB, {}, {});
    await cached(kidless);
    await cached(kidless);
    expect(bare.lookups).toHaveBeenCalledTimes(4);
  });
});
