/**
 * The bulk load of npm run import (tools/db/import-write.ts: beginBulkLoad, writeBulk), each
 * test in a scratch database of its own copied from a migrated template with two restaurants
 * declared (the run's shared database already holds orders, so it never takes the bulk path).
 * The bulk path's observables: every order's id is a constant plus its input line number (a
 * blank line leaves a gap), and the secondary indexes are new relations. After every write the
 * rollups equal a full recompute (tools/db/drift.ts). Skipped on the embedded PGlite (no CREATE
 * DATABASE, no second server connection).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import postgres from 'postgres';
import { findDrift } from '../../../tools/db/drift';
import type { ImportOptions } from '../../../tools/db/import-args';
import { migrate } from '../../../tools/db/migrate';
import { expectImported, ndjsonFile, runImportWith } from '../../support/import-files';
import { signal } from '../../support/signals';

const POSTGRESQL = process.env.TEST_DATABASE_KIND === 'postgresql';
const maybe = POSTGRESQL ? describe : describe.skip;

const DATABASE = `import_bulk_${String(process.pid)}`;
const TEMPLATE = `${DATABASE}_template`;

const KW = 'BULK-KW'; // KWD, 3 decimals
const AE = 'BULK-AE'; // AED, 2 decimals
const TB = 'TB_BULK';
const HS = 'HS_BULK';

const urlOf = (database: string): string => {
  const url = new URL(process.env.TEST_DATABASE_URL ?? '');
  url.pathname = `/${database}`;
  return url.toString();
};

const connect = (database: string): postgres.Sql =>
  postgres(urlOf(database), { max: 1, onnotice: () => undefined });

let admin: postgres.Sql;
let sql: postgres.Sql;
let dir: string;

const file = (name: string, lines: readonly (string | object)[]): string =>
  ndjsonFile(dir, name, lines);

/** runImport in this process, as the command line runs it, on `db`. */
const importWith = (db: postgres.Sql, options: Partial<ImportOptions>) =>
  runImportWith(db, options);

/** A fixture restaurant on both platforms (bulk-tb-kw and bulk-hs-kw for BULK-KW). */
const declaration = (
  restaurantId: string,
  city: string,
  timeZone: string,
  currency: string,
  minorUnits: number,
) => ({
  restaurantId,
  name: `Bulk fixture ${city}`,
  timeZone,
  currency,
  minorUnits,
  platforms: [
    { platformId: TB, platformRestaurantId: `bulk-tb-${restaurantId.slice(-2).toLowerCase()}` },
    { platformId: HS, platformRestaurantId: `bulk-hs-${restaurantId.slice(-2).toLowerCase()}` },
  ],
});

const DECLARATIONS = [
  declaration(KW, 'Kuwait', 'Asia/Kuwait', 'KWD', 3),
  declaration(AE, 'Dubai', 'Asia/Dubai', 'AED', 2),
];

interface Order {
  readonly restaurantId: string;
  readonly platformId: string;
  readonly orderId: string;
  readonly placedAt: string;
  readonly state: string;
  readonly total: string;
  readonly lines: readonly { dish: string; quantity: number; unitPrice: string }[];
}

const DISHES = ['Falafel wrap', 'Tea', 'Hummus bowl', 'Kunafa'];

/**
 * `count` orders over both restaurants, both platforms and five days (every seventh
 * cancelled), 1 to 3 lines each, totals the sum of the lines. Their brand ids sort in the
 * reverse of the file's order (the regular path inserts in brand-id order).
 */
const orders = (prefix: string, count: number): Order[] =>
  Array.from({ length: count }, (_, i) => {
    const kw = i % 2 === 0;
    const minor = kw ? 3 : 2;
    const scale = 10 ** minor;
    const lines = Array.from({ length: 1 + (i % 3) }, (_, j) => ({
      dish: DISHES[(i + j) % DISHES.length] ?? 'Tea',
      quantity: 1 + ((i + j) % 2),
      unitPrice: ((125 * (1 + ((i * 7 + j) % 11)) * scale) / 100 / scale).toFixed(minor),
    }));
    const total = lines.reduce(
      (sum, line) => sum + Math.round(Number(line.unitPrice) * scale) * line.quantity,
      0,
    );
    const day = 20 + (i % 5);
    const hour = String((i * 5) % 24).padStart(2, '0');
    return {
      restaurantId: kw ? KW : AE,
      platformId: i % 4 < 2 ? TB : HS,
      orderId: `${prefix}-${String(count - i).padStart(4, '0')}`,
      placedAt: `2026-11-${String(day)}T${hour}:15:00${kw ? '+03:00' : 'Z'}`,
      state: i % 7 === 3 ? 'CANCELLED' : 'DELIVERED',
      total: (total / scale).toFixed(minor),
      lines,
    };
  });

