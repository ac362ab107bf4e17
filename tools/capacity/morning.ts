/**
 * A morning at the portal, played against a packaged template (docs/operations.md, "Throttling"):
 * owners open the portal at seeded times, each request meets what AWS would put in its way in
 * the order AWS does — the web ACL's per-client rate rule, its route's token bucket (the stage's
 * MethodSettings), then its function's reserved concurrency — and every refusal is counted by
 * client, route and by whom. No clock: the events are replayed in simulated time.
 */
import { resourcesOfType, single, type Template } from '../generators/cloudformation';
import { methodSettingsPath, routesOf } from '../generators/throttles';
import { WAF_LOGICAL_ID } from '../generators/waf';

/** `GET /v1/plugins`: a route as the stage's MethodSettings name it. */
export type RouteKey = string;

export interface Durations {
  /** A warm container's answer, in ms. */
  readonly warmMs: number;
  /** A new container's answer, its cold start included, in ms. */
  readonly coldMs: number;
  /** What a browser takes between an answer and its next request, in ms. */
  readonly clientMs: number;
}

export interface Client {
  readonly name: string;
  readonly chains: readonly Chain[];
}

/** Requests one after another, each GET after its preflight; `at` is when the chain starts. */
export interface Chain {
  readonly at: number;
  readonly paths: readonly string[];
  /** Whether each request is preceded by its OPTIONS preflight. */
  readonly preflight: boolean;
}

export type Refusal = 'waf' | 'route' | 'lambda';

export interface Outcome {
  readonly requests: number;
  /** Refusals by client name, each with whom and where. */
  readonly refused: ReadonlyMap<string, readonly { by: Refusal; route: RouteKey }[]>;
  /** The most containers each function held at once. */
  readonly peakContainers: ReadonlyMap<string, number>;
}

/** A seeded generator of numbers in [0, 1) (mulberry32): the same seed, the same morning. */
export const seeded = (seed: number): (() => number) => {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
};

/**
 * `owners` owners opening the portal within `windowMs`: each fetches the plugin registry, the
 * dashboard and the default report side by side, each request after its preflight.
 */
export const morningOwners = (
  owners: number,
  windowMs: number,
  random: () => number,
  paths: readonly string[],
): Client[] =>
  Array.from({ length: owners }, (_, i) => {
    const at = random() * windowMs;
    return {
      name: `owner-${i}`,
      chains: paths.map((path) => ({ at, paths: [path], preflight: true })),
    };
  });

interface Bucket {
  readonly rate: number;
  readonly burst: number;
  tokens: number;
  last: number;
}

interface Pending {
  readonly at: number;
  readonly client: string;
  readonly method: string;
  readonly path: string;
  /** The requests of the chain still to send after this one. */
  readonly rest: readonly { method: string; path: string }[];
}

/** The stage's limits by route, read from its MethodSettings. */
const bucketsOf = (template: Template): Map<RouteKey, Bucket> => {
  const [, stage] = single(template, 'AWS::ApiGateway::Stage');
  const settings = (stage.Properties?.MethodSettings ?? []) as {
    ResourcePath: string;
    HttpMethod: string;
    ThrottlingRateLimit: number;
    ThrottlingBurstLimit: number;
  }[];
  const buckets = new Map<RouteKey, Bucket>();
  for (const setting of settings) {
    buckets.set(`${setting.HttpMethod} ${setting.ResourcePath}`, {
      rate: setting.ThrottlingRateLimit,
      burst: setting.ThrottlingBurstLimit,
      tokens: setting.ThrottlingBurstLimit,
      last: 0,
    });
  }
  return buckets;
};

/** The web ACL's rate rule: its limit and window, or nothing when the template has none. */
const rateRuleOf = (template: Template): { limit: number; windowMs: number } | undefined => {
  const acl = template.Resources[WAF_LOGICAL_ID];
  if (!acl) return undefined;
  const rules = (acl.Properties?.Rules ?? []) as {
    Statement?: { RateBasedStatement?: { Limit: number; EvaluationWindowSec: number } };
  }[];
  const rule = rules.find((r) => r.Statement?.RateBasedStatement)?.Statement?.RateBasedStatement;
  return rule ? { limit: rule.Limit, windowMs: rule.EvaluationWindowSec * 1000 } : undefined;
};

