import type { APIGatewayProxyEvent } from 'aws-lambda';
import { bearer, type BearerOptions } from '../../../middleware/bearer';
import { errorHandler } from '../../../middleware/error-handler';
import type { GatewayEvent } from '../../../shared/http/event';
import { httpApiEvent, lambdaContext, restEvent, type RequestSpec } from '../../support/events';
import {
  BEARER_CHALLENGE,
  chain,
  collectingLogger,
  HEADER_INVALID_BODY,
  INVALID_TOKEN_CHALLENGE,
  ORDERS_ROUTE,
  SAMPLE_JWT,
  stateEcho,
  TOKEN_UNVERIFIABLE_BODY,
} from './fixtures';

type Headers = RequestSpec['headers'];

const request = (headers: Headers): RequestSpec => ({
  resource: ORDERS_ROUTE,
  pathParameters: { id: 'R-1001' },
  ...(headers ? { headers } : {}),
});

const setup = (opts?: BearerOptions) => {
  const handler = stateEcho('token');
  const lambda = chain()
    .use(errorHandler({ logger: collectingLogger().logger }))
    .use(bearer(opts))
    .handler(handler);
  return { handler, lambda };
};

const stored = (token: string) => ({
  statusCode: 200,
  headers: { 'Content-Type': 'application/json' },
  body: JSON.stringify({ token }),
});

const HEADER_INVALID = {
  statusCode: 401,
  headers: { 'Content-Type': 'application/json', ...BEARER_CHALLENGE },
  body: HEADER_INVALID_BODY,
};

const TOKEN_UNVERIFIABLE = {
  statusCode: 401,
  headers: { 'Content-Type': 'application/json', ...INVALID_TOKEN_CHALLENGE },
  body: TOKEN_UNVERIFIABLE_BODY,
};

const versions: [string, (spec: RequestSpec) => GatewayEvent][] = [
  ['REST v1', restEvent],
  ['HTTP API v2', httpApiEvent],
];

describe('bearer: a well-formed Authorization header (spec 5.1)', () => {
  const names = ['Authorization', 'authorization', 'AUTHORIZATION'];
  const schemes = ['Bearer', 'bearer', 'BEARER'];
  const cases = versions.flatMap(([version, build]) =>
    names.flatMap((name) => schemes.map((scheme) => [version, name, scheme, build] as const)),
  );

  it.each(cases)('stores the token (%s, header %s, scheme %s)', async (_v, name, scheme, build) => {
    // Prepare
    const { lambda, handler } = setup();

    // Act
    const response = await lambda(
      build(request({ [name]: `${scheme} ${SAMPLE_JWT}` })),
      lambdaContext(),
    );

    // Assess
    expect(response).toStrictEqual(stored(SAMPLE_JWT));
    expect(handler).toHaveBeenCalledTimes(1);
  });

  it.each([
    ['tolerates extra spaces around the token', undefined, `Bearer   ${SAMPLE_JWT}  `, SAMPLE_JWT],
    [
      'accepts a token of exactly maxTokenLength characters',
      12,
      'Bearer abc.def.ghij',
      'abc.def.ghij',
    ],
    [
      'accepts a token of the default maximum of 16 KiB',
      undefined,
      `Bearer ${'a'.repeat(16 * 1024)}`,
      'a'.repeat(16 * 1024),
    ],
  ])('%s', async (_behaviour, maxTokenLength, authorization, token) => {
    // Prepare
    const { lambda } = setup(maxTokenLength === undefined ? undefined : { maxTokenLength });

    // Act
    const response = await lambda(
      restEvent(request({ Authorization: authorization })),
      lambdaContext(),
    );

    // Assess
    expect(response).toStrictEqual(stored(token));
  });
});