/** The file's lines: the orders, with a blank line before the order at `blankBefore`. */
const withBlank = (list: readonly Order[], blankBefore: number): (string | Order)[] => [
  ...list.slice(0, blankBefore),
  '',
  ...list.slice(blankBefore),
];

/** Each order's input line number (1-based) in these file lines, by brand id. */
const lineNumbers = (lines: readonly (string | Order)[]): Map<string, number> =>
  new Map(
    lines.flatMap((line, i) => (typeof line === 'string' ? [] : [[line.orderId, i + 1] as const])),
  );

interface Structure {
  readonly kind: string;
  readonly table: string;
  readonly name: string;
  readonly definition: string;
}

/**
 * The indexes (definition, validity), constraints (definition, validation) and triggers (name,
 * enabled; a foreign key's internal ones by constraint, function and type) of orders and
 * order_lines, without their oids.
 */
const structure = async (db: postgres.Sql): Promise<Structure[]> =>
  db<Structure[]>`
    select 'index' as kind, i.indrelid::regclass::text as table,
           i.indexrelid::regclass::text as name,
           pg_get_indexdef(i.indexrelid)
             || ' valid=' || i.indisvalid || ' ready=' || i.indisready
             || ' primary=' || i.indisprimary || ' unique=' || i.indisunique as definition
    from pg_index i
    where i.indrelid in ('orders'::regclass, 'order_lines'::regclass)
    union all
    select 'constraint', c.conrelid::regclass::text, c.conname,
           c.contype::text || ' ' || pg_get_constraintdef(c.oid) || ' validated=' || c.convalidated
             || ' deferrable=' || c.condeferrable
    from pg_constraint c
    where c.conrelid in ('orders'::regclass, 'order_lines'::regclass)
    union all
    select 'trigger', t.tgrelid::regclass::text, t.tgname, t.tgenabled::text
    from pg_trigger t
    where t.tgrelid in ('orders'::regclass, 'order_lines'::regclass) and not t.tgisinternal
    union all
    -- A foreign key's own triggers, named after their oid: by their constraint instead.
    select 'constraint trigger', t.tgrelid::regclass::text, c.conname,
           t.tgenabled::text || ' ' || t.tgfoid::regproc::text || ' ' || t.tgtype::text
    from pg_trigger t
    join pg_constraint c on c.oid = t.tgconstraint
    where t.tgrelid in ('orders'::regclass, 'order_lines'::regclass) and t.tgisinternal
    order by 1, 2, 3, 4`;

/** Each index of orders and order_lines by name, its oid (a rebuilt index is a new relation). */
const indexOids = async (db: postgres.Sql): Promise<Map<string, string>> => {
  const rows = await db<{ name: string; oid: string }[]>`
    select indexrelid::regclass::text as name, indexrelid::text as oid
    from pg_index
    where indrelid in ('orders'::regclass, 'order_lines'::regclass)`;
  return new Map(rows.map((row) => [row.name, row.oid]));
};

/** The orders written: brand id → id. */
const orderIds = async (db: postgres.Sql): Promise<Map<string, bigint>> => {
  const rows = await db<{ external_id: string; id: string }[]>`
    select external_id, id::text from orders where external_id is not null`;
  return new Map(rows.map((row) => [row.external_id, BigInt(row.id)]));
};

/** id minus input line number, per order: one value when the bulk path chose the ids. */
const idOffsets = (ids: ReadonlyMap<string, bigint>, lines: ReadonlyMap<string, number>) =>
  new Set([...ids].map(([orderId, id]) => id - BigInt(lines.get(orderId) ?? -1_000_000)));

