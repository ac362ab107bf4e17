import type { APIGatewayProxyEvent } from 'aws-lambda';
import postgres from 'postgres';
import { errorHandler } from '../../../middleware/error-handler';
import type { PortalContext } from '../../../middleware/types';
import { KeySetUnavailableError } from '../../../shared/auth/key-set';
import {
  cannotBeEmpty,
  forbidden,
  headerInvalid,
  internalError,
  outOfRange,
  tokenExpired,
  tokenUnverifiable,
  validationError,
  type PortalError,
} from '../../../shared/errors';
import { lambdaContext, restEvent } from '../../support/events';
import {
  BEARER_CHALLENGE,
  chain,
  collectingLogger,
  errorBody,
  FORBIDDEN_BODY,
  INTERNAL_BODY,
  INVALID_TOKEN_CHALLENGE,
  ORDERS_ROUTE,
  type CollectingLogger,
} from './fixtures';

const ISO_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const JSON_HEADERS = { 'Content-Type': 'application/json' } as const;
const SQL = 'select * from orders where restaurant_id = $1 and owner_password = $2';
const TOKEN = 'eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJzZWNyZXQtb3duZXIifQ.c2VjcmV0LXNpZ25hdHVyZQ';

/** A chain whose handler fails with `thrown`, rendered by the error handler. */
const failingWith = (thrown: unknown, log: CollectingLogger = collectingLogger()) =>
  chain()
    .use(errorHandler({ logger: log.logger }))
    .handler(() => {
      throw thrown;
    });

const event = () => restEvent({ resource: ORDERS_ROUTE, pathParameters: { id: 'R-1001' } });

/** The log line about `request` (a GET of ORDERS_ROUTE), its time aside. */
const lineAbout = (
  request: APIGatewayProxyEvent,
  level: string,
  message: string,
  members: Record<string, unknown>,
) => ({
  level,
  message,
  route: `GET ${ORDERS_ROUTE}`,
  requestId: request.requestContext.requestId,
  ...members,
});

describe('errorHandler: portal errors (spec 2.6, 7)', () => {
  it.each<[string, () => PortalError, number, Record<string, string>, string]>([
    [
      'OUT_OF_RANGE',
      outOfRange,
      400,
      JSON_HEADERS,
      '{"state":"ERROR","code":"OUT_OF_RANGE","message":"Only 31 days can be selected"}',
    ],
    [
      'VALIDATION_ERROR',
      () => validationError([cannotBeEmpty('from'), cannotBeEmpty('to')]),
      400,
      JSON_HEADERS,
      errorBody('VALIDATION_ERROR', 'Error', [
        { field: 'from', code: 'FIELD_CANNOT_BE_EMPTY', message: 'from cannot be empty' },
        { field: 'to', code: 'FIELD_CANNOT_BE_EMPTY', message: 'to cannot be empty' },
      ]),
    ],
    [
      'VALIDATION_ERROR without entries',
      () => validationError([]),
      400,
      JSON_HEADERS,
      '{"state":"ERROR","code":"VALIDATION_ERROR","message":"Error","errors":[]}',
    ],
    [
      'TOKEN_INVALID (bad header)',
      headerInvalid,
      401,
      { ...JSON_HEADERS, ...BEARER_CHALLENGE },
      '{"state":"ERROR","code":"TOKEN_INVALID","message":"Authorization header is invalid. Did you forget to add \\"Bearer \\"?"}',
    ],
    [
      'TOKEN_INVALID (unverifiable)',
      () => tokenUnverifiable(new Error('signature mismatch')),
      401,
      { ...JSON_HEADERS, ...INVALID_TOKEN_CHALLENGE },
      '{"state":"ERROR","code":"TOKEN_INVALID","message":"The provided token cannot be verified"}',
    ],
    [
      'TOKEN_EXPIRED',
      () => tokenExpired(new Error('exp claim')),
      401,
      { ...JSON_HEADERS, ...INVALID_TOKEN_CHALLENGE },
      '{"state":"ERROR","code":"TOKEN_EXPIRED","message":"The provided token has expired"}',
    ],
    ['FORBIDDEN', forbidden, 403, JSON_HEADERS, FORBIDDEN_BODY],
    ['INTERNAL_ERROR', () => internalError(new Error(SQL)), 500, JSON_HEADERS, INTERNAL_BODY],
  ])(
    'renders %s as its status, headers and spec body',
    async (_code, make, status, headers, body) => {
      // Prepare
      const lambda = failingWith(make());

      // Act
      const response = await lambda(event(), lambdaContext());

      // Assess
      expect(response).toStrictEqual({ statusCode: status, headers, body });
    },
  );

  it('renders a portal error thrown by a before step and never reaches the handler', async () => {
    // Prepare
    let reached = false;
    const lambda = chain()
      .use(errorHandler({ logger: collectingLogger().logger }))
      .before(() => {
        throw forbidden();
      })
      .handler(() => {
        reached = true;
        return Promise.resolve({ statusCode: 200, body: '' });
      });

    // Act
    const response = await lambda(event(), lambdaContext());

    // Assess
    expect(response).toStrictEqual({
      statusCode: 403,
      headers: JSON_HEADERS,
      body: FORBIDDEN_BODY,
    });
    expect(reached).toBe(false);
  });
});

