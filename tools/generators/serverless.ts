/**
 * serverless.yml's `functions:`, generated from the catalogue: one function per endpoint,
 * named by its id in camelCase, with its handler `functions/<id>.handler`, its description,
 * and an API Gateway route for its method and for OPTIONS (spec 4.3) on each of its paths.
 * tools/serverless/functions.cjs hands this to serverless.yml through `${file(...)}`, so the
 * YAML holds no per-function block to keep in step. It hands over each function's reserved
 * concurrency too (`resources.extensions`), once the connection budget below is checked.
 */
import { catalogue as registry, type Endpoint } from '../catalogue';
import { answerSummary } from './endpoints';
import { reservedConcurrencyVariable, settingEntry } from './registry';
import { numberOf } from './settings-check';
import { reservedFor } from './throttles';
import type { FunctionSize } from './stages';
import { validateCatalogue } from './validate';

export interface HttpEvent {
  readonly http: { readonly path: string; readonly method: string };
}

export interface ServerlessFunction extends FunctionSize {
  readonly handler: string;
  readonly description: string;
  readonly events: readonly HttpEvent[];
}

/**
 * The `functions:` block of a catalogue, each function with its `sizes` (the stage's timeout and
 * memory, custom.stages); throws a TypeError when the catalogue is invalid or `sizes` names a
 * function it does not hold.
 */
export const serverlessFunctions = (
  catalogue: readonly Endpoint[] = registry,
  sizes: Readonly<Record<string, FunctionSize>> = {},
): Record<string, ServerlessFunction> => {
  validateCatalogue(catalogue);
  const names = catalogue.map((endpoint) => endpoint.function);
  const unknown = Object.keys(sizes).filter((name) => !names.includes(name));
  if (unknown.length > 0) {
    throw new TypeError(
      `custom.stages: ${unknown.join(', ')} is no function of the catalogue (${names.join(', ')})`,
    );
  }
  return Object.fromEntries(
    catalogue.map((endpoint) => [
      endpoint.function,
      {
        handler: `${endpoint.handlerFile.replace(/\.ts$/, '')}.handler`,
        description: answerSummary(endpoint.answers).description,
        events: endpoint.paths.flatMap((path) => [
          { http: { path, method: endpoint.method.toLowerCase() } },
          { http: { path, method: 'options' } },
        ]),
        ...sizes[endpoint.function],
      },
    ]),
  );
};

/**
 * The connection budget (docs/database.md, "Connection budget"): each function's reserved
 * concurrency caps its warm containers, and each container holds up to DB_POOL_MAX connections,
 * so the functions together hold at most Σ reserved concurrency × DB_POOL_MAX connections.
 * Packaging fails when that exceeds DB_MAX_CONNECTIONS (the database's or the proxy's limit,
 * less what other clients need), when it is set.
 */
/** A setting as packaging read it: its value and the variable it came from. */
export interface BudgetSetting {
  readonly variable: string;
  readonly value: string;
}
/** What packaging read (tools/generators/settings-check.ts), by setting name. */
export type BudgetSettings = Readonly<Record<string, BudgetSetting | undefined>>;

export interface ConnectionBudget {
  /** Reserved concurrency per function, in catalogue order. */
  readonly reservedConcurrency: Readonly<Record<string, number>>;
  /** DB_POOL_MAX: connections per container. */
  readonly poolMax: number;
  /** The most connections the functions can hold together. */
  readonly connections: number;
  /** DB_MAX_CONNECTIONS, when set. */
  readonly maxConnections?: number;
}

export { reservedConcurrencyVariable } from './registry';

/**
 * The number `name` holds, or its registry default (a function setting's comes from
 * shared/settings.ts, as the functions read it).
 */
const numberOrDefault = (settings: BudgetSettings, name: string): number => {
  const setting = settings[name];
  return setting && setting.value !== ''
    ? numberOf({ ...setting, source: 'variable' }, name)
    : Number(settingEntry(name).default);
};

