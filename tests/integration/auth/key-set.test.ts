/**
 * createKeySet against a real HTTP server on 127.0.0.1 that each test drives into a fault mode
 * and that counts the requests it receives. Age, cooldown and staleness run on a fake clock
 * handed to createKeySet; tokens are signed with jose and verified through createVerifier.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { jest } from '@jest/globals';
import { SignJWT, type JWK } from 'jose';
import {
  createKeySet,
  KEY_SET_DEFAULTS,
  KeySetUnavailableError,
  type KeySet,
  type KeySetOptions,
} from '../../../shared/auth/key-set';
import { createVerifier } from '../../../shared/auth/verifier';
import { createLogger } from '../../../shared/logger';
import { keysFor, signer, type Signer } from '../../support/local-keys';
import { INTERNAL, INVALID, refusalOf } from '../../support/token-errors';

const KEY_SET_PATH = '/v2/jwks.json';
const MOVED_PATH = '/moved/jwks.json';
const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const COOLDOWN = 30_000;
const LIMIT = 64 * 1024;

type Mode =
  | 'jwks'
  | 'hang'
  | 'slow-body'
  | 'http-500'
  | 'not-json'
  | 'oversized-declared'
  | 'oversized-chunked'
  | 'redirect'
  | 'empty-keys'
  | 'oct-only';

interface JwksServer {
  readonly url: URL;
  /** Path of every request received, in order. */
  readonly requests: string[];
  mode: Mode;
  keys: JWK[];
  /** Trailing spaces appended to a normal key-set body (to reach an exact size). */
  padding: number;
  /** Send a normal key set in two chunks, without content-length. */
  chunked: boolean;
  close(): Promise<void>;
}

const jwksBody = (keys: readonly JWK[], padding = 0): string =>
  JSON.stringify({ keys }) + ' '.repeat(padding);

/** A key-set body of exactly `size` bytes. */
const paddingFor = (keys: readonly JWK[], size: number): number => size - jwksBody(keys).length;

const startServer = async (keys: JWK[]): Promise<JwksServer> => {
  const state = {
    requests: [] as string[],
    mode: 'jwks' as Mode,
    keys,
    padding: 0,
    chunked: false,
  };

  const sendKeySet = (response: ServerResponse, body: string, chunked: boolean): void => {
    if (chunked) {
      response.writeHead(200, { 'content-type': 'application/json' });
      const half = Math.floor(body.length / 2);
      response.write(body.slice(0, half));
      response.end(body.slice(half));
      return;
    }
    response.writeHead(200, {
      'content-type': 'application/json',
      'content-length': Buffer.byteLength(body),
    });
    response.end(body);
  };

  const handle = (request: IncomingMessage, response: ServerResponse): void => {
    const path = request.url ?? '';
    state.requests.push(path);
    if (path === MOVED_PATH) {
      sendKeySet(response, jwksBody(state.keys), false);
      return;
    }
    if (path !== KEY_SET_PATH) {
      response.writeHead(404).end();
      return;
    }
    const oversized = jwksBody(state.keys, paddingFor(state.keys, LIMIT + 1));
    switch (state.mode) {
      case 'jwks':
        sendKeySet(response, jwksBody(state.keys, state.padding), state.chunked);
        return;
      case 'hang':
        return; // never answers; closeAllConnections ends it
      case 'slow-body':
        response.writeHead(200, { 'content-type': 'application/json', 'content-length': 4096 });
        response.write('{"keys":[');
        return; // the rest never comes
      case 'http-500':
        response.writeHead(500, { 'content-type': 'application/json' });
        response.end(jwksBody(state.keys));
        return;
      case 'not-json':
        response.writeHead(200, { 'content-type': 'text/html' });
        response.end('<html>maintenance</html>');
        return;
      case 'oversized-declared':
        sendKeySet(response, oversized, false);
        return;
      case 'oversized-chunked':
        sendKeySet(response, oversized, true);
        return;
      case 'redirect':
        response.writeHead(302, { location: MOVED_PATH }).end();
        return;
      case 'empty-keys':
        sendKeySet(response, jwksBody([]), false);
        return;
      case 'oct-only':
        sendKeySet(
          response,
          jwksBody([{ kty: 'oct', k: 'c2VjcmV0LXNlY3JldA', kid: 'key-a' }]),
          false,
        );
        return;
    }
  };

  const server = createServer(handle);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  // The test drives the server by setting the state's mode, keys, padding and chunked.
  return Object.assign(state, {
    url: new URL(`http://127.0.0.1:${port}${KEY_SET_PATH}`),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => {
          resolve();
        });
      }),
  });
};

