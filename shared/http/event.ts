/**
 * Reading API Gateway events, REST (v1) and HTTP API (v2) alike. Header names are compared
 * case-insensitively and every repeated value is kept, so callers can refuse ambiguity
 * instead of guessing which copy the client meant.
 */
import type {
  APIGatewayProxyEvent,
  APIGatewayProxyEventV2,
  APIGatewayProxyResult,
} from 'aws-lambda';

export type GatewayEvent = APIGatewayProxyEvent | APIGatewayProxyEventV2;
export type GatewayResult = APIGatewayProxyResult;

const isV2 = (event: GatewayEvent): event is APIGatewayProxyEventV2 =>
  'requestContext' in event &&
  typeof (event.requestContext as Partial<APIGatewayProxyEventV2['requestContext']>).http ===
    'object';

export const httpMethod = (event: GatewayEvent): string =>
  (isV2(event) ? event.requestContext.http.method : event.httpMethod).toUpperCase();

/** The route template (`/v1/restaurants/{id}/reports/dishes`), safe to log: it holds no ids. */
export const routeOf = (event: GatewayEvent): string =>
  isV2(event) ? event.routeKey : `${event.httpMethod} ${event.resource}`;

export const requestIdOf = (event: GatewayEvent): string | undefined =>
  event.requestContext.requestId;

/** Every value of a header, across all spellings of its name. */
export const headerValues = (event: GatewayEvent, name: string): string[] => {
  const wanted = name.toLowerCase();
  const multi = isV2(event) ? undefined : event.multiValueHeaders;
  if (multi) {
    const values = Object.entries(multi).flatMap(([key, list]) =>
      key.toLowerCase() === wanted && list ? list : [],
    );
    if (values.length > 0) return values;
  }
  // API Gateway sends `headers: null` for a request without headers, whatever the types say.
  const headers = (event.headers as Record<string, string | undefined> | null) ?? {};
  return Object.entries(headers).flatMap(([key, value]) =>
    key.toLowerCase() === wanted && value !== undefined ? [value] : [],
  );
};

/** Every value of a query-string parameter, in the order the client sent them. */
export const queryStringValues = (event: GatewayEvent, name: string): string[] => {
  if (isV2(event)) {
    if (typeof event.rawQueryString === 'string') {
      return new URLSearchParams(event.rawQueryString).getAll(name);
    }
    const joined = event.queryStringParameters?.[name];
    return joined === undefined ? [] : joined.split(',');
  }
  const multi = event.multiValueQueryStringParameters?.[name];
  if (multi) return multi;
  const single = event.queryStringParameters?.[name];
  return single === undefined ? [] : [single];
};

export const pathParameter = (event: GatewayEvent, name: string): string | undefined =>
  event.pathParameters?.[name] ?? undefined;

export const jsonResult = (
  statusCode: number,
  body: unknown,
  headers?: Record<string, string>,
): GatewayResult => ({
  statusCode,
  headers:
    headers === undefined
      ? { 'Content-Type': 'application/json' }
      : { 'Content-Type': 'application/json', ...headers },
  body: JSON.stringify(body),
});

/** Reads every value the client sent for a query-string parameter (a `queryStringValues` of one event). */
export type ParameterReader = (name: string) => readonly string[];
