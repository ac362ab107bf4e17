/**
 * The unauthenticated request the pre-traffic hook sends each checked version: what API Gateway
 * sends for a browser's request to its route without a credential.
 */
import type { APIGatewayProxyEvent } from 'aws-lambda';
import type { PreTrafficTarget } from './environment';

/**
 * What each `{name}` of a path is filled with: a valid restaurant id and plugin code, so that
 * only the missing credential can refuse the request.
 */
export const SAMPLE_PATH_VALUE = 'pre-traffic';

const PLACEHOLDER = /\{([A-Za-z0-9_]+)\}/g;

/**
 * The unauthenticated API Gateway REST (v1) proxy event of a target's route: what API Gateway
 * sends for a browser's request without a credential.
 */
export const unauthenticatedEvent = (
  { method, path }: Pick<PreTrafficTarget, 'method' | 'path'>,
  origin: string,
  requestId: string,
): APIGatewayProxyEvent => {
  const names = [...path.matchAll(PLACEHOLDER)].map(([, name]) => name ?? '');
  const pathParameters = Object.fromEntries(names.map((name) => [name, SAMPLE_PATH_VALUE]));
  const filled = path.replace(PLACEHOLDER, SAMPLE_PATH_VALUE);
  const headers = { Accept: 'application/json', Origin: origin };
  return {
    resource: path,
    path: filled,
    httpMethod: method,
    headers,
    multiValueHeaders: Object.fromEntries(
      Object.entries(headers).map(([name, value]) => [name, [value]]),
    ),
    queryStringParameters: null,
    multiValueQueryStringParameters: null,
    pathParameters: names.length === 0 ? null : pathParameters,
    stageVariables: null,
    requestContext: {
      accountId: 'pre-traffic',
      apiId: 'pre-traffic',
      authorizer: null,
      protocol: 'HTTP/1.1',
      httpMethod: method,
      identity: {
        accessKey: null,
        accountId: null,
        apiKey: null,
        apiKeyId: null,
        caller: null,
        clientCert: null,
        cognitoAuthenticationProvider: null,
        cognitoAuthenticationType: null,
        cognitoIdentityId: null,
        cognitoIdentityPoolId: null,
        principalOrgId: null,
        sourceIp: '127.0.0.1',
        user: null,
        userAgent: 'portal-service-api pre-traffic hook',
        userArn: null,
      },
      path: filled,
      stage: 'pre-traffic',
      requestId,
      requestTimeEpoch: Date.now(),
      resourceId: 'pre-traffic',
      resourcePath: path,
    },
    body: null,
    isBase64Encoded: false,
  };
};
