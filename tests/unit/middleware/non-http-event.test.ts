import { baseChain } from '../../../middleware/compose';
import {
  isGatewayEvent,
  nonHttpEvent,
  nonHttpEventKind,
  type NonHttpEventKind,
} from '../../../middleware/non-http-event';
import { httpApiEvent, lambdaContext, restEvent, scheduledEvent } from '../../support/events';
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
      const result: unknown = await (lambda as (e: unknown, c: unknown) => Promise<unknown>)(
        event(),
        context,
      );

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

    await expect(
      (lambda as (e: unknown, c: unknown) => Promise<unknown>)({}, lambdaContext()),
    ).resolves.toBeUndefined();
    expect(log.entries()).toHaveLength(1);
  });

  it('ends the cold start: the request after a warm-up is logged warm', async () => {
    const log = collectingLogger();
    const lambda = baseChain({ logger: log.logger }).handler(okHandler());
    const invoke = lambda as (e: unknown, c: unknown) => Promise<unknown>;

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
    let initialised: () => void = () => undefined;
    const ready = new Promise<void>((resolve) => {
      initialised = resolve;
    });
    const lambda = baseChain({ logger: log.logger, ready }).handler(okHandler());
    const invoke = lambda as (e: unknown, c: unknown) => Promise<unknown>;
    let answered = false;

    // Act
    const answer = invoke(event, lambdaContext()).then(() => {
      answered = true;
    });
    await new Promise((resolve) => setTimeout(resolve, 20));
    const beforeInitialised = answered;
    initialised();
    await answer;

    // Assess
    expect({ beforeInitialised, answered }).toEqual({ beforeInitialised: !waits, answered: true });
    expect(log.entries()).toHaveLength(1);
  });
});
