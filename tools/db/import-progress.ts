/**
 * Progress of npm run import on standard error: on a terminal a bar redrawn in place (count,
 * percent of the input when its size is known, rate); otherwise a plain line every
 * PLAIN_EVERY_ORDERS orders or PLAIN_EVERY_MS milliseconds, whichever comes first.
 */

export const PLAIN_EVERY_ORDERS = 100_000;
export const PLAIN_EVERY_MS = 10_000;
const REDRAW_MS = 100;
const BAR_WIDTH = 24;

export interface ProgressSink {
  readonly isTTY: boolean;
  write(text: string): void;
}

export interface Progress {
  /** `orders` read so far, `bytes` of `size` (size undefined: unknown, e.g. a pipe). */
  update(orders: number, bytes: number): void;
  /** A line of its own (an error, a phase), the bar redrawn under it on a terminal. */
  line(text: string): void;
  /** Clears the bar. */
  end(): void;
}

export const formatRate = (orders: number, milliseconds: number): string =>
  `${String(Math.round((orders * 1000) / Math.max(milliseconds, 1)))} orders/s`;

/** The bar's text: `[#####-----] 12000 orders 45% 30000 orders/s`. */
export const formatBar = (
  orders: number,
  bytes: number,
  size: number | undefined,
  milliseconds: number,
): string => {
  const rate = formatRate(orders, milliseconds);
  if (size === undefined || size <= 0) return `${String(orders)} orders read, ${rate}`;
  const fraction = Math.min(bytes / size, 1);
  const filled = Math.round(fraction * BAR_WIDTH);
  return `[${'#'.repeat(filled)}${'-'.repeat(BAR_WIDTH - filled)}] ${String(orders)} orders ${String(Math.floor(fraction * 100))}% ${rate}`;
};

export const createProgress = (
  sink: ProgressSink,
  size: number | undefined,
  now: () => number = () => performance.now(),
): Progress => {
  const started = now();
  let last = started;
  let lastOrders = 0;
  let drawn = '';
  const clear = () => {
    if (drawn !== '') sink.write('\r\u001b[K');
  };
  return {
    update(orders, bytes) {
      const at = now();
      if (sink.isTTY) {
        if (at - last < REDRAW_MS) return;
        last = at;
        drawn = formatBar(orders, bytes, size, at - started);
        sink.write(`\r${drawn}\u001b[K`);
        return;
      }
      if (orders - lastOrders < PLAIN_EVERY_ORDERS && at - last < PLAIN_EVERY_MS) return;
      last = at;
      lastOrders = orders;
      sink.write(`progress: ${formatBar(orders, bytes, size, at - started)}\n`);
    },
    line(text) {
      clear();
      sink.write(`${text}\n`);
      if (drawn !== '') sink.write(`\r${drawn}\u001b[K`);
    },
    end() {
      clear();
      drawn = '';
    },
  };
};
