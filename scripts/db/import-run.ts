/**
 * npm run import (docs/import.md): restaurant declarations and a brand's orders, one JSON
 * object a line, validated line by line and written in one transaction, all or nothing (with
 * --skip-invalid, every good line). Orders are staged as they are validated, in temporary
 * tables of that transaction; nothing reaches the orders before the last line is validated,
 * and when a line is refused (without --skip-invalid) the transaction is rolled back.
 */
import { createReadStream } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';
import type postgres from 'postgres';
import { readsOrders, type ImportOptions } from './import-args';
import { createProgress, formatRate, type ProgressSink } from './import-progress';
import {
  checkDeclaration,
  checkOrder,
  IDENTITY_STATES,
  parseStateMap,
  type Declaration,
  type StateMap,
} from './import-validate';
import {
  createStaging,
  loadReference,
  stagingMethodFor,
  Staging,
  withDeclarations,
  writeDeclarations,
  writeStagedOrders,
  type Counts,
  type StagingMethod,
} from './import-write';

export interface ImportIo {
  readonly stdin: Readable;
  /** The summary lines. */
  readonly out: (line: string) => void;
  /** Refused lines, progress, failures. */
  readonly err: ProgressSink;
  /** Overrides the staging method chosen for the server (tests). */
  readonly staging?: StagingMethod;
}

/** A problem with the run itself (a file that cannot be read): exit 2. */
export class ImportUsageError extends Error {}

class Refused extends Error {}

const describe = (path: string | undefined): string =>
  path === undefined || path === '-' ? 'standard input' : path;

/** The lines, the first without a UTF-8 byte-order mark (some exporters write one). */
async function* withoutBom(lines: AsyncIterable<string>): AsyncIterable<string> {
  let first = true;
  for await (const line of lines) {
    yield first && line.startsWith('\uFEFF') ? line.slice(1) : line;
    first = false;
  }
}

interface LineSource {
  /** Opens the input (only now: a stream read before its lines are iterated loses them). */
  readonly open: () => AsyncIterable<string>;
  readonly bytes: () => number;
  readonly size: number | undefined;
}

const lineSource = async (
  path: string | undefined,
  io: ImportIo,
  option: string,
): Promise<LineSource> => {
  const fromStdin = path === undefined || path === '-';
  let size: number | undefined;
  if (!fromStdin) {
    try {
      const info = await stat(path);
      if (!info.isFile()) throw new Error('not a file');
      size = info.size;
    } catch (error) {
      throw new ImportUsageError(`${option} ${path}: cannot read: ${(error as Error).message}`);
    }
  }
  let bytes = 0;
  return {
    open: () => {
      const input = fromStdin ? io.stdin : createReadStream(path);
      input.on('data', (chunk: Buffer | string) => {
        bytes += chunk.length;
      });
      return withoutBom(createInterface({ input, crlfDelay: Infinity }));
    },
    bytes: () => bytes,
    size,
  };
};

const loadStates = async (path: string | undefined): Promise<StateMap> => {
  if (path === undefined) return IDENTITY_STATES;
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    throw new ImportUsageError(`--states ${path}: cannot read: ${(error as Error).message}`);
  }
  const parsed = parseStateMap(text, path);
  if ('error' in parsed) throw new ImportUsageError(parsed.error);
  return parsed.map;
};

const plural = (n: number, word: string): string => `${String(n)} ${word}${n === 1 ? '' : 's'}`;

const countsText = (counts: Counts): string =>
  `${String(counts.inserted)} inserted, ${String(counts.updated)} updated, ${String(counts.unchanged)} unchanged`;

/**
 * Runs the import on `sql` (a pool of one connection is enough). Returns the exit status: 0
 * every line written, 1 a line refused (nothing written, or with skipInvalid the good lines)
 * or the write failed. Throws ImportUsageError for exit 2.
 */