describe('bearer: a missing or malformed Authorization header is 401 TOKEN_INVALID (spec 7)', () => {
  const malformed: [string, Headers][] = [
    ['no Authorization header', undefined],
    ['an empty value', { Authorization: '' }],
    ['"Bearer" alone', { Authorization: 'Bearer' }],
    ['"Bearer " followed by spaces only', { Authorization: 'Bearer     ' }],
    ['the Basic scheme', { Authorization: 'Basic xyz' }],
    ['the Token scheme', { Authorization: 'Token xyz' }],
    ['the token without a scheme', { Authorization: SAMPLE_JWT }],
    ['a scheme glued to the token', { Authorization: `Bearer${SAMPLE_JWT}` }],
    ['a space inside the token', { Authorization: 'Bearer abc.def ghi' }],
    ['a quoted token', { Authorization: `Bearer "${SAMPLE_JWT}"` }],
    ['a tab between scheme and token', { Authorization: `Bearer\t${SAMPLE_JWT}` }],
    ['padding inside the token', { Authorization: 'Bearer abc=def' }],
    ['the token in another header', { 'X-Authorization': `Bearer ${SAMPLE_JWT}` }],
  ];
  const cases = versions.flatMap(([version, build]) =>
    malformed.map(([name, headers]) => [version, name, build, headers] as const),
  );

  it.each(cases)('refuses (%s) %s without reaching the handler', async (_v, _n, build, headers) => {
    // Prepare
    const { lambda, handler } = setup();

    // Act
    const response = await lambda(build(request(headers)), lambdaContext());

    // Assess
    expect(response).toStrictEqual(HEADER_INVALID);
    expect(handler).not.toHaveBeenCalled();
  });

  it.each<[string, GatewayEvent]>([
    [
      'REST v1: one name sent twice (multiValueHeaders)',
      restEvent(request({ Authorization: [`Bearer ${SAMPLE_JWT}`, `Bearer ${SAMPLE_JWT}`] })),
    ],
    [
      'REST v1: two spellings of the name',
      restEvent(
        request({
          Authorization: `Bearer ${SAMPLE_JWT}`,
          authorization: 'Bearer other.to.ken',
        }),
      ),
    ],
    [
      'REST v1: two spellings of the name with the same value',
      restEvent(
        request({
          Authorization: `Bearer ${SAMPLE_JWT}`,
          AUTHORIZATION: `Bearer ${SAMPLE_JWT}`,
        }),
      ),
    ],
    [
      'HTTP API v2: two values joined by a comma',
      httpApiEvent(request({ authorization: [`Bearer ${SAMPLE_JWT}`, 'Bearer other.to.ken'] })),
    ],
    [
      'HTTP API v2: the same value twice, joined by a comma',
      httpApiEvent(request({ authorization: [`Bearer ${SAMPLE_JWT}`, `Bearer ${SAMPLE_JWT}`] })),
    ],
  ])('refuses two Authorization headers (%s) without reaching the handler', async (_n, event) => {
    // Prepare
    const { lambda, handler } = setup();

    // Act
    const response = await lambda(event, lambdaContext());

    // Assess
    expect(response).toStrictEqual(HEADER_INVALID);
    expect(handler).not.toHaveBeenCalled();
  });

  it.each<[string, () => GatewayEvent]>([
    [
      'a REST v1 request whose header maps are null',
      () =>
        ({
          ...restEvent(request(undefined)),
          headers: null,
          multiValueHeaders: null,
        }) as unknown as APIGatewayProxyEvent,
    ],
    [
      'a token in the query string (it is never read from there)',
      () =>
        restEvent({
          ...request(undefined),
          query: { access_token: SAMPLE_JWT, authorization: `Bearer ${SAMPLE_JWT}` },
        }),
    ],
  ])('refuses %s without reaching the handler', async (_n, event) => {
    // Prepare
    const { lambda, handler } = setup();

    // Act
    const response = await lambda(event(), lambdaContext());

    // Assess
    expect(response).toStrictEqual(HEADER_INVALID);
    expect(handler).not.toHaveBeenCalled();
  });
});

describe('bearer: token length', () => {
  it.each([
    ['REST v1: a token longer than maxTokenLength', restEvent, 12, 'abc.def.ghijk'],
    ['HTTP API v2: a token longer than maxTokenLength', httpApiEvent, 12, 'abc.def.ghijk'],
    [
      'REST v1: a token one character over the default 16 KiB',
      restEvent,
      undefined,
      'a'.repeat(16 * 1024 + 1),
    ],
  ])('refuses (%s) as one that cannot be verified', async (_n, build, maxTokenLength, token) => {
    // Prepare
    const { lambda, handler } = setup(
      maxTokenLength === undefined ? undefined : { maxTokenLength },
    );

    // Act
    const response = await lambda(
      build(request({ Authorization: `Bearer ${token}` })),
      lambdaContext(),
    );

    // Assess
    expect(response).toStrictEqual(TOKEN_UNVERIFIABLE);
    expect(handler).not.toHaveBeenCalled();
  });

  it.each([0, -1, 1.5, Number.NaN])('refuses maxTokenLength %p when the factory runs', (value) => {
    // Act
    const build = () => bearer({ maxTokenLength: value });

    // Assess
    expect(build).toThrow(new TypeError('bearer: maxTokenLength must be a positive whole number'));
  });
});
