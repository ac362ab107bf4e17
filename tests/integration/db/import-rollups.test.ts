/**
 * The deferred rollups of migration 004 (report_rollups_defer / report_rollups_refresh), which
 * npm run import uses (tools/db/import-write.ts), on the run's database (PGlite, or
 * TEST_DATABASE_URL), with ordinary writers on the days the imports touch, in a zone whose DST
 * change is at midnight.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import postgres from 'postgres';
import { findDrift } from '../../../tools/db/drift';
import type { IsoDate } from '../../../shared/dates';
import type { StagingMethod } from '../../../tools/db/import-write';
import { ndjsonFile, runImportWith } from '../../support/import-files';
import { waitingForLock } from '../../support/lock-wait';
import { signal } from '../../support/signals';

const TAG = `IRU${String(process.pid)}`;
const HV = `${TAG}-HV`; // America/Havana: DST changes at local midnight
const KW = `${TAG}-KW`; // Asia/Kuwait
const TB = `${TAG}_TB`;
const HS = `${TAG}_HS`;
const POSTGRESQL = process.env.TEST_DATABASE_KIND === 'postgresql';

let sql: postgres.Sql;
let dir: string;

/** Imports `lines` written to the file `name`. */
const importFile = (name: string, lines: readonly object[], staging?: StagingMethod) =>
  runImportWith(sql, { file: ndjsonFile(dir, name, lines) }, { staging });

type Line = { dish: string; quantity: number; unitPrice: string };

const order = (
  restaurantId: string,
  orderId: string,
  placedAt: string,
  overrides: Record<string, unknown> = {},
): Record<string, unknown> => ({
  restaurantId,
  platformId: TB,
  orderId,
  placedAt,
  state: 'DELIVERED',
  total: '10.00',
  lines: [
    { dish: 'Ropa vieja', quantity: 2, unitPrice: '3.00' },
    { dish: 'Mojito', quantity: 1, unitPrice: '4.00' },
  ] satisfies Line[],
  ...overrides,
});

/** An ordinary writer's order with its lines (two statements: the statement triggers run). */
const ordinaryOrder = async (
  db: postgres.Sql | postgres.TransactionSql,
  restaurantId: string,
  placedAt: string,
  lines: readonly (readonly [string, number, string])[] = [['Mojito', 1, '4.00']],
): Promise<string> => {
  const [row] = await db<{ id: string }[]>`
    insert into orders (restaurant_id, platform_id, placed_at, state, total)
    values (${restaurantId}, ${TB}, ${placedAt}, 'DELIVERED', 4)
    returning id::text`;
  const id = row?.id ?? '';
  for (const [i, [dish, quantity, price]] of lines.entries()) {
    await db`
      insert into order_lines (order_id, line_no, dish_name, quantity, unit_price)
      values (${id}::bigint, ${i + 1}, ${dish}, ${quantity}, ${price})`;
  }
  return id;
};

const expectExact = async (): Promise<void> => {
  expect(await findDrift(sql, { restaurantId: HV })).toEqual([]);
  expect(await findDrift(sql, { restaurantId: KW })).toEqual([]);
};

const rollupRows = async (): Promise<number> => {
  const [row] = await sql<{ n: number }[]>`
    select (select count(*) from report_daily_orders where restaurant_id in (${HV}, ${KW}))::int
         + (select count(*) from report_daily_dishes where restaurant_id in (${HV}, ${KW}))::int
           as n`;
  return row?.n ?? -1;
};

const removeFixture = async (): Promise<void> => {
  await sql`delete from orders where restaurant_id in (${HV}, ${KW})`;
  await sql`delete from restaurant_platforms where restaurant_id in (${HV}, ${KW})`;
  await sql`delete from restaurants where id in (${HV}, ${KW})`;
};

/** The Havana restaurant on both platforms and the Kuwait one on TB. */
const declareRestaurants = async () => {
  await sql`insert into restaurants (id, name, time_zone, currency)
            values (${HV}, 'Deferred rollups Havana', 'America/Havana', 'CUP'),
                   (${KW}, 'Deferred rollups Kuwait', 'Asia/Kuwait', 'KWD')`;
  await sql`insert into restaurant_platforms (restaurant_id, platform_id, platform_restaurant_id)
            values (${HV}, ${TB}, ${`${TAG}-tb-hv`}), (${HV}, ${HS}, ${`${TAG}-hs-hv`}),
                   (${KW}, ${TB}, ${`${TAG}-tb-kw`})`;
};

