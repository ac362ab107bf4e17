/**
 * tools/generators/throttles.ts: each route's limits from its function's reserved concurrency and
 * API_ROUTE_DURATION_MS, with Σ (burst + rate × duration) ≤ reserved: a burst above is the
 * gateway's 429, never Lambda's throttle.
 */
import fc from 'fast-check';
import type { Resource, Template } from '../../../tools/generators/cloudformation';
import {
  methodSettingsPath,
  minimumReserved,
  reservedFor,
  routesOf,
  routeThrottles,
} from '../../../tools/generators/throttles';

/** A REST API with one function of `reserved` behind `paths` × `methods`. */
const apiTemplate = (reserved: number, paths: readonly string[], methods: readonly string[]) => {
  const resources: Record<string, Resource> = {
    FnLambdaFunction: {
      Type: 'AWS::Lambda::Function',
      Properties: { FunctionName: 'svc-production-fn', ReservedConcurrentExecutions: reserved },
    },
    OtherLambdaFunction: { Type: 'AWS::Lambda::Function', Properties: { FunctionName: 'hook' } },
    ApiGatewayResourceV1: {
      Type: 'AWS::ApiGateway::Resource',
      Properties: {
        ParentId: { 'Fn::GetAtt': ['ApiGatewayRestApi', 'RootResourceId'] },
        PathPart: 'v1',
      },
    },
  };
  paths.forEach((path, p) => {
    resources[`Resource${p}`] = {
      Type: 'AWS::ApiGateway::Resource',
      Properties: { ParentId: { Ref: 'ApiGatewayResourceV1' }, PathPart: path },
    };
    for (const method of methods) {
      resources[`Method${p}${method}`] = {
        Type: 'AWS::ApiGateway::Method',
        Properties: {
          HttpMethod: method,
          ResourceId: { Ref: `Resource${p}` },
          Integration: {
            Type: 'AWS_PROXY',
            Uri: {
              'Fn::Join': [
                '',
                ['arn:…/functions/', { 'Fn::GetAtt': ['FnLambdaFunction', 'Arn'] }, '/invocations'],
              ],
            },
          },
        },
      };
    }
  });
  return { Resources: resources } satisfies Template;
};

describe('routesOf', () => {
  it('finds each proxy route’s path and method, by the function it calls', () => {
    // Act
    const routes = routesOf(apiTemplate(10, ['{id}', 'plugins'], ['GET', 'OPTIONS']));

    // Assess
    expect([...routes.keys()]).toEqual(['FnLambdaFunction']);
    expect(routes.get('FnLambdaFunction')).toEqual([
      { path: '/v1/{id}', method: 'GET' },
      { path: '/v1/{id}', method: 'OPTIONS' },
      { path: '/v1/plugins', method: 'GET' },
      { path: '/v1/plugins', method: 'OPTIONS' },
    ]);
  });
});

describe('routeThrottles', () => {
  it('never lets through more than the function reserves while its requests last the duration', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 4 }),
        fc.integer({ min: 10, max: 29_000 }),
        fc.integer({ min: 0, max: 1000 }),
        fc.double({ min: 0.1, max: 5000, noNaN: true }),
        (paths, durationMs, extra, routeRate) => {
          const k = paths * 2;
          const reserved = minimumReserved(k, durationMs) + extra;
          const template = apiTemplate(
            reserved,
            Array.from({ length: paths }, (_, i) => `p${i}`),
            ['GET', 'OPTIONS'],
          );
          const throttles = routeThrottles(template, durationMs, routeRate);
          expect(throttles).toHaveLength(k);
          expect(
            throttles.reduce((sum, { burst, rate }) => sum + burst + (rate * durationMs) / 1000, 0),
          ).toBeLessThanOrEqual(reserved + 1e-9);
          for (const { burst, rate } of throttles) {
            expect(burst).toBeGreaterThanOrEqual(1);
            expect(rate).toBeGreaterThan(0);
          }
        },
      ),
    );
  });

  it('gives each route API_ROUTE_RATE, with half a second of it as burst, where the function reserves what they fill', () => {
    // 2 routes × (8 + 15 × 0.1) = 19 containers.
    expect(reservedFor(2, 15, 100)).toBe(19);
    expect(routeThrottles(apiTemplate(19, ['{id}'], ['GET', 'OPTIONS']), 100, 15)).toEqual([
      { path: '/v1/{id}', method: 'GET', rate: 15, burst: 8 },
      { path: '/v1/{id}', method: 'OPTIONS', rate: 15, burst: 8 },
    ]);
  });

  it('gives the routes of a function reserving less what fits: 10 over GET and OPTIONS of 500 ms, bursts of 2 and 6 requests/s', () => {
    expect(routeThrottles(apiTemplate(10, ['{id}'], ['GET', 'OPTIONS']), 500, 15)).toEqual([
      { path: '/v1/{id}', method: 'GET', rate: 6, burst: 2 },
      { path: '/v1/{id}', method: 'OPTIONS', rate: 6, burst: 2 },
    ]);
  });

  it('refuses a reserved concurrency too small for its routes, naming the setting', () => {
    expect(() => routeThrottles(apiTemplate(2, ['{id}'], ['GET', 'OPTIONS']), 500, 15)).toThrow(
      'FnLambdaFunction reserves 2 concurrent executions for 2 routes of 500 ms: each route needs a burst of 1 and 0.01 requests/s, so at least 3 (RESERVED_CONCURRENCY_<FUNCTION>',
    );
  });
});

describe('methodSettingsPath', () => {
  it('escapes each slash as API Gateway’s MethodSettings ResourcePath wants', () => {
    expect(methodSettingsPath('/v1/restaurants/{id}')).toBe('/~1v1~1restaurants~1{id}');
  });
});