describe('errorHandler: anything else is an unknown error', () => {
  const sqlAndToken = new Error(`${SQL} failed for token ${TOKEN}`);
  const exposedLookalike = Object.assign(new Error(`${SQL} (${TOKEN})`), {
    statusCode: 404,
    expose: true,
  });

  it.each<[string, unknown]>([
    ['a plain Error', new Error('boom')],
    ['a TypeError', new TypeError("Cannot read properties of undefined (reading 'rows')")],
    ['a thrown string', `${SQL} ${TOKEN}`],
    ['an Error whose message holds SQL text and a token', sqlAndToken],
    ['a foreign error carrying its own statusCode and expose', exposedLookalike],
    ['undefined', undefined],
  ])('answers %s with 500 INTERNAL_ERROR and nothing of its text', async (_name, thrown) => {
    // Prepare
    const lambda = failingWith(thrown);

    // Act
    const response = await lambda(event(), lambdaContext());

    // Assess
    expect(response).toStrictEqual({
      statusCode: 500,
      headers: JSON_HEADERS,
      body: '{"state":"ERROR","code":"INTERNAL_ERROR","message":"Unknown error"}',
    });
    expect(response.body).not.toContain('select');
    expect(response.body).not.toContain(TOKEN);
  });
});

describe('errorHandler: logging', () => {
  it('logs a 500 at level error with the error name, never its message, token or stack', async () => {
    // Prepare
    const log = collectingLogger();
    const request = event();
    const thrown = new Error(`${SQL} failed for token ${TOKEN}`);

    // Act
    await failingWith(thrown, log)(request, lambdaContext());

    // Assess
    expect(log.entries()[0]?.time).toMatch(ISO_TIME);
    expect(log.untimed()).toStrictEqual([
      lineAbout(request, 'error', 'request failed', {
        status: 500,
        code: 'INTERNAL_ERROR',
        errorName: 'Error',
      }),
    ]);
    const [line] = log.lines;
    expect(line).not.toContain('select');
    expect(line).not.toContain('owner_password');
    expect(line).not.toContain(TOKEN);
    expect(line).not.toContain('stack');
    expect(line).not.toMatch(/\n\s+at /);
    expect(line).not.toContain(thrown.stack!.split('\n')[1]!.trim());
  });

  it.each<[string, unknown, Record<string, unknown>]>([
    [
      'the name of the cause of an internal portal error',
      internalError(new TypeError(SQL)),
      { level: 'error', status: 500, code: 'INTERNAL_ERROR', errorName: 'TypeError' },
    ],
    [
      'a thrown string by its type only',
      `${SQL} ${TOKEN}`,
      { level: 'error', errorName: 'string' },
    ],
  ])('logs %s', async (_what, thrown, entry) => {
    // Prepare
    const log = collectingLogger();

    // Act
    await failingWith(thrown, log)(event(), lambdaContext());

    // Assess
    expect(log.entries()).toMatchObject([entry]);
    expect(log.lines.join('\n')).not.toContain(TOKEN);
    expect(log.lines.join('\n')).not.toContain('select');
  });

  it.each<[string, () => PortalError, number]>([
    ['FORBIDDEN', forbidden, 403],
    ['TOKEN_INVALID', headerInvalid, 401],
    ['OUT_OF_RANGE', outOfRange, 400],
  ])(
    'logs a refused request (%s) at level debug with its code (the access log carries it at info)',
    async (code, make, status) => {
      // Prepare
      const log = collectingLogger();
      const request = event();

      // Act
      await failingWith(make(), log)(request, lambdaContext());

      // Assess
      expect(log.entries()[0]?.time).toMatch(ISO_TIME);
      expect(log.untimed()).toStrictEqual([
        lineAbout(request, 'debug', 'request refused', { status, code }),
      ]);
    },
  );
});

describe('errorHandler: what a 500 is put down to (for the access log and its metrics)', () => {
  const postgresError = () => new postgres.PostgresError({ message: SQL, code: '57014' } as never);

  it.each<[string, () => unknown, string | undefined]>([
    [
      'a KeySetUnavailableError behind INTERNAL_ERROR',
      () => internalError(new KeySetUnavailableError('no usable key set')),
      'keySet',
    ],
    ['a PostgresError thrown by a query', postgresError, 'database'],
    ['a PostgresError behind INTERNAL_ERROR', () => internalError(postgresError()), 'database'],
    [
      'a refused database connection',
      () => Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }),
      'database',
    ],
    ['a plain Error', () => new Error('boom'), undefined],
    ['INTERNAL_ERROR without a cause', () => internalError(), undefined],
    ['a refusal (403), whatever its cause', forbidden, undefined],
  ])('records %s as %j on the invocation state', async (_name, make, failure) => {
    // Prepare
    const log = collectingLogger();
    const context = lambdaContext() as PortalContext;

    // Act
    await failingWith(make(), log)(event(), context);

    // Assess
    expect(context.portal?.failure).toBe(failure);
    expect(log.lines.join('\n')).not.toContain('select');
  });
});
