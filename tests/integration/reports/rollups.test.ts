/**
 * The daily rollups (migration 004) against the aggregation they replace: after every step of
 * random histories (fast-check; inserts, updates, deletes of orders and lines, zone changes) in
 * four restaurants around clock changes, the rollups equal the rows recomputed from the source
 * tables and every report equals live-aggregation.ts. ROLLUP_TEST_RUNS raises the number of
 * histories; on real PostgreSQL, concurrent writers of one order are checked too.
 */
import fc from 'fast-check';
import postgres from 'postgres';
import { SAMPLE_OWNERS } from '../../../tools/db/sample-data';
import type { DateRange, IsoDate } from '../../../shared/dates';
import { addDays, todayIn } from '../../../tools/dates';
import type { Sql } from '../../../shared/db/client';
import { dishesQueries } from '../../../shared/reports/dishes.sql';
import { COUNTED_STATES } from '../../../shared/reports/domain';
import { ordersPerDayQueries } from '../../../shared/reports/orders-per-day.sql';
import { revenueQueries } from '../../../shared/reports/revenue.sql';
import {
  liveDishes,
  liveOrdersPerDay,
  liveRevenuePerMonth,
  rollupTables,
  type RollupTables,
} from './live-aggregation';
import { rolledBack } from './fixture-restaurant';
import { waitingForLock } from '../../support/lock-wait';

const RUNS = Number(process.env.ROLLUP_TEST_RUNS ?? 20);

const RESTAURANTS = [
  { id: 'ROLL-0', zone: 'America/Havana', currency: 'AED', minorUnits: 2 },
  { id: 'ROLL-1', zone: 'America/Santiago', currency: 'KWD', minorUnits: 3 },
  { id: 'ROLL-2', zone: 'Europe/Berlin', currency: 'JPY', minorUnits: 0 },
  { id: 'ROLL-3', zone: 'Asia/Dubai', currency: 'AED', minorUnits: 2 },
] as const;
const RESTAURANT_IDS = RESTAURANTS.map((restaurant) => restaurant.id);
const ZONES = RESTAURANTS.map((restaurant) => restaurant.zone);
const PLATFORMS = ['RP_A', 'RP_B'] as const;
const STATES = ['PLACED', 'ACCEPTED', 'DELIVERED', 'CANCELLED', 'REJECTED'] as const;
const DISHES = ['Dish A', 'Dish B', 'Dish C', 'Dish D'] as const;

/** Instants around clock changes of the zones above (Havana's repeats its first hour) and a month's end. */
const BASES = [
  '2023-11-05T05:00:00Z', // Havana: 01:00 CDT back to 00:00 CST
  '2023-03-12T05:00:00Z', // Havana: 00:00 CST forward to 01:00 CDT
  '2023-09-03T04:00:00Z', // Santiago: 00:00 forward to 01:00
  '2023-04-02T03:00:00Z', // Santiago: 00:00 back to 23:00
  '2024-03-31T01:00:00Z', // Berlin: 02:00 forward to 03:00
  '2024-01-31T20:00:00Z', // Dubai: midnight opening February
].map((instant) => Date.parse(instant));

/** The values an arbitrary draws. */
type Drawn<A> = A extends fc.Arbitrary<infer T> ? T : never;

const pick = fc.nat({ max: 1000 });
const restaurantIndex = fc.nat({ max: RESTAURANTS.length - 1 });
const platformIndex = fc.nat({ max: PLATFORMS.length - 1 });
const state = fc.constantFrom(...STATES);
const dish = fc.constantFrom(...DISHES);
const milli = fc.nat({ max: 99_999 });
const instant = fc
  .tuple(
    fc.nat({ max: BASES.length - 1 }),
    fc.oneof(fc.integer({ min: -90, max: 90 }), fc.integer({ min: -2880, max: 2880 })),
    fc.nat({ max: 59 }),
  )
  .map(([base, minutes, seconds]) => (BASES[base] ?? 0) + minutes * 60_000 + seconds * 1000);
const line = fc.record({ dish, quantity: fc.integer({ min: 1, max: 5 }), unitMilli: milli });
type Line = Drawn<typeof line>;
const newOrder = fc.record({
  restaurant: restaurantIndex,
  platform: platformIndex,
  at: instant,
  state,
  totalMilli: milli,
  lines: fc.array(line, { maxLength: 4 }),
});
type NewOrder = Drawn<typeof newOrder>;

