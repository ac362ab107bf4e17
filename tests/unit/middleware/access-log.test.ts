import type { APIGatewayProxyEvent } from 'aws-lambda';
import postgres from 'postgres';
import { accessLog } from '../../../middleware/access-log';
import { baseChain } from '../../../middleware/compose';
import { KeySetUnavailableError } from '../../../shared/auth/key-set';
import { forbidden, internalError } from '../../../shared/errors';
import { createMetrics } from '../../../shared/metrics';
import { lambdaContext, restEvent } from '../../support/events';
import { parseEmf, requestDirectives } from '../shared/emf';
import { collectingLogger, okHandler, ORDERS_ROUTE } from './fixtures';

const TOKEN = 'eyJhbGciOiJSUzI1NiJ9.eyJlbWFpbCI6Im93bmVyQGV4YW1wbGUuY29tIn0.c2ln';

const chainLogging = () => {
  const log = collectingLogger();
  return { log, base: baseChain({ logger: log.logger }) };
};

/** The metric members of a request line, with these values over a warm 200's. */
const metricMembers = (values: Record<string, unknown> = {}) => ({
  Service: 'portal-service-api',
  Route: `GET ${ORDERS_ROUTE}`,
  // Outside Lambda: the release dimensions' local values.
  FunctionName: 'local',
  Version: '$LATEST',
  StatusClass: '2xx',
  Requests: 1,
  Latency: expect.any(Number) as unknown,
  ColdStarts: 0,
  KeySetFailures: 0,
  DatabaseErrors: 0,
  ...values,
});

/** The access-log line of a GET of ORDERS_ROUTE by `event`, with these members. */
const requestLine = (event: APIGatewayProxyEvent, members: Record<string, unknown>) => ({
  level: 'info',
  message: 'request',
  requestId: event.requestContext.requestId,
  awsRequestId: expect.any(String) as unknown,
  route: `GET ${ORDERS_ROUTE}`,
  method: 'GET',
  ...members,
});

const SQL = 'select * from orders where restaurant_id = $1';
const postgresError = () =>
  new postgres.PostgresError({
    message: `relation "orders" does not exist: ${SQL}`,
    code: '42P01',
  } as never);
const refusedConnection = () =>
  Object.assign(new Error('connect ECONNREFUSED 10.0.0.5:5432'), { code: 'ECONNREFUSED' });

describe('accessLog', () => {
  it('writes one line per request with its id, route, method, status, latency and cold start', async () => {
    const log = collectingLogger();
    const times = [100, 112.34, 200, 203];
    const access = accessLog({ logger: log.logger, now: () => times.shift() ?? 0 });
    const { default: middy } = await import('@middy/core');
    const lambda = middy(access.plugin).use(access.middleware).handler(okHandler());
    const event = restEvent({
      resource: ORDERS_ROUTE,
      pathParameters: { id: 'R-1001' },
      headers: { Authorization: `Bearer ${TOKEN}` },
      query: { from: '2026-01-01', to: '2026-01-02' },
    });

    await lambda(event, lambdaContext());
    await lambda(event, lambdaContext());

    expect(log.untimed()).toEqual([
      requestLine(event, {
        status: 200,
        latencyMs: 12.3,
        coldStart: true,
        ...metricMembers({ StatusClass: '2xx', Latency: 12.3, ColdStarts: 1 }),
        _aws: expect.any(Object) as unknown,
      }),
      expect.objectContaining({ status: 200, latencyMs: 3, coldStart: false }) as unknown,
    ]);
    expect(log.lines.join('\n')).not.toMatch(/R-1001|2026-01-01|eyJ|owner@example\.com/);
  });

  it('logs a preflight that CORS answered early, and the code of a refusal', async () => {
    const { log, base } = chainLogging();
    const refusing = base.handler(() => Promise.reject(forbidden()));

    await refusing(restEvent({ method: 'OPTIONS', resource: ORDERS_ROUTE }), lambdaContext());
    await refusing(restEvent({ resource: ORDERS_ROUTE }), lambdaContext());

    const lines = log.entries().filter((entry) => entry.message === 'request');
    expect(lines.map(({ method, status, code }) => ({ method, status, code }))).toEqual([
      { method: 'OPTIONS', status: 200, code: undefined },
      { method: 'GET', status: 403, code: 'FORBIDDEN' },
    ]);
  });
});

