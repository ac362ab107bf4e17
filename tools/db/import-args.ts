/** The command line of npm run import (tools/db/import.ts; docs/import.md). */
import { parseArgs } from 'node:util';
import { argumentComplaint as complaint } from '../argument-error';

export interface ImportOptions {
  /** The orders (NDJSON): a path, or '-' for standard input. Absent: standard input, unless
   * only restaurants are declared. */
  readonly file: string | undefined;
  /** Restaurant declarations (NDJSON), read before the orders. */
  readonly restaurants: string | undefined;
  /** The brand's states mapped onto ours (a JSON object). */
  readonly states: string | undefined;
  /** Write the good lines and list the bad ones (the exit status is still 1). */
  readonly skipInvalid: boolean;
}

export const IMPORT_USAGE =
  'usage: npm run import -- [--file orders.ndjson|-] [--restaurants restaurants.ndjson] [--states states.json] [--skip-invalid]';

const OPTIONS = {
  file: { type: 'string' },
  restaurants: { type: 'string' },
  states: { type: 'string' },
  'skip-invalid': { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;

/** `--help`: the usage on standard output, and the process ends with exit code 0. */
const printUsage = (): never => {
  process.stdout.write(`${IMPORT_USAGE}\n`);
  return process.exit(0);
};

/**
 * The options, or what is wrong with the command line: an unknown option, a positional
 * argument, a missing value or a value for --skip-invalid in parseArgs's words, a value given
 * twice or empty, standard input asked for twice, or --states from standard input. `--help`
 * (`-h`) calls `help` instead, which by default prints the usage on standard output and ends
 * the process with exit code 0 (npm run import -- --help).
 */
export const parseImportArgs = (
  argv: readonly string[],
  help: () => never = printUsage,
): { readonly options: ImportOptions } | { readonly error: string } => {
  let parsed;
  try {
    parsed = parseArgs({
      args: [...argv],
      options: OPTIONS,
      strict: true,
      allowPositionals: false,
      tokens: true,
    });
  } catch (error) {
    return { error: complaint(error) };
  }
  const { values, tokens } = parsed;
  if (values.help) help();
  const named = tokens.flatMap((token) =>
    token.kind === 'option' && token.value !== undefined ? [token.name] : [],
  );
  const repeated = named.find((name, i) => named.indexOf(name) !== i);
  if (repeated !== undefined) return { error: `--${repeated} is given twice` };
  const empty = (['file', 'restaurants', 'states'] as const).find((name) => values[name] === '');
  if (empty !== undefined) return { error: `--${empty} needs a value` };
  const { file, restaurants, states } = values;
  if (restaurants === '-' && (file === undefined || file === '-')) {
    return { error: 'only one of --file and --restaurants can read standard input' };
  }
  if (states === '-') return { error: '--states needs a file' };
  return { options: { file, restaurants, states, skipInvalid: values['skip-invalid'] ?? false } };
};

/** Whether orders are read at all: --file given, or nothing but the orders on standard input. */
export const readsOrders = (options: ImportOptions): boolean =>
  options.file !== undefined || options.restaurants === undefined;
