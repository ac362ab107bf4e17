/**
 * npm run import (tools/db/import*.ts, migration 003, docs/import.md) on the run's database
 * (the embedded PGlite, where orders are staged by JSON batches, or TEST_DATABASE_URL, where
 * they are staged by COPY and, in one test, by the batches too). After every write the rollups
 * equal a full recompute (tools/db/drift.ts's comparison).
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import postgres from 'postgres';
import { findDrift } from '../../../tools/db/drift';
import { IMPORT_USAGE, type ImportOptions } from '../../../tools/db/import-args';
import type { StagingMethod } from '../../../tools/db/import-write';
import { ROOT } from '../../support/processes';
import {
  expectImported,
  ndjsonFile,
  runImportWith,
  withoutTiming,
} from '../../support/import-files';

const TSX = createRequire(import.meta.url).resolve('tsx/cli');
const TAG = `IMP${String(process.pid)}`;
const KW = `${TAG}-KW`; // KWD, 3 decimals
const AE = `${TAG}-AE`; // AED, 2 decimals
const TB = `${TAG}_TB`;
const HS = `${TAG}_HS`;
const POSTGRESQL = process.env.TEST_DATABASE_KIND === 'postgresql';

let sql: postgres.Sql;
let dir: string;

const file = (name: string, lines: readonly (string | object)[]): string =>
  ndjsonFile(dir, name, lines);

/** runImport in this process, as the command line runs it, its output collected. */
const importWith = (
  options: Partial<ImportOptions>,
  staging?: StagingMethod,
  checkInWorker?: boolean,
) => runImportWith(sql, options, { staging, checkInWorker });

/** The real command line, with `input` on its standard input. */
const cli = (
  args: readonly string[],
  input = '',
): Promise<{ code: number | null; stdout: string; stderr: string }> =>
  new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [TSX, 'tools/db/import.ts', ...args], {
      cwd: ROOT,
      env: { ...process.env, DATABASE_URL: process.env.DATABASE_URL },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => {
      resolve({ code, stdout, stderr });
    });
    child.stdin.end(input);
  });

const order = (
  orderId: string,
  overrides: Record<string, unknown> = {},
): Record<string, unknown> => ({
  restaurantId: KW,
  platformId: TB,
  orderId,
  placedAt: '2026-11-20T12:34:56+03:00',
  state: 'DELIVERED',
  total: '4.500',
  lines: [
    { dish: 'Falafel wrap', quantity: 2, unitPrice: '1.250' },
    { dish: 'Tea', quantity: 1, unitPrice: '2.000' },
  ],
  ...overrides,
});

const GOOD = [
  order('A-1'),
  order('A-2', { state: 'CANCELLED', total: '1.000', lines: [] }),
  order('A-3', { platformId: HS, placedAt: '2026-11-21T23:30:00Z' }),
  order('B-1', {
    restaurantId: AE,
    total: '42.50',
    lines: [{ dish: 'Falafel wrap', quantity: 2, unitPrice: '12.00' }],
  }),
];

const ourOrders = async (): Promise<number> => {
  const [row] = await sql<{ n: number }[]>`
    select count(*)::int as n from orders where restaurant_id in (${KW}, ${AE})`;
  return row?.n ?? -1;
};

const expectExactRollups = async (): Promise<void> => {
  expect(await findDrift(sql, { restaurantId: KW })).toEqual([]);
  expect(await findDrift(sql, { restaurantId: AE })).toEqual([]);
};

/** Every row the import could touch, with its system columns. */
const snapshot = async () => ({
  orders: await sql`
    select o.xmin::text, o.xmax::text, o.ctid::text, o.* from orders o
    where restaurant_id in (${KW}, ${AE}) order by id`,
  lines: await sql`
    select l.xmin::text, l.xmax::text, l.ctid::text, l.* from order_lines l
    join orders o on o.id = l.order_id
    where o.restaurant_id in (${KW}, ${AE}) order by 4, 5`,
  days: await sql`
    select t.xmin::text, t.xmax::text, t.ctid::text, t.* from report_daily_orders t
    where restaurant_id in (${KW}, ${AE}) order by 4, 5, 6, 7`,
  dishes: await sql`
    select t.xmin::text, t.xmax::text, t.ctid::text, t.* from report_daily_dishes t
    where restaurant_id in (${KW}, ${AE}) order by 4, 5, 6, 7`,
});