/** Per restaurant: orders, lines and the sum of the totals, as the file has them. */
const fileFigures = (list: readonly Order[]) =>
  [KW, AE].map((restaurantId) => {
    const mine = list.filter((o) => o.restaurantId === restaurantId);
    const minor = restaurantId === KW ? 3 : 2;
    const scale = 10 ** minor;
    return {
      restaurant_id: restaurantId,
      orders: mine.length,
      lines: mine.reduce((n, o) => n + o.lines.length, 0),
      revenue: (
        mine.reduce((sum, o) => sum + Math.round(Number(o.total) * scale), 0) / scale
      ).toFixed(3),
      cancelled: mine.filter((o) => o.state === 'CANCELLED').length,
    };
  });

const databaseFigures = async (db: postgres.Sql) =>
  db`
    select o.restaurant_id, count(*)::int as orders,
           coalesce(sum((select count(*) from order_lines l where l.order_id = o.id)), 0)::int
             as lines,
           sum(o.total)::numeric(14, 3)::text as revenue,
           count(*) filter (where o.state = 'CANCELLED')::int as cancelled
    from orders o
    group by o.restaurant_id
    order by o.restaurant_id = ${AE}`;

const orderCount = async (db: postgres.Sql): Promise<number> => {
  const [row] = await db<{ n: number }[]>`
    select (select count(*) from orders)::int + (select count(*) from order_lines)::int as n`;
  return row?.n ?? -1;
};