const tokenOf = (key: Signer): Promise<string> =>
  new SignJWT({ sub: 'owner-1', authSchema: { restaurants: [] } })
    .setProtectedHeader({ alg: 'RS256', kid: key.kid, typ: 'JWT' })
    .setIssuedAt()
    .setExpirationTime('5m')
    .sign(key.privateKey);

const lookup = (keySet: KeySet, kid: string) => keysFor(keySet, 'RS256', kid);

const randomKid = (): string => `kid-${Math.random().toString(36).slice(2)}`;

const rejectionOf = async (promise: Promise<unknown>): Promise<unknown> =>
  promise.then(
    () => new Error('expected a rejection'),
    (error: unknown) => error,
  );

const START = Date.parse('2025-01-01T00:00:00Z');

let keyA: Signer;
let keyB: Signer;
let server: JwksServer;
let clock: number;
let logs: Record<string, unknown>[];

beforeAll(async () => {
  [keyA, keyB] = await Promise.all([signer('key-a'), signer('key-b')]);
});

beforeEach(async () => {
  server = await startServer([keyA.publicJwk]);
  clock = START;
  logs = [];
});

afterEach(async () => {
  jest.restoreAllMocks();
  await server.close();
});

const keySetFor = (options: Partial<KeySetOptions> = {}): KeySet =>
  createKeySet({
    url: server.url,
    logger: createLogger('debug', (line) => logs.push(JSON.parse(line) as Record<string, unknown>)),
    now: () => clock,
    // Short, for the tests of a server that never answers; long enough for a loopback answer
    // on a machine whose cores are busy with other work.
    timeoutMs: 1_000,
    ...options,
  });

/** A key set of the server's and a verifier over it. */
const verifierFor = (options: Partial<KeySetOptions> = {}) => {
  const keySet = keySetFor(options);
  return { keySet, verify: createVerifier({ keySet, clockToleranceSeconds: 0 }) };
};

/** A key set of the server's that has made its first fetch (key A looked up). */
const warmKeySet = async () => {
  const keySet = keySetFor();
  await lookup(keySet, keyA.kid);
  return keySet;
};

/** A verifier over a key set that has made its first fetch (key A looked up). */
const warmVerifier = async () => {
  const { keySet, verify } = verifierFor();
  await lookup(keySet, keyA.kid);
  return { keySet, verify };
};

const failures = (): Record<string, unknown>[] =>
  logs.filter((line) => line.message === 'key set fetch failed');

describe('defaults', () => {
  it('follow the spec and the issue: 1 h fresh, 24 h stale, 30 s cooldown, 2 s, 64 KiB', () => {
    expect(KEY_SET_DEFAULTS).toEqual({
      maxAgeMs: HOUR,
      staleMs: DAY,
      cooldownMs: COOLDOWN,
      failureBackoffMs: 5_000,
      timeoutMs: 2_000,
      maxBytes: LIMIT,
    });
  });
});