const removeFixture = async (): Promise<void> => {
  await sql`delete from orders where restaurant_id in (${KW}, ${AE})`;
  await sql`delete from restaurant_platforms where restaurant_id in (${KW}, ${AE})`;
  await sql`delete from restaurants where id in (${KW}, ${AE})`;
};

const DECLARATIONS = () => [
  {
    restaurantId: KW,
    name: 'Import fixture Kuwait',
    timeZone: 'Asia/Kuwait',
    currency: 'KWD',
    minorUnits: 3,
    platforms: [
      { platformId: TB, platformRestaurantId: `${TAG}-tb-kw` },
      { platformId: HS, platformRestaurantId: `${TAG}-hs-kw` },
    ],
  },
  {
    restaurantId: AE,
    name: 'Import fixture Dubai',
    timeZone: 'Asia/Dubai',
    currency: 'AED',
    platforms: [{ platformId: TB, platformRestaurantId: `${TAG}-tb-ae` }],
  },
];

beforeAll(async () => {
  sql = postgres(process.env.DATABASE_URL ?? '', { max: 1, onnotice: () => undefined });
  dir = mkdtempSync(join(tmpdir(), 'import-test-'));
  await removeFixture();
  await sql`insert into currencies (code, minor_units) values ('AED', 2)
            on conflict (code) do nothing`;
});

afterAll(async () => {
  await removeFixture();
  await sql.end();
  rmSync(dir, { recursive: true, force: true });
});

