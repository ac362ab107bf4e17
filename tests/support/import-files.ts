/**
 * Helpers of the npm run import suites: the import run in this process, an NDJSON file written
 * from lines, and a summary line without its run time and rate.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import type postgres from 'postgres';
import type { ImportOptions } from '../../tools/db/import-args';
import { runImport } from '../../tools/db/import-run';
import type { StagingMethod } from '../../tools/db/import-write';

/** The command line's options when none is given. */
export const IMPORT_DEFAULTS: ImportOptions = {
  file: undefined,
  restaurants: undefined,
  states: undefined,
  skipInvalid: false,
};

export interface ImportOutcome {
  readonly code: number;
  readonly out: string[];
  /** What it wrote to standard error, a line each. */
  readonly err: string[];
}

/**
 * runImport on `sql` as the command line runs it (no standard input, not a terminal), with
 * `options` over the defaults; its output collected.
 */
export const runImportWith = async (
  sql: postgres.Sql,
  options: Partial<ImportOptions>,
  { staging, checkInWorker }: { staging?: StagingMethod; checkInWorker?: boolean } = {},
): Promise<ImportOutcome> => {
  const out: string[] = [];
  let err = '';
  const code = await runImport(
    sql,
    { ...IMPORT_DEFAULTS, ...options },
    {
      stdin: Readable.from([]),
      out: (line) => out.push(line),
      err: { isTTY: false, write: (text) => (err += text) },
      ...(staging ? { staging } : {}),
      ...(checkInWorker === undefined ? {} : { checkInWorker }),
    },
  );
  return { code, out, err: err.split('\n').filter((line) => line !== '') };
};

/** Writes `lines` (a string as it is, an object as its JSON; '' a blank line) to dir/name. */
export const ndjsonFile = (
  dir: string,
  name: string,
  lines: readonly (string | object)[],
): string => {
  const path = join(dir, name);
  writeFileSync(
    path,
    lines.map((line) => (typeof line === 'string' ? line : JSON.stringify(line))).join('\n') + '\n',
  );
  return path;
};

/** An import's summary line without its run's time and rate. */
export const withoutTiming = (line: string | undefined): string =>
  (line ?? '').replace(/ \(\d+\.\d s, \d+ orders\/s\)$/, '');

/**
 * Expects a clean import of `path`: exit code 0, one summary line with these `counts` (its time
 * and rate left out), nothing on standard error.
 */
export const expectImported = (outcome: ImportOutcome, path: string, counts: string): void => {
  expect({ ...outcome, out: outcome.out.map(withoutTiming) }).toEqual({
    code: 0,
    out: [`orders from ${path}: ${counts}`],
    err: [],
  });
};
