/**
 * The one error formatter (spec 2.6, 7), built on @middy/http-error-handler. A PortalError is
 * rendered as its body; anything else is logged by name and code only (no message, stack,
 * SQL or token) and answered 500 INTERNAL_ERROR / "Unknown error". What a 500 is put down to
 * (the key set, the database: shared/metrics.ts `failureKind`) is kept on the invocation's
 * state for the access log and its metrics.
 */
import httpErrorHandler from '@middy/http-error-handler';
import { internalError, PortalError } from '../shared/errors';
import { describeError, type Logger } from '../shared/logger';
import { routeOf, requestIdOf } from '../shared/http/event';
import { failureKind } from '../shared/metrics';
import { stateOf, type PortalMiddleware, type PortalRequest } from './types';

export interface ErrorHandlerOptions {
  readonly logger: Logger;
}

/** The shape @middy/http-error-handler renders: an exposed status with a ready body. */
class RenderedError extends Error {
  readonly expose = true;
  constructor(
    readonly statusCode: number,
    body: string,
    readonly headers: Record<string, string>,
  ) {
    super(body);
  }
}

const INTERNAL_BODY = JSON.stringify(internalError().toBody());

export const errorHandler = ({ logger }: ErrorHandlerOptions): PortalMiddleware => {
  const base = httpErrorHandler({ logger: false, fallbackMessage: INTERNAL_BODY });

  const errorHandlerOnError = async (request: PortalRequest) => {
    if (request.response) return;
    const error = request.error;
    const portal = error instanceof PortalError ? error : internalError(error);
    const fields = {
      route: routeOf(request.event),
      requestId: requestIdOf(request.event),
      status: portal.statusCode,
      code: portal.code,
    };
    const state = stateOf(request.context);
    state.errorCode = portal.code;
    if (portal.statusCode >= 500) {
      const cause = portal.cause ?? error;
      const failure = failureKind(cause);
      if (failure !== undefined) state.failure = failure;
      logger.log('error', 'request failed', { ...fields, ...describeError(cause) });
    } else {
      logger.log('debug', 'request refused', fields);
    }
    request.error = new RenderedError(portal.statusCode, JSON.stringify(portal.toBody()), {
      'Content-Type': 'application/json',
      ...portal.headers,
    });
    await base.onError?.(request);
  };
  return { onError: errorHandlerOnError };
};