maybe('npm run import: the bulk load of a first import into an empty database', () => {
  let migrated: Structure[];

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'import-bulk-test-'));
    admin = connect('postgres');
    await admin.unsafe(`drop database if exists ${DATABASE} with (force)`);
    await admin.unsafe(`drop database if exists ${TEMPLATE} with (force)`);
    await admin.unsafe(`create database ${TEMPLATE}`);
    const template = connect(TEMPLATE);
    try {
      await migrate(template);
      const declared = await importWith(template, {
        restaurants: file('restaurants.ndjson', DECLARATIONS),
      });
      expect(declared.code).toBe(0);
      migrated = await structure(template);
    } finally {
      await template.end();
    }
  });

  beforeEach(async () => {
    await admin.unsafe(`create database ${DATABASE} template ${TEMPLATE}`);
    sql = connect(DATABASE);
  });

  afterEach(async () => {
    await sql.end();
    await admin.unsafe(`drop database if exists ${DATABASE} with (force)`);
  });

  afterAll(async () => {
    await admin.unsafe(`drop database if exists ${DATABASE} with (force)`);
    await admin.unsafe(`drop database if exists ${TEMPLATE} with (force)`);
    await admin.end();
    rmSync(dir, { recursive: true, force: true });
  });

  /** The first import of 50 orders (a blank line before the 21st), through the bulk path. */
  const bulkImport = async () => {
    const list = orders('A', 50);
    const lines = withBlank(list, 20);
    const path = file('first.ndjson', lines);
    const before = await indexOids(sql);
    const result = await importWith(sql, { file: path });
    expectImported(result, path, '50 inserted, 0 updated, 0 unchanged, 0 refused');
    return { list, lines, path, before };
  };

  it('a first import into an empty database takes the bulk path and leaves the schema exactly as migrated', async () => {
    expect(migrated.filter((s) => s.kind === 'trigger').length).toBeGreaterThan(0);
    expect(await structure(sql)).toEqual(migrated);
    expect(await orderCount(sql)).toBe(0);
    const { list, lines, before } = await bulkImport();

    // The bulk path chose the ids: a constant plus the input line number, so the blank line
    // (line 21) left a gap; the regular path numbers the orders 1..50 in brand-id order.
    const ids = await orderIds(sql);
    expect(ids.size).toBe(50);
    const offsets = idOffsets(ids, lineNumbers(lines));
    expect(offsets.size).toBe(1);
    const [offset = 0n] = offsets;
    const sorted = [...ids.values()].sort((a, b) => (a < b ? -1 : 1));
    expect(sorted[0]).toBe(offset + 1n);
    expect(sorted.at(-1)).toBe(offset + 51n);
    expect(sorted).not.toContain(offset + 21n);

    // The secondary indexes were dropped and built again (new relations); orders' primary
    // key was kept; every definition, constraint and trigger is as migrated.
    const after = await indexOids(sql);
    expect([...after.keys()].sort()).toEqual([...before.keys()].sort());
    for (const [name, oid] of after) {
      if (name === 'orders_pkey') expect(oid).toBe(before.get(name));
      else expect(oid).not.toBe(before.get(name));
    }
    expect(after.size).toBeGreaterThan(2);
    expect(await structure(sql)).toEqual(migrated);

    expect(await findDrift(sql)).toEqual([]);
    expect(await databaseFigures(sql)).toEqual(fileFigures(list));
    const [rollups] = await sql<{ orders: number }[]>`
      select coalesce(sum(orders), 0)::int as orders from report_daily_orders`;
    expect(rollups?.orders).toBe(list.filter((o) => o.state !== 'CANCELLED').length);
    // Every line reached its order (the foreign key was rebuilt after them, and validated).
    const orphans = await sql<{ n: number }[]>`
      select count(*)::int as n from order_lines l left join orders o on o.id = l.order_id
      where o.id is null`;
    expect(orphans).toEqual([{ n: 0 }]);
  });

  it('after a bulk import, an ordinary insert gets a later id, and a second import of new orders takes the regular path', async () => {
    await bulkImport();
    const imported = await orderIds(sql);
    const maxImported = [...imported.values()].reduce((a, b) => (a > b ? a : b));

    const [ordinary] = await sql<{ id: string }[]>`
      insert into orders (restaurant_id, platform_id, placed_at, state, total)
      values (${KW}, ${TB}, '2026-11-22T10:00:00+03:00', 'DELIVERED', 4)
      returning id::text`;
    expect(BigInt(ordinary?.id ?? '0')).toBeGreaterThan(maxImported);
    await sql`
      insert into order_lines (order_id, line_no, dish_name, quantity, unit_price)
      values (${ordinary?.id ?? '0'}::bigint, 1, 'Tea', 2, 2)`;

    const before = await indexOids(sql);
    const list = orders('B', 30);
    const path = file('second.ndjson', withBlank(list, 10));
    const result = await importWith(sql, { file: path });
    expectImported(result, path, '30 inserted, 0 updated, 0 unchanged, 0 refused');
    // The regular path: no index was dropped and rebuilt, the new ids follow the others.
    expect(await indexOids(sql)).toEqual(before);
    const ids = await orderIds(sql);
    expect(ids.size).toBe(81 - 1); // the ordinary order has no brand id
    for (const o of list) {
      expect(ids.get(o.orderId)).toBeGreaterThan(BigInt(ordinary?.id ?? '0'));
    }
    const [count] = await sql<{ n: number }[]>`select count(*)::int as n from orders`;
    expect(count?.n).toBe(81);
    expect(await structure(sql)).toEqual(migrated);
    expect(await findDrift(sql)).toEqual([]);
  });

  it('a file with one bad line writes nothing into an empty database and leaves the schema unchanged', async () => {
    const list = orders('C', 20);
    const bad = { ...list[5], placedAt: '2026-11-20T12:34:56' };
    const path = file('one-bad.ndjson', [...list.slice(0, 5), bad, ...list.slice(6)]);
    const before = await indexOids(sql);
    expect(await importWith(sql, { file: path })).toEqual({
      code: 1,
      out: [],
      err: [
        'line 6: placedAt: "2026-11-20T12:34:56" has no time-zone offset',
        'nothing written: 1 line refused (--skip-invalid writes the others)',
      ],
    });
    expect(await orderCount(sql)).toBe(0);
    expect(await indexOids(sql)).toEqual(before);
    expect(await structure(sql)).toEqual(migrated);
    // Still empty, so the corrected file takes the bulk path.
    const good = file('corrected.ndjson', list);
    const result = await importWith(sql, { file: good });
    expect(result.code).toBe(0);
    expect(idOffsets(await orderIds(sql), lineNumbers(list)).size).toBe(1);
    expect(await structure(sql)).toEqual(migrated);
    expect(await findDrift(sql)).toEqual([]);
  });

  it('refuses NUL, a lone surrogate and bytes that are not UTF-8 before a bulk load: nothing written, or with --skip-invalid the good lines in bulk', async () => {
    const list = orders('U', 10);
    const text = list.map((o) => JSON.stringify(o));
    text[2] = JSON.stringify({
      ...list[2],
      lines: [{ dish: 'A\u0000B', quantity: 1, unitPrice: '1.000' }],
    });
    text[4] = (text[4] ?? '').replace(/"orderId":"([^"]*)"/, '"orderId":"$1\\ud800"');
    const path = join(dir, 'not-text.ndjson');
    writeFileSync(
      path,
      Buffer.concat([
        Buffer.from(`${text.slice(0, 6).join('\n')}\n`),
        Buffer.from(
          JSON.stringify({
            ...list[6],
            lines: [{ dish: 'Th\u00e9', quantity: 1, unitPrice: '1.000' }],
          }),
          'latin1',
        ),
        Buffer.from(`\n${text.slice(7).join('\n')}\n`),
      ]),
    );
    const refusals: unknown[] = [
      expect.stringMatching(/^line 3: lines\[0\]\.dish: "A\\u0000B" holds a NUL character/),
      expect.stringMatching(/^line 5: orderId: "U-0006\\ud800" holds a lone surrogate/),
      'line 7: lines[0].dish: not UTF-8 (byte 0xE9); the file must be UTF-8',
    ];
    const refused = await importWith(sql, { file: path });
    expect(refused).toEqual({
      code: 1,
      out: [],
      err: [...refusals, 'nothing written: 3 lines refused (--skip-invalid writes the others)'],
    });
    expect(await orderCount(sql)).toBe(0);
    const skipping = await importWith(sql, { file: path, skipInvalid: true });
    expect(skipping.code).toBe(1);
    expect(skipping.err).toEqual(refusals);
    expect((await orderIds(sql)).size).toBe(7);
    expect(idOffsets(await orderIds(sql), lineNumbers(list)).size).toBe(1);
    expect(await structure(sql)).toEqual(migrated);
    expect(await findDrift(sql)).toEqual([]);
  });

  it('falls back to the regular path after the lock timeout while another connection reads orders', async () => {
    const holder = connect(DATABASE);
    try {
      const mayCommit = signal();
      const hasLocked = signal();
      const events: string[] = [];
      const holding = holder.begin(async (tx) => {
        await tx`lock table orders in access share mode`;
        hasLocked.give();
        await mayCommit.given;
        events.push('reader commits');
      });
      await hasLocked.given;

      const before = await indexOids(sql);
      const list = orders('D', 50);
      const lines = withBlank(list, 20);
      const path = file('locked.ndjson', lines);
      const started = performance.now();
      const result = await importWith(sql, { file: path });
      const seconds = (performance.now() - started) / 1000;
      events.push('import returned');
      mayCommit.give();
      await holding;

      expectImported(result, path, '50 inserted, 0 updated, 0 unchanged, 0 refused');
      expect(events).toEqual(['import returned', 'reader commits']);
      // It waited for the lock (5 s) and then gave up on it, not forever.
      expect(seconds).toBeGreaterThanOrEqual(4.9);
      expect(seconds).toBeLessThan(20);
      // The regular path: nothing dropped and rebuilt; the ids are not chosen by line number.
      expect(await indexOids(sql)).toEqual(before);
      expect(idOffsets(await orderIds(sql), lineNumbers(lines)).size).toBeGreaterThan(1);
      expect(await databaseFigures(sql)).toEqual(fileFigures(list));
      expect(await structure(sql)).toEqual(migrated);
      expect(await findDrift(sql)).toEqual([]);
    } finally {
      await holder.end();
    }
  }, 30_000);

  it('re-importing the same file after a bulk import changes nothing', async () => {
    const { list, path } = await bulkImport();
    const rows = async () => ({
      orders: await sql`select o.xmin::text, o.ctid::text, o.* from orders o order by id`,
      lines: await sql`
        select l.xmin::text, l.ctid::text, l.* from order_lines l order by order_id, line_no`,
      days: await sql`select t.xmin::text, t.* from report_daily_orders t order by 2, 3, 4, 5`,
    });
    const before = await rows();
    const oids = await indexOids(sql);
    const again = await importWith(sql, { file: path });
    expectImported(again, path, '0 inserted, 0 updated, 50 unchanged, 0 refused');
    expect(await rows()).toEqual(before);
    expect(await indexOids(sql)).toEqual(oids);
    expect(await structure(sql)).toEqual(migrated);
    expect(await databaseFigures(sql)).toEqual(fileFigures(list));
    expect(await findDrift(sql)).toEqual([]);
  });
});
