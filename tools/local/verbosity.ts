/**
 * How much `npm start` prints (docs/local.md, "What it prints"). Quiet by default: its banner,
 * and the warnings and errors of the functions and of serverless-offline. Verbose with
 * `--verbose`, or with LOG_LEVEL `debug` or `info`: serverless-offline's route table and its
 * lines per request too, and the functions' lines from LOG_LEVEL (default `info`) up, the
 * access log among them.
 *
 * Quiet is obtained through the tools' own levels: the functions' LOG_LEVEL (`warn` unless set)
 * and osls's SLS_LOG_LEVEL (`warning`: serverless-offline's notices, its per-request lines among
 * them, are not written). One thing has no level: serverless-offline prints its route table with
 * console.log whatever the level (src/utils/logRoutes.js), so `hideRouteTable` drops that box,
 * and the blank margin line on each side of it, from serverless-offline's stdout; nothing else.
 */

export interface StartOptions {
  readonly verbose: boolean;
}

export const USAGE = 'usage: npm start [-- --verbose]';

const VERBOSE_LEVELS = new Set(['debug', 'info']);

/** The options of `npm start`, or an Error naming an argument it does not take. */
export const startOptions = (
  argv: readonly string[],
  env: Readonly<Record<string, string | undefined>>,
): StartOptions | Error => {
  const unknown = argv.filter((argument) => argument !== '--verbose');
  if (unknown.length > 0) return new Error(`unknown argument ${unknown.join(' ')}`);
  const level = env.LOG_LEVEL?.trim() ?? '';
  return { verbose: argv.includes('--verbose') || VERBOSE_LEVELS.has(level) };
};

/** The functions' LOG_LEVEL under `npm start`: the one set, else `info` verbose, `warn` quiet. */
export const functionsLogLevel = (
  { verbose }: StartOptions,
  env: Readonly<Record<string, string | undefined>>,
): string => env.LOG_LEVEL?.trim() || (verbose ? 'info' : 'warn');

/** The environment that sets serverless-offline's and the functions' levels. */
export const offlineLogEnv = (
  options: StartOptions,
  env: Readonly<Record<string, string | undefined>>,
): Record<string, string> => ({
  LOG_LEVEL: functionsLogLevel(options, env),
  SLS_LOG_LEVEL: options.verbose ? 'notice' : 'warning',
});

export interface LineFilter {
  /** The complete lines of `text` (after what came before) that are kept. */
  readonly push: (text: string) => string;
  /** What is left of an unfinished last line, if kept. */
  readonly end: () => string;
}

const opensTable = (line: string) => line.includes('┌') && line.includes('┐');
const closesTable = (line: string) => line.includes('└') && line.includes('┘');
const isBlank = (line: string) => line.trim() === '';

/** Drops serverless-offline's route table (a box) and its blank margin lines from its stdout. */
export const hideRouteTable = (): LineFilter => {
  let partial = '';
  /** A blank line held back: the box's top margin, if a box follows. */
  let heldBlank: string | undefined;
  let inTable = false;
  let afterTable = false;
  const pass = (line: string): string => {
    if (inTable) {
      if (closesTable(line)) {
        inTable = false;
        afterTable = true;
      }
      return '';
    }
    if (afterTable) {
      afterTable = false;
      if (isBlank(line)) return '';
    }
    if (opensTable(line)) {
      heldBlank = undefined;
      inTable = true;
      return '';
    }
    const held = heldBlank ?? '';
    heldBlank = undefined;
    if (isBlank(line)) {
      heldBlank = line;
      return held;
    }
    return held + line;
  };
  return {
    push: (text) => {
      const lines = (partial + text).split('\n');
      partial = lines.pop() ?? '';
      return lines.map((line) => pass(`${line}\n`)).join('');
    },
    end: () => {
      const rest = partial;
      partial = '';
      const output = (rest === '' ? '' : pass(rest)) + (heldBlank ?? '');
      heldBlank = undefined;
      return output;
    },
  };
};