/** A step of kind `kind`, drawn with `weight` against the other kinds. */
const variant = <K extends string, F>(
  weight: number,
  kind: K,
  fields: { [P in keyof F]: fc.Arbitrary<F[P]> },
) => ({ weight, arbitrary: fc.record(fields).map((f): F & { kind: K } => ({ ...f, kind })) });

const step = fc.oneof(
  variant(6, 'insertOrder', { order: newOrder, oneStatement: fc.boolean() }),
  variant(2, 'insertOrders', { orders: fc.array(newOrder, { minLength: 1, maxLength: 6 }) }),
  variant(5, 'updateOrder', {
    pick,
    state: fc.option(state),
    at: fc.option(instant),
    totalMilli: fc.option(milli),
    scope: fc.option(fc.record({ restaurant: restaurantIndex, platform: platformIndex })),
  }),
  variant(2, 'updateOrders', {
    restaurant: restaurantIndex,
    parity: fc.nat({ max: 1 }),
    state: fc.option(state),
    shiftMinutes: fc.integer({ min: -1500, max: 1500 }),
  }),
  variant(2, 'deleteOrder', { pick }),
  variant(1, 'deleteOrders', { restaurant: restaurantIndex, parity: fc.nat({ max: 1 }) }),
  variant(3, 'insertLines', { pick, lines: fc.array(line, { minLength: 1, maxLength: 3 }) }),
  variant(2, 'upsertLine', { pick, lineNo: fc.integer({ min: 1, max: 4 }), line }),
  variant(3, 'updateLine', {
    pick,
    dish: fc.option(dish),
    quantity: fc.option(fc.integer({ min: 1, max: 5 })),
    unitMilli: fc.option(milli),
    moveTo: fc.option(pick),
  }),
  variant(2, 'renameLines', { pick, dish }),
  variant(2, 'deleteLine', { pick }),
  variant(1, 'deleteLines', { pick, dish }),
  variant(1, 'changeZone', {
    restaurant: restaurantIndex,
    zone: fc.nat({ max: ZONES.length - 1 }),
  }),
);
type Step = Drawn<typeof step>;

type Tx = postgres.TransactionSql;

const money = (thousandths: number): string => (thousandths / 1000).toFixed(3);
const iso = (epochMs: number): string => new Date(epochMs).toISOString();
const restaurantId = (index: number): string => RESTAURANT_IDS[index] ?? 'ROLL-0';
const platformId = (index: number): string => PLATFORMS[index] ?? 'RP_A';
const lineRows = (lines: readonly Line[]) =>
  lines.map((l, i) => ({
    line_no: i + 1,
    dish_name: l.dish,
    quantity: l.quantity,
    unit_price: money(l.unitMilli),
  }));
const linesJson = (lines: readonly Line[]) => JSON.stringify(lineRows(lines));

const orderIds = async (tx: Tx): Promise<string[]> =>
  (
    await tx<{ id: string }[]>`
      select id::text as id from orders where restaurant_id = any(${RESTAURANT_IDS}) order by id`
  ).map((row) => row.id);

interface LineKey {
  order_id: string;
  line_no: number;
}
const lineKeys = async (tx: Tx): Promise<LineKey[]> => [
  ...(await tx<LineKey[]>`
    select l.order_id::text as order_id, l.line_no
    from order_lines l join orders o on o.id = l.order_id
    where o.restaurant_id = any(${RESTAURANT_IDS})
    order by 1, 2`),
];

const chosen = <T>(list: readonly T[], index: number): T | undefined =>
  list.length === 0 ? undefined : list[index % list.length];

