/**
 * npm run import refuses what PostgreSQL would refuse before anything is written, and a COPY the
 * server refuses never leaves it waiting (tools/db/import-validate.ts, import-check.ts,
 * import-write.ts copyIn).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import postgres from 'postgres';
import type { ImportOptions } from '../../../tools/db/import-args';
import { createStaging, Staging } from '../../../tools/db/import-write';
import { runImportWith } from '../../support/import-files';

const TAG = `REF${String(process.pid)}`;
const R = `${TAG}-AE`;
const TB = `${TAG}_TB`;
const POSTGRESQL = process.env.TEST_DATABASE_KIND === 'postgresql';

let sql: postgres.Sql;
let dir: string;

/** The import with these options, and how long it took. */
const importWith = async (options: Partial<ImportOptions>, checkInWorker?: boolean) => {
  const started = performance.now();
  const outcome = await runImportWith(sql, options, { checkInWorker });
  return { ...outcome, ms: performance.now() - started };
};

const order = (orderId: string, dish = 'Tea') =>
  JSON.stringify({
    restaurantId: R,
    platformId: TB,
    orderId,
    placedAt: '2026-05-05T12:00:00+04:00',
    state: 'DELIVERED',
    total: '10.00',
    lines: [{ dish, quantity: 1, unitPrice: '1.00' }],
  });

/** A file of a good order, then the bad one, as bytes. */
const FILES: Record<string, { bytes: Buffer; refusal: string }> = {
  nul: {
    bytes: Buffer.from(`${order('G-1')}\n${order('x', 'A\u0000B')}\n`),
    refusal: 'line 2: lines[0].dish: "A\\u0000B" holds a NUL character',
  },
  surrogate: {
    bytes: Buffer.from(`${order('G-1')}\n${order('x').replace('"x"', '"x\\ud800"')}\n`),
    refusal: 'line 2: orderId: "x\\ud800" holds a lone surrogate',
  },
  latin1: {
    bytes: Buffer.concat([
      Buffer.from(`${order('G-1')}\n`),
      Buffer.from(order('x', 'CAF#').replace('#', '\u00e9'), 'latin1'),
      Buffer.from('\n'),
    ]),
    refusal: 'line 2: lines[0].dish: not UTF-8 (byte 0xE9)',
  },
};

const written = async (): Promise<string[]> =>
  (
    await sql<{ external_id: string }[]>`
      select external_id from orders where restaurant_id = ${R} order by 1`
  ).map((row) => row.external_id);

const removeFixture = async () => {
  await sql`delete from orders where restaurant_id = ${R}`;
  await sql`delete from report_daily_orders where restaurant_id = ${R}`;
  await sql`delete from report_daily_dishes where restaurant_id = ${R}`;
  await sql`delete from restaurant_platforms where restaurant_id = ${R}`;
  await sql`delete from restaurants where id = ${R}`;
};

beforeAll(async () => {
  sql = postgres(process.env.DATABASE_URL ?? '', { max: 1, onnotice: () => undefined });
  dir = mkdtempSync(join(tmpdir(), 'import-refused-'));
  await removeFixture();
  const restaurants = join(dir, 'restaurants.ndjson');
  writeFileSync(
    restaurants,
    `${JSON.stringify({
      restaurantId: R,
      name: 'Refusals fixture',
      timeZone: 'Asia/Dubai',
      currency: 'AED',
      minorUnits: 2,
      platforms: [{ platformId: TB, platformRestaurantId: `${TAG}-tb` }],
    })}\n`,
  );
  expect((await importWith({ restaurants })).code).toBe(0);
});

afterAll(async () => {
  await removeFixture();
  await sql.end();
  rmSync(dir, { recursive: true, force: true });
});

afterEach(async () => {
  await sql`delete from orders where restaurant_id = ${R}`;
});

describe.each(Object.entries(FILES))('a file with a %s line', (name, { bytes, refusal }) => {
  const path = () => {
    const file = join(dir, `${name}.ndjson`);
    writeFileSync(file, bytes);
    return file;
  };

  it('is refused on this thread in under a second, the line and field named, nothing written', async () => {
    const result = await importWith({ file: path() }, false);
    expect(result.code).toBe(1);
    expect(result.err[0]).toContain(refusal);
    expect(result.err.at(-1)).toBe(
      'nothing written: 1 line refused (--skip-invalid writes the others)',
    );
    expect(result.ms).toBeLessThan(1_000);
    expect(await written()).toEqual([]);
  });

  (POSTGRESQL ? it : it.skip)('is refused on the worker thread, nothing written', async () => {
    const result = await importWith({ file: path() }, true);
    expect(result.code).toBe(1);
    expect(result.err[0]).toContain(refusal);
    expect(await written()).toEqual([]);
  });

  it('with --skip-invalid, is listed and the good line written', async () => {
    const result = await importWith({ file: path(), skipInvalid: true });
    expect(result.code).toBe(1);
    expect(result.err[0]).toContain(refusal);
    expect(await written()).toEqual(['G-1']);
  });
});

(POSTGRESQL ? describe : describe.skip)('a COPY the server refuses', () => {
  it.each([
    ['a NUL character', `1\tR\tTB\tx\t2026-05-05T12:00:00Z\tDELIVERED\t1.00\u0000\n`],
    ['a missing column', `1\tR\tTB\n`],
  ])('with %s rejects the staging at once and rolls back', async (_name, row) => {
    const started = performance.now();
    const failure = await sql
      .begin(async (tx) => {
        await createStaging(tx);
        const staging = new Staging(tx, 'copy');
        staging.addBatch({ order: row, lines: '' }, 1);
        await staging.flush();
      })
      .then(
        () => undefined,
        (error: unknown) => error as Error,
      );
    expect(failure?.message).toMatch(/invalid byte sequence|missing data for column/);
    expect(performance.now() - started).toBeLessThan(3_000);
    // Rolled back: the connection answers (an aborted transaction would refuse this).
    expect(await sql`select 1 as one`).toEqual([{ one: 1 }]);
  });
});
