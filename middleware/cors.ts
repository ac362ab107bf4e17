/**
 * CORS (spec 4.3). A preflight OPTIONS is answered here with 200 and the four headers of the
 * spec, before any authentication runs; every other response, errors included, carries
 * `Access-Control-Allow-Origin: *` whether or not the request had an Origin header.
 * Built on @middy/http-cors; registered first so its after/onError decorate every response.
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
  const options = { ...opts, maxAge: opts.maxAge ?? defaults.maxAge };
  if (!Number.isInteger(options.maxAge) || options.maxAge < 0) {
    throw new TypeError('cors: maxAge must be a whole number of seconds');
  }
  const base = httpCors({
    origin: '*',
    headers: SPEC_CORS_HEADERS['Access-Control-Allow-Headers'],
    methods: SPEC_CORS_HEADERS['Access-Control-Allow-Methods'],
    ...(options.exposeHeaders ? { exposeHeaders: options.exposeHeaders } : {}),
  });
  const preflightHeaders = {
    ...SPEC_CORS_HEADERS,
    'Access-Control-Max-Age': String(options.maxAge),
  };

  const corsBefore = (request: PortalRequest) => {
    if (httpMethod(request.event) !== 'OPTIONS') return undefined;
    return { statusCode: 200, headers: { ...preflightHeaders }, body: '' };
  };
  const corsAfter = async (request: PortalRequest) => {
    await base.after?.(request);
    setCredentials(request);
  };
  const corsOnError = async (request: PortalRequest) => {
    await base.onError?.(request);
    setCredentials(request);
  };
  return { before: corsBefore, after: corsAfter, onError: corsOnError };
};

const setCredentials = (request: PortalRequest) => {
  const headers = request.response?.headers;
  if (headers) headers['Access-Control-Allow-Credentials'] = 'false';
};
