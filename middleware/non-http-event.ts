/**
 * Non-HTTP events: the first step of every chain (`baseChain`). A function is also invoked with
 * events that are not API Gateway requests: a scheduled EventBridge rule, a warm-up ping
 * (serverless-plugin-warmup), a direct `serverless invoke local -d '{}'`, or anything else a
 * caller sends. Such an event is answered here, before any other step runs, with one info line
 * `{"level":"info","message":"non-HTTP event ignored",…,"kind":…,"awsRequestId":…}` and nothing
 * else: no step after this one, no handler, no access-log line.
 *
 * A separate step rather than a branch of the access log: recognising what an event is and
 * refusing to run the chain on it is its own concern, and every later step (the access log
 * included) may then rely on the event being a gateway event. The access log reads the same
 * test (`isGatewayEvent`) so that its end-of-request hook, which Middy runs for every
 * invocation, writes nothing for an event answered here.
 *
 * What counts as a gateway event is what `shared/http/event.ts` reads without throwing: an
 * object whose `requestContext` is an object and that is either an HTTP API (v2) event
 * (`requestContext.http` an object with a string `method`, and a string `routeKey`) or, when
 * `requestContext.http` is absent, a REST (v1) event (a string `httpMethod`).
 *
 * The answer is `undefined` (a direct invoke receives `null`): nothing reads what a schedule or
 * a warm-up returns, any object would have to pose as the chain's API Gateway result type, and
 * nothing of the event is echoed back. A warm-up needs no further work than waiting: the
 * container's dependencies were started when the handler module was loaded. An empty event
 * (`{}`, what a person sends to see a function start) waits for them too, so that its answer
 * says the container came up and no fetch is left half done when the container is frozen (or,
 * with `serverless invoke local`, when the local stack stops). An unknown event is answered at
 * once: it is nobody's warm-up.
 *
 * The line never holds the event's content (it could hold anything): only its kind, from a
 * closed list, and Lambda's own request id.
 */
import type { Logger } from '../shared/logger';
import type { PortalMiddleware, PortalRequest } from './types';

/** What a non-HTTP event was recognised as. */
export type NonHttpEventKind = 'empty' | 'warm-up' | 'scheduled' | 'unknown';

export interface NonHttpEventOptions {
  readonly logger: Logger;
  /** The container's initialisation (Dependencies.ready), awaited by warm-up, scheduled and empty events. */
  readonly ready?: Promise<void>;
}

export const NON_HTTP_EVENT_MESSAGE = 'non-HTTP event ignored';
/** The `source` serverless-plugin-warmup sends by default. */
export const WARMUP_SOURCE = 'serverless-plugin-warmup';

type Fields = Readonly<Record<string, unknown>>;

const isObject = (value: unknown): value is Fields =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** Whether `event` is an API Gateway REST (v1) or HTTP API (v2) proxy event the chain can read. */
export const isGatewayEvent = (event: unknown): boolean => {
  if (!isObject(event) || !isObject(event.requestContext)) return false;
  const { http } = event.requestContext;
  if (http !== undefined) {
    return isObject(http) && typeof http.method === 'string' && typeof event.routeKey === 'string';
  }
  return typeof event.httpMethod === 'string';
};

/** What a non-gateway event is, for the log line; never anything read from it beyond that. */
export const nonHttpEventKind = (event: unknown): NonHttpEventKind => {
  if (event === undefined || event === null || event === '') return 'empty';
  if (typeof event !== 'object') return 'unknown';
  if (Object.keys(event).length === 0) return 'empty';
  if (!isObject(event)) return 'unknown';
  if (event.source === WARMUP_SOURCE) return 'warm-up';
  if (event.source === 'aws.events' && event['detail-type'] === 'Scheduled Event') {
    return 'scheduled';
  }
  return 'unknown';
};

/** The kinds of event that warm the container: answered once initialisation has settled. */
const WARMING: readonly NonHttpEventKind[] = ['warm-up', 'scheduled', 'empty'];

export const nonHttpEvent = ({ logger, ready }: NonHttpEventOptions): PortalMiddleware => {
  const nonHttpEventBefore = async (request: PortalRequest): Promise<void> => {
    const event: unknown = request.event;
    if (isGatewayEvent(event)) return;
    const kind = nonHttpEventKind(event);
    // Lambda freezes the container once the invocation returns: a warm-up that answered at
    // once would leave the key set and the database connections half opened.
    if (ready && WARMING.includes(kind)) await ready;
    logger.log('info', NON_HTTP_EVENT_MESSAGE, {
      kind,
      awsRequestId: request.context.awsRequestId,
    });
    // Middy's early answer: no later step, handler or `after` phase runs.
    request.earlyResponse = undefined;
  };
  return { before: nonHttpEventBefore };
};
