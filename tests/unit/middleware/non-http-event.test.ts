import { jest } from '@jest/globals';
import type { Context } from 'aws-lambda';
import { baseChain } from '../../../middleware/compose';
import {
  isGatewayEvent,
  nonHttpEvent,
  nonHttpEventKind,
  PRE_TRAFFIC_SOURCE,
  type NonHttpEventKind,
} from '../../../middleware/non-http-event';
import { httpApiEvent, lambdaContext, restEvent, scheduledEvent } from '../../support/events';
import { signal } from '../../support/signals';
import { chain, collectingLogger, corsJsonHeaders, okHandler, ORDERS_ROUTE } from './fixtures';

/** A secret-looking value that must never reach a log line. */
const SECRET = 'eyJhbGciOiJSUzI1NiJ9.c2VjcmV0.c2ln';

/** An SQS batch: records, no request. */
const sqsEvent = () => ({
  Records: [
    {
      messageId: '059f36b4-87a3-44ab-83d2-661975830a7d',
      body: SECRET,
      eventSource: 'aws:sqs',
      eventSourceARN: 'arn:aws:sqs:eu-west-1:123456789012:queue',
    },
  ],
});

/** Events that are not API Gateway requests, with the kind each is logged as. */
const NON_HTTP: [name: string, event: () => unknown, kind: NonHttpEventKind][] = [
  ['an empty object', () => ({}), 'empty'],
  ['null', () => null, 'empty'],
  ['undefined', () => undefined, 'empty'],
  ['an empty array', () => [], 'empty'],
  ['an empty string', () => '', 'empty'],
  ['a string', () => SECRET, 'unknown'],
  ['a number', () => 42, 'unknown'],
  ['an array', () => [SECRET], 'unknown'],
  ['a warm-up ping', () => ({ source: 'serverless-plugin-warmup' }), 'warm-up'],
  ['an EventBridge scheduled event', scheduledEvent, 'scheduled'],
  ['another EventBridge event', () => ({ ...scheduledEvent(), 'detail-type': 'X' }), 'unknown'],
  ['an SQS record batch', sqsEvent, 'unknown'],
  ['a requestContext without a method', () => ({ requestContext: { requestId: 'r' } }), 'unknown'],
  [
    'a v2 requestContext without routeKey',
    () => ({ requestContext: { http: { method: 'GET' } } }),
    'unknown',
  ],
  [
    'a v1 event whose requestContext is null',
    () => ({ httpMethod: 'GET', requestContext: null, headers: { Authorization: SECRET } }),
    'unknown',
  ],
];

const gatewayRequest = { resource: ORDERS_ROUTE, pathParameters: { id: 'R-1001' } };

/** The chain's handler, called as Lambda calls it: with any event. */
const invoker = (lambda: unknown) =>
  lambda as (event: unknown, context: unknown) => Promise<unknown>;

/**
 * Container initialisation (the key set, the database) still under way until `initialised()`.
 * `ready` is a thenable rather than a native promise so that `await ready` calls its `then`:
 * `waited` is fulfilled once the middleware waits for it.
 */
const initialisation = () => {
  let initialised: () => void = () => undefined;
  const done = new Promise<void>((resolve) => {
    initialised = resolve;
  });
  const waiting = signal();
  const ready = {
    then: (...callbacks: Parameters<Promise<void>['then']>) => {
      waiting.give();
      return done.then(...callbacks);
    },
  } as Promise<void>;
  return { ready, initialised, waited: waiting.given };
};