const insertOrder = async (tx: Tx, order: NewOrder, oneStatement: boolean): Promise<void> => {
  const values = tx`
    ${restaurantId(order.restaurant)}, ${platformId(order.platform)}, ${iso(order.at)}::timestamptz,
    ${order.state}, ${money(order.totalMilli)}::numeric`;
  if (oneStatement) {
    await tx`
      with o as (
        insert into orders (restaurant_id, platform_id, placed_at, state, total)
        values (${values}) returning id
      )
      insert into order_lines (order_id, line_no, dish_name, quantity, unit_price)
      select o.id, l.line_no, l.dish_name, l.quantity, l.unit_price
      from o cross join json_to_recordset(${linesJson(order.lines)}::text::json)
        as l(line_no smallint, dish_name text, quantity integer, unit_price numeric)`;
    return;
  }
  const [row] = await tx<{ id: string }[]>`
    insert into orders (restaurant_id, platform_id, placed_at, state, total)
    values (${values}) returning id::text as id`;
  if (order.lines.length > 0) {
    await tx`
      insert into order_lines (order_id, line_no, dish_name, quantity, unit_price)
      select ${row?.id ?? '0'}::bigint, l.line_no, l.dish_name, l.quantity, l.unit_price
      from json_to_recordset(${linesJson(order.lines)}::text::json)
        as l(line_no smallint, dish_name text, quantity integer, unit_price numeric)`;
  }
};

/** Runs `write` on the order `pick` chooses, if there is one. */
const onOrder = async (tx: Tx, pick: number, write: (id: string) => Promise<unknown>) => {
  const id = chosen(await orderIds(tx), pick);
  if (id !== undefined) await write(id);
};
/** Runs `write` on the order line `pick` chooses, if there is one. */
const onLine = async (tx: Tx, pick: number, write: (key: LineKey) => Promise<unknown>) => {
  const key = chosen(await lineKeys(tx), pick);
  if (key !== undefined) await write(key);
};

const apply = async (tx: Tx, s: Step): Promise<unknown> => {
  switch (s.kind) {
    case 'insertOrder':
      return insertOrder(tx, s.order, s.oneStatement);
    case 'insertOrders': {
      const orders = s.orders.map((order, n) => ({
        n,
        restaurant_id: restaurantId(order.restaurant),
        platform_id: platformId(order.platform),
        placed_at: iso(order.at),
        state: order.state,
        total: money(order.totalMilli),
      }));
      const ids = await tx<{ id: string }[]>`
        insert into orders (restaurant_id, platform_id, placed_at, state, total)
        select o.restaurant_id, o.platform_id, o.placed_at, o.state, o.total
        from json_to_recordset(${JSON.stringify(orders)}::text::json)
          as o(n integer, restaurant_id text, platform_id text, placed_at timestamptz, state text,
               total numeric)
        order by o.n
        returning id::text as id`;
      // Identities are drawn in insertion order, which follows o.n.
      ids.sort((a, b) => Number(a.id) - Number(b.id));
      const lines = s.orders.flatMap((order, i) =>
        lineRows(order.lines).map((l) => ({ order_id: ids[i]?.id, ...l })),
      );
      return tx`
        insert into order_lines (order_id, line_no, dish_name, quantity, unit_price)
        select * from json_to_recordset(${JSON.stringify(lines)}::text::json)
          as l(order_id bigint, line_no smallint, dish_name text, quantity integer, unit_price numeric)`;
    }
    case 'updateOrder':
      return onOrder(tx, s.pick, async (id) => {
        await tx`
        update orders
        set state = coalesce(${s.state}::text, state),
            placed_at = coalesce(${s.at === null ? null : iso(s.at)}::timestamptz, placed_at),
            total = coalesce(${s.totalMilli === null ? null : money(s.totalMilli)}::numeric, total),
            restaurant_id = coalesce(${s.scope === null ? null : restaurantId(s.scope.restaurant)}::text, restaurant_id),
            platform_id = coalesce(${s.scope === null ? null : platformId(s.scope.platform)}::text, platform_id)
        where id = ${id}::bigint`;
      });
    case 'updateOrders':
      return tx`
        update orders
        set state = coalesce(${s.state}::text, state),
            placed_at = placed_at + ${s.shiftMinutes}::int * interval '1 minute'
        where restaurant_id = ${restaurantId(s.restaurant)} and id % 2 = ${s.parity}`;
    case 'deleteOrder':
      return onOrder(tx, s.pick, (id) => tx`delete from orders where id = ${id}::bigint`);
    case 'deleteOrders':
      return tx`delete from orders where restaurant_id = ${restaurantId(s.restaurant)} and id % 2 = ${s.parity}`;
    case 'insertLines':
      return onOrder(tx, s.pick, async (id) => {
        await tx`
        insert into order_lines (order_id, line_no, dish_name, quantity, unit_price)
        select ${id}::bigint,
               (select coalesce(max(line_no), 0) from order_lines where order_id = ${id}::bigint) + l.line_no,
               l.dish_name, l.quantity, l.unit_price
        from json_to_recordset(${linesJson(s.lines)}::text::json)
          as l(line_no smallint, dish_name text, quantity integer, unit_price numeric)`;
      });
    case 'upsertLine':
      return onOrder(tx, s.pick, async (id) => {
        await tx`
        insert into order_lines (order_id, line_no, dish_name, quantity, unit_price)
        values (${id}::bigint, ${s.lineNo}, ${s.line.dish}, ${s.line.quantity}, ${money(s.line.unitMilli)}::numeric)
        on conflict (order_id, line_no) do update
          set dish_name = excluded.dish_name, quantity = excluded.quantity,
              unit_price = excluded.unit_price`;
      });
    case 'updateLine':
      return onLine(tx, s.pick, async (key) => {
        const target = s.moveTo === null ? null : (chosen(await orderIds(tx), s.moveTo) ?? null);
        await tx`
        update order_lines
        set dish_name = coalesce(${s.dish}::text, dish_name),
            quantity = coalesce(${s.quantity}::int, quantity),
            unit_price = coalesce(${s.unitMilli === null ? null : money(s.unitMilli)}::numeric, unit_price),
            order_id = coalesce(${target}::bigint, order_id),
            line_no = case when ${target}::bigint is null then line_no
                           else (select coalesce(max(line_no), 0) + 1 from order_lines
                                 where order_id = ${target}::bigint) end
        where order_id = ${key.order_id}::bigint and line_no = ${key.line_no}`;
      });
    case 'renameLines':
      return onOrder(tx, s.pick, async (id) => {
        await tx`update order_lines set dish_name = ${s.dish} where order_id = ${id}::bigint`;
      });
    case 'deleteLine':
      return onLine(tx, s.pick, async (key) => {
        await tx`delete from order_lines where order_id = ${key.order_id}::bigint and line_no = ${key.line_no}`;
      });
    case 'deleteLines':
      return onOrder(tx, s.pick, async (id) => {
        await tx`delete from order_lines where order_id = ${id}::bigint and dish_name = ${s.dish}`;
      });
    case 'changeZone':
      return tx`update restaurants set time_zone = ${ZONES[s.zone] ?? 'UTC'} where id = ${restaurantId(s.restaurant)}`;
  }
};

