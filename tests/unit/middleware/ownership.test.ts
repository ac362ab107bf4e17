import type { APIGatewayProxyEvent } from 'aws-lambda';
import { errorHandler } from '../../../middleware/error-handler';
import { ownership, type OwnershipOptions } from '../../../middleware/ownership';
import type { PortalClaims } from '../../../shared/auth/claims';
import type { Access, OwnershipRules } from '../../../shared/auth/ownership';
import type { IsoDate } from '../../../shared/dates';
import type { GatewayEvent } from '../../../shared/http/event';
import { claimsOf, grant } from '../../support/claims';
import { httpApiEvent, lambdaContext, restEvent, type RequestSpec } from '../../support/events';
import {
  chain,
  collectingLogger,
  FORBIDDEN_BODY,
  INTERNAL_BODY,
  ORDERS_ROUTE,
  presetClaims,
  stateEcho,
} from './fixtures';

const CLAIMS = claimsOf([
  grant('R-1001', [
    ['TB_AE', 'tb-ae-5501'],
    ['TB_KW', 'tb-kw-6601', 'TBLEGACY_KW'],
  ]),
  grant('R-2002', [['TB_KW', 'tb-kw-6602']]),
]);

const RULES: OwnershipRules = {
  legacy: { aliases: new Map([['TBLEGACY_KW', 'TB_KW']]), sunset: '2026-06-30' as IsoDate },
  today: () => '2026-01-15' as IsoDate,
};

const PLATFORM_ROUTE = '/v1/platforms/{platformId}/restaurants/{id}/orders/today';

const JSON_HEADERS = { 'Content-Type': 'application/json' } as const;

const setup = (options: Partial<OwnershipOptions> = {}, claims: PortalClaims | null = CLAIMS) => {
  const handler = stateEcho('access');
  const base = chain().use(errorHandler({ logger: collectingLogger().logger }));
  const lambda = (claims === null ? base : base.use(presetClaims(claims)))
    .use(ownership({ rules: RULES, ...options }))
    .handler(handler);
  return { handler, lambda };
};

const granted = (access: Access) => ({
  statusCode: 200,
  headers: JSON_HEADERS,
  body: JSON.stringify({ access }),
});

const FORBIDDEN = { statusCode: 403, headers: JSON_HEADERS, body: FORBIDDEN_BODY };

const ID_EMPTY = {
  statusCode: 400,
  headers: JSON_HEADERS,
  body: JSON.stringify({
    state: 'ERROR',
    code: 'VALIDATION_ERROR',
    message: 'Error',
    errors: [{ field: 'id', code: 'FIELD_CANNOT_BE_EMPTY', message: 'id cannot be empty' }],
  }),
};

const versions: [string, (spec: RequestSpec) => GatewayEvent][] = [
  ['REST v1', restEvent],
  ['HTTP API v2', httpApiEvent],
];

/** Each named request as a REST (v1) and as an HTTP API (v2) event. */
const inEveryVersion = (requests: readonly [string, RequestSpec][]) =>
  versions.flatMap(([v, build]) => requests.map(([name, spec]) => [v, name, build(spec)] as const));

/** Expects the chain to answer `event` with `answer` without reaching the handler. */
const expectAnsweredBefore = async (event: GatewayEvent, answer: unknown) => {
  const { lambda, handler } = setup();
  const response = await lambda(event, lambdaContext());
  expect(response).toStrictEqual(answer);
  expect(handler).not.toHaveBeenCalled();
};

const orders = (id: string, headers?: RequestSpec['headers']): RequestSpec => ({
  resource: ORDERS_ROUTE,
  pathParameters: { id },
  ...(headers ? { headers } : {}),
});

/** What the handler is handed for R-1001 on its TB_KW platform. */
const R1001_ON_TB_KW = {
  restaurantId: 'R-1001',
  platformId: 'TB_KW',
  platformRestaurantId: 'tb-kw-6601',
};

describe('ownership: granted access (spec 5.4, 5.5)', () => {
  it.each(versions)(
    'grants (%s) an owned restaurant on the token’s first platform when no platform is sent',
    async (_v, build) => {
      // Prepare
      const { lambda, handler } = setup();

      // Act
      const response = await lambda(build(orders('R-1001')), lambdaContext());

      // Assess
      expect(response).toStrictEqual(
        granted({
          restaurantId: 'R-1001',
          platformId: 'TB_AE',
          platformRestaurantId: 'tb-ae-5501',
        }),
      );
      expect(handler).toHaveBeenCalledTimes(1);
    },
  );

  const spellings = ['X-Platform-Id', 'x-platform-id', 'X-PLATFORM-ID', 'x-Platform-ID'];
  const cases = versions.flatMap(([v, build]) =>
    spellings.map((name) => [v, name, build] as const),
  );

  it.each(cases)('reads (%s) the platform from the header spelled %s', async (_v, name, build) => {
    // Prepare
    const { lambda } = setup();

    // Act
    const response = await lambda(build(orders('R-1001', { [name]: 'TB_KW' })), lambdaContext());

    // Assess
    expect(response).toStrictEqual(granted(R1001_ON_TB_KW));
  });

  it.each([
    [
      'grants a restaurant named by its id on the requested platform',
      orders('tb-kw-6602', { 'X-Platform-Id': 'TB_KW' }),
      { restaurantId: 'R-2002', platformId: 'TB_KW', platformRestaurantId: 'tb-kw-6602' },
    ],
    [
      'accepts the legacy platform key before its sunset as the platform it stands for',
      orders('R-1001', { 'X-Platform-Id': 'TBLEGACY_KW' }),
      R1001_ON_TB_KW,
    ],
    [
      'accepts the same platform sent twice',
      orders('R-1001', { 'X-Platform-Id': ['TB_KW', 'TB_KW'] }),
      R1001_ON_TB_KW,
    ],
  ])('%s', async (_behaviour, spec, access) => {
    // Prepare
    const { lambda } = setup();

    // Act
    const response = await lambda(restEvent(spec), lambdaContext());

    // Assess
    expect(response).toStrictEqual(granted(access));
  });
});