beforeAll(async () => {
  sql = postgres(process.env.DATABASE_URL ?? '', { max: 1, onnotice: () => undefined });
  dir = mkdtempSync(join(tmpdir(), 'import-rollups-test-'));
  await removeFixture();
  await sql`insert into currencies (code, minor_units) values ('CUP', 2), ('KWD', 3)
            on conflict (code) do nothing`;
  await declareRestaurants();
});

afterAll(async () => {
  await removeFixture();
  await sql.end();
  rmSync(dir, { recursive: true, force: true });
});

// Havana, 2026-11-01: clocks go back from 01:00 to 00:00, so 00:30 happens twice (04:30Z in
// daylight time, 05:30Z in standard time); the first is filed under range day 2026-10-31.
const NIGHT_FIRST = '2026-11-01T04:30:00Z';
const NIGHT_SECOND = '2026-11-01T05:30:00Z';

describe('deferred rollups (migration 004)', () => {
  it.each([
    ["the server's staging method", undefined],
    ['JSON batches', 'insert' as const],
  ])(
    'equal a full recompute after imports of new, changed, moved and re-lined orders beside ordinary writers (%s)',
    async (_name, staging) => {
      await removeFixture();
      await declareRestaurants();
      // Ordinary writers' orders on the days the imports touch.
      await ordinaryOrder(sql, HV, NIGHT_FIRST, [['Mojito', 2, '4.00']]);
      await ordinaryOrder(sql, HV, '2026-10-31T15:00:00Z');
      await ordinaryOrder(sql, KW, '2026-11-20T09:00:00Z', [['Tea', 1, '1.000']]);
      const first = [
        order(HV, 'H-1', NIGHT_FIRST),
        order(HV, 'H-2', NIGHT_SECOND),
        order(HV, 'H-3', '2026-10-31T15:30:00Z', { platformId: HS }),
        order(HV, 'H-4', '2026-11-02T12:00:00Z', { state: 'CANCELLED' }),
        order(HV, 'H-5', '2026-11-02T13:00:00Z', { lines: [] }),
        order(KW, 'K-1', '2026-11-20T10:00:00Z', {
          total: '3.500',
          lines: [
            { dish: 'Tea', quantity: 1, unitPrice: '1.500' },
            { dish: 'Tea', quantity: 1, unitPrice: '2.000' },
          ],
        }),
        order(KW, 'K-2', '2026-11-21T10:00:00Z', { total: '1.000', lines: [] }),
      ];
      const one = await importFile('first.ndjson', first, staging);
      expect(one.code).toBe(0);
      expect(one.out[0]).toMatch(/: 7 inserted, 0 updated, 0 unchanged, 0 refused/);
      await expectExact();
      const rows = await rollupRows();
      expect(rows).toBeGreaterThan(0);

      const second = [
        order(HV, 'H-1', NIGHT_FIRST), // unchanged
        order(HV, 'H-2', '2026-11-03T12:00:00Z'), // moved to another day
        order(HV, 'H-3', '2026-10-31T15:30:00Z', { platformId: HS, state: 'REJECTED' }),
        order(HV, 'H-4', '2026-11-02T12:00:00Z'), // counted from now on
        order(HV, 'H-5', '2026-11-02T13:00:00Z', {
          total: '12.00',
          lines: [{ dish: 'Flan', quantity: 3, unitPrice: '4.00' }],
        }),
        order(HV, 'H-6', NIGHT_SECOND, { platformId: HS }), // new
        order(KW, 'K-1', '2026-11-20T10:00:00Z', {
          total: '3.500',
          lines: [
            { dish: 'Tea', quantity: 1, unitPrice: '1.500' },
            { dish: 'Coffee', quantity: 1, unitPrice: '2.000' },
          ],
        }), // one line changed dish
        order(KW, 'K-2', '2026-11-21T10:00:00Z', { total: '2.000', lines: [] }),
      ];
      const two = await importFile('second.ndjson', second, staging);
      expect(two.code).toBe(0);
      expect(two.out[0]).toMatch(/: 1 inserted, 6 updated, 1 unchanged, 0 refused/);
      await expectExact();

      // An ordinary writer after the import: its triggers run again (nothing left deferred).
      await ordinaryOrder(sql, HV, NIGHT_SECOND, [['Flan', 1, '4.00']]);
      await expectExact();
      const [deferred] = await sql<{ deferred: boolean }[]>`
        select report_rollups_deferred() as deferred`;
      expect(deferred?.deferred).toBe(false);
    },
  );

  it('defers only the transaction that asked; a stale or session-wide mark defers nothing', async () => {
    // A value naming another transaction (as a session-wide set_config would leave) defers nothing.
    await sql.begin(async (tx) => {
      await tx`select set_config('report_rollups.deferred', '1', true)`;
      await ordinaryOrder(tx, KW, '2026-11-25T10:00:00Z');
    });
    await expectExact();
    // A transaction that defers and does not refresh: its orders are missing from the
    // rollups (the contract: refresh before commit); the next writer's triggers are not deferred.
    await sql.begin(async (tx) => {
      await tx`select report_rollups_defer()`;
      await ordinaryOrder(tx, KW, '2026-11-26T10:00:00Z');
    });
    expect((await findDrift(sql, { restaurantId: KW })).length).toBeGreaterThan(0);
    await ordinaryOrder(sql, KW, '2026-11-27T10:00:00Z');
    expect(
      await findDrift(sql, {
        restaurantId: KW,
        from: '2026-11-27' as IsoDate,
        to: '2026-11-27' as IsoDate,
      }),
    ).toEqual([]);
    // Refreshed afterwards, by the same function, the day is exact again.
    await sql.begin(async (tx) => {
      await tx`select report_rollups_refresh(
        array[${KW}], array[${TB}], array['2026-11-26T10:00:00Z']::timestamptz[])`;
    });
    await expectExact();
  });

  (POSTGRESQL ? it : it.skip)(
    'the refresh waits for an ordinary writer of the restaurant under way; a later writer waits for it; exact after both',
    async () => {
      const session = (application: string) =>
        postgres(process.env.DATABASE_URL ?? '', {
          max: 1,
          onnotice: () => undefined,
          connection: { application_name: `${application}-${String(process.pid)}` },
        });
      const bulk = session('iru-bulk');
      const writer = session('iru-writer');
      const later = session('iru-later');
      const day = '2026-12-01T10:00:00Z';
      try {
        const writerMayCommit = signal();
        const writerHasWritten = signal();
        // An ordinary writer: its order on the day, not committed yet (it holds the restaurant
        // FOR SHARE through its triggers).
        const writing = writer.begin(async (tx) => {
          await ordinaryOrder(tx, HV, day, [['Mojito', 1, '4.00']]);
          writerHasWritten.give();
          await writerMayCommit.given;
        });
        await writerHasWritten.given;

        const events: string[] = [];
        const bulkMayCommit = signal();
        const bulkRefreshed = signal();
        const bulkWriting = bulk.begin(async (tx) => {
          await tx`select report_rollups_defer()`;
          await ordinaryOrder(tx, HV, day, [
            ['Mojito', 2, '4.00'],
            ['Flan', 1, '4.00'],
          ]);
          await tx`select report_rollups_refresh(
            array[${HV}], array[${TB}], array[${day}]::timestamptz[])`;
          events.push('refreshed');
          bulkRefreshed.give();
          await bulkMayCommit.given;
        });
        await waitingForLock(sql, { application: `iru-bulk-${String(process.pid)}` });
        expect(events).toEqual([]); // waiting for the writer's restaurant lock
        events.push('writer commits');
        writerMayCommit.give();
        await writing;
        await bulkRefreshed.given;

        // A writer arriving now waits for the bulk transaction to commit.
        const arriving = later
          .begin(async (tx) => ordinaryOrder(tx, HV, day, [['Flan', 2, '4.00']]))
          .then(() => events.push('later writer committed'));
        await waitingForLock(sql, { application: `iru-later-${String(process.pid)}` });
        events.push('bulk commits');
        bulkMayCommit.give();
        await bulkWriting;
        await arriving;
        expect(events).toEqual([
          'writer commits',
          'refreshed',
          'bulk commits',
          'later writer committed',
        ]);
        await expectExact();
      } finally {
        await Promise.all([bulk.end(), writer.end(), later.end()]);
      }
    },
  );
});