/** Ranges of days that start and end on the days around each base instant. */
const rangesFor = (zone: string): DateRange[] =>
  BASES.flatMap((base) => {
    const day = todayIn(zone, new Date(base));
    return [
      { from: addDays(day, -1), to: addDays(day, -1) },
      { from: day, to: day },
      { from: addDays(day, -2), to: addDays(day, 1) },
    ];
  });

const monthsFor = (zone: string): DateRange[] =>
  BASES.map((base) => {
    const day = todayIn(zone, new Date(base));
    const first = `${day.slice(0, 7)}-01` as IsoDate;
    return { from: `${addDays(first, -1).slice(0, 7)}-01` as IsoDate, to: first };
  });

/** The four restaurants, each sold on both platforms, in a transaction that is rolled back. */
const withRestaurants = (run: (tx: Tx) => Promise<void>): Promise<void> =>
  rolledBack(async (tx) => {
    for (const r of RESTAURANTS) {
      await tx`insert into currencies (code, minor_units) values (${r.currency}, ${r.minorUnits})
               on conflict (code) do nothing`;
      await tx`insert into restaurants (id, name, time_zone, currency)
               values (${r.id}, ${r.id}, ${r.zone}, ${r.currency})`;
      for (const platform of PLATFORMS) {
        await tx`insert into restaurant_platforms (restaurant_id, platform_id, platform_restaurant_id)
                 values (${r.id}, ${platform}, ${`${r.id}-${platform}`.toLowerCase()})`;
      }
    }
    await run(tx);
  });

const expectRollupsMatchSource = async (tx: Tx, after: string) => {
  const { stored, expected } = await rollupTables(tx, RESTAURANT_IDS);
  expect({ after, ...stored }).toEqual({ after, ...expected });
};