describe('cold start', () => {
  it('answers 500 concurrent lookups with exactly one request', async () => {
    const keySet = keySetFor();

    const keys = await Promise.all(Array.from({ length: 500 }, () => lookup(keySet, keyA.kid)));

    expect(server.requests).toEqual([KEY_SET_PATH]);
    expect(new Set(keys.flat()).size).toBe(1);
    expect(keys.flat()).toHaveLength(500);
    expect(logs.filter((line) => line.message === 'key set loaded')).toEqual([
      expect.objectContaining({ level: 'info', keys: 1 }),
    ]);
  });

  it('prefetch starts exactly one fetch, which the first lookups share', async () => {
    const keySet = keySetFor();

    void keySet.prefetch();
    void keySet.prefetch();
    // The request reaches the server with no lookup made yet: prefetch started it.
    for (let waited = 0; server.requests.length === 0 && waited < 2_000; waited += 10) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    expect(server.requests).toEqual([KEY_SET_PATH]);

    await Promise.all([lookup(keySet, keyA.kid), lookup(keySet, keyA.kid)]);
    void keySet.prefetch();

    expect(server.requests).toEqual([KEY_SET_PATH]);
  });

  it('verifies a token signed by a key of the set', async () => {
    const { verify } = verifierFor();

    await expect(verify(await tokenOf(keyA))).resolves.toMatchObject({ sub: 'owner-1' });
  });

  it.each([
    ['a slow response beyond the timeout', 'hang'],
    ['a body that stalls beyond the timeout', 'slow-body'],
    ['HTTP 500', 'http-500'],
    ['a body that is not JSON', 'not-json'],
    ['a body over 64 KiB with content-length', 'oversized-declared'],
    ['a body over 64 KiB without content-length', 'oversized-chunked'],
    ['a redirect', 'redirect'],
    ['an empty keys array', 'empty-keys'],
    ['only symmetric (oct) keys', 'oct-only'],
  ] as const)('makes %s KeySetUnavailableError, answered 500 INTERNAL_ERROR', async (_f, mode) => {
    server.mode = mode;
    const { keySet, verify } = verifierFor();

    const started = performance.now();
    const direct = await rejectionOf(lookup(keySet, keyA.kid));
    const elapsed = performance.now() - started;
    const mapped = await refusalOf(verify(await tokenOf(keyA)));

    expect(direct).toBeInstanceOf(KeySetUnavailableError);
    expect(elapsed).toBeLessThan(1_500);
    expect(mapped).toMatchObject(INTERNAL);
    expect(mapped.cause).toBeInstanceOf(KeySetUnavailableError);
    // The second request came within the failure back-off: answered without a fetch.
    expect(server.requests.filter((path) => path === KEY_SET_PATH)).toHaveLength(1);
    expect(failures()).toEqual([expect.objectContaining({ level: 'error', servingStale: false })]);
  });

  it('never follows a redirect: its target is not requested', async () => {
    server.mode = 'redirect';

    await expect(lookup(keySetFor(), keyA.kid)).rejects.toBeInstanceOf(KeySetUnavailableError);

    expect(server.requests).toEqual([KEY_SET_PATH]);
  });

  it('makes an unreachable key-set host KeySetUnavailableError, answered 500', async () => {
    const gone = await startServer([keyA.publicJwk]);
    await gone.close();
    const { keySet, verify } = verifierFor({ url: gone.url });

    await expect(lookup(keySet, keyA.kid)).rejects.toBeInstanceOf(KeySetUnavailableError);
    const mapped = await refusalOf(verify(await tokenOf(keyA)));

    expect(mapped).toMatchObject(INTERNAL);
  });

  it('times out after about 2 s by default', async () => {
    server.mode = 'hang';
    const keySet = createKeySet({
      url: server.url,
      logger: createLogger('error', () => undefined),
      now: () => clock,
    });

    const started = performance.now();
    await expect(lookup(keySet, keyA.kid)).rejects.toBeInstanceOf(KeySetUnavailableError);
    const elapsed = performance.now() - started;

    expect(elapsed).toBeGreaterThanOrEqual(1_900);
    expect(elapsed).toBeLessThan(3_500);
  });

  it.each([
    ['with content-length', false],
    ['without content-length', true],
  ])('accepts a body of exactly 64 KiB %s', async (_how, chunked) => {
    server.padding = paddingFor([keyA.publicJwk], LIMIT);
    server.chunked = chunked;

    await expect(lookup(keySetFor(), keyA.kid)).resolves.toBeDefined();
  });

  it('keeps only public signature keys: oct and encryption keys, and entries that are no object, are dropped', async () => {
    server.keys = [
      null,
      [keyB.publicJwk],
      'RS256',
      keyA.publicJwk,
      { kty: 'oct', k: 'c2VjcmV0LXNlY3JldA', kid: 'hmac' },
      { ...keyB.publicJwk, use: 'enc' },
    ] as unknown as JWK[];
    const keySet = keySetFor();

    await expect(lookup(keySet, keyA.kid)).resolves.toHaveLength(1);
    await expect(lookup(keySet, 'hmac')).resolves.toEqual([]);
    await expect(keysFor(keySet, 'RS256', undefined)).resolves.toHaveLength(1);
    await expect(lookup(keySet, keyB.kid)).resolves.toEqual([]);
  });
});

