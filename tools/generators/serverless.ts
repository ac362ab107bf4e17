/**
 * serverless.yml's `functions:`, generated from the catalogue: one function per endpoint,
 * named by its id in camelCase, with its handler `functions/<id>.handler`, its description,
 * and an API Gateway route for its method and for OPTIONS (spec 4.3) on each of its paths.
 * tools/serverless/functions.cjs hands this to serverless.yml through `${file(...)}`, so the
 * YAML holds no per-function block to keep in step. It hands over each function's reserved
 * concurrency too (`resources.extensions`), once the connection budget below is checked.
 */
import { catalogue as registry, type Endpoint } from '../../shared/catalogue';
import { answerSummary } from './endpoints';
import { validateCatalogue } from './validate';

export interface HttpEvent {
  readonly http: { readonly path: string; readonly method: string };
}

export interface ServerlessFunction {
  readonly handler: string;
  readonly description: string;
  readonly events: readonly HttpEvent[];
}

/** The `functions:` block of a catalogue; throws a TypeError when the catalogue is invalid. */
export const serverlessFunctions = (
  catalogue: readonly Endpoint[] = registry,
): Record<string, ServerlessFunction> => {
  validateCatalogue(catalogue);
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
export const RESERVED_CONCURRENCY_DEFAULT = 10;
export const RESERVED_CONCURRENCY_MAX = 1000;
/** DB_POOL_MAX's default and range, as shared/config.ts reads it in every container. */
export const POOL_MAX_DEFAULT = 2;
export const POOL_MAX_MAX = 20;

/** What packaging reads: environment variables or serverless params, by name. */
export type BudgetSettings = Readonly<Record<string, string | undefined>>;

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

/** `ordersPerDay` → `RESERVED_CONCURRENCY_ORDERS_PER_DAY`. */
export const reservedConcurrencyVariable = (fn: string): string =>
  `RESERVED_CONCURRENCY_${fn.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toUpperCase()}`;

const wholeNumber = (
  settings: BudgetSettings,
  name: string,
  min: number,
  max: number,
): number | undefined => {
  const raw = settings[name]?.trim();
  if (!raw) return undefined;
  const value = Number(raw);
  if (!/^\d+$/.test(raw) || value < min || value > max) {
    throw new TypeError(`${name} must be a whole number from ${min} to ${max}, not "${raw}"`);
  }
  return value;
};

/**
 * Reads the budget's settings — RESERVED_CONCURRENCY (default 10), RESERVED_CONCURRENCY_<FN>
 * per function, DB_POOL_MAX (default 2), DB_MAX_CONNECTIONS (unset: no limit checked) — and
 * checks it. Throws a TypeError naming the variable when a value is out of range, or naming
 * DB_MAX_CONNECTIONS, with the arithmetic, when the functions could hold more connections.
 */
export const connectionBudget = (
  settings: BudgetSettings,
  catalogue: readonly Endpoint[] = registry,
): ConnectionBudget => {
  const fallback =
    wholeNumber(settings, 'RESERVED_CONCURRENCY', 1, RESERVED_CONCURRENCY_MAX) ??
    RESERVED_CONCURRENCY_DEFAULT;
  const reservedConcurrency = Object.fromEntries(
    catalogue.map(({ function: fn }) => [
      fn,
      wholeNumber(settings, reservedConcurrencyVariable(fn), 1, RESERVED_CONCURRENCY_MAX) ??
        fallback,
    ]),
  );
  const poolMax = wholeNumber(settings, 'DB_POOL_MAX', 1, POOL_MAX_MAX) ?? POOL_MAX_DEFAULT;
  const maxConnections = wholeNumber(settings, 'DB_MAX_CONNECTIONS', 1, 1_000_000);
  const containers = Object.values(reservedConcurrency).reduce((sum, n) => sum + n, 0);
  const connections = containers * poolMax;
  if (maxConnections !== undefined && connections > maxConnections) {
    const counts = Object.values(reservedConcurrency);
    const perFunction = counts.every((n) => n === fallback)
      ? `${counts.length} functions × ${fallback} reserved concurrency`
      : `(${Object.entries(reservedConcurrency)
          .map(([fn, n]) => `${fn} ${n}`)
          .join(' + ')}) reserved concurrency`;
    throw new TypeError(
      `DB_MAX_CONNECTIONS is ${maxConnections}, but ${perFunction} × ${poolMax} connections per container (DB_POOL_MAX) = ${connections} connections: lower RESERVED_CONCURRENCY (or RESERVED_CONCURRENCY_<FUNCTION>) or DB_POOL_MAX, or put a proxy in front of the database`,
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
