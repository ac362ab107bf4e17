/**
 * API Gateway events for tests: REST (v1) events start from the sample files in events/ (read
 * fresh for each call so no test can change another's event); HTTP API (v2) events are built
 * to the same request. And an event that is not a request: EventBridge's scheduled event.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { APIGatewayProxyEvent, APIGatewayProxyEventV2, Context } from 'aws-lambda';
import type { IsoDate } from '../../shared/dates';
import { todayIn } from '../../tools/dates';
import { fillPlaceholders } from '../../tools/local/placeholders';

export const EVENTS_DIR = join(import.meta.dirname, '../../events');

export const sampleToday = (): IsoDate => todayIn('Asia/Dubai');

/** events/<name>.json with its placeholders filled. */
export const sampleEvent = (name: string, token: string): APIGatewayProxyEvent =>
  fillPlaceholders(
    JSON.parse(readFileSync(join(EVENTS_DIR, `${name}.json`), 'utf8')) as APIGatewayProxyEvent,
    { token, today: sampleToday() },
  );

export interface RequestSpec {
  readonly method?: string;
  /** Route template, e.g. /v1/restaurants/{id}/reports/dishes */
  readonly resource: string;
  readonly pathParameters?: Readonly<Record<string, string>>;
  /** A list value sends the header (or parameter) once per element. */
  readonly headers?: Readonly<Record<string, string | readonly string[]>>;
  readonly query?: Readonly<Record<string, string | readonly string[]>>;
}

const asList = (value: string | readonly string[]): readonly string[] =>
  typeof value === 'string' ? [value] : value;

const pathOf = (spec: RequestSpec): string =>
  spec.resource.replace(/\{(\w+)\}/g, (_m, name: string) =>
    encodeURIComponent(spec.pathParameters?.[name] ?? ''),
  );

export const restEvent = (spec: RequestSpec): APIGatewayProxyEvent => {
  const method = spec.method ?? 'GET';
  const headers = Object.entries(spec.headers ?? {});
  const query = Object.entries(spec.query ?? {});
  return {
    resource: spec.resource,
    path: pathOf(spec),
    httpMethod: method,
    headers: Object.fromEntries(headers.map(([k, v]) => [k, asList(v).at(-1) ?? ''])),
    multiValueHeaders: Object.fromEntries(headers.map(([k, v]) => [k, [...asList(v)]])),
    queryStringParameters:
      query.length === 0
        ? null
        : Object.fromEntries(query.map(([k, v]) => [k, asList(v).at(-1) ?? ''])),
    multiValueQueryStringParameters:
      query.length === 0 ? null : Object.fromEntries(query.map(([k, v]) => [k, [...asList(v)]])),
    pathParameters: spec.pathParameters ? { ...spec.pathParameters } : null,
    stageVariables: null,
    requestContext: {
      accountId: '123456789012',
      apiId: 'test',
      authorizer: null,
      protocol: 'HTTP/1.1',
      httpMethod: method,
      identity: { sourceIp: '203.0.113.10' } as APIGatewayProxyEvent['requestContext']['identity'],
      path: pathOf(spec),
      stage: 'test',
      requestId: `req-${Math.random().toString(36).slice(2)}`,
      requestTimeEpoch: Date.now(),
      resourceId: 'r',
      resourcePath: spec.resource,
    },
    body: null,
    isBase64Encoded: false,
  };
};

export const httpApiEvent = (spec: RequestSpec): APIGatewayProxyEventV2 => {
  const method = spec.method ?? 'GET';
  const headers: Record<string, string> = {};
  for (const [key, value] of Object.entries(spec.headers ?? {})) {
    headers[key.toLowerCase()] = asList(value).join(',');
  }
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(spec.query ?? {})) {
    for (const item of asList(value)) params.append(key, item);
  }
  const joined: Record<string, string> = {};
  for (const key of new Set(params.keys())) joined[key] = params.getAll(key).join(',');
  return {
    version: '2.0',
    routeKey: `${method} ${spec.resource}`,
    rawPath: pathOf(spec),
    rawQueryString: params.toString(),
    headers,
    ...(params.size > 0 ? { queryStringParameters: joined } : {}),
    ...(spec.pathParameters ? { pathParameters: { ...spec.pathParameters } } : {}),
    requestContext: {
      accountId: '123456789012',
      apiId: 'test',
      domainName: 'test.execute-api.eu-west-1.amazonaws.com',
      domainPrefix: 'test',
      http: {
        method,
        path: pathOf(spec),
        protocol: 'HTTP/1.1',
        sourceIp: '203.0.113.10',
        userAgent: 'jest',
      },
      requestId: `req-${Math.random().toString(36).slice(2)}`,
      routeKey: `${method} ${spec.resource}`,
      stage: '$default',
      time: new Date().toISOString(),
      timeEpoch: Date.now(),
    },
    isBase64Encoded: false,
  };
};

/** An EventBridge scheduled event, as a rule's `schedule` sends it. */
export const scheduledEvent = () => ({
  version: '0',
  id: '53dc4d37-cffa-4f76-80c9-8b7d4a4d2eaa',
  'detail-type': 'Scheduled Event',
  source: 'aws.events',
  account: '123456789012',
  time: '2026-01-01T00:00:00Z',
  region: 'eu-west-1',
  resources: ['arn:aws:events:eu-west-1:123456789012:rule/warm'],
  detail: {},
});

/** A minimal Lambda context (no getRemainingTimeInMillis: Middy's early timeout stays off). */
export const lambdaContext = (): Context =>
  ({
    awsRequestId: `aws-${Math.random().toString(36).slice(2)}`,
    functionName: 'test',
    functionVersion: '$LATEST',
    invokedFunctionArn: 'arn:aws:lambda:eu-west-1:123456789012:function:test',
    memoryLimitInMB: '512',
    logGroupName: '/aws/lambda/test',
    logStreamName: 'test',
    callbackWaitsForEmptyEventLoop: false,
  }) as Context;

export const jsonBody = (result: { body?: string }): unknown => JSON.parse(result.body ?? 'null');