describe('nonHttpEvent', () => {
  it.each([
    ['a REST (v1) event', () => restEvent(gatewayRequest)],
    ['an HTTP API (v2) event', () => httpApiEvent(gatewayRequest)],
  ])('lets %s through to the handler', async (_name, event) => {
    // Prepare
    const log = collectingLogger();
    const handler = okHandler();
    const lambda = baseChain({ logger: log.logger }).handler(handler);

    // Act
    const result = await lambda(event(), lambdaContext());

    // Assess
    expect(result).toEqual({
      statusCode: 200,
      headers: corsJsonHeaders({ 'Access-Control-Expose-Headers': 'Content-Disposition' }),
      body: '{"data":[]}',
    });
    expect(handler).toHaveBeenCalledTimes(1);
    expect(log.entries().map(({ message }) => message)).toEqual(['request']);
  });

  it.each(NON_HTTP)(
    'answers %s without the chain, logging one line of its kind',
    async (_name, event, kind) => {
      // Prepare
      const log = collectingLogger();
      const handler = okHandler();
      const lambda = baseChain({ logger: log.logger }).handler(handler);
      const context = lambdaContext();

      // Act: the handler's own signature admits only gateway events; Lambda sends anything.
      const result = await invoker(lambda)(event(), context);

      // Assess
      expect(result).toBeUndefined();
      expect(handler).not.toHaveBeenCalled();
      expect(log.untimed()).toEqual([
        {
          level: 'info',
          message: 'non-HTTP event ignored',
          kind,
          awsRequestId: context.awsRequestId,
        },
      ]);
      expect(log.lines.join('\n')).not.toMatch(/eyJ|aws:sqs|rule\/warm|serverless-plugin-warmup/);
    },
  );

  it('recognises exactly the events shared/http/event.ts reads', () => {
    expect(isGatewayEvent(restEvent(gatewayRequest))).toBe(true);
    expect(isGatewayEvent(httpApiEvent(gatewayRequest))).toBe(true);
    for (const [name, event] of NON_HTTP)
      expect([name, isGatewayEvent(event())]).toEqual([name, false]);
    expect(NON_HTTP.map(([, event]) => nonHttpEventKind(event()))).toEqual(
      NON_HTTP.map(([, , kind]) => kind),
    );
  });

  it('answers before every later step, even one that would throw', async () => {
    const log = collectingLogger();
    const lambda = chain()
      .use(nonHttpEvent({ logger: log.logger }))
      .use({
        before: () => {
          throw new TypeError('a later step read the event');
        },
      })
      .handler(okHandler());

    await expect(invoker(lambda)({}, lambdaContext())).resolves.toBeUndefined();
    expect(log.entries()).toHaveLength(1);
  });

  it('ends the cold start: the request after a warm-up is logged warm', async () => {
    const log = collectingLogger();
    const lambda = baseChain({ logger: log.logger }).handler(okHandler());
    const invoke = invoker(lambda);

    await invoke({ source: 'serverless-plugin-warmup' }, lambdaContext());
    await invoke(restEvent(gatewayRequest), lambdaContext());

    expect(log.entries().map(({ message, coldStart }) => ({ message, coldStart }))).toEqual([
      { message: 'non-HTTP event ignored', coldStart: undefined },
      { message: 'request', coldStart: false },
    ]);
  });

  it.each([
    ['a warm-up ping', { source: 'serverless-plugin-warmup' }, true],
    ['a scheduled event', scheduledEvent(), true],
    ['an empty event', {}, true],
    ['an unknown event', { detail: 'x' }, false],
  ])('answers %s only once the container is initialised: %s', async (_name, event, waits) => {
    // Arrange: initialisation (the key set, the database) still under way.
    const log = collectingLogger();
    const { ready, initialised, waited } = initialisation();
    const invoke = invoker(baseChain({ logger: log.logger, ready }).handler(okHandler()));
    let answered = false;

    // Act: the answer, or the middleware waiting for initialisation, whichever comes first.
    const answer = invoke(event, lambdaContext()).then(() => {
      answered = true;
    });
    await Promise.race([answer, waited]);
    const beforeInitialised = answered;
    initialised();
    await answer;

    // Assess
    expect({ beforeInitialised, answered }).toEqual({ beforeInitialised: !waits, answered: true });
    expect(log.entries()).toHaveLength(1);
  });
});

/** A database whose `check` is the given spy. */
const databaseChecking = (check: () => Promise<void>) => ({ check: jest.fn(check) });

/** A PostgreSQL login refusal whose message names the user and host. */
const refusedLogin = () =>
  Object.assign(
    new Error(`password authentication failed for user "reports" at db.internal ${SECRET}`),
    { name: 'PostgresError', code: '28P01' },
  );

