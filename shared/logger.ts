/**
 * Structured JSON logs, one line each. Callers pass only what is safe to log: codes, names,
 * ids and timings; never a token, a claim value, SQL text or a stack.
 */

export type LogLevel = 'debug' | 'info' | 'warn' | 'error';
export type LogFields = Readonly<Record<string, string | number | boolean | undefined>>;

export interface Logger {
  log(level: LogLevel, message: string, fields?: LogFields): void;
}

const order: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };

export const createLogger = (
  minimum: LogLevel = 'info',
  write: (line: string) => void = (line) => process.stdout.write(`${line}\n`),
): Logger => ({
  log(level, message, fields = {}) {
    if (order[level] < order[minimum]) return;
    write(JSON.stringify({ level, message, time: new Date().toISOString(), ...fields }));
  },
});

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
