/**
 * npm run import reads lines in time linear in the file's size, whatever their length or line
 * ending (tools/db/import-check.ts `fileLines`), checked as the import's worker does: a 40 MB
 * line within twice the time of readFile and JSON.parse of it, and a 20 MB file ended by CR
 * alone within twice the time of the same lines ended by LF, each timed as its best run here,
 * the two sides in turns.
 */
import { createReadStream, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileLines, OrderReader, READ_BYTES } from '../../../tools/db/import-check';
import { KUWAIT_CONTEXT, kuwaitOrder as order } from '../../support/import-files';

const MB = 1_000_000;
let dir = '';
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'import-long-lines-'));
});
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

/**
 * The best time of each of `a` and `b` over `runs` rounds after one that warms up, in
 * milliseconds: run in turns, so that a load that comes and goes weighs on both alike.
 */
const bestOfEach = async (
  a: () => Promise<unknown>,
  b: () => Promise<unknown>,
  runs: number,
): Promise<[number, number]> => {
  const times: [number[], number[]] = [[], []];
  for (let round = 0; round <= runs; round += 1) {
    for (const [i, run] of [a, b].entries()) {
      const started = performance.now();
      await run();
      if (round > 0) times[i]?.push(performance.now() - started);
    }
  }
  return [Math.min(...times[0]), Math.min(...times[1])];
};

/** The file read and checked as the import's worker does: its refusals, and orders read. */
const check = async (path: string) => {
  const reader = new OrderReader(KUWAIT_CONTEXT, false);
  const refusals: string[] = [];
  let lineNo = 0;
  for await (const line of fileLines(createReadStream(path, { highWaterMark: READ_BYTES }))) {
    lineNo += 1;
    const outcome = reader.line(lineNo, line);
    if (outcome.kind === 'refused') refusals.push(outcome.message);
  }
  return { refusals, read: reader.read };
};

describe('reading order lines in linear time', () => {
  it('reads one 40 MB order line within twice the time of readFile and JSON.parse of the file', async () => {
    // Prepare: a valid order with a large field the import ignores
    const path = join(dir, 'long.ndjson');
    writeFileSync(path, `${order('L-1', { note: 'x'.repeat(40 * MB) })}\n`);

    // Act
    const checked = await check(path);
    const [reading, whole] = await bestOfEach(
      () => check(path),
      async () => JSON.parse(await readFile(path, 'utf8')) as unknown,
      7,
    );

    // Assess
    expect(checked).toEqual({ refusals: [], read: 1 });
    expect(reading).toBeLessThan(2 * whole);
  }, 120_000);

  it('reads a 20 MB file ended by CR alone within twice the time of the same lines ended by LF', async () => {
    // Prepare: the same orders, one file per line ending
    const orders = Array.from(
      { length: Math.ceil((20 * MB) / order('C-0000000').length) },
      (_, i) => order(`C-${String(i).padStart(7, '0')}`),
    );
    const crPath = join(dir, 'cr.ndjson');
    const lfPath = join(dir, 'lf.ndjson');
    writeFileSync(crPath, `${orders.join('\r')}\r`);
    writeFileSync(lfPath, `${orders.join('\n')}\n`);

    // Act
    const checked = await check(crPath);
    const [crOnly, lf] = await bestOfEach(
      () => check(crPath),
      () => check(lfPath),
      2,
    );

    // Assess
    expect(checked).toEqual({ refusals: [], read: orders.length });
    expect(crOnly).toBeLessThan(2 * lf);
  }, 120_000);
});
