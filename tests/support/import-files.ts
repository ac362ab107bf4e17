/**
 * Helpers of the npm run import suites: an NDJSON file written from lines, and a summary line
 * without its run time and rate.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

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
