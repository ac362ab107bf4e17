/**
 * The orders of a file read and checked line by line, on this thread or on a worker thread.
 * OrderReader holds the rules (numbering, blank lines, checkOrder, repeated orders, no staging
 * after a refusal without --skip-invalid); both paths use it, so their outcomes are the same.
 * On the worker (FileChecker), the file is read, parsed, validated and turned into COPY rows
 * there, and this thread only stages the rows and reports the refusals it is sent, batch by
 * batch in line order: the two take different cores.
 */
import { createReadStream } from 'node:fs';
import { isUtf8 } from 'node:buffer';
import { Worker } from 'node:worker_threads';
import {
  checkOrder,
  NotUtf8,
  notUtf8,
  type ImportOrder,
  type OrderContext,
} from './import-validate';
import { copyRowsOf, type CopyRows } from './import-write';

/** What a line comes to: nothing (blank), a refusal, or an order to stage. */
export type LineOutcome =
  | { readonly kind: 'blank' }
  | { readonly kind: 'refused'; readonly message: string }
  | { readonly kind: 'order'; readonly order: ImportOrder; readonly stage: boolean };

/** The rules of the order lines, in line order. */
export class OrderReader {
  /** Order lines read (not blank) and refused. */
  read = 0;
  refused = 0;
  private readonly seen = new Map<string, number>();

  /**
   * `refusedBefore`: lines refused before the orders (declarations); without `skipInvalid`,
   * no order is staged once any line is refused.
   */
  constructor(
    private readonly context: OrderContext,
    private readonly skipInvalid: boolean,
    private readonly refusedBefore = 0,
  ) {}

  line(lineNo: number, text: FileLine): LineOutcome {
    if (typeof text !== 'string') {
      this.read += 1;
      return this.refuse(unreadableLine(text, lineNo));
    }
    if (text.trim() === '') return { kind: 'blank' };
    this.read += 1;
    const result = checkOrder(text, lineNo, this.context);
    if ('error' in result) return this.refuse(result.error);
    const order = result.value;
    const key = `${order.restaurantId}\u0000${order.platformId}\u0000${order.orderId}`;
    const first = this.seen.get(key);
    if (first !== undefined) {
      return this.refuse(
        `line ${String(lineNo)}: orderId: ${order.orderId} of ${order.restaurantId} on ${order.platformId} is also on line ${String(first)}`,
      );
    }
    this.seen.set(key, lineNo);
    return {
      kind: 'order',
      order,
      stage: this.skipInvalid || this.refusedBefore + this.refused === 0,
    };
  }

  private refuse(message: string): LineOutcome {
    this.refused += 1;
    return { kind: 'refused', message };
  }
}

/** The longest line read: a longer one is refused by its number, and its bytes are skipped. */
export const MAX_LINE_BYTES = 64 * 1024 * 1024;

/**
 * How much of a file one read takes: Node's default (64 KiB) makes a long line cost more in
 * stream turns than in parsing.
 */
export const READ_BYTES = 1024 * 1024;

/** A line longer than the limit: only its length is kept. */
export class LineTooLong {
  constructor(readonly bytes: number) {}
}

/**
 * A line of a file: its text, the line as it is when its bytes are not UTF-8, or the length of
 * a line over the limit.
 */
export type FileLine = string | NotUtf8 | LineTooLong;

/** The refusal of a line that cannot be read as text. */
export const unreadableLine = (line: NotUtf8 | LineTooLong, lineNo: number): string =>
  line instanceof NotUtf8
    ? notUtf8(line, lineNo)
    : `line ${String(lineNo)}: is ${String(line.bytes)} bytes long; a line may hold ${String(MAX_LINE_BYTES)}`;

const LF = 10;
const CR = 13;
const BREAK = /\r\n|\n|\r/;

/** The index of the first LF or CR of `bytes` from `start` (-1: none). */
const firstBreak = (bytes: Buffer, start = 0): number => {
  const lf = bytes.indexOf(LF, start);
  const cr = bytes.indexOf(CR, start);
  return lf < 0 ? cr : cr < 0 ? lf : Math.min(lf, cr);
};

/** The first byte of `bytes` that does not start a UTF-8 character (-1: none). */
const firstBadByte = (bytes: Buffer): number => {
  for (let i = 0; i < bytes.length;) {
    const c = bytes[i] ?? 0;
    const size = c < 0x80 ? 1 : c < 0xc2 ? 0 : c < 0xe0 ? 2 : c < 0xf0 ? 3 : c < 0xf5 ? 4 : 0;
    if (size === 0 || !isUtf8(bytes.subarray(i, i + size))) return i;
    i += size;
  }
  return -1;
};

