import fc from 'fast-check';
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey } from 'jose';
import { reportEndpoint } from '../../../middleware/compose';
import type { KeySet } from '../../../shared/auth/key-set';
import { createVerifier } from '../../../shared/auth/verifier';
import type { DateRange, IsoDate } from '../../../shared/dates';
import { eachDay } from '../../../tools/dates';
import type { GatewayEvent, GatewayResult } from '../../../shared/http/event';
import { dishes } from '../../../shared/reports/dishes';
import { ordersPerDay } from '../../../shared/reports/orders-per-day';
import type { ReportScope } from '../../../shared/reports/domain';
import type { DishesQueries } from '../../../shared/reports/dishes.sql';
import type { OrdersPerDayQueries } from '../../../shared/reports/orders-per-day.sql';
import type { Dependencies } from '../../../shared/runtime';
import { httpApiEvent, lambdaContext, restEvent, type RequestSpec } from '../../support/events';
import { localKeySet } from '../../support/local-keys';
import {
  BEARER_CHALLENGE,
  collectingLogger,
  corsJsonHeaders,
  DISHES_ROUTE,
  errorBody,
  FORBIDDEN_BODY,
  HEADER_INVALID_BODY,
  INTERNAL_BODY,
  INVALID_TOKEN_CHALLENGE,
  ORDERS_ROUTE,
  preflightResponse,
  TOKEN_EXPIRED_BODY,
  TOKEN_UNVERIFIABLE_BODY,
  type CollectingLogger,
} from './fixtures';

const ISSUER = 'https://auth.portal.test';
const KID = 'test-key';

const RESTAURANTS = [
  {
    id: 'R-1001',
    platforms: [
      { restaurantId: 'tb-ae-5501', platformId: 'TB_AE', platformKey: 'TB_AE' },
      { restaurantId: 'tb-kw-6601', platformId: 'TB_KW', platformKey: 'TB_KW' },
    ],
  },
];

interface Signing {
  readonly privateKey: CryptoKey;
  readonly otherKey: CryptoKey;
  readonly keySet: KeySet;
}

let signing: Signing;

beforeAll(async () => {
  const { publicKey, privateKey } = await generateKeyPair('RS256');
  const other = await generateKeyPair('RS256');
  const jwk = { ...(await exportJWK(publicKey)), kid: KID, alg: 'RS256', use: 'sig' };
  signing = { privateKey, otherKey: other.privateKey, keySet: localKeySet([jwk]) };
});

interface TokenOptions {
  readonly authSchema?: unknown;
  readonly expiresAt?: number;
  readonly key?: CryptoKey;
}

const nowSeconds = () => Math.floor(Date.now() / 1000);

const sign = ({ authSchema = { restaurants: RESTAURANTS }, expiresAt, key }: TokenOptions = {}) =>
  new SignJWT({ authSchema: JSON.stringify(authSchema), version: '2' })
    .setProtectedHeader({ alg: 'RS256', kid: KID })
    .setSubject('owner-1')
    .setIssuer(ISSUER)
    .setIssuedAt(nowSeconds() - 60)
    .setExpirationTime(expiresAt ?? nowSeconds() + 300)
    .sign(key ?? signing.privateKey);

/** The reports' queries in memory: rows for every day of the range; what was asked is kept. */
const memoryRepository = () => {
  const calls: { report: string; scope: ReportScope; range: DateRange }[] = [];
  const repository: OrdersPerDayQueries & DishesQueries = {
    ordersPerDay: (scope, range) => {
      calls.push({ report: 'ordersPerDay', scope, range });
      return Promise.resolve(
        eachDay(range).map((date, i) => ({ date, orderCount: i + 1, revenue: 10.5 * (i + 1) })),
      );
    },
    dishes: (scope, range) => {
      calls.push({ report: 'dishes', scope, range });
      return Promise.resolve([
        { name: 'Falafel wrap', orderCount: 4, revenue: 60 },
        { name: 'Hummus', orderCount: 2, revenue: 18.25 },
      ]);
    },
  };
  return { repository, calls };
};

const dependencies = (
  log: CollectingLogger = collectingLogger(),
): Omit<Dependencies, 'database'> => ({
  verifier: createVerifier({ keySet: signing.keySet, clockToleranceSeconds: 0, issuer: ISSUER }),
  keySet: signing.keySet,
  ownership: { legacy: { aliases: new Map() }, today: () => '2026-01-15' as IsoDate },
  logger: log.logger,
  ready: Promise.resolve(),
  close: () => Promise.resolve(),
});

const GOOD_DATES = { from: '2026-01-01', to: '2026-01-03' };
const BAD_DATES = { from: '2026-01-01', to: '2026-03-01', 'compare[from]': 'yesterday' };