describe('npm run import', () => {
  it('declares restaurants and their platforms through the command line, and again changes nothing', async () => {
    const path = file('restaurants.ndjson', DECLARATIONS());
    const first = await cli(['--restaurants', path]);
    expect(first).toEqual({
      code: 0,
      stdout: `restaurants from ${path}: 2 inserted, 0 updated, 0 unchanged, 0 refused; platforms: 3 inserted, 0 updated, 0 unchanged\n`,
      stderr: '',
    });
    const again = await importWith({ restaurants: path });
    expect(again).toEqual({
      code: 0,
      out: [
        `restaurants from ${path}: 0 inserted, 0 updated, 2 unchanged, 0 refused; platforms: 0 inserted, 0 updated, 3 unchanged`,
      ],
      err: [],
    });
    const [row] = await sql`select name, time_zone, currency from restaurants where id = ${AE}`;
    expect(row).toEqual({ name: 'Import fixture Dubai', time_zone: 'Asia/Dubai', currency: 'AED' });
  });

  it('refuses a declaration with an unknown time zone or a code that is not an ISO 4217 currency', async () => {
    const path = file('bad-restaurants.ndjson', [
      { ...DECLARATIONS()[1], timeZone: 'Mars/Olympus' },
      { ...DECLARATIONS()[1], currency: 'XQZ' },
    ]);
    expect(await importWith({ restaurants: path })).toEqual({
      code: 1,
      out: [],
      err: [
        'line 1: timeZone: "Mars/Olympus" is not an IANA time zone (e.g. "Asia/Dubai")',
        'line 2: currency: "XQZ" is not an ISO 4217 currency code (e.g. "AED")',
        'nothing written: 2 lines refused (--skip-invalid writes the others)',
      ],
    });
  });

  it('writes nothing from a file with one bad line, and names the line', async () => {
    const path = file('one-bad.ndjson', [
      ...GOOD.slice(0, 2),
      order('A-9', { total: '4.5' }),
      GOOD[2] ?? {},
    ]);
    expect(await importWith({ file: path })).toEqual({
      code: 1,
      out: [],
      err: [
        'line 3: total: "4.5" has 1 decimal place; KWD amounts have 3',
        'nothing written: 1 line refused (--skip-invalid writes the others)',
      ],
    });
    expect(await ourOrders()).toBe(0);
  });

  it('refuses each bad line with its message', async () => {
    const notJson = '{"restaurantId": "R-1", ';
    let jsonError = '';
    try {
      JSON.parse(notJson);
    } catch (error) {
      jsonError = (error as Error).message;
    }
    const path = file('bad.ndjson', [
      notJson,
      order('C-1', { total: '4.50' }),
      order('C-2', { restaurantId: 'R-9' }),
      order('C-3', { state: 'COMPLETED' }),
      order('C-4', { placedAt: '2026-11-20T12:34:56' }),
      order('C-5', { platformId: 'XX_YY' }),
      order('C-6', { lines: [{ dish: 'Tea', quantity: 0, unitPrice: '1.000' }] }),
      order('C-7'),
      order('C-7', { total: '9.000' }),
      '',
      order('C-8', { orderId: '' }),
    ]);
    const { code, out, err } = await importWith({ file: path });
    expect({ code, out, err }).toEqual({
      code: 1,
      out: [],
      err: [
        `line 1: not JSON: ${jsonError}`,
        'line 2: total: "4.50" has 2 decimal places; KWD amounts have 3',
        'line 3: restaurantId: R-9 is not declared (see --restaurants)',
        'line 4: state: "COMPLETED" is not one of PLACED, ACCEPTED, DELIVERED, CANCELLED, REJECTED (map the brand\'s states with --states <file.json>)',
        'line 5: placedAt: "2026-11-20T12:34:56" has no time-zone offset',
        `line 6: platformId: XX_YY is not declared for ${KW} (see --restaurants)`,
        'line 7: lines[0].quantity: 0 is not a positive integer',
        `line 9: orderId: C-7 of ${KW} on ${TB} is also on line 8`,
        'line 11: orderId: is empty',
        'nothing written: 9 lines refused (--skip-invalid writes the others)',
      ],
    });
    expect(await ourOrders()).toBe(0);
  });

  it('refuses a state the --states file does not map, naming the file', async () => {
    const states = file('states.json', [{ COMPLETED: 'DELIVERED', VOIDED: 'CANCELLED' }]);
    const path = file('unmapped.ndjson', [order('D-1', { state: 'SHIPPED' })]);
    expect(await importWith({ file: path, states })).toEqual({
      code: 1,
      out: [],
      err: [
        `line 1: state: "SHIPPED" is not mapped by ${states}`,
        'nothing written: 1 line refused (--skip-invalid writes the others)',
      ],
    });
  });

  it('imports a file once; importing it again writes nothing at all', async () => {
    const path = file('good.ndjson', GOOD);
    const first = await importWith({ file: path });
    expectImported(first, path, '4 inserted, 0 updated, 0 unchanged, 0 refused');
    expect(await ourOrders()).toBe(4);
    await expectExactRollups();
    const [days] = await sql`
      select orders, revenue::text from report_daily_orders
      where restaurant_id = ${KW} and platform_id = ${TB} and day = '2026-11-20'`;
    expect(days).toEqual({ orders: 1, revenue: '4.500' });

    const before = await snapshot();
    const again = await importWith({ file: path });
    expectImported(again, path, '0 inserted, 0 updated, 4 unchanged, 0 refused');
    expect(await snapshot()).toEqual(before);
  });

  it('updates the one row of a re-sent order whose state, total and lines changed; the rollups equal a full recompute', async () => {
    const [{ id } = { id: '' }] = await sql<{ id: string }[]>`
      select id::text from orders where restaurant_id = ${KW} and external_id = 'A-1'`;
    const path = file('resent.ndjson', [
      order('A-1', {
        state: 'ACCEPTED',
        total: '6.000',
        lines: [{ dish: 'Soup', quantity: 3, unitPrice: '2.000' }],
      }),
      order('A-2', { state: 'DELIVERED', total: '1.000', lines: [] }),
      GOOD[2] ?? {},
    ]);
    const result = await importWith({ file: path });
    expectImported(result, path, '0 inserted, 2 updated, 1 unchanged, 0 refused');
    const rows = await sql`
      select id::text, state, total::text from orders
      where restaurant_id = ${KW} and external_id = 'A-1'`;
    expect(rows).toEqual([{ id, state: 'ACCEPTED', total: '6.000' }]);
    const lines = await sql`
      select line_no, dish_name, quantity, unit_price::text from order_lines
      where order_id = ${id}::bigint`;
    expect(lines).toEqual([{ line_no: 1, dish_name: 'Soup', quantity: 3, unit_price: '2.000' }]);
    expect(await ourOrders()).toBe(4);
    await expectExactRollups();
  });

  it('keeps the rollups exact under a plain INSERT ... ON CONFLICT DO UPDATE on the brand id', async () => {
    await sql`
      insert into orders (restaurant_id, platform_id, external_id, placed_at, state, total)
      values (${KW}, ${TB}, 'A-1', '2026-11-22T10:00:00+03:00', 'DELIVERED', 7),
             (${KW}, ${TB}, 'E-1', '2026-11-22T11:00:00+03:00', 'PLACED', 2)
      on conflict (restaurant_id, platform_id, external_id) do update
        set placed_at = excluded.placed_at, state = excluded.state, total = excluded.total`;
    await expectExactRollups();
    await sql`delete from orders where restaurant_id = ${KW} and external_id = 'E-1'`;
  });

  it('writes the good lines with --skip-invalid, lists the bad ones and exits 1', async () => {
    const path = file('skip.ndjson', [
      order('F-1'),
      order('F-2', { placedAt: '2026-11-20' }),
      order('F-3', { restaurantId: AE, total: '10.00', lines: [] }),
    ]);
    const result = await importWith({ file: path, skipInvalid: true });
    expect({ ...result, out: result.out.map(withoutTiming) }).toEqual({
      code: 1,
      out: [`orders from ${path}: 2 inserted, 0 updated, 0 unchanged, 1 refused`],
      err: [
        'line 2: placedAt: "2026-11-20" is not an ISO 8601 date-time (2026-11-20T12:34:56+04:00)',
      ],
    });
    const written = await sql`
      select external_id from orders where external_id like 'F-%' and restaurant_id in (${KW}, ${AE})
      order by 1`;
    expect(written).toEqual([{ external_id: 'F-1' }, { external_id: 'F-3' }]);
    await expectExactRollups();
  });

  it('takes a file with a byte-order mark and CRLF line endings', async () => {
    const path = join(dir, 'windows.ndjson');
    writeFileSync(
      path,
      `\uFEFF${JSON.stringify(order('K-1'))}\r\n${JSON.stringify(order('K-2'))}\r\n`,
    );
    const result = await importWith({ file: path });
    expectImported(result, path, '2 inserted, 0 updated, 0 unchanged, 0 refused');
    await expectExactRollups();
  });

  it('reads standard input and maps the brand states with --states through the command line', async () => {
    const states = file('brand-states.json', [{ COMPLETED: 'DELIVERED', VOIDED: 'CANCELLED' }]);
    const input = [
      order('G-1', { state: 'COMPLETED' }),
      order('G-2', { state: 'VOIDED', total: '1.000', lines: [] }),
    ]
      .map((line) => JSON.stringify(line))
      .join('\n');
    const result = await cli(['--states', states], input);
    expect({ ...result, stdout: withoutTiming(result.stdout.trimEnd()) }).toEqual({
      code: 0,
      stdout: 'orders from standard input: 2 inserted, 0 updated, 0 unchanged, 0 refused',
      stderr: '',
    });
    const rows = await sql`
      select external_id, state from orders where external_id like 'G-%' and restaurant_id = ${KW}
      order by 1`;
    expect(rows).toEqual([
      { external_id: 'G-1', state: 'DELIVERED' },
      { external_id: 'G-2', state: 'CANCELLED' },
    ]);
    await expectExactRollups();
  });

  it('refuses at start (exit 2) a --states file mapping to a state of none of ours', async () => {
    const states = file('wrong-states.json', [{ COMPLETED: 'DONE' }]);
    const result = await cli(['--file', '-', '--states', states], '');
    expect(result).toEqual({
      code: 2,
      stdout: '',
      stderr: `--states ${states}: "COMPLETED" maps to "DONE", which is not one of PLACED, ACCEPTED, DELIVERED, CANCELLED, REJECTED\n`,
    });
  });

  it('prints its usage on standard output for --help and -h, exits 0 and imports nothing', async () => {
    const path = file('help.ndjson', [order('J-1')]);
    const before = await ourOrders();

    const long = await cli(['--file', path, '--help']);
    const short = await cli(['-h']);

    const help = { code: 0, stdout: `${IMPORT_USAGE}\n`, stderr: '' };
    expect(long).toEqual(help);
    expect(short).toEqual(help);
    expect(await ourOrders()).toBe(before);
  });

  it('refuses an unknown option (exit 2), naming it on one line before the usage, and imports nothing', async () => {
    const path = file('unknown-option.ndjson', [order('J-2')]);
    const before = await ourOrders();

    const result = await cli(['--file', path, '--dry-run']);

    expect(result).toEqual({
      code: 2,
      stdout: '',
      stderr: `Unknown option '--dry-run'\n${IMPORT_USAGE}\n`,
    });
    expect(await ourOrders()).toBe(before);
  });

  if (POSTGRESQL) {
    it('stages by JSON batches (the PGlite path) on PostgreSQL too, with the same outcome', async () => {
      const path = file('batches.ndjson', [
        order('H-1'),
        order('A-1', { state: 'REJECTED', total: '7.000' }),
      ]);
      const result = await importWith({ file: path }, 'insert');
      expectImported(result, path, '1 inserted, 1 updated, 0 unchanged, 0 refused');
      await expectExactRollups();
      const copied = await importWith({ file: path }, 'copy');
      expect(copied.out.map(withoutTiming)).toEqual([
        `orders from ${path}: 0 inserted, 0 updated, 2 unchanged, 0 refused`,
      ]);
    });

    // Batches of 2,000 lines go to the worker: these files span three, with refusals in each
    // and an order repeated across batches.
    const manyWithRefusals = (prefix: string): (string | object)[] => {
      const lines: (string | object)[] = [];
      for (let n = 1; n <= 4_500; n += 1) lines.push(order(`${prefix}-${String(n)}`));
      lines[0] = '{"restaurantId": ';
      lines[2_499] = order(`${prefix}-2500`, { total: '4.50' });
      lines[2_999] = '';
      lines[4_399] = order(`${prefix}-10`, { total: '9.000' });
      lines[4_499] = order(`${prefix}-4500`, { placedAt: '2026-11-20T12:34:56' });
      return lines;
    };

    it('checks the orders on a worker thread with the refusals, in line order, of this one', async () => {
      const path = file('worker-bad.ndjson', manyWithRefusals('W'));
      const before = await ourOrders();
      const here = await importWith({ file: path }, 'copy', false);
      const worker = await importWith({ file: path }, 'copy', true);
      expect(worker).toEqual(here);
      expect(worker.code).toBe(1);
      expect(worker.err.slice(1)).toEqual([
        'line 2500: total: "4.50" has 2 decimal places; KWD amounts have 3',
        `line 4400: orderId: W-10 of ${KW} on ${TB} is also on line 10`,
        'line 4500: placedAt: "2026-11-20T12:34:56" has no time-zone offset',
        'nothing written: 4 lines refused (--skip-invalid writes the others)',
      ]);
      expect(worker.err[0]).toMatch(/^line 1: not JSON: /);
      expect(await ourOrders()).toBe(before);
    });

    it('writes from a worker thread the rows this thread writes (--skip-invalid)', async () => {
      const path = file('worker-skip.ndjson', manyWithRefusals('X'));
      const worker = await importWith({ file: path, skipInvalid: true }, 'copy', true);
      expect(worker.out.map(withoutTiming)).toEqual([
        `orders from ${path}: 4495 inserted, 0 updated, 0 unchanged, 4 refused`,
      ]);
      const here = await importWith({ file: path, skipInvalid: true }, 'copy', false);
      expect(here.out.map(withoutTiming)).toEqual([
        `orders from ${path}: 0 inserted, 0 updated, 4495 unchanged, 4 refused`,
      ]);
      await expectExactRollups();
    });
  }
});