/** The events in time order, the earlier of two at the same time first. */
class Queue<T extends { at: number }> {
  private readonly items: T[] = [];
  push(item: T): void {
    const later = this.items.findIndex((queued) => queued.at > item.at);
    if (later < 0) this.items.push(item);
    else this.items.splice(later, 0, item);
  }
  pop(): T | undefined {
    return this.items.shift();
  }
}

/**
 * Plays `clients` against `template`. A request's route is `METHOD path` as the stage names it
 * (`GET /~1v1~1plugins`); a route without limits of its own takes the stage's `/*` ones. Each
 * client is its own IP to the web ACL. A refused request ends its chain, as a portal's would.
 */
export const simulate = (
  template: Template,
  clients: readonly Client[],
  durations: Durations,
): Outcome => {
  const buckets = bucketsOf(template);
  const rateRule = rateRuleOf(template);
  const functions = new Map(resourcesOfType(template, 'AWS::Lambda::Function'));
  const functionOf = new Map<RouteKey, { fn: string; reserved: number }>();
  for (const [fn, routes] of routesOf(template)) {
    const reserved = Number(functions.get(fn)?.Properties?.ReservedConcurrentExecutions);
    for (const route of routes) {
      functionOf.set(`${route.method} ${methodSettingsPath(route.path)}`, { fn, reserved });
    }
  }
  // Each function's containers: when each one is free again.
  const containers = new Map<string, number[]>();
  const peak = new Map<string, number>();
  const seen = new Map<string, number[]>();
  const refused = new Map<string, { by: Refusal; route: RouteKey }[]>();
  const queue = new Queue<Pending>();
  let requests = 0;

  for (const client of clients) {
    for (const chain of client.chains) {
      const steps = chain.paths.flatMap((path) => [
        ...(chain.preflight ? [{ method: 'OPTIONS', path }] : []),
        { method: 'GET', path },
      ]);
      const [first, ...rest] = steps;
      if (first) queue.push({ at: chain.at, client: client.name, ...first, rest });
    }
  }

  const refuse = (client: string, by: Refusal, route: RouteKey) => {
    refused.set(client, [...(refused.get(client) ?? []), { by, route }]);
  };

  for (let next = queue.pop(); next; next = queue.pop()) {
    requests += 1;
    const { at, client, method, path, rest } = next;
    const route = `${method} ${methodSettingsPath(path)}`;

    if (rateRule) {
      const times = (seen.get(client) ?? []).filter((t) => t > at - rateRule.windowMs);
      times.push(at);
      seen.set(client, times);
      if (times.length > rateRule.limit) {
        refuse(client, 'waf', route);
        continue;
      }
    }

    const bucket = buckets.get(route) ?? buckets.get('* /*');
    if (bucket) {
      bucket.tokens = Math.min(
        bucket.burst,
        bucket.tokens + ((at - bucket.last) / 1000) * bucket.rate,
      );
      bucket.last = at;
      if (bucket.tokens < 1) {
        refuse(client, 'route', route);
        continue;
      }
      bucket.tokens -= 1;
    }

    const target = functionOf.get(route);
    if (!target) throw new TypeError(`no function answers ${route}`);
    const free = containers.get(target.fn) ?? [];
    const idle = free.findIndex((until) => until <= at);
    let answered: number;
    if (idle >= 0) {
      answered = at + durations.warmMs;
      free[idle] = answered;
    } else if (free.length < target.reserved) {
      answered = at + durations.coldMs;
      free.push(answered);
    } else {
      refuse(client, 'lambda', route);
      continue;
    }
    containers.set(target.fn, free);
    const busy = free.filter((until) => until > at).length;
    peak.set(target.fn, Math.max(peak.get(target.fn) ?? 0, busy));

    const [following, ...after] = rest;
    if (following) {
      queue.push({ at: answered + durations.clientMs, client, ...following, rest: after });
    }
  }
  return { requests, refused, peakContainers: peak };
};