const decoded = (line: Buffer): FileLine => {
  if (isUtf8(line)) return line.toString('utf8');
  const bad = firstBadByte(line);
  return new NotUtf8(
    line.toString('utf8'),
    line.subarray(0, bad).toString('utf8').length,
    line[bad] ?? 0,
  );
};

/**
 * The lines of a block that ends with a line break (or the file's last bytes): strings, or
 * NotUtf8 for a line that is not UTF-8.
 */
function* blockLines(block: Buffer): Generator<FileLine> {
  if (isUtf8(block)) {
    const lines = block.toString('utf8').split(BREAK);
    // The break that ends the block ends its last line.
    if (lines.at(-1) === '') lines.pop();
    yield* lines;
    return;
  }
  // Each search starts where the last one found its break: the block is read once.
  const next = (byte: number, from: number): number => {
    const at = block.indexOf(byte, from);
    return at < 0 ? Number.POSITIVE_INFINITY : at;
  };
  let lf = -1;
  let cr = -1;
  for (let start = 0; start < block.length;) {
    if (lf < start) lf = next(LF, start);
    if (cr < start) cr = next(CR, start);
    const end = Math.min(lf, cr, block.length);
    yield decoded(block.subarray(start, end));
    start = end + (block[end] === CR && block[end + 1] === LF ? 2 : 1);
  }
}

/**
 * The lines of a file (line breaks as readline reads them: \n, \r\n or \r), without a UTF-8
 * byte-order mark on the first (some exporters write one). Bytes that are not UTF-8 are not
 * decoded into U+FFFD: their line comes as NotUtf8, for the checks to refuse. A line over
 * `maxLineBytes` comes as LineTooLong, its bytes skipped as they arrive.
 *
 * Linear in the file's size whatever its lines' lengths: each piece of input is searched for
 * breaks once, and the bytes of an unfinished line are kept as pieces and joined once, when its
 * break arrives.
 */
export async function* fileLines(
  input: NodeJS.ReadableStream,
  maxLineBytes = MAX_LINE_BYTES,
): AsyncIterable<FileLine> {
  // Pieces no longer than the limit: a line within one piece is never too long.
  const pieceBytes = Math.min(1024 * 1024, maxLineBytes);
  let first = true;
  /** The pieces of the unfinished line, and their length. */
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  /** The length so far of a line over the limit being skipped; undefined: none. */
  let skipped: number | undefined;
  /** The last piece ended with CR: an LF starting the next one belongs to that break. */
  let afterCr = false;

  const lines = function* (block: Buffer, single = false): Generator<FileLine> {
    for (const line of single ? [decoded(block)] : blockLines(block)) {
      yield first && typeof line === 'string' && line.startsWith('\uFEFF') ? line.slice(1) : line;
      first = false;
    }
  };
  /** `bytes` past the break at `at`: CRLF, CR or LF. */
  const pastBreak = (bytes: Buffer, at: number): Buffer => {
    const next = at + 1;
    if (bytes[at] === CR && next === bytes.length) afterCr = true;
    return bytes.subarray(bytes[at] === CR && bytes[next] === LF ? next + 1 : next);
  };
  const piece = function* (input: Buffer): Generator<FileLine> {
    let bytes = input;
    if (afterCr) {
      afterCr = false;
      if (bytes[0] === LF) bytes = bytes.subarray(1);
    }
    const lineEnd = firstBreak(bytes);
    if (lineEnd < 0) {
      if (skipped !== undefined) {
        skipped += bytes.length;
        return;
      }
      pending.push(bytes);
      pendingBytes += bytes.length;
      if (pendingBytes > maxLineBytes) {
        skipped = pendingBytes;
        pending = [];
        pendingBytes = 0;
      }
      return;
    }
    if (skipped !== undefined || pendingBytes + lineEnd > maxLineBytes) {
      first = false;
      yield new LineTooLong((skipped ?? pendingBytes) + lineEnd);
      skipped = undefined;
      pending = [];
      pendingBytes = 0;
      const rest = pastBreak(bytes, lineEnd);
      if (rest.length > 0) yield* piece(rest);
      return;
    }
    const last = Math.max(bytes.lastIndexOf(LF), bytes.lastIndexOf(CR));
    pending.push(bytes.subarray(0, last + 1));
    const block = pending.length === 1 ? (pending[0] as Buffer) : Buffer.concat(pending);
    const crlf = bytes[lineEnd] === CR && bytes[lineEnd + 1] === LF;
    if (last === lineEnd + (crlf ? 1 : 0)) {
      // One line and its break: decoded without searching the text again.
      yield* lines(block.subarray(0, block.length - (crlf ? 2 : 1)), true);
    } else {
      yield* lines(block);
    }
    const rest = pastBreak(bytes, last);
    pending = rest.length > 0 ? [rest] : [];
    pendingBytes = rest.length;
  };

  for await (const chunk of input) {
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    for (let start = 0; start < bytes.length; start += pieceBytes) {
      yield* piece(bytes.subarray(start, start + pieceBytes));
    }
  }
  if (skipped !== undefined) yield new LineTooLong(skipped);
  else if (pendingBytes > 0) yield* lines(Buffer.concat(pending));
}

