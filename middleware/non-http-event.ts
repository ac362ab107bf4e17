/**
 * Non-HTTP events, the first step of every chain. A schedule, a warm-up ping
 * (serverless-plugin-warmup), `serverless invoke local -d '{}'` or anything else that is not an
 * API Gateway request is answered here with `undefined` and one info line holding only its kind
 * and Lambda's request id (the event could hold anything); no later step, handler or access-log
 * line runs. Being its own step lets every later step rely on a gateway event. Warm-ups,
 * schedules and empty events first wait for the container's initialisation, so that no fetch is
 * left half done when Lambda freezes the container; an unknown event is answered at once.
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

/**
 * Whether `event` is an API Gateway REST (v1) or HTTP API (v2) proxy event: what
 * shared/http/event.ts reads without throwing.
 */
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
