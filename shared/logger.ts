/**
 * Structured JSON logs, one line each. Callers pass only what is safe to log: codes, names,
 * ids and timings; never a token, a claim value, SQL text or a stack.
 *
 * A line is what `JSON.stringify({ level, message, time, ...fields })` writes, built without
 * that merged object and without a Date per line, since every request writes at least one.
 * Given metric directives, the line is also a CloudWatch embedded-metric-format document
 * (shared/metrics.ts): it ends with `"_aws":{"Timestamp":…,"CloudWatchMetrics":[…]}` (a field
 * named `_aws` gives way to it), the directives serialised once each. Below the minimum level,
 * neither the line nor its metrics are written.
 */

export type LogLevel = 'debug' | 'info' | 'warn' | 'error';
export type LogFields = Readonly<Record<string, string | number | boolean | undefined>>;

/** An EMF MetricDefinition: a metric member of the line and its unit. */
export interface MetricDefinition {
  readonly Name: string;
  readonly Unit: 'Count' | 'Milliseconds';
}

/** An EMF MetricDirective: the namespace, the dimension sets and the metrics it extracts. */
export interface MetricDirective {
  readonly Namespace: string;
  readonly Dimensions: readonly (readonly string[])[];
  readonly Metrics: readonly MetricDefinition[];
}

/** The `CloudWatchMetrics` of a line's `_aws` member. */
export type MetricDirectives = readonly MetricDirective[];

export interface Logger {
  /**
   * Writes one line when `level` reaches the minimum; with `metrics`, the line is also an EMF
   * document with those directives.
   */
  log(level: LogLevel, message: string, fields?: LogFields, metrics?: MetricDirectives): void;
}

const order: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };

const DAY_MS = 86_400_000;
/** The largest distance from the epoch a Date can hold, in milliseconds. */
const MAX_TIME = 8.64e15;

const pad2 = (n: number): string => (n < 10 ? `0${n}` : `${n}`);
const pad3 = (n: number): string => (n < 10 ? `00${n}` : n < 100 ? `0${n}` : `${n}`);

/**
 * `new Date(ms).toISOString()`, with the date part (`2024-06-30T`) formatted once per day and
 * the time of day from integer arithmetic.
 */
export const isoTimestamp = (() => {
  let day = Number.NaN;
  let datePart = '';
  return (instant: number): string => {
    // Whole milliseconds, as Date keeps them; NaN and out-of-range instants throw as Date does.
    const ms = Math.trunc(instant);
    if (!(Math.abs(ms) <= MAX_TIME)) return new Date(ms).toISOString();
    const today = Math.floor(ms / DAY_MS);
    if (today !== day) {
      const iso = new Date(today * DAY_MS).toISOString();
      datePart = iso.slice(0, iso.indexOf('T') + 1);
      day = today;
    }
    const time = ms - today * DAY_MS;
    const hours = Math.floor(time / 3_600_000);
    const minutes = Math.floor(time / 60_000) % 60;
    const seconds = Math.floor(time / 1000) % 60;
    return `${datePart}${pad2(hours)}:${pad2(minutes)}:${pad2(seconds)}.${pad3(time % 1000)}Z`;
  };
})();

/** Fields whose names the line's own members or JSON's key order would make ambiguous. */
const needsMerge = (fields: LogFields, json: string, aws: string | undefined): boolean => {
  const first = json.charCodeAt(2);
  // An array-index key is listed before every other key of an object: merged, it would come
  // before `level`. Any field named after one of the line's own members replaces its value;
  // `_aws` is the one member a field never replaces.
  return (
    (first >= 48 && first <= 57) ||
    Object.hasOwn(fields, 'level') ||
    Object.hasOwn(fields, 'message') ||
    Object.hasOwn(fields, 'time') ||
    (aws !== undefined && Object.hasOwn(fields, '_aws'))
  );
};

/** Each set of directives as JSON, serialised the first time a line carries it. */
const serialised = new WeakMap<MetricDirectives, string>();

const awsMember = (metrics: MetricDirectives, instant: number): string => {
  let directives = serialised.get(metrics);
  if (directives === undefined) {
    directives = JSON.stringify(metrics);
    serialised.set(metrics, directives);
  }
  return `"_aws":{"Timestamp":${Math.trunc(instant)},"CloudWatchMetrics":${directives}}`;
};

/** The line; `aws`, when given, is its `_aws` member, written last. */
const formatLine = (
  level: LogLevel,
  message: string,
  time: string,
  fields: LogFields,
  aws?: string,
): string => {
  const rest = JSON.stringify(fields);
  if (needsMerge(fields, rest, aws)) {
    if (aws === undefined) return JSON.stringify({ level, message, time, ...fields });
    // A field named `_aws` is left out (undefined), the line's own written in its place.
    const merged = JSON.stringify({ level, message, time, ...fields, _aws: undefined });
    return `${merged.slice(0, -1)},${aws}}`;
  }
  const head = `{"level":${JSON.stringify(level)},"message":${JSON.stringify(message)},"time":"${time}"`;
  if (aws === undefined) return rest === '{}' ? `${head}}` : `${head},${rest.slice(1)}`;
  return rest === '{}' ? `${head},${aws}}` : `${head},${rest.slice(1, -1)},${aws}}`;
};

export const createLogger = (
  minimum: LogLevel = 'info',
  write: (line: string) => void = (line) => process.stdout.write(`${line}\n`),
  now: () => number = Date.now,
): Logger => {
  const threshold = order[minimum];
  return {
    log(level, message, fields = {}, metrics) {
      if (order[level] < threshold) return;
      if (metrics === undefined) {
        write(formatLine(level, message, isoTimestamp(now()), fields));
        return;
      }
      const instant = now();
      write(formatLine(level, message, isoTimestamp(instant), fields, awsMember(metrics, instant)));
    },
  };
};

/** What may be logged of an error: its class name and stable code, never its message. */
export const describeError = (error: unknown): LogFields => {
  // Duck-typed, not `instanceof Error`: errors from another realm (a VM context) count too.
  if (typeof error === 'object' && error !== null) {
    const { name, code } = error as { name?: unknown; code?: unknown };
    return {
      errorName: typeof name === 'string' ? name : 'object',
      errorCode: typeof code === 'string' ? code : undefined,
    };
  }
  return { errorName: typeof error };
};
