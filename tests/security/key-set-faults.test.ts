/**
 * Key-set host faults (tests/support/fault-servers.ts) end to end through the real orders-per-day
 * chain and database. Cold start: a logged 500 INTERNAL_ERROR with spec body and CORS, in bounded
 * time, never a 401. Keys cached (aged on a fake clock): the cached keys keep serving 200 with a
 * warning. Rotation: at most one refetch. Recovery: 200 after the 5 s back-off, no restart.
 */
import type { APIGatewayProxyResult } from 'aws-lambda';
import { reportEndpoint } from '../../middleware/compose';
import { claimsFor, SAMPLE_OWNER, SAMPLE_OWNERS } from '../../tools/db/sample-data';
import { createIssuer, type LocalIssuer } from '../../tools/local/issuer';
import { createKeySet, KEY_SET_DEFAULTS, type KeySet } from '../../shared/auth/key-set';
import { createVerifier } from '../../shared/auth/verifier';
import { loadConfig } from '../../shared/config';
import type { IsoDate } from '../../shared/dates';
import { addDays, todayIn } from '../../tools/dates';
import { createLogger, type Logger } from '../../shared/logger';
import { ordersPerDay } from '../../shared/reports/orders-per-day';
import { createDependencies, type Dependencies } from '../../shared/runtime';
import { jsonBody, lambdaContext, restEvent } from '../support/events';
import {
  KEY_SET_FAULTS,
  REDIRECT_TARGET_PATH,
  startKeySetServer,
  unreachableKeySetUrl,
  type KeySetFault,
  type KeySetFaultServer,
} from '../support/fault-servers';
import { claimSecrets } from '../support/log-capture';
import { testIssuer, tokenFor } from '../support/tokens';

const ORDERS_DAY = '/v1/restaurants/{id}/reports/orders/day';
const HOUR_MS = 3_600_000;
/** The answer must come well before API Gateway's or the function's own time limit. */
const BOUND_MS = 3_000;
/** At cold start: the prefetch's timeout, then the request's own fetch's. */
const COLD_BOUND_MS = 2 * KEY_SET_DEFAULTS.timeoutMs + 1_000;

/** Spec 2.6 / 7: the body of a 500, with the CORS headers every answer carries (spec 4.3). */
const INTERNAL_ERROR_RESPONSE: APIGatewayProxyResult = {
  statusCode: 500,
  headers: {
    'Content-Type': 'application/json',
    'Access-Control-Expose-Headers': 'Content-Disposition',
    'Access-Control-Allow-Origin': '*',
    'Access-Control-Allow-Headers': 'Content-Type,Authorization',
    'Access-Control-Allow-Methods': 'OPTIONS,GET',
    'Access-Control-Allow-Credentials': 'false',
  },
  body: '{"state":"ERROR","code":"INTERNAL_ERROR","message":"Unknown error"}',
};

const TOKEN_INVALID = {
  state: 'ERROR',
  code: 'TOKEN_INVALID',
  message: 'The provided token cannot be verified',
};

type Fault = KeySetFault | 'unreachable';
const FAULTS: readonly Exclude<Fault, 'none'>[] = ['unreachable', ...KEY_SET_FAULTS];

/** Every line any container of this suite logged, for the no-secrets check at the end. */
const allLines: string[] = [];

interface Log {
  readonly logger: Logger;
  readonly entries: () => Record<string, unknown>[];
}

const collectingLog = (): Log => {
  const lines: string[] = [];
  return {
    logger: createLogger('debug', (line) => {
      lines.push(line);
      allLines.push(line);
    }),
    entries: () => lines.map((line) => JSON.parse(line) as Record<string, unknown>),
  };
};

const fetchFailures = (log: Log) =>
  log.entries().filter((entry) => entry.message === 'key set fetch failed');

