/**
 * What the warm-path benchmarks share: the orders/day event, a Lambda context, tokens, and the
 * chain over in-memory report queries with its verifier built as createDependencies builds it.
 * Imported by tools/bench/warm-child.ts, which is bundled as serverless.yml bundles the functions.
 */
import type { APIGatewayProxyEvent } from 'aws-lambda';
import { reportEndpoint } from '../../middleware/compose';
import type { PortalContext } from '../../middleware/types';
import { createKeySet } from '../../shared/auth/key-set';
import { TOKEN_CACHE_DEFAULTS } from '../../shared/auth/token-cache';
import { createVerifier, type VerifierOptions, type Verifier } from '../../shared/auth/verifier';
import { loadConfig } from '../../shared/config';
import type { IsoDate } from '../../shared/dates';
import { addDays, eachDay } from '../dates';
import { benchContext } from './context';
import { createLogger } from '../../shared/logger';
import { ordersPerDay } from '../../shared/reports/orders-per-day';
import type { OrdersPerDayQueries } from '../../shared/reports/orders-per-day.sql';
import { claimsFor, SAMPLE_OWNER } from '../db/sample-data';
import type { LocalIssuer } from '../local/issuer';

/** Orders per day's queries answered from memory: fixed totals for every day, any scope. */
export const memoryReports: OrdersPerDayQueries = {
  ordersPerDay: (_scope, range) =>
    Promise.resolve(eachDay(range).map((date) => ({ date, orderCount: 12, revenue: 345.5 }))),
};

export const lambdaContext = (): PortalContext => benchContext();

export const orderDayEvent = (token: string, today: IsoDate): APIGatewayProxyEvent => {
  const headers = {
    Accept: 'application/json',
    Authorization: `Bearer ${token}`,
    Origin: 'https://portal.example.com',
    'X-Platform-Id': 'TB_AE',
  };
  const query = { from: addDays(today, -6), to: today };
  return {
    resource: '/v1/restaurants/{id}/reports/orders/day',
    path: '/v1/restaurants/R-1001/reports/orders/day',
    httpMethod: 'GET',
    headers,
    multiValueHeaders: Object.fromEntries(Object.entries(headers).map(([k, v]) => [k, [v]])),
    queryStringParameters: query,
    multiValueQueryStringParameters: Object.fromEntries(
      Object.entries(query).map(([k, v]) => [k, [v]]),
    ),
    pathParameters: { id: 'R-1001' },
    stageVariables: null,
    requestContext: {
      accountId: '123456789012',
      apiId: 'bench',
      authorizer: null,
      protocol: 'HTTP/1.1',
      httpMethod: 'GET',
      identity: { sourceIp: '203.0.113.10' } as APIGatewayProxyEvent['requestContext']['identity'],
      path: '/v1/restaurants/R-1001/reports/orders/day',
      stage: 'bench',
      requestId: 'bench',
      requestTimeEpoch: Date.now(),
      resourceId: 'r',
      resourcePath: '/v1/restaurants/{id}/reports/orders/day',
    },
    body: null,
    isBase64Encoded: false,
  };
};

export const signTokens = async (issuer: LocalIssuer, count: number): Promise<string[]> => {
  const tokens: string[] = [];
  for (let i = 0; i < count; i += 1) {
    tokens.push(
      await issuer.sign({ ...claimsFor(SAMPLE_OWNER), jti: `bench-${i}` }, { expiresIn: '2h' }),
    );
  }
  return tokens;
};

export type VerifierFactory = (options: VerifierOptions) => Verifier;

/** A chain over in-memory report queries, its verifier built by `factory` on a warmed key set. */
export const buildChain = (issuer: LocalIssuer, url: string, factory: VerifierFactory) => {
  const config = loadConfig({
    JWKS_URL: url,
    DATABASE_URL: 'postgres://unused@127.0.0.1:1/unused',
    JWT_ISSUER: issuer.issuer,
  });
  const logger = createLogger('info', () => undefined);
  const keySet = createKeySet({ url: config.jwksUrl, logger });
  const verifier = factory({ keySet, issuer: issuer.issuer, clockToleranceSeconds: 0 });
  const handler = reportEndpoint(ordersPerDay, memoryReports, {
    logger,
    verifier,
    ownership: {
      legacy: config.legacyPlatforms,
      // As createDependencies does (not todayIn: an Intl formatter per call would skew the chain).
      today: () => new Date().toISOString().slice(0, 10) as IsoDate,
    },
  });
  return handler;
};

/** The verifier as createDependencies builds it: with the container's token cache. */
export const productionVerifier: VerifierFactory = (options) =>
  createVerifier({ ...options, cache: TOKEN_CACHE_DEFAULTS });