const ordersRequest = (
  spec: { id?: string; token?: string; query?: RequestSpec['query']; method?: string } = {},
): RequestSpec => ({
  method: spec.method ?? 'GET',
  resource: ORDERS_ROUTE,
  pathParameters: { id: spec.id ?? 'R-1001' },
  headers: {
    Origin: 'https://portal.example.com',
    ...(spec.token === undefined ? {} : { Authorization: `Bearer ${spec.token}` }),
  },
  query: spec.query ?? GOOD_DATES,
});

const ordersEndpoint = (log?: CollectingLogger) => {
  const memory = memoryRepository();
  return { ...memory, lambda: reportEndpoint(ordersPerDay, memory.repository, dependencies(log)) };
};

/** The report chain lets a browser read Content-Disposition (CSV downloads). */
const EXPOSED = { 'Access-Control-Expose-Headers': 'Content-Disposition' };

const refusal = (statusCode: number, body: string, extra: Record<string, string> = {}) => ({
  statusCode,
  headers: corsJsonHeaders({ ...EXPOSED, ...extra }),
  body,
});
const served = (body: string) => ({ statusCode: 200, headers: corsJsonHeaders(EXPOSED), body });

describe('reportEndpoint: the order of the chain', () => {
  it('answers a preflight without a token, a restaurant check or dates', async () => {
    // Prepare
    const { lambda, calls } = ordersEndpoint();
    const event = restEvent({
      method: 'OPTIONS',
      resource: ORDERS_ROUTE,
      pathParameters: { id: 'R-9999' },
    });

    // Act
    const response = await lambda(event, lambdaContext());

    // Assess
    expect(response).toStrictEqual(preflightResponse());
    expect(calls).toEqual([]);
  });

  const MISSING_FROM = errorBody('VALIDATION_ERROR', 'Error', [
    { field: 'from', code: 'FIELD_CANNOT_BE_EMPTY', message: 'from cannot be empty' },
  ]);
  const OUT_OF_RANGE =
    '{"state":"ERROR","code":"OUT_OF_RANGE","message":"Only 31 days can be selected"}';
  it.each([
    [
      '401 to a request without a token even when its dates are bad too',
      restEvent,
      false,
      'R-9999',
      BAD_DATES,
      refusal(401, HEADER_INVALID_BODY, BEARER_CHALLENGE),
    ],
    [
      '403 to a valid token for another restaurant even when its dates are bad too',
      restEvent,
      true,
      'R-9999',
      BAD_DATES,
      refusal(403, FORBIDDEN_BODY),
    ],
    [
      '400 to the owner of the restaurant when the dates are bad',
      restEvent,
      true,
      'R-1001',
      { to: '2026-01-03' },
      refusal(400, MISSING_FROM),
    ],
    [
      '400 OUT_OF_RANGE to the owner for a range of 32 days',
      httpApiEvent,
      true,
      'R-1001',
      { from: '2026-01-01', to: '2026-02-01' },
      refusal(400, OUT_OF_RANGE),
    ],
  ])('answers %s', async (_what, build, withToken, id, query, expected) => {
    // Prepare
    const { lambda, calls } = ordersEndpoint();
    const token = withToken ? await sign() : undefined;

    // Act
    const response = await lambda(build(ordersRequest({ id, token, query })), lambdaContext());

    // Assess
    expect(response).toStrictEqual(expected);
    expect(calls).toEqual([]);
  });
});

