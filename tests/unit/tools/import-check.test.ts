/**
 * The order lines of npm run import read and checked (tools/db/import-check.ts): OrderReader's
 * rules in line order, and the worker thread that reads a file with them, whose batches carry
 * the same refusals and the COPY rows of the same orders as OrderReader on this thread.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import {
  checkFileInWorker,
  fileLines,
  LineTooLong,
  MAX_LINE_BYTES,
  OrderReader,
  unreadableLine,
  type CheckedBatch,
  type FileLine,
} from '../../../tools/db/import-check';
import { NotUtf8 } from '../../../tools/db/import-validate';
import { copyRowsOf } from '../../../tools/db/import-write';
import { KUWAIT_CONTEXT as CONTEXT, kuwaitOrder as order } from '../../support/import-files';

/** A file of every outcome: orders, a refusal, a blank line, a repeated order, more orders. */
const LINES = [
  `\uFEFF${order('A-1')}`,
  order('A-2', { total: '42.50' }),
  '',
  order('A-3'),
  '{"restaurantId": ',
  order('A-1', { total: '1.000' }),
  order('A-4', { restaurantId: 'R-9' }),
  order('A-5'),
];

/** OrderReader on this thread over LINES: refusals, and the COPY rows of what it stages. */
const onThisThread = (skipInvalid: boolean) => {
  const reader = new OrderReader(CONTEXT, skipInvalid);
  const refusals: string[] = [];
  let orders = '';
  let lines = '';
  LINES.forEach((text, i) => {
    const outcome = reader.line(i + 1, i === 0 ? text.slice(1) : text);
    if (outcome.kind === 'refused') refusals.push(outcome.message);
    if (outcome.kind === 'order' && outcome.stage) {
      const rows = copyRowsOf(i + 1, outcome.order);
      orders += rows.order;
      lines += rows.lines;
    }
  });
  return { refusals, orders, lines, read: reader.read, refused: reader.refused };
};

describe('OrderReader', () => {
  it('numbers, skips blank lines, refuses bad and repeated orders, and stops staging after a refusal', () => {
    const reader = new OrderReader(CONTEXT, false);
    const outcomes = LINES.map((text, i) => reader.line(i + 1, i === 0 ? text.slice(1) : text));
    const kinds = outcomes.map((o) => (o.kind === 'order' ? `order ${String(o.stage)}` : o.kind));
    expect(kinds.join(', ')).toBe(
      'order true, refused, blank, order false, refused, refused, refused, order false',
    );
    expect(outcomes[5]).toEqual({
      kind: 'refused',
      message: 'line 6: orderId: A-1 of R-1002 on TB_KW is also on line 1',
    });
    expect({ read: reader.read, refused: reader.refused }).toEqual({ read: 7, refused: 4 });
  });

  it('stages every good order with --skip-invalid, and none after a declaration was refused', () => {
    const skipping = new OrderReader(CONTEXT, true);
    expect(skipping.line(1, order('B-1', { total: '1.00' })).kind).toBe('refused');
    expect(skipping.line(2, order('B-2'))).toMatchObject({ kind: 'order', stage: true });
    const afterDeclarations = new OrderReader(CONTEXT, false, 1);
    expect(afterDeclarations.line(1, order('B-3'))).toMatchObject({ kind: 'order', stage: false });
  });
});

describe('checkFileInWorker', () => {
  let dir: string;
  let path: string;

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'import-check-'));
    path = join(dir, 'orders.ndjson');
    writeFileSync(path, LINES.join('\r\n') + '\r\n');
  });

  afterAll(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  const request = (file: string, skipInvalid: boolean, batchLines: number) => ({
    path: file,
    context: CONTEXT,
    skipInvalid,
    refusedBefore: 0,
    batchLines,
  });
  const inWorker = async (skipInvalid: boolean, batchLines: number, inFlight: number) => {
    const batches: CheckedBatch[] = [];
    for await (const batch of checkFileInWorker(request(path, skipInvalid, batchLines), inFlight)) {
      batches.push(batch);
    }
    return batches;
  };

  it.each([
    [false, 3, 1],
    [true, 3, 1],
    [true, 100, 4],
  ])(
    'sends, in line order, the refusals and COPY rows OrderReader gives here (skipInvalid %s, batches of %i lines, %i ahead)',
    async (skipInvalid, batchLines, inFlight) => {
      const batches = await inWorker(skipInvalid, batchLines, inFlight);
      const here = onThisThread(skipInvalid);
      expect({
        refusals: batches.flatMap((b) => b.refusals),
        orders: batches.map((b) => b.rows.order).join(''),
        lines: batches.map((b) => b.rows.lines).join(''),
        read: batches.at(-1)?.read,
        refused: batches.at(-1)?.refused,
      }).toEqual(here);
      expect(batches.reduce((n, b) => n + b.staged, 0)).toBe(skipInvalid ? 3 : 1);
      expect(batches.length).toBe(Math.ceil(LINES.length / batchLines));
      expect(here.orders.startsWith('1\tR-1002\tTB_KW\tA-1\t')).toBe(true);
      expect(here.lines).toContain('\tFalafel\\twrap\t');
    },
  );

  it('fails with the reason when the file cannot be read', async () => {
    const batches = checkFileInWorker(request(join(dir, 'missing.ndjson'), false, 10), 1);
    const taken: CheckedBatch[] = [];
    await expect(
      (async () => {
        for await (const batch of batches) taken.push(batch);
      })(),
    ).rejects.toThrow(/ENOENT/);
    expect(taken).toEqual([]);
  });
});

