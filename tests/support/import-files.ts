/**
 * Helpers of the npm run import suites: the import run in this process, an NDJSON file written
 * from lines, a summary line without its run time and rate, and a Kuwaiti restaurant's order
 * lines checked without a database.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import type postgres from 'postgres';
import type { ImportOptions } from '../../tools/db/import-args';
import { runImport } from '../../tools/db/import-run';
import { IDENTITY_STATES, type OrderContext } from '../../tools/db/import-validate';
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

/** What the order checks know without a database: R-1002 on TB_KW, in KWD (3 decimals). */
export const KUWAIT_CONTEXT: OrderContext = {
  restaurants: new Map([
    ['R-1002', { currency: 'KWD', minorUnits: 3, platforms: new Set(['TB_KW']) }],
  ]),
  states: IDENTITY_STATES,
};

/** A valid order line of R-1002 on TB_KW, changed by `overrides`. */
export const kuwaitOrder = (orderId: string, overrides: Record<string, unknown> = {}): string =>
  JSON.stringify({
    restaurantId: 'R-1002',
    platformId: 'TB_KW',
    orderId,
    placedAt: '2026-11-20T12:34:56+04:00',
    state: 'DELIVERED',
    total: '42.500',
    lines: [{ dish: 'Falafel\twrap', quantity: 2, unitPrice: '12.000' }],
    ...overrides,
  });
