/**
 * CloudWatch metrics in the embedded metric format (EMF): log lines the service writes anyway
 * also carry CloudWatch's `_aws` member, from which CloudWatch Logs extracts the metrics. No SDK
 * and no call on the request path: the directives are built here once per container, and the
 * logger (logger.ts) adds each line's `_aws` member with its Timestamp.
 *
 * The names, units and dimensions are a contract the CloudWatch alarms are written against
 * (docs/operations.md, "Metrics"): `Requests` and `Latency` by `[Service]`,
 * `[Service, Route, StatusClass]` and `[Service, FunctionName, Version, StatusClass]` (what a
 * release's rollback alarm reads of the version it ships), and `ColdStarts`, `KeySetFailures` and `DatabaseErrors` by
 * `[Service]`, on every access line; `KeySetFailures` is 1 only on a `key set fetch failed` line
 * (request lines carry 0, so the metric has a data point whenever there is traffic). A metric is
 * written at its line's level, so a line filtered out writes none. Metric lines hold only these
 * names, the route template and closed values: never a header, token, claim, query value, path
 * id, SQL or stack.
 */
import type { LogFields, MetricDefinition, MetricDirective, MetricDirectives } from './logger';
import { FUNCTION_SETTINGS } from './settings';

export const DEFAULT_METRICS_NAMESPACE = FUNCTION_SETTINGS.METRICS_NAMESPACE.default;
export const DEFAULT_METRICS_SERVICE = 'portal-service-api';

/** CloudWatch's limit on a namespace, and ours on the Service dimension's value. */
export const METRIC_NAME_MAX = 255;
/** CloudWatch's characters of a namespace: letters, digits, spaces, `. - _ / # :`. */
const NAMESPACE_CHARACTERS = /^[A-Za-z0-9 .\-_/#:]*$/;

/**
 * The rule of METRICS_NAMESPACE, for the functions (shared/config.ts) and packaging, whose
 * alarms read the namespace (tools/generators/): at most 255 of CloudWatch's characters, not
 * all spaces, and never under `AWS/`, which is AWS's own. What is wrong with `namespace`, as
 * the end of a sentence that names the variable ("must …"); undefined when nothing is.
 */
export const metricsNamespaceProblem = (namespace: string): string | undefined => {
  if (namespace.length > METRIC_NAME_MAX) return `must be at most ${METRIC_NAME_MAX} characters`;
  if (!NAMESPACE_CHARACTERS.test(namespace)) {
    return 'must hold only letters, digits, spaces and . - _ / # : (a CloudWatch namespace)';
  }
  if (namespace.trim() === '') return 'must hold a character other than a space';
  if (namespace.startsWith('AWS/')) return 'must not start with AWS/ (the namespaces of AWS)';
  return undefined;
};
/** The `FunctionName` and `Version` outside Lambda (tests, npm start). */
export const LOCAL_FUNCTION = { functionName: 'local', version: '$LATEST' } as const;

/** The EMF specification's limits on one directive. */
export const EMF_LIMITS = { metricsPerDirective: 100, dimensionsPerSet: 30 } as const;

export interface MetricsConfig {
  readonly namespace: string;
  /** The value of the `Service` dimension. */
  readonly service: string;
  /** The `FunctionName` and `Version` dimensions: Lambda's name and version of this function. */
  readonly functionName: string;
  readonly version: string;
}

/** Why a request was answered 500, when the metrics count it (set by the error handler). */
export type FailureKind = 'keySet' | 'database';

/** A background line's metric members and their directives. */
export interface MetricLine {
  readonly fields: LogFields;
  readonly directives: MetricDirectives;
}

export interface Metrics {
  readonly service: string;
  /** The access line's `FunctionName` and `Version` members. */
  readonly release: { readonly FunctionName: string; readonly Version: string };
  /**
   * The directives of an access-log line: `answered` when the response had a numeric status
   * (the line has `StatusClass`), `timed` when the line has `Latency`.
   */
  readonly requestDirectives: (answered: boolean, timed: boolean) => MetricDirectives;
  /** A `key set fetch failed` line: `KeySetFailures` = 1. */
  readonly keySetFailure: MetricLine;
}

const count = (name: string): MetricDefinition => ({ Name: name, Unit: 'Count' });

const directive = (
  namespace: string,
  dimensions: readonly (readonly string[])[],
  metrics: readonly MetricDefinition[],
): MetricDirective => {
  if (metrics.length > EMF_LIMITS.metricsPerDirective) {
    throw new RangeError(
      `an EMF directive holds at most ${EMF_LIMITS.metricsPerDirective} metrics`,
    );
  }
  if (dimensions.some((set) => set.length > EMF_LIMITS.dimensionsPerSet)) {
    throw new RangeError(`an EMF dimension set holds at most ${EMF_LIMITS.dimensionsPerSet} keys`);
  }
  return { Namespace: namespace, Dimensions: dimensions, Metrics: metrics };
};

const SERVICE_ONLY = [['Service']] as const;
const BY_ROUTE = [
  ['Service'],
  ['Service', 'Route', 'StatusClass'],
  ['Service', 'FunctionName', 'Version', 'StatusClass'],
] as const;

export const createMetrics = ({
  namespace,
  service,
  functionName,
  version,
}: MetricsConfig): Metrics => {
  const health = directive(namespace, SERVICE_ONLY, [
    count('ColdStarts'),
    count('KeySetFailures'),
    count('DatabaseErrors'),
  ]);
  const requests = (answered: boolean, timed: boolean): MetricDirectives => [
    directive(
      namespace,
      answered ? BY_ROUTE : SERVICE_ONLY,
      timed ? [count('Requests'), { Name: 'Latency', Unit: 'Milliseconds' }] : [count('Requests')],
    ),
    health,
  ];
  // The four variants, built once.
  const byRoute = { timed: requests(true, true), untimed: requests(true, false) };
  const serviceOnly = { timed: requests(false, true), untimed: requests(false, false) };
  const background = (name: string): MetricLine => ({
    fields: { Service: service, [name]: 1 },
    directives: [directive(namespace, SERVICE_ONLY, [count(name)])],
  });
  return {
    service,
    release: { FunctionName: functionName, Version: version },
    requestDirectives: (answered, timed) => {
      const variants = answered ? byRoute : serviceOnly;
      return timed ? variants.timed : variants.untimed;
    },
    keySetFailure: background('KeySetFailures'),
  };
};

const STATUS_CLASSES = ['0xx', '1xx', '2xx', '3xx', '4xx', '5xx'] as const;

/** `2xx` for 200 to 299, and so on; the `StatusClass` dimension. */
export const statusClass = (status: number): string =>
  STATUS_CLASSES[Math.floor(status / 100)] ?? `${Math.floor(status / 100)}xx`;

/** postgres.js's own failures to reach or talk to the server (its `Errors.connection` codes). */
const POSTGRES_CONNECTION_CODES: ReadonlySet<string> = new Set([
  'CONNECT_TIMEOUT',
  'CONNECTION_CLOSED',
  'CONNECTION_ENDED',
  'CONNECTION_DESTROYED',
  'SASL_SIGNATURE_MISMATCH',
  'MESSAGE_NOT_SUPPORTED',
  // A query cancelled by postgres.js (the server's own cancellation is a PostgresError).
  '57014',
]);

/**
 * Node's socket and TLS failures. On the request path only the database's connections can
 * throw them unwrapped: a failure of the key-set fetch reaches the error handler as a
 * KeySetUnavailableError, one of the secret's read as a SecretReadError.
 */
const NETWORK_CODES: ReadonlySet<string> = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EPIPE',
  'ERR_TLS_CERT_ALTNAME_INVALID',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'CERT_HAS_EXPIRED',
]);