describe('fileLines', () => {
  /** The lines read from `bytes` arriving in pieces cut at `cuts`. */
  const read = async (bytes: Buffer, cuts: readonly number[], maxLineBytes?: number) => {
    const pieces = [0, ...cuts, bytes.length].slice(1).map((end, i, ends) => {
      return bytes.subarray(i === 0 ? 0 : ends[i - 1], end);
    });
    const lines: FileLine[] = [];
    for await (const line of fileLines(Readable.from(pieces), maxLineBytes)) lines.push(line);
    return lines;
  };
  const everyCut = (bytes: Buffer) => Array.from({ length: bytes.length + 1 }, (_, i) => [i]);

  it('splits at LF, CRLF and CR wherever the pieces are cut, drops a leading BOM, and keeps a line that is not UTF-8 as it is', async () => {
    // Prepare: a CRLF, an LF, CRs in a row (a blank line between), a line not UTF-8, no last break
    const bytes = Buffer.concat([
      Buffer.from('\uFEFFone\r\ntwo\nthree\r\rfünf\r'),
      Buffer.from([0x62, 0x61, 0xff, 0x64]),
      Buffer.from('\r\nlast'),
    ]);

    // Act
    const readings = await Promise.all(
      [...everyCut(bytes), Array.from(bytes, (_, i) => i + 1)].map((cuts) => read(bytes, cuts)),
    );

    // Assess
    const expected = ['one', 'two', 'three', '', 'fünf', new NotUtf8('ba\uFFFDd', 2, 0xff), 'last'];
    expect(readings.filter((lines) => JSON.stringify(lines) !== JSON.stringify(expected))).toEqual(
      [],
    );
    expect(readings[0]?.[5]).toBeInstanceOf(NotUtf8);
  });

  it('refuses a line over the limit by its length, skipping its bytes, and reads on after its break', async () => {
    // Prepare: the limit is 8 bytes; a line of 8, one of 9 and one of 20 (ended by CRLF), then more
    const bytes = Buffer.from(`12345678\n123456789\n${'x'.repeat(20)}\r\nok\r${'y'.repeat(9)}`);

    // Act
    const readings = await Promise.all(
      [...everyCut(bytes), Array.from(bytes, (_, i) => i + 1)].map((cuts) => read(bytes, cuts, 8)),
    );

    // Assess
    const expected = [
      '12345678',
      new LineTooLong(9),
      new LineTooLong(20),
      'ok',
      new LineTooLong(9),
    ];
    expect(readings.filter((lines) => JSON.stringify(lines) !== JSON.stringify(expected))).toEqual(
      [],
    );
    expect(readings.every((lines) => lines[1] instanceof LineTooLong)).toBe(true);
    expect(unreadableLine(new LineTooLong(70_000_000), 7)).toBe(
      `line 7: is 70000000 bytes long; a line may hold ${String(MAX_LINE_BYTES)}`,
    );
  });

  it('refuses a line over the limit in OrderReader, counting it as read', () => {
    // Prepare
    const reader = new OrderReader(CONTEXT, false);

    // Act
    const outcome = reader.line(3, new LineTooLong(MAX_LINE_BYTES + 1));

    // Assess
    expect(outcome).toEqual({
      kind: 'refused',
      message: `line 3: is ${String(MAX_LINE_BYTES + 1)} bytes long; a line may hold ${String(MAX_LINE_BYTES)}`,
    });
    expect({ read: reader.read, refused: reader.refused }).toEqual({ read: 1, refused: 1 });
  });
});
