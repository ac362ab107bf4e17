/** The command line of npm run import (tools/db/import.ts; docs/import.md). */

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

/** The options, or what is wrong with the command line. */
export const parseImportArgs = (
  argv: readonly string[],
): { readonly options: ImportOptions } | { readonly error: string } => {
  const values: Record<'--file' | '--restaurants' | '--states', string | undefined> = {
    '--file': undefined,
    '--restaurants': undefined,
    '--states': undefined,
  };
  let skipInvalid = false;
  for (let i = 0; i < argv.length; i += 1) {
    const arg = argv[i] ?? '';
    const [name = '', inline] = arg.startsWith('--') ? arg.split(/=(.*)/s, 2) : [arg];
    if (name === '--skip-invalid') {
      if (inline !== undefined) return { error: `${name} takes no value` };
      skipInvalid = true;
      continue;
    }
    if (name !== '--file' && name !== '--restaurants' && name !== '--states') {
      return { error: `unknown argument ${JSON.stringify(arg)}` };
    }
    const value = inline ?? argv[(i += 1)];
    if (value === undefined || value === '' || (inline === undefined && value.startsWith('--'))) {
      return { error: `${name} needs a value` };
    }
    if (values[name] !== undefined) return { error: `${name} is given twice` };
    values[name] = value;
  }
  const file = values['--file'];
  const restaurants = values['--restaurants'];
  if (restaurants === '-' && (file === undefined || file === '-')) {
    return { error: 'only one of --file and --restaurants can read standard input' };
  }
  if (values['--states'] === '-') return { error: '--states needs a file' };
  return { options: { file, restaurants, states: values['--states'], skipInvalid } };
};

/** Whether orders are read at all: --file given, or nothing but the orders on standard input. */
export const readsOrders = (options: ImportOptions): boolean =>
  options.file !== undefined || options.restaurants === undefined;