let runIssuer: LocalIssuer;
let rotatedIssuer: LocalIssuer;
let token: string;
let rotatedToken: string;
/** Tokens signed by `freshToken`, checked with the others for the no-secrets check. */
const freshTokens: string[] = [];
/** The run's own container (global key set): its pool (and the reports' queries on it) is shared. */
let base: Dependencies;
const servers: KeySetFaultServer[] = [];
const containers: Dependencies[] = [];

beforeAll(async () => {
  runIssuer = await testIssuer();
  rotatedIssuer = await createIssuer(runIssuer.issuer);
  token = await tokenFor(SAMPLE_OWNER, {}, '30m');
  rotatedToken = await rotatedIssuer.sign(claimsFor(SAMPLE_OWNER), { expiresIn: '30m' });
  base = createDependencies(loadConfig(process.env), collectingLog().logger);
});

afterAll(async () => {
  await Promise.all(servers.map((server) => server.close()));
  await Promise.all([...containers, base].map((deps) => deps.close()));
  const text = allLines.join('\n');
  const secrets = [token, rotatedToken, ...freshTokens, ...SAMPLE_OWNERS.flatMap(claimSecrets)];
  for (const secret of secrets) {
    expect(text.includes(secret) ? secret : '').toBe('');
  }
});

/** A token of the run's issuer that no request has carried yet, so no cache holds it. */
const freshToken = async (): Promise<string> => {
  const fresh = await tokenFor(SAMPLE_OWNER, { jti: `fresh-${freshTokens.length}` }, '30m');
  freshTokens.push(fresh);
  return fresh;
};

const keySetServer = async (): Promise<KeySetFaultServer> => {
  const server = await startKeySetServer(runIssuer.publicKeySet);
  servers.push(server);
  return server;
};

/** The owner's last seven days of orders on R-1001: a report that needs the database. */
const reportEvent = (bearer: string = token) => {
  const today = todayIn('Asia/Dubai');
  return restEvent({
    resource: ORDERS_DAY,
    pathParameters: { id: 'R-1001' },
    headers: { Authorization: `Bearer ${bearer}` },
    query: { from: addDays(today, -6), to: today },
  });
};

type Endpoint = ReturnType<typeof reportEndpoint>;

const timed = async (endpoint: Endpoint, bearer?: string) => {
  const started = performance.now();
  const response = await endpoint(reportEvent(bearer), lambdaContext());
  return { response, elapsedMs: performance.now() - started };
};

/** A cold container as a Lambda builds it, pointed at `url`; the key set is prefetched at once. */
const coldContainer = (url: string) => {
  const log = collectingLog();
  const deps = createDependencies(loadConfig({ ...process.env, JWKS_URL: url }), log.logger);
  containers.push(deps);
  return {
    log,
    endpoint: reportEndpoint(ordersPerDay, deps.database.bind(ordersPerDay.queries), deps),
  };
};

/** A container built by hand around a key set on a fake clock, the run's settings, shared pool. */
const clockedContainer = (url: string) => {
  const log = collectingLog();
  const clock = { now: Date.now() };
  const keySet: KeySet = createKeySet({
    url: new URL(url),
    logger: log.logger,
    now: () => clock.now,
  });
  const config = loadConfig(process.env);
  const deps: Dependencies = {
    verifier: createVerifier({
      keySet,
      clockToleranceSeconds: config.clockToleranceSeconds,
      ...(config.issuer === undefined ? {} : { issuer: config.issuer }),
    }),
    keySet,
    ownership: {
      legacy: config.legacyPlatforms,
      today: () => new Date().toISOString().slice(0, 10) as IsoDate,
    },
    logger: log.logger,
    database: base.database,
    ready: Promise.resolve(),
    close: () => Promise.resolve(),
  };
  return {
    log,
    clock,
    keySet,
    endpoint: reportEndpoint(ordersPerDay, deps.database.bind(ordersPerDay.queries), deps),
  };
};

/** Puts the host into a fault; `unreachable` stops it, so its port refuses connections. */
const breakHost = async (server: KeySetFaultServer, fault: Exclude<Fault, 'none'>) => {
  if (fault === 'unreachable') await server.close();
  else server.fault = fault;
};

