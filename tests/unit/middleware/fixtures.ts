/**
 * Shared pieces of the middleware unit tests: an empty typed chain, a handler spy, a logger that
 * collects its lines, the headers the contract expects, and tiny middlewares that put what an
 * earlier step would have learnt on the invocation's state.
 */
import { jest } from '@jest/globals';
import middy from '@middy/core';
import type { PortalClaims } from '../../../shared/auth/claims';
import type { GatewayEvent, GatewayResult } from '../../../shared/http/event';
import { jsonResult } from '../../../shared/http/event';
import { createLogger, type Logger } from '../../../shared/logger';
import {
  stateOf,
  type PortalContext,
  type PortalMiddleware,
  type PortalState,
} from '../../../middleware/types';

export const ORDERS_ROUTE = '/v1/restaurants/{id}/reports/orders/day';
export const DISHES_ROUTE = '/v1/restaurants/{id}/reports/dishes';

export type TestHandler = (event: GatewayEvent, context: PortalContext) => Promise<GatewayResult>;

/** An empty chain typed as every portal chain is. */
export const chain = () => middy<GatewayEvent, GatewayResult, Error, PortalContext>();

/** A handler spy answering 200 `{"data":[]}`. */
export const okHandler = () =>
  jest.fn<TestHandler>(() => Promise.resolve(jsonResult(200, { data: [] })));

/** A handler spy answering 200 with what the chain stored under `key` on the state. */
export const stateEcho = (key: keyof PortalState) =>
  jest.fn<TestHandler>((_event, context) =>
    Promise.resolve(jsonResult(200, { [key]: context.portal?.[key] ?? null })),
  );

export interface CollectingLogger {
  readonly logger: Logger;
  readonly lines: string[];
  readonly entries: () => Record<string, unknown>[];
  /** The entries without their `time`, for whole-entry comparisons. */
  readonly untimed: () => Record<string, unknown>[];
}

/** A real logger at level debug whose lines are kept for the test to read. */
export const collectingLogger = (): CollectingLogger => {
  const lines: string[] = [];
  const logger = createLogger('debug', (line) => {
    lines.push(line);
  });
  const entries = () => lines.map((line) => JSON.parse(line) as Record<string, unknown>);
  return {
    logger,
    lines,
    entries,
    untimed: () => entries().map(({ time: _time, ...rest }) => rest),
  };
};

/** Spec 4.3: the four CORS headers of every preflight answer. */
export const SPEC_CORS = {
  'Access-Control-Allow-Origin': '*',
  'Access-Control-Allow-Headers': 'Content-Type,Authorization',
  'Access-Control-Allow-Methods': 'OPTIONS,GET',
  'Access-Control-Allow-Credentials': 'false',
} as const;

/** The preflight answer: exactly the spec's headers plus the cache lifetime, empty body. */
export const preflightResponse = (maxAge = '600'): GatewayResult => ({
  statusCode: 200,
  headers: { ...SPEC_CORS, 'Access-Control-Max-Age': maxAge },
  body: '',
});

/** Headers a JSON answer carries once CORS has decorated it. */
export const corsJsonHeaders = (extra: Record<string, string> = {}): Record<string, string> => ({
  'Content-Type': 'application/json',
  ...extra,
  ...SPEC_CORS,
});

export const BEARER_CHALLENGE = { 'WWW-Authenticate': 'Bearer' } as const;
export const INVALID_TOKEN_CHALLENGE = {
  'WWW-Authenticate': 'Bearer error="invalid_token"',
} as const;

/** Spec 2.6 bodies, key order as rendered. */
export const errorBody = (
  code: string,
  message: string,
  errors?: readonly { field: string; code: string; message: string }[],
): string => JSON.stringify({ state: 'ERROR', code, message, ...(errors ? { errors } : {}) });

export const HEADER_INVALID_BODY = errorBody(
  'TOKEN_INVALID',
  'Authorization header is invalid. Did you forget to add "Bearer "?',
);
export const TOKEN_UNVERIFIABLE_BODY = errorBody(
  'TOKEN_INVALID',
  'The provided token cannot be verified',
);
export const TOKEN_EXPIRED_BODY = errorBody('TOKEN_EXPIRED', 'The provided token has expired');
export const FORBIDDEN_BODY = '{"state":"ERROR","code":"FORBIDDEN","message":"Forbidden"}';
export const INTERNAL_BODY = '{"state":"ERROR","code":"INTERNAL_ERROR","message":"Unknown error"}';

/** A tiny earlier step: puts a token on the state as the bearer step would. */
export const presetToken = (token: string): PortalMiddleware => ({
  before: (request) => {
    stateOf(request.context).token = token;
  },
});

/** A tiny earlier step: puts verified claims on the state as the verification step would. */
export const presetClaims = (claims: PortalClaims): PortalMiddleware => ({
  before: (request) => {
    stateOf(request.context).claims = claims;
  },
});

/** A compact JWS-shaped token (never verified by the unit tests that use it). */
export const SAMPLE_JWT =
  'eyJhbGciOiJSUzI1NiIsImtpZCI6InRlc3Qta2V5In0.eyJzdWIiOiJvd25lci0xIn0.c2lnbmF0dXJlLWJ5dGVz';
