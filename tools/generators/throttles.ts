/**
 * Per-route throttling (docs/operations.md, "Throttling"): each route of the stage gets API
 * Gateway's own limits, sized so that the requests it lets through never need more containers
 * than the route's function reserves. A burst above them is answered by the gateway with 429 and
 * the spec's body (the THROTTLED gateway response), which a caller may retry, instead of reaching
 * Lambda's concurrency limit, which callers see as a 5xx.
 *
 * A token bucket of burst b and rate r lets through at most b + r × d requests in any window of
 * d, and a request of duration d holds a container for that long, so a function of reserved
 * concurrency c and k routes (each path and method, OPTIONS included) never needs more than c
 * containers while its requests last at most d when Σ (b + r × d) ≤ c. Half of c goes to the
 * bursts, half to the rates, in equal shares per route:
 *
 *   b = max(1, ⌊c / 2k⌋),   r = ⌊100 × (c − k × b) / (k × d)⌋ / 100   (requests per second)
 *
 * d is API_ROUTE_DURATION_MS: the functions' measured p99 duration.
 */
import { refOf, resourcesOfType, type Template } from './cloudformation';

/** The least rate a route is given, in requests per second (API Gateway's takes hundredths). */
const MIN_RATE = 0.01;

/** The least reserved concurrency that gives `routes` routes of `durationMs` their limits. */
export const minimumReserved = (routes: number, durationMs: number): number =>
  Math.ceil(routes * (1 + (MIN_RATE * durationMs) / 1000));

export interface Route {
  /** `/v1/restaurants/{id}/reports/orders/day`. */
  readonly path: string;
  /** `GET`, `OPTIONS`. */
  readonly method: string;
}

export interface RouteThrottle extends Route {
  readonly rate: number;
  readonly burst: number;
}

const isGetAttArnOf = (value: unknown): string | undefined => {
  const getAtt = (value as { 'Fn::GetAtt'?: unknown } | null)?.['Fn::GetAtt'];
  return Array.isArray(getAtt) && getAtt[1] === 'Arn' && typeof getAtt[0] === 'string'
    ? getAtt[0]
    : undefined;
};

/** The function logical id each proxy method of the template calls, with its route. */
export const routesOf = (template: Template): Map<string, Route[]> => {
  const resources = new Map(resourcesOfType(template, 'AWS::ApiGateway::Resource'));
  const pathOf = (id: string | undefined, depth = 0): string => {
    const resource = id === undefined ? undefined : resources.get(id);
    if (!resource || depth > 32) return '';
    const part = resource.Properties?.PathPart;
    if (typeof part !== 'string') return '';
    return `${pathOf(refOf(resource.Properties?.ParentId), depth + 1)}/${part}`;
  };
  const routes = new Map<string, Route[]>();
  for (const [, method] of resourcesOfType(template, 'AWS::ApiGateway::Method')) {
    const integration = method.Properties?.Integration as
      { Type?: string; Uri?: { 'Fn::Join'?: [string, unknown[]] } } | undefined;
    if (integration?.Type !== 'AWS_PROXY') continue;
    const fn = (integration.Uri?.['Fn::Join']?.[1] ?? []).map(isGetAttArnOf).find(Boolean);
    if (fn === undefined) continue;
    const route = {
      path: pathOf(refOf(method.Properties?.ResourceId)) || '/',
      method: String(method.Properties?.HttpMethod),
    };
    routes.set(fn, [...(routes.get(fn) ?? []), route]);
  }
  return routes;
};

/**
 * Each route's limits from its function's reserved concurrency and `durationMs`. Throws a
 * TypeError naming the function whose reserved concurrency cannot give every route at least one
 * request of burst and some rate.
 */
export const routeThrottles = (template: Template, durationMs: number): RouteThrottle[] => {
  const seconds = durationMs / 1000;
  const functions = new Map(resourcesOfType(template, 'AWS::Lambda::Function'));
  const throttles: RouteThrottle[] = [];
  for (const [fn, routes] of routesOf(template)) {
    const reserved = Number(functions.get(fn)?.Properties?.ReservedConcurrentExecutions);
    if (!Number.isInteger(reserved) || reserved < 1) {
      throw new TypeError(
        `${fn} has no reserved concurrency: its routes' throttling is sized from it (tools/generators/throttles.ts)`,
      );
    }
    const k = routes.length;
    const burst = Math.max(1, Math.floor(reserved / (2 * k)));
    const rate = Math.floor((100 * (reserved - k * burst)) / (k * seconds)) / 100;
    if (rate < MIN_RATE) {
      throw new TypeError(
        `${fn} reserves ${reserved} concurrent executions for ${k} routes of ${durationMs} ms: each route needs a burst of 1 and ${MIN_RATE} requests/s, so at least ${minimumReserved(k, durationMs)} (RESERVED_CONCURRENCY_<FUNCTION>, docs/operations.md, "Throttling")`,
      );
    }
    for (const route of routes) throttles.push({ ...route, rate, burst });
  }
  return throttles;
};

/** `/v1/restaurants/{id}` → `/~1v1~1restaurants~1{id}`: a stage's MethodSettings ResourcePath. */
export const methodSettingsPath = (path: string): string => `/${path.replace(/\//g, '~1')}`;