describe('ownership: forbidden (spec 7)', () => {
  const refused: [string, RequestSpec][] = [
    ['a restaurant the token does not hold', orders('R-9999')],
    [
      'an owned restaurant on a platform it is not on',
      orders('R-2002', { 'X-Platform-Id': 'TB_AE' }),
    ],
    ['a platform the token does not hold', orders('R-1001', { 'X-Platform-Id': 'HS_AE' })],
    [
      'a platform restaurantId of another platform',
      orders('tb-kw-6601', { 'X-Platform-Id': 'TB_AE' }),
    ],
    [
      'two different platforms in one repeated header',
      orders('R-1001', { 'X-Platform-Id': ['TB_AE', 'TB_KW'] }),
    ],
  ];
  it.each(inEveryVersion(refused))('refuses (%s) %s with 403 Forbidden', (_v, _n, event) =>
    expectAnsweredBefore(event, FORBIDDEN),
  );

  it.each<[string, RequestSpec, Partial<OwnershipOptions>, PortalClaims]>([
    [
      '(REST v1) two different platforms in two spellings of the header',
      orders('R-1001', { 'X-Platform-Id': 'TB_AE', 'x-platform-id': 'TB_KW' }),
      {},
      CLAIMS,
    ],
    [
      'the legacy platform key after its sunset',
      orders('R-1001', { 'X-Platform-Id': 'TBLEGACY_KW' }),
      { rules: { ...RULES, today: () => '2026-07-01' as IsoDate } },
      CLAIMS,
    ],
    [
      'a token that holds no restaurant',
      orders('R-1001'),
      {},
      { exp: 1_800_000_000, restaurants: [] },
    ],
  ])('refuses %s', async (_n, spec, options, claims) => {
    // Prepare
    const { lambda, handler } = setup(options, claims);

    // Act
    const response = await lambda(restEvent(spec), lambdaContext());

    // Assess
    expect(response).toStrictEqual(FORBIDDEN);
    expect(handler).not.toHaveBeenCalled();
  });
});

describe('ownership: an empty {id} is a validation error (spec 4.1)', () => {
  const empty: [string, RequestSpec][] = [
    ['an empty id', orders('')],
    ['an id of spaces', orders('   ')],
    ['no path parameters at all', { resource: ORDERS_ROUTE }],
    [
      'path parameters without id',
      { resource: PLATFORM_ROUTE, pathParameters: { platformId: 'TB_AE' } },
    ],
  ];
  it.each(inEveryVersion(empty))(
    'answers (%s) %s with 400 VALIDATION_ERROR on id',
    (_v, _n, event) => expectAnsweredBefore(event, ID_EMPTY),
  );

  it('answers 400 for a REST v1 event whose pathParameters are null', async () => {
    // Prepare
    const event: APIGatewayProxyEvent = { ...restEvent(orders('R-1001')), pathParameters: null };

    // Act / Assess
    await expectAnsweredBefore(event, ID_EMPTY);
  });
});

describe('ownership: a platformId path parameter', () => {
  it('is ignored: only X-Platform-Id (or else the token) names the platform', async () => {
    // Prepare
    const { lambda } = setup();
    const event = restEvent({
      resource: PLATFORM_ROUTE,
      pathParameters: { platformId: 'TB_KW', id: 'R-1001' },
    });

    // Act
    const response = await lambda(event, lambdaContext());

    // Assess
    expect(response).toStrictEqual(
      granted({ restaurantId: 'R-1001', platformId: 'TB_AE', platformRestaurantId: 'tb-ae-5501' }),
    );
  });
});

describe('ownership: wiring', () => {
  it('answers 500 when no earlier step verified the claims', async () => {
    // Prepare
    const { lambda, handler } = setup({}, null);

    // Act
    const response = await lambda(restEvent(orders('R-1001')), lambdaContext());

    // Assess
    expect(response).toStrictEqual({ statusCode: 500, headers: JSON_HEADERS, body: INTERNAL_BODY });
    expect(handler).not.toHaveBeenCalled();
  });
});

describe('a path id left undecoded by the gateway', () => {
  it.each(['%E0%A4%A', 'R-1001%', '%zz', 'a%2'])(
    'answers %j with 400 INVALID_ENCODING, not a crash or a 403',
    async (id) => {
      // Prepare
      const { lambda, handler } = setup();

      // Act
      const result = await lambda(
        restEvent({ resource: ORDERS_ROUTE, pathParameters: { id } }),
        lambdaContext(),
      );

      // Assess
      expect(handler).not.toHaveBeenCalled();
      expect(result.statusCode).toBe(400);
      expect(JSON.parse(result.body)).toEqual({
        state: 'ERROR',
        code: 'VALIDATION_ERROR',
        message: 'Error',
        errors: [
          { field: 'id', code: 'INVALID_ENCODING', message: 'id is not validly percent-encoded' },
        ],
      });
    },
  );
});
