/**
 * Access log: one structured JSON line per API Gateway request, written by Middy's `requestEnd`
 * hook, which runs for every request (preflights answered early by CORS included). The line holds
 * the request id, route, method, status, latency, whether it was the container's cold start and a
 * refusal's error code, never a header, query value, path id, token or claim; it is also the
 * request's CloudWatch metrics in the embedded metric format (shared/metrics.ts has the contract).
 * An event `nonHttpEvent` answered gets no line, but it ends the cold start (a warm-up's purpose).
 */
import type { Request } from '@middy/core';
import { loadMetricsConfig } from '../shared/config';
import { httpMethod, requestIdOf, routeOf, type GatewayEvent } from '../shared/http/event';
import type { Logger } from '../shared/logger';
import { createMetrics, statusClass, type Metrics } from '../shared/metrics';
import { isGatewayEvent } from './non-http-event';
import type { PortalContext, PortalMiddleware, PortalRequest } from './types';

export interface AccessLogOptions {
  readonly logger: Logger;
  readonly now?: () => number;
  /** The container's metrics; by default built from METRICS_NAMESPACE and METRICS_SERVICE. */
  readonly metrics?: Metrics;
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
  metrics = createMetrics(loadMetricsConfig()),
}: AccessLogOptions): AccessLog => {
  const started = new WeakMap<object, number>();
  const { service } = metrics;
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
    const status = typeof response?.statusCode === 'number' ? response.statusCode : undefined;
    const latencyMs = start === undefined ? undefined : Math.round((now() - start) * 10) / 10;
    const route = routeOf(event);
    const failure = context.portal?.failure;
    logger.log(
      'info',
      'request',
      {
        requestId: requestIdOf(event),
        awsRequestId: context.awsRequestId,
        route,
        method: httpMethod(event),
        status,
        code: context.portal?.errorCode,
        failure,
        latencyMs,
        coldStart,
        Service: service,
        Route: route,
        ...metrics.release,
        StatusClass: status === undefined ? undefined : statusClass(status),
        Requests: 1,
        Latency: latencyMs,
        ColdStarts: coldStart ? 1 : 0,
        KeySetFailures: 0,
        DatabaseErrors: failure === 'database' ? 1 : 0,
      },
      metrics.requestDirectives(status !== undefined, latencyMs !== undefined),
    );
    coldStart = false;
  };

  return { middleware: { before: accessLogBefore }, plugin: { requestEnd: accessLogEnd } };
};
