/**
 * CORS (spec 4.3). A preflight OPTIONS is answered here with 200 and the four headers of the
 * spec, before any authentication runs. Every other response, errors included, is decorated by
 * @middy/http-cors (origin `*` whether or not the request had an Origin header, the spec's
 * allowed headers and methods, `exposeHeaders`), then given
 * `Access-Control-Allow-Credentials: false`, which http-cors writes only when true.
 * Registered first so its after/onError decorate every response.
 */
import httpCors from '@middy/http-cors';
import { httpMethod } from '../shared/http/event';
import type { PortalMiddleware, PortalRequest } from './types';

export interface CorsOptions {
  /** Seconds a browser may cache the preflight answer. */
  readonly maxAge?: number;
  readonly exposeHeaders?: string;
}

const defaults = { maxAge: 600 } satisfies CorsOptions;

export const SPEC_CORS_HEADERS = {
  'Access-Control-Allow-Origin': '*',
  'Access-Control-Allow-Headers': 'Content-Type,Authorization',
  'Access-Control-Allow-Methods': 'OPTIONS,GET',
  'Access-Control-Allow-Credentials': 'false',
} as const;

export const cors = (opts: CorsOptions = {}): PortalMiddleware => {
  const maxAge = opts.maxAge ?? defaults.maxAge;
  if (!Number.isInteger(maxAge) || maxAge < 0) {
    throw new TypeError('cors: maxAge must be a whole number of seconds');
  }
  const preflightHeaders = { ...SPEC_CORS_HEADERS, 'Access-Control-Max-Age': String(maxAge) };
  const decorate = httpCors({
    origin: SPEC_CORS_HEADERS['Access-Control-Allow-Origin'],
    headers: SPEC_CORS_HEADERS['Access-Control-Allow-Headers'],
    methods: SPEC_CORS_HEADERS['Access-Control-Allow-Methods'],
    ...(opts.exposeHeaders === undefined ? {} : { exposeHeaders: opts.exposeHeaders }),
  }) as PortalMiddleware;

  const corsBefore = (request: PortalRequest) => {
    if (httpMethod(request.event) !== 'OPTIONS') return undefined;
    return { statusCode: 200, headers: { ...preflightHeaders }, body: '' };
  };
  const corsAfter = async (request: PortalRequest) => {
    await decorate.after?.(request);
    setCredentials(request);
  };
  const corsOnError = async (request: PortalRequest) => {
    if ((request.response as unknown) === undefined) return;
    await decorate.onError?.(request);
    setCredentials(request);
  };
  return { before: corsBefore, after: corsAfter, onError: corsOnError };
};

const setCredentials = (request: PortalRequest) => {
  const headers = request.response?.headers;
  if (headers) headers['Access-Control-Allow-Credentials'] = 'false';
};
