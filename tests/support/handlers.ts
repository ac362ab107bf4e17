/**
 * The deployed handlers invoked in-process, as API Gateway invokes them, for the handler suites:
 * the sample owners, the request of a restaurant's report, and what every answer carries (spec
 * 4.3 CORS; spec 2.6 for an error); and a browser's preflight over HTTP.
 */
import type { APIGatewayProxyResult } from 'aws-lambda';
import { SAMPLE_OWNERS, type SampleOwner } from '../../tools/db/sample-data';
import type { ErrorBody } from '../../shared/errors';
import { jsonBody, lambdaContext, type RequestSpec } from './events';

export const [owner1, owner2, owner3] = SAMPLE_OWNERS as [SampleOwner, SampleOwner, SampleOwner];

type Handler = (event: unknown, context: unknown) => Promise<APIGatewayProxyResult>;
export const invoke = (handler: unknown, event: unknown): Promise<APIGatewayProxyResult> =>
  (handler as Handler)(event, lambdaContext());

/** GET `resource` of restaurant `id` with the bearer `token`, `query` and other `headers`. */
export const reportRequest = (
  resource: string,
  id: string,
  token: string,
  query: Readonly<Record<string, string | readonly string[]>> = {},
  headers: Readonly<Record<string, string | readonly string[]>> = {},
): RequestSpec => ({
  resource,
  pathParameters: { id },
  headers: { Authorization: `Bearer ${token}`, ...headers },
  query,
});

/** The header every answer carries (spec 4.3). */
export const CORS = { 'Access-Control-Allow-Origin': '*' };

/** The four CORS headers of a preflight answer (spec 4.3). */
export const SPEC_CORS = {
  'Access-Control-Allow-Origin': '*',
  'Access-Control-Allow-Headers': 'Content-Type,Authorization',
  'Access-Control-Allow-Methods': 'OPTIONS,GET',
  'Access-Control-Allow-Credentials': 'false',
};

/** The answer to a preflight (spec 4.3): the CORS headers, cached for 10 minutes, no body. */
export const PREFLIGHT = {
  statusCode: 200,
  headers: { ...SPEC_CORS, 'Access-Control-Max-Age': '600' },
  body: '',
};

/** A browser's preflight of a GET with a token, over HTTP. */
export const browserPreflight = (url: string): Promise<Response> =>
  fetch(url, {
    method: 'OPTIONS',
    headers: {
      Origin: 'https://portal.example.com',
      'Access-Control-Request-Method': 'GET',
      'Access-Control-Request-Headers': 'authorization',
    },
  });

/** The values of SPEC_CORS's headers in an HTTP answer (null where it lacks one). */
export const specCorsOf = (headers: Headers): Record<string, string | null> =>
  Object.fromEntries(Object.keys(SPEC_CORS).map((name) => [name, headers.get(name)]));

/** Expects an error answer: `statusCode`, the CORS header and `headers`, and `body`. */
export const expectError = (
  result: APIGatewayProxyResult,
  statusCode: number,
  body: ErrorBody,
  headers: Readonly<Record<string, string>> = {},
): void => {
  expect(result.statusCode).toBe(statusCode);
  expect(result.headers).toMatchObject({ ...CORS, ...headers });
  expect(jsonBody(result)).toEqual(body);
};