/** The whole number `name` holds, in the registry's range; undefined when unset. */
const wholeNumber = (settings: BudgetSettings, name: string): number | undefined => {
  const setting = settings[name];
  if (!setting || setting.value === '') return undefined;
  return numberOf({ ...setting, source: 'variable' }, name);
};

/**
 * Reads the budget's settings — RESERVED_CONCURRENCY, RESERVED_CONCURRENCY_<FN> per function
 * (unset: what the function's routes can fill at API_ROUTE_RATE, throttles.ts), DB_POOL_MAX, DB_MAX_CONNECTIONS (unset: no limit checked), each with its default folded in
 * (tools/generators/registry.ts, custom.stages) — and checks it. Throws a TypeError naming the variable when a value is out of range, or naming
 * DB_MAX_CONNECTIONS, with the arithmetic, when the functions could hold more connections.
 */
export const connectionBudget = (
  settings: BudgetSettings,
  catalogue: readonly Endpoint[] = registry,
): ConnectionBudget => {
  const fallback = wholeNumber(settings, 'RESERVED_CONCURRENCY');
  const routeRate = numberOrDefault(settings, 'API_ROUTE_RATE');
  const durationMs = numberOrDefault(settings, 'API_ROUTE_DURATION_MS');
  const reservedConcurrency = Object.fromEntries(
    catalogue.map(({ function: fn, paths }) => [
      fn,
      wholeNumber(settings, reservedConcurrencyVariable(fn)) ??
        fallback ??
        // Its method and OPTIONS on each path (serverlessFunctions).
        reservedFor(paths.length * 2, routeRate, durationMs),
    ]),
  );
  const poolMax = numberOrDefault(settings, 'DB_POOL_MAX');
  const maxConnections = wholeNumber(settings, 'DB_MAX_CONNECTIONS');
  const containers = Object.values(reservedConcurrency).reduce((sum, n) => sum + n, 0);
  const connections = containers * poolMax;
  if (maxConnections !== undefined && connections > maxConnections) {
    const counts = Object.values(reservedConcurrency);
    const perFunction = counts.every((n) => n === counts[0])
      ? `${counts.length} functions × ${counts[0]} reserved concurrency`
      : `(${Object.entries(reservedConcurrency)
          .map(([fn, n]) => `${fn} ${n}`)
          .join(' + ')}) reserved concurrency`;
    throw new TypeError(
      `${settings.DB_MAX_CONNECTIONS?.variable ?? 'DB_MAX_CONNECTIONS'} is ${maxConnections}, but ${perFunction} × ${poolMax} connections per container (DB_POOL_MAX) = ${connections} connections: lower RESERVED_CONCURRENCY (or RESERVED_CONCURRENCY_<FUNCTION>) or DB_POOL_MAX, or put a proxy in front of the database`,
    );
  }
  return {
    reservedConcurrency,
    poolMax,
    connections,
    ...(maxConnections === undefined ? {} : { maxConnections }),
  };
};

/** The CloudFormation logical id osls gives a function: `ordersPerDay` → `OrdersPerDayLambdaFunction`. */
export const lambdaLogicalId = (fn: string): string =>
  `${fn.charAt(0).toUpperCase()}${fn.slice(1)}LambdaFunction`;

/**
 * serverless.yml's `resources.extensions` for the budget: each function's reserved concurrency
 * (`ReservedConcurrentExecutions`), set on the function osls generates.
 */
export const reservedConcurrencyExtensions = (
  budget: ConnectionBudget,
): Record<string, { Properties: { ReservedConcurrentExecutions: number } }> =>
  Object.fromEntries(
    Object.entries(budget.reservedConcurrency).map(([fn, n]) => [
      lambdaLogicalId(fn),
      { Properties: { ReservedConcurrentExecutions: n } },
    ]),
  );