export const runImport = async (
  sql: postgres.Sql,
  options: ImportOptions,
  io: ImportIo,
): Promise<0 | 1> => {
  const states = await loadStates(options.states);
  const started = performance.now();
  const declarationLines =
    options.restaurants === undefined
      ? undefined
      : await lineSource(options.restaurants, io, '--restaurants');
  const orderLines = readsOrders(options)
    ? await lineSource(options.file, io, '--file')
    : undefined;
  const progress = createProgress(io.err, orderLines?.size);
  let refused = 0;
  const refuse = (message: string) => {
    refused += 1;
    progress.line(message);
  };
  const summaries: string[] = [];
  try {
    await sql.begin(async (tx) => {
      await tx`set local statement_timeout = 0`;
      // The staging and matching tables of a large file in memory (PostgreSQL's default of
      // 8 MB sends a million orders' temporary tables through the kernel page by page). It
      // can only change before the session's first temporary table: a new connection's.
      await tx`select set_config('temp_buffers', '512MB', true)
               where pg_my_temp_schema() = 0`;
      const reference = await loadReference(tx);

      const declarations: Declaration[] = [];
      let declarationsRefused = 0;
      if (declarationLines !== undefined) {
        const seenRestaurants = new Map<string, number>();
        const seenIdentities = new Map<string, number>();
        let lineNo = 0;
        for await (const line of declarationLines.open()) {
          lineNo += 1;
          if (line.trim() === '') continue;
          const result = checkDeclaration(line, lineNo, reference);
          if ('error' in result) {
            declarationsRefused += 1;
            refuse(result.error);
            continue;
          }
          const d = result.value;
          const first = seenRestaurants.get(d.restaurantId);
          if (first !== undefined) {
            declarationsRefused += 1;
            refuse(
              `line ${String(lineNo)}: restaurantId: ${d.restaurantId} is also declared on line ${String(first)}`,
            );
            continue;
          }
          const clash = d.platforms
            .map((p, i) => ({
              i,
              p,
              line: seenIdentities.get(`${p.platformId}\u0000${p.platformRestaurantId}`),
            }))
            .find((c) => c.line !== undefined);
          if (clash !== undefined) {
            declarationsRefused += 1;
            refuse(
              `line ${String(lineNo)}: platforms[${String(clash.i)}].platformRestaurantId: ${clash.p.platformRestaurantId} on ${clash.p.platformId} is also declared on line ${String(clash.line)}`,
            );
            continue;
          }
          seenRestaurants.set(d.restaurantId, lineNo);
          for (const p of d.platforms) {
            seenIdentities.set(`${p.platformId}\u0000${p.platformRestaurantId}`, lineNo);
          }
          declarations.push(d);
        }
      }

      const restaurants = withDeclarations(reference, declarations);
      const staging = new Staging(tx, io.staging ?? (await stagingMethodFor(tx)));
      let ordersRead = 0;
      let ordersRefused = 0;
      if (orderLines !== undefined) {
        await createStaging(tx);
        const context = { restaurants, states };
        const seen = new Map<string, number>();
        let lineNo = 0;
        for await (const line of orderLines.open()) {
          lineNo += 1;
          if (line.trim() === '') continue;
          ordersRead += 1;
          const result = checkOrder(line, lineNo, context);
          if ('error' in result) {
            ordersRefused += 1;
            refuse(result.error);
          } else {
            const order = result.value;
            const key = `${order.restaurantId}\u0000${order.platformId}\u0000${order.orderId}`;
            const first = seen.get(key);
            if (first !== undefined) {
              ordersRefused += 1;
              refuse(
                `line ${String(lineNo)}: orderId: ${order.orderId} of ${order.restaurantId} on ${order.platformId} is also on line ${String(first)}`,
              );
            } else {
              seen.set(key, lineNo);
              // Without --skip-invalid, a refused line means nothing is written: stop staging.
              if ((options.skipInvalid || refused === 0) && staging.add(lineNo, order)) {
                await staging.send();
              }
            }
          }
          progress.update(ordersRead, orderLines.bytes());
        }
        await staging.flush();
      }
      progress.end();

      if (refused > 0 && !options.skipInvalid) throw new Refused();
      if (declarationLines !== undefined) {
        const counts = await writeDeclarations(tx, declarations);
        summaries.push(
          `restaurants from ${describe(options.restaurants)}: ${countsText(counts.restaurants)}, ${String(declarationsRefused)} refused; platforms: ${countsText(counts.platforms)}`,
        );
      }
      if (orderLines !== undefined) {
        if (io.err.isTTY || staging.staged >= 10_000) {
          progress.line(`writing ${plural(staging.staged, 'order')}…`);
        }
        const counts =
          staging.staged > 0
            ? await writeStagedOrders(tx)
            : { inserted: 0, updated: 0, unchanged: 0 };
        const seconds = (performance.now() - started) / 1000;
        summaries.push(
          `orders from ${describe(options.file)}: ${countsText(counts)}, ${String(ordersRefused)} refused (${seconds.toFixed(1)} s, ${formatRate(ordersRead, seconds * 1000)})`,
        );
      }
    });
  } catch (error) {
    progress.end();
    if (error instanceof Refused) {
      progress.line(
        `nothing written: ${plural(refused, 'line')} refused (--skip-invalid writes the others)`,
      );
      return 1;
    }
    if (error instanceof ImportUsageError) throw error;
    progress.line(`import failed, nothing written: ${(error as Error).message}`);
    return 1;
  }
  for (const line of summaries) io.out(line);
  return refused > 0 ? 1 : 0;
};