describe('daily rollups', () => {
  it('counts exactly the states the reports count (report_counts mirrors COUNTED_STATES)', async () => {
    await withRestaurants(async (tx) => {
      const rows = await tx<{ state: string; counted: boolean }[]>`
        select s as state, report_counts(s) as counted from unnest(${[...STATES]}::text[]) as s`;

      expect(rows.filter((row) => row.counted).map((row) => row.state)).toEqual([
        ...COUNTED_STATES,
      ]);
    });
  });

  it('hold the seeded sample data, written after a TRUNCATE in bulk statements, exactly', async () => {
    const ids = SAMPLE_OWNERS.flatMap((owner) => owner.restaurants.map((r) => r.id));
    await withRestaurants(async (tx) => {
      const { stored, expected } = await rollupTables(tx, ids);

      expect(stored.days.length).toBeGreaterThan(0);
      expect(stored.dishes.length).toBeGreaterThan(0);
      expect(stored).toEqual(expected);
    });
  });

  it('equal the source tables after every step of random histories, and every report equals the live aggregation', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 25 }), async (steps) => {
        await withRestaurants(async (tx) => {
          for (const [i, s] of steps.entries()) {
            await apply(tx, s);
            await expectRollupsMatchSource(tx, `step ${i} ${s.kind}`);
          }
          const sql = tx as unknown as Sql;
          const zones = await tx<{ id: string; time_zone: string }[]>`
            select id, time_zone from restaurants where id = any(${RESTAURANT_IDS})`;
          for (const { id, time_zone: zone } of zones) {
            for (const platform of PLATFORMS) {
              const scope = { restaurantId: id, platformId: platform };
              for (const range of rangesFor(zone)) {
                const days = await ordersPerDayQueries(sql).ordersPerDay(scope, range);
                const dishes = await dishesQueries(sql).dishes(scope, range);
                const live = [liveOrdersPerDay(tx, scope, range), liveDishes(tx, scope, range)];
                const [liveDays, liveDishList] = await Promise.all(live);
                expect({ scope, range, days, dishes }).toEqual({
                  scope,
                  range,
                  days: liveDays,
                  dishes: liveDishList,
                });
              }
              for (const months of monthsFor(zone)) {
                const perMonth = await revenueQueries(sql).revenuePerMonth(scope, months);
                const live = await liveRevenuePerMonth(tx, scope, months);
                expect({ scope, months, perMonth }).toEqual({ scope, months, perMonth: live });
              }
            }
          }
        });
      }),
      { numRuns: RUNS },
    );
  }, 300_000);
});

/** A committed restaurant with one counted order, for writers on separate connections. */
const withCommittedOrder = async (
  run: (context: {
    readonly admin: postgres.Sql;
    readonly a: postgres.ReservedSql;
    readonly b: postgres.ReservedSql;
    readonly orderId: string;
    readonly restaurant: string;
  }) => Promise<void>,
): Promise<void> => {
  const restaurant = `ROLLC-${String(process.pid)}-${String(Date.now())}`;
  const admin = postgres(process.env.DATABASE_URL ?? '', { max: 3, onnotice: () => undefined });
  try {
    await admin`insert into currencies (code, minor_units) values ('AED', 2) on conflict (code) do nothing`;
    await admin`insert into restaurants (id, name, time_zone, currency)
                values (${restaurant}, 'Concurrent writers', 'Asia/Dubai', 'AED')`;
    await admin`insert into restaurant_platforms (restaurant_id, platform_id, platform_restaurant_id)
                values (${restaurant}, 'RC_AE', ${restaurant.toLowerCase()})`;
    const [order] = await admin<{ id: string }[]>`
      insert into orders (restaurant_id, platform_id, placed_at, state, total)
      values (${restaurant}, 'RC_AE', '2024-05-01T12:00:00+04:00', 'PLACED', 10)
      returning id::text as id`;
    await admin`insert into order_lines values (${order?.id ?? '0'}::bigint, 1, 'Soup', 1, 10)`;
    const a = await admin.reserve();
    const b = await admin.reserve();
    try {
      await run({ admin, a, b, orderId: order?.id ?? '0', restaurant });
    } finally {
      await a`rollback`.catch(() => undefined);
      await b`rollback`.catch(() => undefined);
      a.release();
      b.release();
    }
  } finally {
    await admin`delete from orders where restaurant_id = ${restaurant}`;
    await admin`delete from restaurant_platforms where restaurant_id = ${restaurant}`;
    await admin`delete from restaurants where id = ${restaurant}`;
    await admin.end();
  }
};