const reportRows = (response: APIGatewayProxyResult) =>
  (jsonBody(response) as { data: unknown[] }).data;

describe('Key-set host faults at cold start: nothing cached, a logged 500 in bounded time', () => {
  it('answers 200 through the same container when the host is healthy (the control)', async () => {
    const server = await keySetServer();
    const { endpoint } = coldContainer(server.url);

    const { response } = await timed(endpoint);

    expect(response.statusCode).toBe(200);
    expect(reportRows(response)).toHaveLength(7);
    expect(server.keySetRequests()).toBe(1);
  });

  it.each(FAULTS)(
    'key-set host %s at cold start: 500 INTERNAL_ERROR with the spec body and CORS, in bounded time, "key set fetch failed" logged once, the prefetch and one fetch of the request',
    async (fault) => {
      let server: KeySetFaultServer | undefined;
      if (fault !== 'unreachable') {
        server = await keySetServer();
        server.fault = fault;
      }
      const url = server?.url ?? (await unreachableKeySetUrl());

      const started = performance.now();
      const { log, endpoint } = coldContainer(url);
      const { response } = await timed(endpoint);
      const elapsedMs = performance.now() - started;

      expect(response).toStrictEqual(INTERNAL_ERROR_RESPONSE);
      expect(elapsedMs).toBeLessThan(COLD_BOUND_MS);
      expect(fetchFailures(log)).toEqual([
        expect.objectContaining({ level: 'error', servingStale: false }),
      ]);
      expect(log.entries().filter((entry) => entry.message === 'key set prefetch failed')).toEqual([
        expect.objectContaining({ level: 'info' }),
      ]);
      expect(log.entries()).toContainEqual(
        expect.objectContaining({
          level: 'error',
          message: 'request failed',
          status: 500,
          code: 'INTERNAL_ERROR',
          errorName: 'KeySetUnavailableError',
        }),
      );
      expect(log.entries()).toContainEqual(
        expect.objectContaining({ message: 'request', status: 500, code: 'INTERNAL_ERROR' }),
      );
      // The container's prefetch, then the request's own fetch.
      if (server) expect(server.keySetRequests()).toBe(2);
      if (fault === 'redirect') expect(server?.requests).not.toContain(REDIRECT_TARGET_PATH);
    },
  );

  it('rotating keys at cold start: a token of the retired key is 401 TOKEN_INVALID (not 500), the new key answers 200, one fetch', async () => {
    const server = await keySetServer();
    server.keySet = rotatedIssuer.publicKeySet;
    const { endpoint } = coldContainer(server.url);

    const retired = await timed(endpoint, token);
    const current = await timed(endpoint, rotatedToken);

    expect(retired.response.statusCode).toBe(401);
    expect(jsonBody(retired.response)).toEqual(TOKEN_INVALID);
    expect(current.response.statusCode).toBe(200);
    expect(reportRows(current.response)).toHaveLength(7);
    expect(server.keySetRequests()).toBe(1);
  });
});

describe('Key-set host faults after keys were cached: the cached keys keep serving', () => {
  it.each(FAULTS)(
    'key-set host %s when the cache is older than 3600 s: 200 from the cached keys, a warning with servingStale, one refetch per 30 s',
    async (fault) => {
      const server = await keySetServer();
      const { log, clock, endpoint } = clockedContainer(server.url);
      const fresh = await timed(endpoint, await freshToken());
      expect(fresh.response.statusCode).toBe(200);
      expect(server.keySetRequests()).toBe(1);

      await breakHost(server, fault);
      clock.now += HOUR_MS + 1_000;
      const stale = await timed(endpoint, await freshToken());

      expect(stale.response.statusCode).toBe(200);
      expect(stale.response.body).toBe(fresh.response.body);
      expect(stale.elapsedMs).toBeLessThan(BOUND_MS);
      expect(fetchFailures(log)).toEqual([
        expect.objectContaining({ level: 'warn', servingStale: true }),
      ]);
      const fetches = server.keySetRequests();
      expect(fetches).toBe(fault === 'unreachable' ? 1 : 2);
      if (fault === 'redirect') expect(server.requests).not.toContain(REDIRECT_TARGET_PATH);

      // Within the cooldown the broken host is not asked again; the cached keys answer at once.
      clock.now += KEY_SET_DEFAULTS.cooldownMs - 1_000;
      const again = await timed(endpoint, await freshToken());
      expect(again.response.statusCode).toBe(200);
      expect(server.keySetRequests()).toBe(fetches);
      expect(fetchFailures(log)).toHaveLength(1);
    },
  );
});