describe('reportEndpoint: answers', () => {
  const dayRows =
    '{"data":[' +
    '{"data":{"date":"2026-01-01","orderCount":1,"revenue":10.5}},' +
    '{"data":{"date":"2026-01-02","orderCount":2,"revenue":21}},' +
    '{"data":{"date":"2026-01-03","orderCount":3,"revenue":31.5}}]}';

  it.each<[string, (spec: RequestSpec) => GatewayEvent]>([
    ['REST v1', restEvent],
    ['HTTP API v2', httpApiEvent],
  ])('answers the owner (%s) with 200, the rows and the CORS headers', async (_v, build) => {
    // Prepare
    const { lambda, calls } = ordersEndpoint();
    const token = await sign();

    // Act
    const response = await lambda(build(ordersRequest({ token })), lambdaContext());

    // Assess
    expect(response).toStrictEqual(served(dayRows));
    expect(calls).toEqual([
      {
        report: 'ordersPerDay',
        scope: { restaurantId: 'R-1001', platformId: 'TB_AE' },
        range: GOOD_DATES,
      },
    ]);
  });

  it('asks for the platform and restaurant the request names', async () => {
    // Prepare
    const { lambda, calls } = ordersEndpoint();
    const token = await sign();
    const spec = ordersRequest({ id: 'tb-kw-6601', token });

    // Act
    const response = await lambda(
      restEvent({ ...spec, headers: { ...spec.headers, 'x-platform-id': 'TB_KW' } }),
      lambdaContext(),
    );

    // Assess
    expect(response).toStrictEqual(served(dayRows));
    expect(calls.map((call) => call.scope)).toEqual([
      { restaurantId: 'R-1001', platformId: 'TB_KW' },
    ]);
  });

  it('adds the compare period to each row when compare dates are given', async () => {
    // Prepare
    const { lambda } = ordersEndpoint();
    const token = await sign();
    const query = {
      from: '2026-01-08',
      to: '2026-01-09',
      'compare[from]': '2026-01-01',
      'compare[to]': '2026-01-02',
    };

    // Act
    const response = await lambda(restEvent(ordersRequest({ token, query })), lambdaContext());

    // Assess
    expect(response).toStrictEqual(
      served(
        JSON.stringify({
          data: [
            {
              data: { date: '2026-01-08', orderCount: 1, revenue: 10.5 },
              compare: { date: '2026-01-01', orderCount: 1, revenue: 10.5 },
            },
            {
              data: { date: '2026-01-09', orderCount: 2, revenue: 21 },
              compare: { date: '2026-01-02', orderCount: 2, revenue: 21 },
            },
          ],
        }),
      ),
    );
  });

  it('serves the dishes report through the same chain', async () => {
    // Prepare
    const memory = memoryRepository();
    const lambda = reportEndpoint(dishes, memory.repository, dependencies());
    const token = await sign();

    // Act
    const response = await lambda(
      httpApiEvent({
        resource: DISHES_ROUTE,
        pathParameters: { id: 'R-1001' },
        headers: { authorization: `Bearer ${token}` },
        query: { ...GOOD_DATES, 'compare[from]': 'ignored' },
      }),
      lambdaContext(),
    );

    // Assess
    expect(response).toStrictEqual(
      served(
        '{"data":[{"data":{"name":"Falafel wrap","orderCount":4,"revenue":60}},' +
          '{"data":{"name":"Hummus","orderCount":2,"revenue":18.25}}]}',
      ),
    );
  });

  it.each([
    [
      'TOKEN_EXPIRED to an expired token',
      (): TokenOptions => ({ expiresAt: nowSeconds() - 30 }),
      TOKEN_EXPIRED_BODY,
    ],
    [
      'TOKEN_INVALID to a token signed by another key',
      (): TokenOptions => ({ key: signing.otherKey }),
      TOKEN_UNVERIFIABLE_BODY,
    ],
  ])('answers 401 %s', async (_what, options, body) => {
    // Prepare
    const { lambda, calls } = ordersEndpoint();
    const token = await sign(options());

    // Act
    const response = await lambda(restEvent(ordersRequest({ token })), lambdaContext());

    // Assess
    expect(response).toStrictEqual(refusal(401, body, INVALID_TOKEN_CHALLENGE));
    expect(calls).toEqual([]);
  });

  it('answers 500 INTERNAL_ERROR without the SQL when the report query fails', async () => {
    // Prepare
    const sql = 'select * from orders where restaurant_id = $1 -- relation "orders" does not exist';
    const failing: OrdersPerDayQueries = { ordersPerDay: () => Promise.reject(new Error(sql)) };
    const log = collectingLogger();
    const lambda = reportEndpoint(ordersPerDay, failing, dependencies(log));
    const token = await sign();

    // Act
    const response = await lambda(restEvent(ordersRequest({ token })), lambdaContext());

    // Assess
    expect(response).toStrictEqual(refusal(500, INTERNAL_BODY));
    expect(log.entries()).toMatchObject([
      { level: 'error', status: 500, code: 'INTERNAL_ERROR', errorName: 'Error' },
      { level: 'info', message: 'request', status: 500, code: 'INTERNAL_ERROR' },
    ]);
    expect(log.lines.join('\n')).not.toContain('select');
    expect(log.lines.join('\n')).not.toContain(token);
  });
});