describe('nonHttpEvent: the pre-traffic check', () => {
  const preTrafficEvent = () => ({ source: PRE_TRAFFIC_SOURCE });

  it('is recognised by its source', () => {
    expect(PRE_TRAFFIC_SOURCE).toBe('portal-service-api.pre-traffic');
    expect(nonHttpEventKind(preTrafficEvent())).toBe('pre-traffic');
    expect(isGatewayEvent(preTrafficEvent())).toBe(false);
  });

  it('answers database ok once select 1 has run, without the handler', async () => {
    // Prepare
    const log = collectingLogger();
    const handler = okHandler();
    const database = databaseChecking(() => Promise.resolve());
    const lambda = baseChain({ logger: log.logger, database }).handler(handler);
    const context = lambdaContext();

    // Act
    const answer = await invoker(lambda)(preTrafficEvent(), context);

    // Assess
    expect(answer).toEqual({
      check: 'pre-traffic',
      database: 'ok',
      keySet: 'none',
      issuer: 'none',
    });
    expect(database.check).toHaveBeenCalledTimes(1);
    expect(handler).not.toHaveBeenCalled();
    expect(log.untimed()).toEqual([
      {
        level: 'info',
        message: 'pre-traffic check',
        database: 'ok',
        keySet: 'none',
        issuer: 'none',
        awsRequestId: context.awsRequestId,
      },
    ]);
  });

  it('answers database none in a chain without a database', async () => {
    const log = collectingLogger();
    const lambda = baseChain({ logger: log.logger }).handler(okHandler());

    const answer = await invoker(lambda)(preTrafficEvent(), lambdaContext());

    expect(answer).toEqual({
      check: 'pre-traffic',
      database: 'none',
      keySet: 'none',
      issuer: 'none',
    });
    expect(log.entries()).toEqual([expect.objectContaining({ database: 'none' })]);
  });

  it('answers a failure by its name and code only, never its message', async () => {
    // Prepare
    const log = collectingLogger();
    const database = databaseChecking(() => Promise.reject(refusedLogin()));
    const lambda = baseChain({ logger: log.logger, database }).handler(okHandler());
    const context = lambdaContext();

    // Act
    const answer = await invoker(lambda)(preTrafficEvent(), context);

    // Assess
    expect(answer).toEqual({
      check: 'pre-traffic',
      database: 'failed',
      error: 'PostgresError',
      code: '28P01',
      keySet: 'none',
      issuer: 'none',
    });
    expect(log.untimed()).toEqual([
      {
        level: 'warn',
        message: 'pre-traffic check',
        database: 'failed',
        errorName: 'PostgresError',
        errorCode: '28P01',
        keySet: 'none',
        issuer: 'none',
        awsRequestId: context.awsRequestId,
      },
    ]);
    expect(JSON.stringify(answer) + log.lines.join('\n')).not.toMatch(/reports|db\.internal|eyJ/);
  });

  it.each([
    ['a name that is no word', Object.assign(new Error('x'), { name: 'Bad name\nat db.internal' })],
    ['a code that is no word', Object.assign(new TypeError('x'), { code: 'at db.internal:5432' })],
    ['a name too long', Object.assign(new Error('x'), { name: `E${'x'.repeat(64)}` })],
  ])('answers %s as a plain Error, without it', async (_name, thrown) => {
    const log = collectingLogger();
    const database = databaseChecking(() => Promise.reject(thrown));
    const lambda = baseChain({ logger: log.logger, database }).handler(okHandler());

    const answer = await invoker(lambda)(preTrafficEvent(), lambdaContext());

    expect(answer).toEqual({
      check: 'pre-traffic',
      database: 'failed',
      error: thrown instanceof TypeError ? 'TypeError' : 'Error',
      keySet: 'none',
      issuer: 'none',
    });
    expect(log.lines.join('\n')).not.toContain('db.internal');
  });

  it('checks the database only once the container is initialised', async () => {
    // Prepare: initialisation (the key set, the database warm-up) still under way.
    const { ready, initialised, waited } = initialisation();
    const database = databaseChecking(() => Promise.resolve());
    const lambda = baseChain({ logger: collectingLogger().logger, ready, database }).handler(
      okHandler(),
    );

    // Act: the answer, or the middleware waiting for initialisation, whichever comes first.
    const answer = invoker(lambda)(preTrafficEvent(), lambdaContext());
    await Promise.race([answer, waited]);
    const checkedEarly = database.check.mock.calls.length;
    initialised();

    // Assess
    await expect(answer).resolves.toEqual({
      check: 'pre-traffic',
      database: 'ok',
      keySet: 'none',
      issuer: 'none',
    });
    expect(checkedEarly).toBe(0);
    expect(database.check).toHaveBeenCalledTimes(1);
  });

  it('answers a timeout a second before the function would time out', async () => {
    // Prepare: 1.2 s left of the invocation; a database that never answers.
    const database = databaseChecking(() => new Promise<never>(() => undefined));
    const lambda = chain()
      .use(nonHttpEvent({ logger: collectingLogger().logger, database }))
      .handler(okHandler());
    const deadline = Date.now() + 1_200;
    const context: Context = {
      ...lambdaContext(),
      getRemainingTimeInMillis: () => deadline - Date.now(),
    };

    // Act
    const started = Date.now();
    const answer = await invoker(lambda)(preTrafficEvent(), context);

    // Assess
    expect(answer).toEqual({
      check: 'pre-traffic',
      database: 'failed',
      error: 'PreTrafficTimeoutError',
      code: 'ERR_PRE_TRAFFIC_TIMEOUT',
      keySet: 'none',
      issuer: 'none',
    });
    expect(Date.now() - started).toBeGreaterThanOrEqual(150);
    expect(Date.now() - started).toBeLessThan(1_000);
  });

  it('checks the key set too in a chain that verifies tokens, and answers its failure by name and code', async () => {
    // Prepare: the database answers; the key set cannot be fetched.
    const log = collectingLogger();
    const database = databaseChecking(() => Promise.resolve());
    const unavailable = Object.assign(new Error('GET https://keys.internal/jwks.json: 404'), {
      name: 'KeySetUnavailableError',
      code: 'ERR_KEY_SET_UNAVAILABLE',
    });
    const keySet = { check: jest.fn(() => Promise.reject(unavailable)) };
    const lambda = baseChain(
      { logger: log.logger, database, keySet, issuer: 'https://portal.example' },
      { verifiesTokens: true },
    ).handler(okHandler());
    const context = lambdaContext();

    // Act
    const answer = await invoker(lambda)(preTrafficEvent(), context);

    // Assess
    expect(answer).toEqual({
      check: 'pre-traffic',
      database: 'ok',
      keySet: 'failed',
      keySetError: 'KeySetUnavailableError',
      keySetCode: 'ERR_KEY_SET_UNAVAILABLE',
      issuer: 'set',
    });
    expect(keySet.check).toHaveBeenCalledTimes(1);
    expect(log.untimed()).toEqual([
      {
        level: 'warn',
        message: 'pre-traffic check',
        database: 'ok',
        keySet: 'failed',
        keySetErrorName: 'KeySetUnavailableError',
        keySetErrorCode: 'ERR_KEY_SET_UNAVAILABLE',
        issuer: 'set',
        awsRequestId: context.awsRequestId,
      },
    ]);
    expect(JSON.stringify(answer) + log.lines.join('\n')).not.toContain('keys.internal');
  });

  it('answers key set ok once a usable set is held, and leaves it alone in a chain without tokens', async () => {
    const keySet = { check: jest.fn(() => Promise.resolve()) };
    const verifying = baseChain(
      { logger: collectingLogger().logger, keySet, issuer: 'https://portal.example' },
      { verifiesTokens: true },
    ).handler(okHandler());
    const apiKeyOnly = baseChain({ logger: collectingLogger().logger, keySet }).handler(
      okHandler(),
    );

    await expect(invoker(verifying)(preTrafficEvent(), lambdaContext())).resolves.toEqual({
      check: 'pre-traffic',
      database: 'none',
      keySet: 'ok',
      issuer: 'set',
    });
    await expect(invoker(apiKeyOnly)(preTrafficEvent(), lambdaContext())).resolves.toEqual({
      check: 'pre-traffic',
      database: 'none',
      keySet: 'none',
      issuer: 'none',
    });
    expect(keySet.check).toHaveBeenCalledTimes(1);
  });

  it('answers issuer unset, as a warning, in a chain that verifies tokens without JWT_ISSUER', async () => {
    const log = collectingLogger();
    const keySet = { check: jest.fn(() => Promise.resolve()) };
    const lambda = baseChain({ logger: log.logger, keySet }, { verifiesTokens: true }).handler(
      okHandler(),
    );

    const answer = await invoker(lambda)(preTrafficEvent(), lambdaContext());

    expect(answer).toEqual({
      check: 'pre-traffic',
      database: 'none',
      keySet: 'ok',
      issuer: 'unset',
    });
    expect(log.entries()).toEqual([expect.objectContaining({ level: 'warn', issuer: 'unset' })]);
  });
});