describe('Key rotation and recovery', () => {
  it('rotating keys after caching: the new kid is answered 200 after exactly one refetch, however many ask at once; the retired kid is refused 401', async () => {
    const server = await keySetServer();
    const { clock, endpoint } = clockedContainer(server.url);
    expect((await timed(endpoint, token)).response.statusCode).toBe(200);
    server.keySet = rotatedIssuer.publicKeySet;

    // Within 30 s of the last fetch an unknown kid causes no fetch (random kids cannot hammer
    // the host): the new token is refused for now.
    clock.now += 10_000;
    const early = await timed(endpoint, rotatedToken);
    expect(early.response.statusCode).toBe(401);
    expect(jsonBody(early.response)).toEqual(TOKEN_INVALID);
    expect(server.keySetRequests()).toBe(1);

    clock.now += KEY_SET_DEFAULTS.cooldownMs;
    const answers = await Promise.all(
      Array.from({ length: 50 }, () => endpoint(reportEvent(rotatedToken), lambdaContext())),
    );

    expect(answers.map((answer) => answer.statusCode)).toEqual(Array(50).fill(200));
    expect(server.keySetRequests()).toBe(2);
    const retired = await timed(endpoint, token);
    expect(retired.response.statusCode).toBe(401);
    expect(jsonBody(retired.response)).toEqual(TOKEN_INVALID);
    expect(server.keySetRequests()).toBe(2);
  });

  it('a cold container that failed answers 500 at once during the 5 s back-off, without fetching, then 200 once the host is back and the back-off has passed (fake clock)', async () => {
    const server = await keySetServer();
    server.fault = 'http-500';
    const { clock, keySet, endpoint } = clockedContainer(server.url);
    void keySet.prefetch();

    expect((await timed(endpoint)).response).toStrictEqual(INTERNAL_ERROR_RESPONSE);
    expect(server.keySetRequests()).toBe(2);
    server.fault = 'none';
    clock.now += KEY_SET_DEFAULTS.failureBackoffMs - 1_000;
    const backingOff = await timed(endpoint);
    expect(backingOff.response).toStrictEqual(INTERNAL_ERROR_RESPONSE);
    expect(server.keySetRequests()).toBe(2);

    clock.now += 1_001;
    const recovered = await timed(endpoint);

    expect(recovered.response.statusCode).toBe(200);
    expect(reportRows(recovered.response)).toHaveLength(7);
    expect(server.keySetRequests()).toBe(3);
  });

  it('a cold container built by createDependencies recovers without a restart once the host is back and 5 s have passed (real clock)', async () => {
    const server = await keySetServer();
    server.fault = 'not-json';
    const { endpoint } = coldContainer(server.url);

    const failed = await timed(endpoint);
    const failedAt = performance.now();
    server.fault = 'none';
    const soon = await timed(endpoint);
    await new Promise((resolve) =>
      setTimeout(resolve, KEY_SET_DEFAULTS.failureBackoffMs + 200 - (performance.now() - failedAt)),
    );
    const recovered = await timed(endpoint);

    expect(failed.response).toStrictEqual(INTERNAL_ERROR_RESPONSE);
    expect(soon.response).toStrictEqual(INTERNAL_ERROR_RESPONSE);
    expect(recovered.response.statusCode).toBe(200);
    expect(reportRows(recovered.response)).toHaveLength(7);
    expect(server.keySetRequests()).toBe(3);
  }, 15_000);
});
