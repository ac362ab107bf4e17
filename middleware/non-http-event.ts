/**
 * Non-HTTP events, the first step of every chain. A schedule, a warm-up ping
 * (serverless-plugin-warmup), `serverless invoke local -d '{}'` or anything else that is not an
 * API Gateway request is answered here with `undefined` and one info line holding only its kind
 * and Lambda's request id (the event could hold anything); no later step, handler or access-log
 * line runs. Being its own step lets every later step rely on a gateway event. Warm-ups,
 * schedules and empty events first wait for the container's initialisation, so that no fetch is
 * left half done when Lambda freezes the container; an unknown event is answered at once.
 *
 * The pre-traffic check of the release's hook and the heartbeat (`{ "source":
 * "portal-service-api.pre-traffic" }`, shared/release/pre-traffic-answer.ts) also waits for
 * initialisation, then runs `select 1` on the container's database and checks its key set within
 * the invocation's remaining time, and answers `{ "check": "pre-traffic", "database": …,
 * "keySet": … }`, with one line saying the outcome by name and code only.
 */
import type { KeySet } from '../shared/auth/key-set';
import type { Database } from '../shared/db/database';
import type { GatewayResult } from '../shared/http/event';
import type { Logger } from '../shared/logger';
import { PRE_TRAFFIC_MARGIN_MS, preTrafficCheck } from '../shared/release/pre-traffic-answer';
import {
  PRE_TRAFFIC_SOURCE,
  type IssuerSetting,
  type PreTrafficAnswer,
} from '../shared/release/pre-traffic-contract';
import type { PortalMiddleware, PortalRequest } from './types';

export { PRE_TRAFFIC_SOURCE };

/** What a non-HTTP event was recognised as. */
export type NonHttpEventKind = 'empty' | 'warm-up' | 'scheduled' | 'pre-traffic' | 'unknown';

export interface NonHttpEventOptions {
  readonly logger: Logger;
  /**
   * The container's initialisation (Dependencies.ready), awaited by warm-up, scheduled, empty
   * and pre-traffic events.
   */
  readonly ready?: Promise<void>;
  /** The container's database, which a pre-traffic event checks; absent: it answers `none`. */
  readonly database?: Pick<Database, 'check'>;
  /** The container's key set, which a pre-traffic event checks; absent: it answers `none`. */
  readonly keySet?: Pick<KeySet, 'check'>;
  /** Whether a chain that verifies tokens has its issuer setting; absent: it answers `none`. */
  readonly issuer?: IssuerSetting;
}

export const NON_HTTP_EVENT_MESSAGE = 'non-HTTP event ignored';
export const PRE_TRAFFIC_MESSAGE = 'pre-traffic check';
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
  if (event.source === PRE_TRAFFIC_SOURCE) return 'pre-traffic';
  if (event.source === 'aws.events' && event['detail-type'] === 'Scheduled Event') {
    return 'scheduled';
  }
  return 'unknown';
};

/** The kinds of event answered once initialisation has settled. */
const WARMING: readonly NonHttpEventKind[] = ['warm-up', 'scheduled', 'empty', 'pre-traffic'];

/** How long a check may take: Lambda's remaining time less the margin; unknown outside Lambda. */
const checkBound = (request: PortalRequest): number | undefined => {
  // Tests and tools invoke handlers with contexts that lack it.
  const context: Partial<Pick<PortalRequest['context'], 'getRemainingTimeInMillis'>> =
    request.context;
  return typeof context.getRemainingTimeInMillis === 'function'
    ? context.getRemainingTimeInMillis() - PRE_TRAFFIC_MARGIN_MS
    : undefined;
};

export const nonHttpEvent = ({
  logger,
  ready,
  database,
  keySet,
  issuer,
}: NonHttpEventOptions): PortalMiddleware => {
  const preTraffic = async (request: PortalRequest): Promise<PreTrafficAnswer> => {
    const answer = await preTrafficCheck(
      {
        ...(database ? { database } : {}),
        ...(keySet ? { keySet } : {}),
        ...(issuer ? { issuer } : {}),
      },
      checkBound(request),
    );
    const failed =
      answer.database === 'failed' || answer.keySet === 'failed' || answer.issuer === 'unset';
    logger.log(failed ? 'warn' : 'info', PRE_TRAFFIC_MESSAGE, {
      database: answer.database,
      ...(answer.database === 'failed' ? { errorName: answer.error, errorCode: answer.code } : {}),
      keySet: answer.keySet,
      ...(answer.keySet === 'failed'
        ? { keySetErrorName: answer.keySetError, keySetErrorCode: answer.keySetCode }
        : {}),
      issuer: answer.issuer,
      awsRequestId: request.context.awsRequestId,
    });
    return answer;
  };

  const nonHttpEventBefore = async (request: PortalRequest): Promise<void> => {
    const event: unknown = request.event;
    if (isGatewayEvent(event)) return;
    const kind = nonHttpEventKind(event);
    // Lambda freezes the container once the invocation returns: a warm-up that answered at
    // once would leave the key set and the database connections half opened.
    if (ready && WARMING.includes(kind)) await ready;
    if (kind === 'pre-traffic') {
      // The hook's answer is no gateway result; Lambda returns whatever the chain answers.
      request.earlyResponse = (await preTraffic(request)) as unknown as GatewayResult;
      return;
    }
    logger.log('info', NON_HTTP_EVENT_MESSAGE, {
      kind,
      awsRequestId: request.context.awsRequestId,
    });
    // Middy's early answer: no later step, handler or `after` phase runs.
    request.earlyResponse = undefined;
  };
  return { before: nonHttpEventBefore };
};
