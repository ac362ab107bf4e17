/**
 * Per-route throttling (docs/operations.md, "Throttling"): each route of the stage gets API
 * Gateway's own limits, and each function reserves the containers its routes' limits can fill,
 * so a burst above them is the gateway's 429 (the THROTTLED gateway response) and never reaches
 * Lambda's concurrency limit.
 *
 * A token bucket of burst b and rate r lets through at most b + r × d requests in any window of
 * d, and a request holds its container at most d (a cold start's whole answer), so a function
 * with k routes (each path and method, OPTIONS too) needs at most Σ (b + r × d) containers.
 * From API_ROUTE_RATE r, every route of the function alike:
 *
 *   b = ⌈r / 2⌉,   reserved concurrency c = ⌈k × (b + r × d)⌉
 *
 * A reserved concurrency set below that (RESERVED_CONCURRENCY, RESERVED_CONCURRENCY_<FUNCTION>)
 * gives its routes what fits instead, half of c to the bursts and half to the rates, never above
 * API_ROUTE_RATE's own:
 *
 *   b = max(1, min(⌈r / 2⌉, ⌊c / 2k⌋)),   r' = min(r, ⌊100 × (c − k × b) / (k × d)⌋ / 100)
 *
 * d is API_ROUTE_DURATION_MS.
 */
import { arnOf, refOf, resourcesOfType, type Template } from './cloudformation';

/** The least rate a route is given, in requests per second (API Gateway's takes hundredths). */
const MIN_RATE = 0.01;

/** A route's limits from API_ROUTE_RATE: half a second of its rate may arrive at once. */
export const routeLimits = (rate: number): { rate: number; burst: number } => ({
  rate,
  burst: Math.max(1, Math.ceil(rate / 2)),
});

/** The containers `routes` routes of `rate` (API_ROUTE_RATE) can fill while one lasts `durationMs`. */
export const reservedFor = (routes: number, rate: number, durationMs: number): number => {
  const { burst } = routeLimits(rate);
  return Math.ceil(routes * (burst + (rate * durationMs) / 1000) - 1e-9);
};

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

/** The function logical id each proxy method of the template calls (itself or its alias), with its routes. */
export const routesOf = (template: Template): Map<string, Route[]> => {
  const resources = new Map(resourcesOfType(template, 'AWS::ApiGateway::Resource'));
  const pathOf = (id: string | undefined, depth = 0): string => {
    const resource = id === undefined ? undefined : resources.get(id);
    if (!resource || depth > 32) return '';
    const part = resource.Properties?.PathPart;
    if (typeof part !== 'string') return '';
    return `${pathOf(refOf(resource.Properties?.ParentId), depth + 1)}/${part}`;
  };
  // Once the routes call their function's `live` alias (operations.ts): the alias's function.
  const aliases = new Map(resourcesOfType(template, 'AWS::Lambda::Alias'));
  const aliasedFunction = (id: string | undefined) =>
    id === undefined ? undefined : refOf(aliases.get(id)?.Properties?.FunctionName);
  const routes = new Map<string, Route[]>();
  for (const [, method] of resourcesOfType(template, 'AWS::ApiGateway::Method')) {
    const integration = method.Properties?.Integration as
      { Type?: string; Uri?: { 'Fn::Join'?: [string, unknown[]] } } | undefined;
    if (integration?.Type !== 'AWS_PROXY') continue;
    const fn = (integration.Uri?.['Fn::Join']?.[1] ?? [])
      .map((part) => arnOf(part) ?? aliasedFunction(refOf(part)))
      .find(Boolean);
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
 * Each route's limits: API_ROUTE_RATE's (`routeRate`) where its function reserves the containers
 * they can fill, else what its reserved concurrency fits. Throws a TypeError naming the function
 * whose reserved concurrency cannot give every route a burst of 1 and some rate.
 */
export const routeThrottles = (
  template: Template,
  durationMs: number,
  routeRate: number,
): RouteThrottle[] => {
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
    if (reserved >= reservedFor(k, routeRate, durationMs)) {
      for (const route of routes) throttles.push({ ...route, ...routeLimits(routeRate) });
      continue;
    }
    // Never above API_ROUTE_RATE's own limits: reserving less never lets more through.
    const target = routeLimits(routeRate);
    const burst = Math.max(1, Math.min(target.burst, Math.floor(reserved / (2 * k))));
    const rate = Math.min(
      target.rate,
      Math.floor((100 * (reserved - k * burst)) / (k * seconds)) / 100,
    );
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
