/**
 * The size budget of the reports plugin (docs/plugin.md): what one owner loads, index.js and
 * their language's file (none for English), minified, raw and gzipped file by file as a CDN
 * serves them. The build's command line and the unit tests hold every language to it.
 */
import { basename } from 'node:path';
import type { BuildResult } from './build';

export interface Budget {
  readonly bytes: number;
  readonly gzipBytes: number;
}

export const BUDGET: Budget = { bytes: 48 * 1024, gzipBytes: 19 * 1024 };

/** What an owner speaking `language` loads. */
export interface OwnerLoad {
  readonly language: string;
  readonly bytes: number;
  readonly gzipBytes: number;
}

/** One load per language: English is index.js alone, another adds its `<language>-<hash>.js`. */
export const ownerLoads = (result: BuildResult): OwnerLoad[] => [
  { language: 'en', bytes: result.bytes, gzipBytes: result.gzipBytes },
  ...result.chunks.map((chunk) => ({
    language: basename(chunk.file).replace(/-[^-]*\.js$/, ''),
    bytes: result.bytes + chunk.bytes,
    gzipBytes: result.gzipBytes + chunk.gzipBytes,
  })),
];

/** A sentence per load over the budget; none when every owner's load is within it. */
export const budgetProblems = (result: BuildResult, budget: Budget = BUDGET): string[] =>
  ownerLoads(result).flatMap(({ language, bytes, gzipBytes }) => [
    ...(bytes > budget.bytes ? [`${language}: ${bytes} bytes, over ${budget.bytes}`] : []),
    ...(gzipBytes > budget.gzipBytes
      ? [`${language}: ${gzipBytes} bytes gzipped, over ${budget.gzipBytes}`]
      : []),
  ]);