/** A batch of checked lines, as the worker sends it: in line order. */
export interface CheckedBatch {
  /** The COPY rows of the orders to stage, and how many orders they are. */
  readonly rows: CopyRows;
  readonly staged: number;
  readonly refusals: readonly string[];
  /** Running totals: order lines read and refused, bytes of the file read. */
  readonly read: number;
  readonly refused: number;
  readonly bytes: number;
}

/** What the worker is given, and what it sends. */
export interface FileCheckRequest {
  readonly path: string;
  readonly context: OrderContext;
  readonly skipInvalid: boolean;
  readonly refusedBefore: number;
  readonly batchLines: number;
}
export type FileCheckMessage =
  | { readonly kind: 'batch'; readonly batch: CheckedBatch }
  | { readonly kind: 'done' }
  | { readonly kind: 'failed'; readonly message: string };

/**
 * Reads and checks the file `request.path` on a worker thread, yielding its batches in line
 * order; the worker waits while `inFlight` batches are not yet taken.
 */
export async function* checkFileInWorker(
  request: FileCheckRequest,
  inFlight = 4,
): AsyncIterable<CheckedBatch> {
  // The worker runs the TypeScript sources as this process does (npm run import runs under
  // tsx): its first module registers tsx's loader, then loads the checking module.
  const worker = new Worker(new URL('./import-check-boot.mjs', import.meta.url), {
    workerData: {
      module: new URL('./import-check-worker.ts', import.meta.url).href,
      request,
      inFlight,
    },
  });
  const queue: FileCheckMessage[] = [];
  let wake: (() => void) | undefined;
  let failure: Error | undefined;
  const notify = () => {
    wake?.();
    wake = undefined;
  };
  worker.on('message', (message: FileCheckMessage) => {
    queue.push(message);
    notify();
  });
  worker.on('error', (error) => {
    failure = error;
    notify();
  });
  worker.on('exit', (code) => {
    failure ??= new Error(`the order check's worker thread ended (exit ${String(code)})`);
    notify();
  });
  try {
    for (;;) {
      const message = queue.shift();
      if (message === undefined) {
        if (failure !== undefined) throw failure;
        await new Promise<void>((resolve) => {
          wake = resolve;
        });
        continue;
      }
      if (message.kind === 'done') return;
      if (message.kind === 'failed') throw new Error(message.message);
      yield message.batch;
      // Taken: the worker may read on.
      worker.postMessage('taken');
    }
  } finally {
    worker.removeAllListeners('exit');
    await worker.terminate();
  }
}

/** The worker's side: reads the file, checks it, sends batches, waits when too far ahead. */
export const runFileCheck = async (
  request: FileCheckRequest,
  inFlight: number,
  send: (message: FileCheckMessage) => void,
  taken: () => Promise<void>,
): Promise<void> => {
  const reader = new OrderReader(request.context, request.skipInvalid, request.refusedBefore);
  const input = createReadStream(request.path, { highWaterMark: READ_BYTES });
  let bytes = 0;
  input.on('data', (chunk: Buffer | string) => {
    bytes += chunk.length;
  });
  let orders = '';
  let lines = '';
  let staged = 0;
  let refusals: string[] = [];
  let inBatch = 0;
  let unanswered = 0;
  const flush = async () => {
    send({
      kind: 'batch',
      batch: {
        rows: { order: orders, lines },
        staged,
        refusals,
        read: reader.read,
        refused: reader.refused,
        bytes,
      },
    });
    orders = '';
    lines = '';
    staged = 0;
    refusals = [];
    inBatch = 0;
    unanswered += 1;
    while (unanswered > inFlight) {
      await taken();
      unanswered -= 1;
    }
  };
  let lineNo = 0;
  for await (const text of fileLines(input)) {
    lineNo += 1;
    const outcome = reader.line(lineNo, text);
    if (outcome.kind === 'refused') refusals.push(outcome.message);
    else if (outcome.kind === 'order' && outcome.stage) {
      const rows = copyRowsOf(lineNo, outcome.order);
      orders += rows.order;
      lines += rows.lines;
      staged += 1;
    }
    inBatch += 1;
    if (inBatch >= request.batchLines) await flush();
  }
  await flush();
  send({ kind: 'done' });
};
