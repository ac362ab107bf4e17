/**
 * Access log: one structured JSON line per invocation — request id, route, method, status,
 * latency, whether it was the container's cold start, and the error code of a refusal. Never a
 * header, a query value, a path id, a token or a claim. Preflights answered early by CORS are
 * logged too: the line is written by Middy's `requestEnd` hook, which runs for every request.
 * An event that is not an API Gateway request was answered and logged by `nonHttpEvent`: it gets
 * no line here, but it ends the container's cold start (a warm-up's very purpose).
 */
import type { Request } from '@middy/core';
import { httpMethod, requestIdOf, routeOf, type GatewayEvent } from '../shared/http/event';
import type { Logger } from '../shared/logger';
import { isGatewayEvent } from './non-http-event';
import type { PortalContext, PortalMiddleware, PortalRequest } from './types';

export interface AccessLogOptions {
  readonly logger: Logger;
  readonly now?: () => number;
}

export interface AccessLog {
  /** Registered first: notes when the request started. */
  readonly middleware: PortalMiddleware;
  /** Middy plugin hooks: writes the line once the response is final. */
  readonly plugin: { readonly requestEnd: (request: Request) => void };
}

export const accessLog = ({
  logger,
  now = () => performance.now(),
}: AccessLogOptions): AccessLog => {
  const started = new WeakMap<object, number>();
  let coldStart = true;

  const accessLogBefore = (request: PortalRequest) => {
    started.set(request, now());
  };

  const accessLogEnd = (request: Request) => {
    if (!isGatewayEvent(request.event)) {
      coldStart = false;
      return;
    }
    const event = request.event as GatewayEvent;
    const context = request.context as PortalContext;
    const response = request.response as { statusCode?: unknown } | null | undefined;
    const start = started.get(request);
    logger.log('info', 'request', {
      requestId: requestIdOf(event),
      awsRequestId: context.awsRequestId,
      route: routeOf(event),
      method: httpMethod(event),
      status: typeof response?.statusCode === 'number' ? response.statusCode : undefined,
      code: context.portal?.errorCode,
      latencyMs: start === undefined ? undefined : Math.round((now() - start) * 10) / 10,
      coldStart,
    });
    coldStart = false;
  };

  return { middleware: { before: accessLogBefore }, plugin: { requestEnd: accessLogEnd } };
};
