/**
 * The types every middleware of the chain shares. What one step learns (the token, the
 * verified claims, the access granted, the parsed parameters) is handed forward on a typed slot of
 * the invocation's context; later steps read it there and never re-parse the request.
 */
import type { MiddlewareObj, Request } from '@middy/core';
import type { Context } from 'aws-lambda';
import type { PortalClaims } from '../shared/auth/claims';
import type { Access } from '../shared/auth/ownership';
import type { GatewayEvent, GatewayResult } from '../shared/http/event';
import { internalError } from '../shared/errors';
import type { FailureKind } from '../shared/metrics';

export interface PortalState {
  token?: string;
  claims?: PortalClaims;
  access?: Access;
  /** The endpoint's parsed query-string parameters (what its parser returned). */
  parameters?: unknown;
  /** The code of the error the request was answered with (for the access log). */
  errorCode?: string;
  /** What a 500 was put down to, when the metrics count it (shared/metrics.ts `failureKind`). */
  failure?: FailureKind;
}

export type PortalContext = Context & { portal?: PortalState };
export type PortalRequest = Request<GatewayEvent, GatewayResult, Error, PortalContext>;
export type PortalMiddleware = MiddlewareObj<GatewayEvent, GatewayResult, Error, PortalContext>;

export const stateOf = (context: PortalContext): PortalState => (context.portal ??= {});

/** A value an earlier step must have set; its absence is a wiring fault, never the client's. */
export const requireState = <K extends keyof PortalState>(
  context: PortalContext,
  key: K,
): NonNullable<PortalState[K]> => {
  const value = stateOf(context)[key];
  if (value === undefined || value === null)
    throw internalError(new Error(`chain did not provide ${key}`));
  return value;
};