describe('cache', () => {
  it('serves cached keys without a request until the maximum age, then refetches once', async () => {
    const keySet = await warmKeySet();

    clock = START + HOUR - 1;
    await lookup(keySet, keyA.kid);
    expect(server.requests).toHaveLength(1);

    clock = START + HOUR;
    await Promise.all([lookup(keySet, keyA.kid), lookup(keySet, keyA.kid)]);
    expect(server.requests).toHaveLength(2);

    clock = START + 2 * HOUR - 1;
    await lookup(keySet, keyA.kid);
    expect(server.requests).toHaveLength(2);
  });

  it('keeps serving the last good set when a refresh fails, and logs it', async () => {
    const { verify } = await warmVerifier();
    server.mode = 'http-500';

    clock = START + HOUR;
    await expect(verify(await tokenOf(keyA))).resolves.toMatchObject({ sub: 'owner-1' });

    expect(server.requests).toHaveLength(2);
    expect(failures()).toEqual([
      expect.objectContaining({
        level: 'warn',
        servingStale: true,
        errorName: 'TypeError',
      }),
    ]);
  });

  it('retries a failed refresh at most once per 30 s while serving the stale set', async () => {
    const keySet = await warmKeySet();
    server.mode = 'http-500';
    clock = START + HOUR;
    await lookup(keySet, keyA.kid);

    clock = START + HOUR + COOLDOWN - 1;
    await Promise.all(Array.from({ length: 20 }, () => lookup(keySet, keyA.kid)));
    expect(server.requests).toHaveLength(2);

    clock = START + HOUR + COOLDOWN;
    await lookup(keySet, keyA.kid);
    expect(server.requests).toHaveLength(3);

    server.mode = 'jwks';
    clock = START + HOUR + 2 * COOLDOWN;
    await lookup(keySet, keyA.kid);
    clock += COOLDOWN;
    await lookup(keySet, keyA.kid);

    expect(server.requests).toHaveLength(4);
  });

  it('serves a stale set up to 24 h, then gives KeySetUnavailableError (500)', async () => {
    const { keySet, verify } = await warmVerifier();
    server.mode = 'hang';

    clock = START + DAY - 1;
    await expect(lookup(keySet, keyA.kid)).resolves.toBeDefined();

    clock = START + DAY;
    await expect(lookup(keySet, keyA.kid)).rejects.toBeInstanceOf(KeySetUnavailableError);
    const mapped = await refusalOf(verify(await tokenOf(keyA)));

    expect(mapped).toMatchObject(INTERNAL);
    expect(failures().map((line) => [line.level, line.servingStale])).toEqual([
      ['warn', true],
      ['error', false],
    ]);
  });

  it('recovers once the key-set host answers again after the stale window', async () => {
    const keySet = await warmKeySet();
    server.mode = 'http-500';
    clock = START + DAY;
    await expect(lookup(keySet, keyA.kid)).rejects.toBeInstanceOf(KeySetUnavailableError);

    server.mode = 'jwks';
    clock = START + DAY + 5_000;

    await expect(lookup(keySet, keyA.kid)).resolves.toBeDefined();
  });
});

describe('back-off while nothing usable is held', () => {
  it('answers unavailable without a fetch for 5 s after a failed fetch, then tries once more', async () => {
    server.mode = 'http-500';
    const keySet = keySetFor();
    await expect(lookup(keySet, keyA.kid)).rejects.toBeInstanceOf(KeySetUnavailableError);

    clock = START + 4_999;
    const flood = await Promise.all(
      Array.from({ length: 50 }, () => rejectionOf(lookup(keySet, keyA.kid))),
    );
    server.mode = 'jwks';
    clock = START + 5_000;
    const recovered = await lookup(keySet, keyA.kid);

    expect(flood.every((error) => error instanceof KeySetUnavailableError)).toBe(true);
    expect(recovered).toBeDefined();
    expect(server.requests).toEqual([KEY_SET_PATH, KEY_SET_PATH]);
  });
});

