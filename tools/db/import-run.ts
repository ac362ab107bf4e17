/**
 * npm run import (docs/import.md): restaurant declarations and a brand's orders, one JSON
 * object a line, validated line by line and written in one transaction, all or nothing (with
 * --skip-invalid, every good line). Orders are staged as they are validated, in temporary
 * tables of that transaction; nothing reaches the orders before the last line is validated,
 * and when a line is refused (without --skip-invalid) the transaction is rolled back.
 */
import { createReadStream } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import type { Readable } from 'node:stream';
import type postgres from 'postgres';
import { readsOrders, type ImportOptions } from './import-args';
import { createProgress, formatRate, type ProgressSink } from './import-progress';
import {
  checkFileInWorker,
  fileLines,
  OrderReader,
  READ_BYTES,
  unreadableLine,
  type FileLine,
} from './import-check';
import {
  checkDeclaration,
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
  /**
   * Checks the orders on a worker thread (true) or on this one (false) when they are staged by
   * COPY; by default on a worker for a file of WORKER_MIN_BYTES or more (tests set it).
   */
  readonly checkInWorker?: boolean;
}

/** The file size from which the orders are checked on a worker thread (its start is ~0.5 s). */
export const WORKER_MIN_BYTES = 4 * 1024 * 1024;

/** Lines per batch the worker sends, and batches it may send ahead of the staging. */
const WORKER_BATCH = 2_000;
const WORKER_IN_FLIGHT = 4;

/** A problem with the run itself (a file that cannot be read): exit 2. */
export class ImportUsageError extends Error {}

class Refused extends Error {}

const describe = (path: string | undefined): string =>
  path === undefined || path === '-' ? 'standard input' : path;

interface LineSource {
  /** Opens the input (only now: a stream read before its lines are iterated loses them). */
  readonly open: () => AsyncIterable<FileLine>;
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
      const input = fromStdin ? io.stdin : createReadStream(path, { highWaterMark: READ_BYTES });
      input.on('data', (chunk: Buffer | string) => {
        bytes += chunk.length;
      });
      return fileLines(input);
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
          if (typeof line !== 'string') {
            declarationsRefused += 1;
            refuse(unreadableLine(line, lineNo));
            continue;
          }
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
        // The worker reads the file itself and answers with COPY rows: a file, staged by COPY.
        const path = options.file === '-' ? undefined : options.file;
        const inWorker =
          path !== undefined &&
          staging.method === 'copy' &&
          (io.checkInWorker ?? (orderLines.size ?? 0) >= WORKER_MIN_BYTES);
        if (inWorker) {
          const batches = checkFileInWorker(
            {
              path,
              context,
              skipInvalid: options.skipInvalid,
              refusedBefore: refused,
              batchLines: WORKER_BATCH,
            },
            WORKER_IN_FLIGHT,
          );
          for await (const batch of batches) {
            for (const message of batch.refusals) refuse(message);
            ordersRead = batch.read;
            ordersRefused = batch.refused;
            if (staging.addBatch(batch.rows, batch.staged)) await staging.send();
            progress.update(ordersRead, batch.bytes);
          }
        } else {
          const reader = new OrderReader(context, options.skipInvalid, refused);
          let lineNo = 0;
          for await (const text of orderLines.open()) {
            lineNo += 1;
            const outcome = reader.line(lineNo, text);
            if (outcome.kind === 'refused') refuse(outcome.message);
            else if (outcome.kind === 'order' && outcome.stage) {
              if (staging.add(lineNo, outcome.order)) await staging.send();
            }
            ordersRead = reader.read;
            ordersRefused = reader.refused;
            progress.update(ordersRead, orderLines.bytes());
          }
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
