/**
 * CORS (spec 4.3). A preflight OPTIONS is answered here with 200 and the four headers of the
 * spec, before any authentication runs; every other response, errors included, carries
 * `Access-Control-Allow-Origin: *` whether or not the request had an Origin header.
 * Registered first so its after/onError decorate every response. The decoration is
 * @middy/http-cors's, configured as below, without its per-response structuredClone.
 */
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
  const preflightHeaders = {
    ...SPEC_CORS_HEADERS,
    'Access-Control-Max-Age': String(options.maxAge),
  };
  const decorate = httpCorsAfter(options.exposeHeaders);

  const corsBefore = (request: PortalRequest) => {
    if (httpMethod(request.event) !== 'OPTIONS') return undefined;
    return { statusCode: 200, headers: { ...preflightHeaders }, body: '' };
  };
  const corsAfter = (request: PortalRequest) => {
    decorate(request);
    setCredentials(request);
  };
  const corsOnError = (request: PortalRequest) => {
    if ((request.response as unknown) === undefined) return;
    decorate(request);
    setCredentials(request);
  };
  return { before: corsBefore, after: corsAfter, onError: corsOnError };
};

/**
 * What `@middy/http-cors`'s `after` does, configured as this chain configures it (origin `*`,
 * no origin list, the spec's allowed headers and methods, `exposeHeaders`; no credentials, max
 * age, cache control or vary), without its `structuredClone` of the response headers (about a
 * tenth of a repeated-token request, BENCHMARKS.md): the response normalised as `@middy/util`'s
 * `normalizeHttpResponse` does, its headers copied into a new object, then decorated. Like the
 * middleware, it remembers the `Access-Control-Allow-Credentials` a response brought along for
 * the container's later responses. tests/unit/middleware/cors-oracle.test.ts holds it equal to
 * `@middy/http-cors` on generated responses and events.
 */
export const httpCorsAfter = (exposeHeaders?: string) => {
  let credentials = false;
  return (request: PortalRequest): void => {
    const response = normalizedResponse(request);
    const headers: Record<string, unknown> = { ...response.headers };
    if (Object.hasOwn(headers, 'Access-Control-Allow-Credentials')) {
      credentials = headers['Access-Control-Allow-Credentials'] === 'true';
    }
    if (credentials) headers['Access-Control-Allow-Credentials'] = 'true';
    if (!Object.hasOwn(headers, 'Access-Control-Allow-Headers')) {
      headers['Access-Control-Allow-Headers'] = SPEC_CORS_HEADERS['Access-Control-Allow-Headers'];
    }
    if (!Object.hasOwn(headers, 'Access-Control-Allow-Methods')) {
      headers['Access-Control-Allow-Methods'] = SPEC_CORS_HEADERS['Access-Control-Allow-Methods'];
    }
    let origin: unknown;
    if (!Object.hasOwn(headers, 'Access-Control-Allow-Origin')) {
      const eventHeaders =
        (request.event.headers as Record<string, unknown> | null | undefined) ?? {};
      const incoming = eventHeaders.Origin ?? eventHeaders.origin;
      origin = incoming && credentials ? incoming : '*';
      headers['Access-Control-Allow-Origin'] = origin;
    }
    if (origin !== '*' || credentials) addVaryOrigin(headers);
    if (exposeHeaders && !Object.hasOwn(headers, 'Access-Control-Expose-Headers')) {
      headers['Access-Control-Expose-Headers'] = exposeHeaders;
    }
    response.headers = headers;
  };
};

type LooseResponse = { statusCode?: unknown; body?: unknown; headers?: Record<string, unknown> };

/** `@middy/util`'s normalizeHttpResponse: the response as an object with status and headers. */
const normalizedResponse = (request: PortalRequest): LooseResponse => {
  const current = request.response as LooseResponse | null | undefined;
  let response: LooseResponse;
  if (current === undefined) response = {};
  else if (
    current?.statusCode === undefined &&
    current?.body === undefined &&
    current?.headers === undefined
  ) {
    response = { statusCode: 200, body: current };
  } else response = current;
  response.statusCode ??= 500;
  response.headers ??= {};
  request.response = response as PortalRequest['response'];
  return response;
};

/**
 * `Origin` appended to the response's Vary header (or its lower-case form, if that is set), as
 * `@middy/http-cors`'s addHeaderPart appends it.
 */
const addVaryOrigin = (headers: Record<string, unknown>) => {
  const name = headers.vary ? 'vary' : 'Vary';
  // The value as the middleware treats it: `??=`, `&&=` and `+=` on whatever is there.
  const current = (headers[name] ?? '') as string;
  headers[name] = (current ? `${current}, ` : current) + 'Origin';
};

const setCredentials = (request: PortalRequest) => {
  const headers = request.response?.headers;
  if (headers) headers['Access-Control-Allow-Credentials'] = 'false';
};
