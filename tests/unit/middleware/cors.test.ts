import { cors } from '../../../middleware/cors';
import { errorHandler } from '../../../middleware/error-handler';
import { forbidden, headerInvalid } from '../../../shared/errors';
import { httpApiEvent, lambdaContext, restEvent } from '../../support/events';
import {
  BEARER_CHALLENGE,
  chain,
  collectingLogger,
  corsJsonHeaders,
  FORBIDDEN_BODY,
  HEADER_INVALID_BODY,
  INTERNAL_BODY,
  okHandler,
  ORDERS_ROUTE,
  preflightResponse,
} from './fixtures';

const ORIGIN = { Origin: 'https://portal.example.com' };
const PATH = { id: 'R-1001' };

/** GET ORDERS_ROUTE through a REST (v1) event. */
const ordersEvent = () => restEvent({ resource: ORDERS_ROUTE, pathParameters: PATH });

/** cors, then the error handler: the order compose.ts registers them in. */
const corsThenErrors = () =>
  chain()
    .use(cors())
    .use(errorHandler({ logger: collectingLogger().logger }));

const laterStepThatMustNotRun = () => {
  throw new Error('a later middleware ran for a preflight');
};

describe('cors: preflight (spec 4.3)', () => {
  it.each([
    [
      'REST v1 with an Origin',
      () =>
        restEvent({
          method: 'OPTIONS',
          resource: ORDERS_ROUTE,
          pathParameters: PATH,
          headers: ORIGIN,
        }),
    ],
    [
      'REST v1 without an Origin',
      () => restEvent({ method: 'OPTIONS', resource: ORDERS_ROUTE, pathParameters: PATH }),
    ],
    [
      'HTTP API v2 with an Origin',
      () =>
        httpApiEvent({
          method: 'OPTIONS',
          resource: ORDERS_ROUTE,
          pathParameters: PATH,
          headers: ORIGIN,
        }),
    ],
    [
      'HTTP API v2 without an Origin',
      () => httpApiEvent({ method: 'OPTIONS', resource: ORDERS_ROUTE, pathParameters: PATH }),
    ],
  ])(
    'answers an OPTIONS request (%s) with 200, exactly the spec headers plus Max-Age and an empty body, before any later middleware',
    async (_name, event) => {
      // Prepare
      const handler = okHandler();
      const lambda = chain().use(cors()).before(laterStepThatMustNotRun).handler(handler);

      // Act
      const response = await lambda(event(), lambdaContext());

      // Assess
      expect(response).toStrictEqual(preflightResponse());
      expect(handler).not.toHaveBeenCalled();
    },
  );

  it('announces the configured preflight cache lifetime, zero included', async () => {
    // Prepare
    const event = httpApiEvent({ method: 'OPTIONS', resource: ORDERS_ROUTE, pathParameters: PATH });

    // Act
    const zero = await chain()
      .use(cors({ maxAge: 0 }))
      .handler(okHandler())(event, lambdaContext());
    const hour = await chain()
      .use(cors({ maxAge: 3600 }))
      .handler(okHandler())(event, lambdaContext());

    // Assess
    expect(zero).toStrictEqual(preflightResponse('0'));
    expect(hour).toStrictEqual(preflightResponse('3600'));
  });

  it('gives each preflight its own headers object', async () => {
    // Prepare
    const lambda = chain().use(cors()).handler(okHandler());
    const event = () =>
      restEvent({ method: 'OPTIONS', resource: ORDERS_ROUTE, pathParameters: PATH });
    const first = await lambda(event(), lambdaContext());
    first.headers!['Access-Control-Allow-Origin'] = 'https://evil.example';

    // Act
    const second = await lambda(event(), lambdaContext());

    // Assess
    expect(second).toStrictEqual(preflightResponse());
  });
});

describe('cors: other methods', () => {
  it.each([
    [
      'REST v1 without an Origin',
      () => restEvent({ resource: ORDERS_ROUTE, pathParameters: PATH }),
    ],
    [
      'REST v1 with an Origin',
      () => restEvent({ resource: ORDERS_ROUTE, pathParameters: PATH, headers: ORIGIN }),
    ],
    [
      'HTTP API v2 without an Origin',
      () => httpApiEvent({ resource: ORDERS_ROUTE, pathParameters: PATH }),
    ],
    [
      'HTTP API v2 with an Origin',
      () => httpApiEvent({ resource: ORDERS_ROUTE, pathParameters: PATH, headers: ORIGIN }),
    ],
  ])(
    'decorates a GET success (%s) with Allow-Origin * and Allow-Credentials false',
    async (_name, event) => {
      // Prepare
      const handler = okHandler();
      const lambda = chain().use(cors()).handler(handler);

      // Act
      const response = await lambda(event(), lambdaContext());

      // Assess
      expect(response).toStrictEqual({
        statusCode: 200,
        headers: corsJsonHeaders(),
        body: '{"data":[]}',
      });
      expect(handler).toHaveBeenCalledTimes(1);
    },
  );

  it.each([
    [
      'a 403 rendered by the error handler registered after it',
      forbidden,
      ordersEvent,
      403,
      corsJsonHeaders(),
      FORBIDDEN_BODY,
    ],
    [
      'a 401 and keeps its WWW-Authenticate challenge',
      headerInvalid,
      () => httpApiEvent({ resource: ORDERS_ROUTE, pathParameters: PATH, headers: ORIGIN }),
      401,
      corsJsonHeaders(BEARER_CHALLENGE),
      HEADER_INVALID_BODY,
    ],
  ])('decorates %s', async (_n, refusal, event, statusCode, headers, body) => {
    // Prepare
    const handler = okHandler();
    const lambda = corsThenErrors()
      .before(() => {
        throw refusal();
      })
      .handler(handler);

    // Act
    const response = await lambda(event(), lambdaContext());

    // Assess
    expect(response).toStrictEqual({ statusCode, headers, body });
    expect(handler).not.toHaveBeenCalled();
  });

  it('decorates the 500 of a handler failure rendered by the error handler', async () => {
    // Prepare
    const lambda = corsThenErrors().handler(() => Promise.reject(new Error('database is down')));

    // Act
    const response = await lambda(ordersEvent(), lambdaContext());

    // Assess
    expect(response).toStrictEqual({
      statusCode: 500,
      headers: corsJsonHeaders(),
      body: INTERNAL_BODY,
    });
  });
});

describe('cors: options', () => {
  it.each([-1, 1.5, Number.NaN, Number.POSITIVE_INFINITY])(
    'refuses maxAge %p when the factory runs',
    (maxAge) => {
      // Act
      const build = () => cors({ maxAge });

      // Assess
      expect(build).toThrow(new TypeError('cors: maxAge must be a whole number of seconds'));
    },
  );
});
