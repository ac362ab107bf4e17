/**
 * The verified-token cache against a real key set: createKeySet fetching from an HTTP server
 * on 127.0.0.1, createVerifier with the cache, one fake clock for the key set, jose and the
 * cache. Rotation is done the way the issuer does it: the served set changes, and a refresh
 * (a token of an unknown kid, or the set's age) brings the change in.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { jest } from '@jest/globals';
import { SignJWT, type JWK } from 'jose';
import { createKeySet, type KeySet } from '../../../shared/auth/key-set';
import { createVerifier, type Verifier } from '../../../shared/auth/verifier';
import { createLogger } from '../../../shared/logger';
import { signer, type Signer } from '../../support/local-keys';
import { EXPIRED, INVALID, refusalOf } from '../../support/token-errors';

const START = Date.parse('2025-01-01T00:00:00Z');
const START_S = START / 1000;
const TOLERANCE = 30;
const COOLDOWN = 30_000;
const HOUR = 3_600_000;

const tokenOf = (key: Signer, exp = START_S + 3_600, sub = 'owner-1'): Promise<string> =>
  new SignJWT({ sub, iat: START_S, exp, authSchema: { restaurants: [] } })
    .setProtectedHeader({ alg: 'RS256', kid: key.kid, typ: 'JWT' })
    .sign(key.privateKey);

let keyA: Signer;
let keyB: Signer;
let served: JWK[];
let requests: number;
let server: Server;
let url: URL;
let clock: number;
let keySet: KeySet;
let lookups: jest.Spied<KeySet['getKey']>;
let verify: Verifier;

beforeAll(async () => {
  [keyA, keyB] = await Promise.all([signer('key-a'), signer('key-b')]);
});

beforeEach(async () => {
  served = [keyA.publicJwk];
  requests = 0;
  server = createServer((_request, response) => {
    requests += 1;
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(JSON.stringify({ keys: served }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}/jwks.json`);
  clock = START;
  keySet = createKeySet({
    url,
    logger: createLogger('error', () => undefined),
    now: () => clock,
    timeoutMs: 500,
  });
  lookups = jest.spyOn(keySet, 'getKey');
  verify = createVerifier({
    keySet,
    clockToleranceSeconds: TOLERANCE,
    now: () => clock,
    cache: { maxEntries: 100, maxAgeMs: 10 * 60_000 },
  });
});

afterEach(async () => {
  jest.restoreAllMocks();
  server.closeAllConnections();
  await new Promise<void>((resolve) => {
    server.close(() => {
      resolve();
    });
  });
});

describe('with a real key set', () => {
  it('serves a repeated token from the cache: no key lookup, no fetch', async () => {
    const token = await tokenOf(keyA);
    await verify(token);
    for (let i = 0; i < 5; i += 1) await verify(token);
    expect(lookups).toHaveBeenCalledTimes(1);
    expect(requests).toBe(1);
  });

  it('never serves a token whose key a refresh removed (rotation by an unknown kid)', async () => {
    const oldToken = await tokenOf(keyA);
    await verify(oldToken);

    // The issuer rotates: the set now holds only key B.
    served = [keyB.publicJwk];
    clock = START + COOLDOWN;
    await expect(verify(oldToken)).resolves.toMatchObject({ sub: 'owner-1' }); // not refreshed yet
    expect(requests).toBe(1);

    // A token of the new key: unknown kid, refetch, key A is gone.
    await expect(verify(await tokenOf(keyB, undefined, 'owner-2'))).resolves.toMatchObject({
      sub: 'owner-2',
    });
    expect(requests).toBe(2);

    lookups.mockClear();
    const error = await refusalOf(verify(oldToken));
    expect(error).toMatchObject(INVALID);
    expect(error.cause).toMatchObject({ code: 'ERR_JWKS_NO_MATCHING_KEY' });
    expect(lookups).toHaveBeenCalledTimes(1);
  });

  it('never serves a token whose kid was re-keyed (refresh by age)', async () => {
    const token = await tokenOf(keyA);
    const other = await tokenOf(keyA, undefined, 'owner-2');
    await verify(token);

    // Same kid, other key material.
    served = [{ ...keyB.publicJwk, kid: keyA.kid }];
    clock = START + HOUR; // the set is due for a refresh; the cache's 10 min have also passed
    await refusalOf(verify(other)); // triggers the refresh, refused under the new key
    expect(requests).toBe(2);

    clock = START + 1_000; // even back within the cache's maximum age
    expect(await refusalOf(verify(token))).toMatchObject(INVALID);
  });

  it('keeps entries of keys a refresh kept', async () => {
    served = [keyA.publicJwk, keyB.publicJwk];
    const tokenB = await tokenOf(keyB);
    await verify(tokenB);
    served = [keyB.publicJwk];
    clock = START + COOLDOWN;
    await refusalOf(verify(await tokenOf({ ...keyA, kid: 'key-x' }))); // unknown kid: refetch
    expect(requests).toBe(2);
    lookups.mockClear();
    await verify(tokenB);
    expect(lookups).not.toHaveBeenCalled();
  });

  it('never serves an expired token, and the entry is gone', async () => {
    const exp = START_S + 120;
    const token = await tokenOf(keyA, exp);
    await verify(token);

    clock = (exp + TOLERANCE) * 1000 - 1;
    await verify(token);
    expect(lookups).toHaveBeenCalledTimes(1);

    clock = (exp + TOLERANCE) * 1000;
    expect(await refusalOf(verify(token))).toMatchObject(EXPIRED);
    expect(lookups).toHaveBeenCalledTimes(2);

    clock = START;
    await verify(token);
    expect(lookups).toHaveBeenCalledTimes(3);
  });
});

describe('KeySet.onKeysRemoved', () => {
  it('tells listeners the kids a refresh removed or re-keyed, and only then', async () => {
    const seen: unknown[] = [];
    const unsubscribe = keySet.onKeysRemoved((removed) => {
      seen.push({ kids: [...removed.kids].sort(), withoutKid: removed.withoutKid });
    });
    served = [keyA.publicJwk, keyB.publicJwk];
    await verify(await tokenOf(keyA));

    // Same keys, members in another order: nothing removed.
    served = [keyB.publicJwk, Object.fromEntries(Object.entries(keyA.publicJwk).reverse())];
    clock = START + HOUR;
    await verify(await tokenOf(keyA, undefined, 'owner-2'));
    expect(requests).toBe(2);
    expect(seen).toEqual([]);

    // key-b re-keyed, key-a dropped, a key without kid added.
    const { kid: _kid, ...anonymous } = keyA.publicJwk;
    served = [{ ...keyA.publicJwk, kid: keyB.kid }, anonymous];
    clock = START + 2 * HOUR;
    await refusalOf(verify(await tokenOf(keyA, undefined, 'owner-3')));
    expect(requests).toBe(3);
    expect(seen).toEqual([{ kids: ['key-a', 'key-b'], withoutKid: false }]);

    // The key without kid goes: announced as such. Then unsubscribed: no more calls.
    served = [{ ...keyA.publicJwk, kid: keyB.kid }];
    clock = START + 3 * HOUR;
    await refusalOf(verify(await tokenOf(keyA, undefined, 'owner-4')));
    expect(seen).toEqual([
      { kids: ['key-a', 'key-b'], withoutKid: false },
      { kids: [], withoutKid: true },
    ]);
    unsubscribe();
    served = [keyB.publicJwk];
    clock = START + 4 * HOUR;
    await refusalOf(verify(await tokenOf(keyA, undefined, 'owner-5')));
    expect(requests).toBe(5);
    expect(seen).toHaveLength(2);
  });
});
