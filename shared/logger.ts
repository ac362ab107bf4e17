/**
 * Structured JSON logs, one line each. Callers pass only what is safe to log: codes, names,
 * ids and timings; never a token, a claim value, SQL text or a stack.
 *
 * A line is `{"level":…,"message":…,"time":…}` followed by the fields, exactly as
 * `JSON.stringify({ level, message, time, ...fields })` writes it; it is built without that
 * merged object and without a Date per line (every request writes at least one).
 */

export type LogLevel = 'debug' | 'info' | 'warn' | 'error';
export type LogFields = Readonly<Record<string, string | number | boolean | undefined>>;

export interface Logger {
  log(level: LogLevel, message: string, fields?: LogFields): void;
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
const needsMerge = (fields: LogFields, json: string): boolean => {
  const first = json.charCodeAt(2);
  // An array-index key is listed before every other key of an object: merged, it would come
  // before `level`. Any field named after one of the line's own members replaces its value.
  return (
    (first >= 48 && first <= 57) ||
    Object.hasOwn(fields, 'level') ||
    Object.hasOwn(fields, 'message') ||
    Object.hasOwn(fields, 'time')
  );
};

const formatLine = (level: LogLevel, message: string, time: string, fields: LogFields): string => {
  const rest = JSON.stringify(fields);
  if (needsMerge(fields, rest)) return JSON.stringify({ level, message, time, ...fields });
  const head = `{"level":${JSON.stringify(level)},"message":${JSON.stringify(message)},"time":"${time}"`;
  return rest === '{}' ? `${head}}` : `${head},${rest.slice(1)}`;
};

export const createLogger = (
  minimum: LogLevel = 'info',
  write: (line: string) => void = (line) => process.stdout.write(`${line}\n`),
  now: () => number = Date.now,
): Logger => {
  const threshold = order[minimum];
  return {
    log(level, message, fields = {}) {
      if (order[level] < threshold) return;
      write(formatLine(level, message, isoTimestamp(now()), fields));
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