describe('accessLog: the line is also the request metrics (CloudWatch EMF)', () => {
  const requestLines = (log: ReturnType<typeof collectingLogger>) =>
    log.lines.filter((line) => (JSON.parse(line) as { message: string }).message === 'request');

  it.each<[string, () => Promise<unknown>, number, string, Record<string, unknown>]>([
    ['a 200', () => Promise.resolve({ statusCode: 200, body: '{"data":[]}' }), 200, '2xx', {}],
    ['a 403', () => Promise.reject(forbidden()), 403, '4xx', { code: 'FORBIDDEN' }],
    [
      'a 500 for want of a key set',
      () => Promise.reject(internalError(new KeySetUnavailableError('no usable key set'))),
      500,
      '5xx',
      { code: 'INTERNAL_ERROR', failure: 'keySet' },
    ],
    [
      'a 500 from a PostgresError',
      () => Promise.reject(postgresError()),
      500,
      '5xx',
      { code: 'INTERNAL_ERROR', failure: 'database', DatabaseErrors: 1 },
    ],
    [
      'a 500 from a refused database connection',
      () => Promise.reject(refusedConnection()),
      500,
      '5xx',
      { code: 'INTERNAL_ERROR', failure: 'database', DatabaseErrors: 1 },
    ],
    [
      'a 500 of any other cause',
      () => Promise.reject(new TypeError('boom')),
      500,
      '5xx',
      { code: 'INTERNAL_ERROR' },
    ],
  ])(
    'writes %s as one valid EMF line with its values',
    async (_name, handler, status, statusClass, extra) => {
      // Prepare
      const log = collectingLogger();
      const lambda = baseChain({ logger: log.logger }).handler(handler as never);
      const event = restEvent({ resource: ORDERS_ROUTE, pathParameters: { id: 'R-1001' } });

      // Act
      await lambda(restEvent({ method: 'OPTIONS', resource: ORDERS_ROUTE }), lambdaContext());
      await lambda(event, lambdaContext());

      // Assess
      const [, line] = requestLines(log);
      const document = parseEmf(line!);
      const {
        time,
        _aws: aws,
        ...members
      } = document as { time: string; _aws: { Timestamp: number } } & Record<string, unknown>;
      expect(members).toEqual(
        requestLine(event, {
          status,
          latencyMs: expect.any(Number) as unknown,
          coldStart: false,
          ...metricMembers({ StatusClass: statusClass, ...extra }),
        }),
      );
      expect(members.Latency).toBe(members.latencyMs);
      expect(aws).toEqual({ Timestamp: Date.parse(time), CloudWatchMetrics: requestDirectives() });
      expect(log.lines.join('\n')).not.toMatch(/R-1001|select|ECONNREFUSED 10|\n\s+at /);
    },
  );

  it('counts the cold start on the first request only, preflights included', async () => {
    // Prepare
    const log = collectingLogger();
    const lambda = baseChain({ logger: log.logger }).handler(okHandler());

    // Act
    await lambda(restEvent({ method: 'OPTIONS', resource: ORDERS_ROUTE }), lambdaContext());
    await lambda(restEvent({ resource: ORDERS_ROUTE }), lambdaContext());
    await lambda(restEvent({ resource: ORDERS_ROUTE }), lambdaContext());

    // Assess
    const lines = requestLines(log).map(parseEmf);
    expect(
      lines.map(({ method, ColdStarts, coldStart }) => ({ method, ColdStarts, coldStart })),
    ).toEqual([
      { method: 'OPTIONS', ColdStarts: 1, coldStart: true },
      { method: 'GET', ColdStarts: 0, coldStart: false },
      { method: 'GET', ColdStarts: 0, coldStart: false },
    ]);
  });

  it('writes no metrics for a non-HTTP event, which ends the cold start', async () => {
    // Prepare
    const log = collectingLogger();
    const lambda = baseChain({ logger: log.logger }).handler(okHandler());
    const invoke = lambda as (event: unknown, context: unknown) => Promise<unknown>;

    // Act
    await invoke({ source: 'serverless-plugin-warmup' }, lambdaContext());
    await invoke({ source: 'aws.events', 'detail-type': 'Scheduled Event' }, lambdaContext());

    // Assess
    expect(log.lines).toHaveLength(2);
    expect(log.lines.join('\n')).not.toMatch(/_aws|Requests|ColdStarts/);

    // Act: the first request after the warm-up
    await lambda(restEvent({ resource: ORDERS_ROUTE }), lambdaContext());

    // Assess
    expect(parseEmf(log.lines[2]!)).toMatchObject({
      message: 'request',
      Requests: 1,
      ColdStarts: 0,
    });
  });

  it('uses the metrics it is given: their namespace, Service, FunctionName and Version', async () => {
    // Prepare
    const log = collectingLogger();
    const metrics = createMetrics({
      namespace: 'Ops/Portal',
      service: 'portal-service-api-staging',
      functionName: 'portal-service-api-staging-ordersPerDay',
      version: '7',
    });
    const access = accessLog({ logger: log.logger, metrics });
    const { default: middy } = await import('@middy/core');
    const lambda = middy(access.plugin).use(access.middleware).handler(okHandler());

    // Act
    await lambda(restEvent({ resource: ORDERS_ROUTE }), lambdaContext());

    // Assess
    const line = parseEmf(log.lines[0]!) as {
      Service: string;
      _aws: { CloudWatchMetrics: { Namespace: string }[] };
    };
    expect(line).toMatchObject({
      Service: 'portal-service-api-staging',
      FunctionName: 'portal-service-api-staging-ordersPerDay',
      Version: '7',
    });
    expect(line._aws.CloudWatchMetrics.map(({ Namespace }) => Namespace)).toEqual([
      'Ops/Portal',
      'Ops/Portal',
    ]);
  });

  it('reads METRICS_NAMESPACE and METRICS_SERVICE by default, when it is built', async () => {
    // Prepare
    const log = collectingLogger();
    const saved = { ...process.env };
    Object.assign(process.env, { METRICS_NAMESPACE: 'Env/Portal', METRICS_SERVICE: 'svc-dev' });
    let access: ReturnType<typeof accessLog>;
    try {
      access = accessLog({ logger: log.logger });
    } finally {
      for (const key of Object.keys(process.env)) {
        if (!(key in saved)) Reflect.deleteProperty(process.env, key);
      }
      Object.assign(process.env, saved);
    }
    const { default: middy } = await import('@middy/core');
    const lambda = middy(access.plugin).use(access.middleware).handler(okHandler());

    // Act
    await lambda(restEvent({ resource: ORDERS_ROUTE }), lambdaContext());

    // Assess
    expect(parseEmf(log.lines[0]!)).toMatchObject({
      Service: 'svc-dev',
      _aws: { CloudWatchMetrics: [{ Namespace: 'Env/Portal' }, { Namespace: 'Env/Portal' }] },
    });
  });

  it('keeps a line valid when the request was not timed or the response had no status', async () => {
    // Prepare: the plugin alone (no `before` to time), a handler answering without a status.
    const log = collectingLogger();
    const access = accessLog({ logger: log.logger });
    const { default: middy } = await import('@middy/core');
    const lambda = middy(access.plugin).handler(() => Promise.resolve({ body: '' } as never));

    // Act
    await lambda(restEvent({ resource: ORDERS_ROUTE }), lambdaContext());

    // Assess
    const line = parseEmf(log.lines[0]!);
    expect(line).not.toHaveProperty('Latency');
    expect(line).not.toHaveProperty('StatusClass');
    expect(line._aws).toEqual({
      Timestamp: expect.any(Number) as unknown,
      CloudWatchMetrics: [
        {
          Namespace: 'PortalServiceApi',
          Dimensions: [['Service']],
          Metrics: [{ Name: 'Requests', Unit: 'Count' }],
        },
        requestDirectives()[1],
      ],
    });
  });
});
