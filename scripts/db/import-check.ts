/**
 * The orders of a file read and checked line by line, on this thread or on a worker thread.
 * OrderReader holds the rules (numbering, blank lines, checkOrder, repeated orders, no staging
 * after a refusal without --skip-invalid); both paths use it, so their outcomes are the same.
 * On the worker (FileChecker), the file is read, parsed, validated and turned into COPY rows
 * there, and this thread only stages the rows and reports the refusals it is sent, batch by
 * batch in line order: the two take different cores.
 */
import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import { Worker } from 'node:worker_threads';
import { checkOrder, type ImportOrder, type OrderContext } from './import-validate';
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

  line(lineNo: number, text: string): LineOutcome {
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

/** The lines of a file, without a UTF-8 byte-order mark on the first (some exporters write one). */
export async function* fileLines(input: NodeJS.ReadableStream): AsyncIterable<string> {
  let first = true;
  for await (const line of createInterface({ input, crlfDelay: Infinity })) {
    yield first && line.startsWith('\uFEFF') ? line.slice(1) : line;
    first = false;
  }
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
  const input = createReadStream(request.path);
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
