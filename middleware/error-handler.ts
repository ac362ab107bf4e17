/**
 * The one error formatter (spec 2.6, 7): @middy/http-error-handler, with a step before it that
 * logs and classifies. A PortalError is already an HTTP error as the handler reads one
 * (statusCode, expose, headers, its JSON body as message); anything else becomes
 * INTERNAL_ERROR, which is not exposed, so the handler answers its fallback body. A failure is
 * logged by name and code only (no message, stack, SQL or token). What a 500 is put down to
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

/** The body of every 500, whatever failed. */
const FALLBACK_BODY = internalError().message;

export const errorHandler = ({ logger }: ErrorHandlerOptions): PortalMiddleware => {
  const format = httpErrorHandler({ logger: false, fallbackMessage: FALLBACK_BODY });

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
    // Only a PortalError may reach the handler: another error's own statusCode and message
    // would be shown as they are.
    request.error = portal;
    await format.onError?.(request);
  };
  return { onError: errorHandlerOnError };
};