const backendPid = async (connection: postgres.ReservedSql): Promise<number> => {
  const [row] = await connection<{ pid: number }[]>`select pg_backend_pid() as pid`;
  return row?.pid ?? 0;
};

type Writer = (
  connection: postgres.ReservedSql,
  target: { readonly orderId: string; readonly restaurant: string },
) => postgres.PendingQuery<postgres.Row[]>;

const addTea =
  (lineNo: number, quantity: number): Writer =>
  (c, { orderId }) =>
    c`insert into order_lines values (${orderId}::bigint, ${lineNo}, 'Tea', ${quantity}, 3)`;
const cancelOrder: Writer = (c, { orderId }) =>
  c`update orders set state = 'CANCELLED' where id = ${orderId}::bigint`;
const deleteOrder: Writer = (c, { orderId }) => c`delete from orders where id = ${orderId}::bigint`;
const moveToHavana: Writer = (c, { restaurant }) =>
  c`update restaurants set time_zone = 'America/Havana' where id = ${restaurant}`;
const rebuild: Writer = (c, { restaurant }) => c`select report_rollups_rebuild(${restaurant})`;
// 22:30 UTC is the next day in Dubai (UTC+4) and the same day in Havana (UTC-4 in May).
const orderNearMidnight: Writer = (c, { restaurant }) =>
  c`insert into orders (restaurant_id, platform_id, placed_at, state, total)
    values (${restaurant}, 'RC_AE', '2024-05-01T22:30:00+00:00', 'PLACED', 7)`;

const nothingCounted = (stored: RollupTables) => {
  expect(stored).toEqual({ days: [], dishes: [] });
};
const filedOnMay1st = (stored: RollupTables) => {
  expect(stored.days).toContainEqual(expect.objectContaining({ day: '2024-05-01' }));
};

(process.env.TEST_DATABASE_KIND === 'postgresql' ? describe : describe.skip)(
  'daily rollups under concurrent writers of one order (PostgreSQL)',
  () => {
    // The first writer holds its transaction open; the second then blocks on its lock until
    // the first commits. The rollups must equal the source tables, and `check` what they hold.
    it.each<{
      behaviour: string;
      writers: [Writer, Writer];
      check: (stored: RollupTables) => void;
    }>([
      {
        behaviour:
          'counts an order once per dish when two transactions add lines of that dish to it at the same time',
        writers: [addTea(2, 1), addTea(3, 2)],
        check: (stored) => {
          expect(stored.dishes).toContainEqual(
            expect.objectContaining({ dish_name: 'Tea', orders: 1, revenue: '9.000' }),
          );
        },
      },
      {
        behaviour: 'does not count a line added while its order is being cancelled',
        writers: [cancelOrder, addTea(2, 1)],
        check: nothingCounted,
      },
      {
        behaviour: 'takes out a line added just before its order is cancelled',
        writers: [addTea(2, 1), cancelOrder],
        check: nothingCounted,
      },
      {
        behaviour:
          'files an order written during a time-zone change under the new zone, once it commits',
        writers: [moveToHavana, orderNearMidnight],
        check: filedOnMay1st,
      },
      {
        behaviour: 'changes a time zone only after the order writers under way have committed',
        writers: [orderNearMidnight, moveToHavana],
        check: filedOnMay1st,
      },
      {
        behaviour: 'rebuilds only after the order writers under way have committed',
        writers: [addTea(2, 1), rebuild],
        check: (stored) => {
          expect(stored.dishes).toContainEqual(expect.objectContaining({ dish_name: 'Tea' }));
        },
      },
      {
        behaviour: 'takes out the lines of an order deleted while a line is being added to it',
        writers: [addTea(2, 1), deleteOrder],
        check: nothingCounted,
      },
    ])('$behaviour', async ({ writers: [first, second], check }) => {
      await withCommittedOrder(async ({ admin, a, b, orderId, restaurant }) => {
        await a`begin`;
        await first(a, { orderId, restaurant });
        await b`begin`;
        const bPid = await backendPid(b);
        const blocked = second(b, { orderId, restaurant }).execute();
        await waitingForLock(admin, { pid: bPid });
        await a`commit`;
        await blocked;
        await b`commit`;

        const { stored, expected } = await rollupTables(admin, [restaurant]);
        expect(stored).toEqual(expected);
        check(stored);
      });
    });
  },
);