/** shared/db's own errors (DatabaseHangsUpError, SecretReadError, SecretShapeError, …). */
const DATABASE_CODE_PREFIX = 'ERR_DATABASE_';
/** KeySetUnavailableError's code (auth/key-set.ts), read by code so that this module needs none of auth. */
const KEY_SET_UNAVAILABLE = 'ERR_KEY_SET_UNAVAILABLE';
/** How far a chain of `cause`s is followed. */
const MAX_CAUSES = 4;

const kindOf = (name: unknown, code: unknown): FailureKind | undefined => {
  if (code === KEY_SET_UNAVAILABLE || name === 'KeySetUnavailableError') return 'keySet';
  if (name === 'PostgresError') return 'database';
  if (typeof code !== 'string') return undefined;
  if (POSTGRES_CONNECTION_CODES.has(code) || NETWORK_CODES.has(code)) return 'database';
  return code.startsWith(DATABASE_CODE_PREFIX) ? 'database' : undefined;
};

/**
 * What made a request fail with 500, from the cause the error handler holds: `keySet` for a
 * KeySetUnavailableError, `database` for a PostgresError (anything the server answered with
 * an error), postgres.js's connection failures, a socket or TLS failure, or an error of
 * shared/db (codes `ERR_DATABASE_*`); otherwise undefined. By name and code only (errors from
 * another realm count too), never by message; a `cause` chain is followed a few steps, and the
 * first classified error decides.
 */
export const failureKind = (error: unknown): FailureKind | undefined => {
  let current = error;
  for (let depth = 0; depth < MAX_CAUSES; depth += 1) {
    if (typeof current !== 'object' || current === null) return undefined;
    const { name, code, cause } = current as { name?: unknown; code?: unknown; cause?: unknown };
    const kind = kindOf(name, code);
    if (kind !== undefined) return kind;
    current = cause;
  }
  return undefined;
};