describe('reportEndpoint: property', () => {
  it('never answers 5xx, always carries Allow-Origin *, and renders every refusal as spec 2.6', async () => {
    // Prepare
    const owner = await sign();
    const expired = await sign({ expiresAt: nowSeconds() - 30 });
    const foreign = await sign({ key: signing.otherKey });
    const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

    const text = fc.string({ unit: 'grapheme', maxLength: 24 });
    const day = fc
      .date({ min: new Date('1999-12-01'), max: new Date('2030-12-31'), noInvalidDate: true })
      .map((date) => date.toISOString().slice(0, 10));
    const value = fc.oneof(day, text);
    const crafted = fc
      .tuple(
        fc.oneof(
          fc.jsonValue(),
          fc.record(
            {
              alg: fc.constantFrom('RS256', 'ES256', 'HS256', 'none', 'PS256'),
              kid: fc.constantFrom(KID, 'unknown'),
              crit: fc.array(fc.constantFrom('b64', 'exp', 'x')),
              b64: fc.boolean(),
            },
            { requiredKeys: [] },
          ),
        ),
        fc.jsonValue(),
        fc.string({ maxLength: 40 }),
      )
      .map(([header, payload, signature]) =>
        [b64(header), b64(payload), Buffer.from(signature).toString('base64url')].join('.'),
      );
    const schema = fc.oneof(
      fc.jsonValue(),
      fc.record({
        restaurants: fc.array(
          fc.record({
            id: fc.oneof(fc.constantFrom('R-1001', ''), text),
            platforms: fc.array(
              fc.record(
                {
                  restaurantId: fc.oneof(fc.constant('tb-ae-5501'), text),
                  platformId: fc.oneof(fc.constantFrom('TB_AE', 'TB_KW'), text),
                  platformKey: fc.oneof(fc.constant('TB_AE'), text),
                },
                { requiredKeys: [] },
              ),
              { maxLength: 3 },
            ),
          }),
          { maxLength: 3 },
        ),
      }),
    );
    const authorization = fc.oneof(
      fc.constantFrom(owner, expired, foreign).map((token) => `Bearer ${token}`),
      crafted.map((token) => `Bearer ${token}`),
      schema.map((authSchema) => ({ authSchema })),
      text,
      fc.array(fc.constant(`Bearer ${owner}`), { minLength: 2, maxLength: 2 }),
    );
    const headerValue = fc.oneof(text, fc.array(text, { maxLength: 3 }));
    const request = fc.record({
      v2: fc.boolean(),
      method: fc.oneof(fc.constantFrom('GET', 'OPTIONS', 'POST', 'HEAD', 'get', 'options'), text),
      id: fc.option(fc.oneof(fc.constantFrom('R-1001', 'tb-ae-5501', 'R-9999', '', ' '), text), {
        nil: undefined,
      }),
      authorization: fc.option(authorization, { nil: undefined }),
      platform: fc.option(fc.oneof(fc.constantFrom('TB_AE', 'TB_KW', 'HS_AE', ''), headerValue), {
        nil: undefined,
      }),
      headers: fc.dictionary(
        fc.oneof(fc.constantFrom('Origin', 'authorization', 'X-Platform-Id'), text),
        headerValue,
        { maxKeys: 4 },
      ),
      query: fc.dictionary(
        fc.oneof(fc.constantFrom('from', 'to', 'compare[from]', 'compare[to]'), text),
        fc.oneof(value, fc.array(value, { maxLength: 3 })),
        { maxKeys: 5 },
      ),
    });
    const { lambda } = ordersEndpoint();
    const responses: GatewayResult[] = [];

    // Act (and Assess each generated request)
    await fc.assert(
      fc.asyncProperty(request, async (input) => {
        const auth =
          typeof input.authorization === 'object' && !Array.isArray(input.authorization)
            ? `Bearer ${await sign({ authSchema: input.authorization.authSchema })}`
            : input.authorization;
        const spec: RequestSpec = {
          method: input.method,
          resource: ORDERS_ROUTE,
          ...(input.id === undefined ? {} : { pathParameters: { id: input.id } }),
          headers: {
            ...input.headers,
            ...(auth === undefined ? {} : { Authorization: auth }),
            ...(input.platform === undefined ? {} : { 'X-Platform-Id': input.platform }),
          },
          query: input.query,
        };
        const response = await lambda(
          input.v2 ? httpApiEvent(spec) : restEvent(spec),
          lambdaContext(),
        );
        responses.push(response);
        expect(response.statusCode).toBeLessThan(500);
        expect(response.headers?.['Access-Control-Allow-Origin']).toBe('*');
        if (response.statusCode >= 400) {
          const body = JSON.parse(response.body) as Record<string, unknown>;
          expect(body.state).toBe('ERROR');
          expect(typeof body.code).toBe('string');
          expect(typeof body.message).toBe('string');
          if ('errors' in body) expect(body.code).toBe('VALIDATION_ERROR');
        }
      }),
      { numRuns: 300 },
    );

    // Assess
    expect(responses.some((response) => response.statusCode === 200)).toBe(true);
  });
});
