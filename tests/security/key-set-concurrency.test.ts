/**
 * The key-set host (our own counting server) is fetched once however many cold invocations wait,
 * and a flood of unknown kids cannot make the service hammer it; real compositions and database,
 * a fake clock where the 30 s refetch cooldown must pass. Rotation under load: key-set-faults.
 */
import { randomUUID } from 'node:crypto';
import type { APIGatewayProxyResult } from 'aws-lambda';
import { generateKeyPair, SignJWT, type CryptoKey, type JSONWebKeySet } from 'jose';
import { reportEndpoint } from '../../middleware/compose';
import { claimsFor, SAMPLE_OWNER } from '../../tools/db/sample-data';
import { KEY_SET_PATH } from '../../tools/local/issuer';
import { createKeySet, KEY_SET_DEFAULTS } from '../../shared/auth/key-set';
import { createVerifier } from '../../shared/auth/verifier';
import { loadConfig } from '../../shared/config';
import { addDays, todayIn } from '../../tools/dates';
import { createLogger } from '../../shared/logger';
import { ordersPerDay } from '../../shared/reports/orders-per-day';
import { createDependencies, type Dependencies } from '../../shared/runtime';
import { configuredIssuer, startCountingServer, type CountingServer } from '../support/attacks';
import { jsonBody, lambdaContext, restEvent } from '../support/events';
import { testIssuer, tokenFor } from '../support/tokens';

const TOKEN_INVALID = {
  state: 'ERROR',
  code: 'TOKEN_INVALID',
  message: 'The provided token cannot be verified',
};
const COOLDOWN = KEY_SET_DEFAULTS.cooldownMs;

type Invoke = (token: string) => Promise<APIGatewayProxyResult>;

let serving: JSONWebKeySet;
let keySetHost: CountingServer;
/** Every set of dependencies built here, closed after the suite. */
const built: Dependencies[] = [];
let attackerKey: CryptoKey;

const keySetUrl = () => `${keySetHost.origin}${KEY_SET_PATH}`;
const fetches = () => keySetHost.gets(KEY_SET_PATH);

beforeAll(async () => {
  serving = (await testIssuer()).publicKeySet;
  // A little latency, so that every invocation of a burst arrives while the fetch is in flight.
  keySetHost = await startCountingServer(
    (path) => (path === KEY_SET_PATH ? serving : undefined),
    50,
  );
  ({ privateKey: attackerKey } = await generateKeyPair('RS256'));
});

afterAll(async () => {
  await Promise.all(built.map((deps) => deps.close()));
  await keySetHost.close();
});

const dependencies = (env: Readonly<Record<string, string | undefined>>): Dependencies => {
  const deps = createDependencies(loadConfig(env));
  built.push(deps);
  return deps;
};

/** GET orders/day of R-1001 on TB_AE (the sample owner's own), today only. */
const requestWith = (token: string) => {
  const today = todayIn('Asia/Dubai');
  return restEvent({
    resource: '/v1/restaurants/{id}/reports/orders/day',
    pathParameters: { id: 'R-1001' },
    headers: { Authorization: `Bearer ${token}`, 'X-Platform-Id': 'TB_AE' },
    query: { from: addDays(today, -1), to: today },
  });
};

const statuses = (results: readonly APIGatewayProxyResult[]) => {
  const tally: Record<number, number> = {};
  for (const { statusCode } of results) tally[statusCode] = (tally[statusCode] ?? 0) + 1;
  return tally;
};

/** `count` tokens with random kids the set does not hold, signed by an attacker's key. */
const unknownKidTokens = (count: number): Promise<string[]> =>
  Promise.all(
    Array.from({ length: count }, () =>
      new SignJWT(claimsFor(SAMPLE_OWNER))
        .setProtectedHeader({ alg: 'RS256', kid: randomUUID() })
        .setIssuer(configuredIssuer())
        .setExpirationTime('5m')
        .sign(attackerKey),
    ),
  );

const flood = async (invoke: Invoke, tokens: readonly string[]) => {
  const results = await Promise.all(tokens.map(invoke));
  expect(statuses(results)).toEqual({ 401: tokens.length });
  expect(new Set(results.map((result) => JSON.stringify(jsonBody(result))))).toEqual(
    new Set([JSON.stringify(TOKEN_INVALID)]),
  );
};

describe('a cold container', () => {
  let invoke: Invoke;

  it('answers 500 simultaneous invocations with valid tokens 200 after exactly one key-set fetch', async () => {
    const tokens = await Promise.all(
      Array.from({ length: 500 }, (_, i) => tokenFor(SAMPLE_OWNER, { jti: `burst-${i}` })),
    );
    expect(fetches()).toBe(0);

    const deps = dependencies({ ...process.env, JWKS_URL: keySetUrl() });
    const handler = reportEndpoint(ordersPerDay, deps.database.bind(ordersPerDay.queries), deps);
    invoke = (token) => handler(requestWith(token), lambdaContext());
    const results = await Promise.all(tokens.map(invoke));

    expect(statuses(results)).toEqual({ 200: 500 });
    expect(fetches()).toBe(1);
  }, 120_000);

  it('refuses a flood of 200 tokens with random unknown kids, all 401, with at most one refetch', async () => {
    const before = fetches();

    await flood(invoke, await unknownKidTokens(200));
    await flood(invoke, await unknownKidTokens(200));

    // Both floods fall within one 30 s cooldown window of each other.
    expect(fetches() - before).toBeLessThanOrEqual(1);
  });
});

describe('the refetch cooldown, on a fake clock', () => {
  let clock = 0;
  const now = () => clock;
  /** Only its repository and ownership rules are used; its own key set is the run's, uncounted. */
  let repository: Dependencies;

  beforeAll(() => {
    repository = dependencies(process.env);
  });

  /** The orders/day chain on a key set of its own that reads the fake clock. */
  const chainOnFakeClock = (): Invoke => {
    const logger = createLogger('error');
    const keySet = createKeySet({ url: new URL(keySetUrl()), logger, now });
    const verifier = createVerifier({
      keySet,
      clockToleranceSeconds: 5,
      issuer: configuredIssuer(),
    });
    const handler = reportEndpoint(ordersPerDay, repository.database.bind(ordersPerDay.queries), {
      logger,
      verifier,
      ownership: repository.ownership,
    });
    return (token) => handler(requestWith(token), lambdaContext());
  };

  it('lets a flood of unknown kids cause at most one fetch per 30 s window', async () => {
    clock = 0;
    const invoke = chainOnFakeClock();
    const perWindow: number[] = [];

    for (let window = 0; window < 4; window += 1) {
      const start = window * (COOLDOWN + 1_000);
      const before = fetches();
      clock = start;
      await flood(invoke, await unknownKidTokens(200));
      clock = start + COOLDOWN - 1_000;
      await flood(invoke, await unknownKidTokens(200));
      perWindow.push(fetches() - before);
    }

    // Window 0: the cold fetch (its unknown kids wait out the cooldown); then one refetch each.
    expect(perWindow).toEqual([1, 1, 1, 1]);
  });
});