describe('unknown kids', () => {
  it('refetch once, then not again within 30 s of that attempt, then once more', async () => {
    const keySet = await warmKeySet();

    clock = START + COOLDOWN;
    await expect(lookup(keySet, 'ghost')).resolves.toEqual([]);
    expect(server.requests).toHaveLength(2);

    for (const offset of [1, 10_000, COOLDOWN - 1]) {
      clock = START + COOLDOWN + offset;
      const flood = await Promise.allSettled(
        Array.from({ length: 100 }, () => lookup(keySet, randomKid())),
      );
      expect(flood).toEqual(Array(100).fill({ status: 'fulfilled', value: [] }));
    }
    expect(server.requests).toHaveLength(2);

    clock = START + 2 * COOLDOWN;
    await Promise.allSettled(Array.from({ length: 100 }, () => lookup(keySet, randomKid())));
    expect(server.requests).toHaveLength(3);
  });

  it('are answered 401 TOKEN_INVALID, never 500, while cooling down', async () => {
    const stranger = await signer('stranger');
    const { verify } = await warmVerifier();

    const refusal = await refusalOf(verify(await tokenOf(stranger)));

    expect(refusal).toMatchObject(INVALID);
    expect(server.requests).toHaveLength(1);
  });

  it('count the cooldown from the cold fetch too: no refetch within its first 30 s', async () => {
    const keySet = await warmKeySet();

    clock = START + COOLDOWN - 1;
    await expect(lookup(keySet, 'ghost')).resolves.toEqual([]);

    expect(server.requests).toHaveLength(1);
  });

  it('do not refetch for a kid that the set holds but that does not fit the algorithm', async () => {
    const keySet = await warmKeySet();
    clock = START + COOLDOWN;

    await expect(keysFor(keySet, 'ES256', keyA.kid)).resolves.toEqual([]);

    expect(server.requests).toHaveLength(1);
  });
});

describe('key rotation', () => {
  it('verifies a token with the new kid after exactly one refetch', async () => {
    const { keySet, verify } = verifierFor();
    await verify(await tokenOf(keyA));
    server.keys = [keyA.publicJwk, keyB.publicJwk];

    clock = START + COOLDOWN;
    await expect(verify(await tokenOf(keyB))).resolves.toMatchObject({ sub: 'owner-1' });
    await expect(verify(await tokenOf(keyB))).resolves.toMatchObject({ sub: 'owner-1' });
    await expect(verify(await tokenOf(keyA))).resolves.toMatchObject({ sub: 'owner-1' });

    expect(server.requests).toHaveLength(2);
    await expect(lookup(keySet, keyA.kid)).resolves.toHaveLength(1);
    await expect(lookup(keySet, keyB.kid)).resolves.toHaveLength(1);
    expect(server.requests).toHaveLength(2);
  });

  it('finds no key for a retired kid once the rotated set is loaded', async () => {
    const keySet = await warmKeySet();
    server.keys = [keyB.publicJwk];

    clock = START + COOLDOWN;
    await expect(lookup(keySet, keyB.kid)).resolves.toHaveLength(1);

    await expect(lookup(keySet, keyA.kid)).resolves.toEqual([]);
    expect(server.requests).toHaveLength(2);
  });

  it('lets concurrent tokens with the new kid all wait for the one refetch', async () => {
    const { verify } = await warmVerifier();
    server.keys = [keyA.publicJwk, keyB.publicJwk];
    const token = await tokenOf(keyB);

    clock = START + COOLDOWN;
    const outcomes = await Promise.allSettled(Array.from({ length: 10 }, () => verify(token)));

    expect(outcomes.map((outcome) => outcome.status)).toEqual(Array(10).fill('fulfilled'));
    expect(server.requests).toHaveLength(2);
  });
});

describe('check (the pre-traffic check and the heartbeat)', () => {
  it('resolves once a usable set is held, fetching it once', async () => {
    const keySet = keySetFor();

    await keySet.check();
    await keySet.check();

    expect(server.requests).toEqual([KEY_SET_PATH]);
  });

  it.each([
    ['a key-set URL that answers 500', 'http-500'],
    ['a key set without keys', 'empty-keys'],
  ] as const)('rejects with KeySetUnavailableError for %s', async (_case, mode) => {
    server.mode = mode;
    const keySet = keySetFor();

    await expect(keySet.check()).rejects.toBeInstanceOf(KeySetUnavailableError);
  });

  it('keeps resolving on the last good set while a refetch fails within the stale window', async () => {
    const keySet = await warmKeySet();
    server.mode = 'http-500';
    clock += HOUR;

    await expect(keySet.check()).resolves.toBeUndefined();
    expect(failures()).toEqual([expect.objectContaining({ level: 'warn', servingStale: true })]);
  });
});
