/**
 * The daily rollups under real PostgreSQL logical replication (migration 004;
 * docs/data.md). Starts its own PostgreSQL (initdb into a temporary directory, as the postgres
 * user, wal_level = logical, a free port) with two databases migrated by the project's
 * migrations: `publisher`, seeded with the sample data, and `subscriber`. The publisher
 * publishes the source tables of the reports (currencies, restaurants, restaurant_platforms,
 * orders, order_lines; never the rollup tables); the subscriber subscribes with copy_data and
 * PostgreSQL's default two sync workers, whose table copies are held open so that they overlap,
 * so its rollups are filled first by the initial copy and then by the apply worker, which
 * writes with session_replication_role = replica and an empty search_path. At the publisher:
 * orders inserted alone, with lines in one statement and in bulk; totals changed; states
 * changed from counted to uncounted and back; an order moved to another day and platform;
 * lines changed, moved and deleted; orders deleted (their lines by the cascade, replicated as
 * deletions of their own); a restaurant's time zone changed. Once the subscriber holds the
 * publisher's rows, every report at the subscriber equals the live aggregation of its source
 * rows (tests/integration/reports/live-aggregation.ts) and the rollup tables equal a full
 * recompute. A second subscriber on a server of its own copies the tables with two sync
 * workers while the publisher writes, the lines copy overlapping the restaurants copy; two
 * replica-mode sessions load orders and lines at once while a third holds their restaurants
 * uncommitted, as a parallel DMS full load or restore may. Every wait for a copy is bounded, so
 * a copy that hangs fails its test.
 * The logical-replication part is independent of the run's database (PGlite or
 * TEST_DATABASE_URL) and skipped only where there is no initdb; the replica-mode session at the
 * end runs on the run's database.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import fc from 'fast-check';
import type postgres from 'postgres';
import { migrate } from '../../../tools/db/migrate';
import { SAMPLE_OWNERS } from '../../../tools/db/sample-data';
import { seed } from '../../../tools/db/seed';
import { addDays, todayIn } from '../../../tools/dates';
import type { IsoDate } from '../../../shared/dates';
import { createSql, type Sql } from '../../../shared/db/client';
import { dishesQueries } from '../../../shared/reports/dishes.sql';
import { ordersPerDayQueries } from '../../../shared/reports/orders-per-day.sql';
import { revenueQueries } from '../../../shared/reports/revenue.sql';
import {
  liveDishes,
  liveOrdersPerDay,
  liveRevenuePerMonth,
  rollupTables,
} from '../reports/live-aggregation';
import {
  POSTGRES_BIN,
  startPostgresServer,
  type PostgresServer,
} from '../../support/postgres-server';

if (!POSTGRES_BIN) {
  process.stderr.write(
    'replication.test.ts skipped: no initdb under /usr/lib/postgresql/<version>/bin\n',
  );
}
const describeWithServer = POSTGRES_BIN ? describe : describe.skip;

const SUPERUSER = 'postgres';
const PASSWORD = 'Replication-Test-42';
const SOURCE_TABLES = [
  'currencies',
  'restaurants',
  'restaurant_platforms',
  'orders',
  'order_lines',
];
const CATCH_UP_MS = 60_000;

let server: PostgresServer | undefined;
let publisher: Sql | undefined;
let subscriber: Sql | undefined;

const connect = (database: string): Sql =>
  createSql({
    url: `postgres://${SUPERUSER}:${PASSWORD}@127.0.0.1:${String(server?.port ?? 0)}/${database}`,
    poolMax: 2,
    statementTimeoutMs: 60_000,
    connectTimeoutSeconds: 10,
  });

const must = <T>(value: T | undefined): T => {
  if (value === undefined) throw new Error('setup did not run');
  return value;
};

/** Every source row, as text, in one digest per table. */
const fingerprint = async (sql: Sql): Promise<string> => {
  const rows = await sql.unsafe<{ digest: string | null }[]>(
    SOURCE_TABLES.map(
      (table) => `select md5(string_agg(t::text, '|' order by t::text)) as digest from ${table} t`,
    ).join(' union all '),
  );
  return rows.map((row) => row.digest ?? '-').join(',');
};

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Waits until every table of `sub`'s subscription is synchronised and `sub` holds the
 * publisher's rows; fails after CATCH_UP_MS (a copy that hangs fails the test) with the
 * subscriber's server log.
 */
const caughtUp = async (
  sub: Sql = must(subscriber),
  subscriberServer: PostgresServer | undefined = server,
): Promise<void> => {
  const pub = must(publisher);
  const expected = await fingerprint(pub);
  const deadline = Date.now() + CATCH_UP_MS;
  for (;;) {
    const [sync] = await sub<{ pending: number }[]>`
      select count(*)::int as pending from pg_subscription_rel where srsubstate <> 'r'`;
    if (sync?.pending === 0 && (await fingerprint(sub)) === expected) return;
    if (Date.now() > deadline) {
      const status = await sub`select * from pg_stat_subscription`;
      throw new Error(
        `the subscriber did not catch up in ${String(CATCH_UP_MS)} ms: ${JSON.stringify(status)}\n${readFileSync(join(subscriberServer?.dir ?? '', 'server.log'), 'utf8')}`,
      );
    }
    await sleep(100);
  }
};

/**
 * Makes the table copies at `sql` (a subscriber, before its subscription) slow enough for the
 * copies of two sync workers to overlap in the window that matters: rows in and not committed.
 * Every copy holds its transaction open `seconds` after its rows are filed (an AFTER trigger
 * named to fire after the rollups'), the orders copy also before they are filed, the
 * restaurants copy before each row is filed (its rollup trigger is a row trigger); with
 * `linesAwaitRestaurants`, the lines copy waits (10 s at most) until the restaurants copy has
 * begun, which the sync workers would otherwise start last. Each copy logs in copy_log when it
 * began and ended. Replica triggers only, so they fire in the table copies.
 */
const slowCopies = async (
  sql: Sql,
  seconds: number,
  { linesAwaitRestaurants }: { linesAwaitRestaurants: boolean },
): Promise<void> => {
  await sql.unsafe(`
    create table copy_log (
      relname text not null,
      phase text not null,
      at timestamptz not null default clock_timestamp()
    );
    create function copy_began() returns trigger language plpgsql
    set search_path = public, pg_catalog as $$
    begin
      insert into copy_log (relname, phase) values (tg_table_name, 'began');
      return null;
    end $$;
    create function copy_held() returns trigger language plpgsql
    set search_path = public, pg_catalog as $$
    begin
      perform pg_sleep(tg_argv[0]::float8);
      if tg_argv[1] = 'ended' then
        insert into copy_log (relname, phase) values (tg_table_name, 'ended');
      end if;
      return null;
    end $$;
    create function copy_awaits_restaurants() returns trigger language plpgsql
    set search_path = public, pg_catalog as $$
    begin
      for i in 1..100 loop
        exit when exists (
          select 1 from pg_subscription_rel
          where srrelid = 'restaurants'::regclass and srsubstate <> 'i');
        perform pg_sleep(0.1);
      end loop;
      return null;
    end $$;
    create trigger copy_held_row after insert on restaurants
      for each row execute function copy_held('${String(seconds / 5)}', '-');
    create trigger copy_held after insert on orders
      for each statement execute function copy_held('${String(seconds)}', '-');
    alter table restaurants enable replica trigger copy_held_row;
    alter table orders enable replica trigger copy_held;`);
  if (linesAwaitRestaurants) {
    await sql.unsafe(`
      create trigger copy_awaits after insert on order_lines
        for each statement execute function copy_awaits_restaurants();
      alter table order_lines enable replica trigger copy_awaits;`);
  }
  for (const table of SOURCE_TABLES) {
    await sql.unsafe(`
      create trigger copy_began before insert on ${table}
        for each statement execute function copy_began();
      create trigger zz_copy_held after insert on ${table}
        for each statement execute function copy_held('${String(seconds)}', 'ended');
      alter table ${table} enable replica trigger copy_began;
      alter table ${table} enable replica trigger zz_copy_held;`);
  }
};

/** The pairs of table copies at `sql` that were under way at the same time (slowCopies). */
const overlappingCopies = async (sql: Sql): Promise<string[]> => {
  const rows = await sql<{ pair: string }[]>`
    with copies as (
      select relname, min(at) filter (where phase = 'began') as began,
             max(at) filter (where phase = 'ended') as ended
      from copy_log group by relname
    )
    select a.relname || '+' || b.relname as pair
    from copies a join copies b on a.relname < b.relname
    where a.began < b.ended and b.began < a.ended
    order by 1`;
  return rows.map((row) => row.pair);
};

/** Drops what slowCopies made. */
const fastCopies = async (sql: Sql): Promise<void> => {
  await sql.unsafe(
    'drop function copy_began(), copy_held(), copy_awaits_restaurants() cascade; drop table copy_log',
  );
};

class LoadRolledBack extends Error {}

const RESTAURANTS = SAMPLE_OWNERS.flatMap((owner) => owner.restaurants);
const R1 = RESTAURANTS.find((r) => r.id === 'R-1001');
const R2 = RESTAURANTS.find((r) => r.id === 'R-2001');

beforeAll(async () => {
  if (!POSTGRES_BIN) return;
  server = await startPostgresServer({
    superuser: SUPERUSER,
    password: PASSWORD,
    hba: ['host all all 127.0.0.1/32 scram-sha-256'],
    settings: () => [
      'wal_level = logical',
      'max_replication_slots = 10',
      'max_wal_senders = 10',
      // PostgreSQL's default: two tables copied at once, in one cluster with the publisher.
      'max_sync_workers_per_subscription = 2',
      'wal_receiver_status_interval = 1s',
    ],
  });
  server.createDatabase('publisher');
  server.createDatabase('subscriber');
  publisher = connect('publisher');
  subscriber = connect('subscriber');
  await migrate(publisher);
  await migrate(subscriber);
  await seed(publisher);
  // In one cluster a sync worker creating its slot waits for every open copy to commit, so
  // whether two copies overlap depends on when the slots were made (the test of a subscriber
  // of its own makes them overlap); the lines copy waiting for the restaurants copy would only
  // wait out its 10 s.
  await slowCopies(subscriber, 1, { linesAwaitRestaurants: false });
  await publisher.unsafe(`create publication reports_source for table ${SOURCE_TABLES.join(', ')}`);
  // A subscription cannot create its slot on its own cluster (CREATE SUBSCRIPTION would wait
  // for itself): the slot is made first at the publisher.
  await publisher`select pg_create_logical_replication_slot('reports_subscription', 'pgoutput')`;
  await subscriber.unsafe(
    `create subscription reports_subscription
       connection 'host=${server.dir} port=${String(server.port)} dbname=publisher user=${SUPERUSER}'
       publication reports_source
       with (create_slot = false, slot_name = 'reports_subscription', copy_data = true)`,
  );
  await caughtUp();
  process.stderr.write(
    `initial copy in one cluster, copied at once: ${(await overlappingCopies(subscriber)).join(', ') || 'none'}\n`,
  );
  await fastCopies(subscriber);
}, 120_000);

afterAll(async () => {
  await subscriber?.unsafe('drop subscription if exists reports_subscription').catch(() => []);
  await subscriber?.end();
  await publisher?.end();
  server?.stop();
});

/** Every report of every sample restaurant and platform at `sql`, and the live aggregation. */
const reportsAndLive = async (sql: Sql) => {
  const perDay = ordersPerDayQueries(sql);
  const dishList = dishesQueries(sql);
  const revenue = revenueQueries(sql);
  const zones = await sql<{ id: string; time_zone: string }[]>`
    select id, time_zone from restaurants order by id`;
  const reports = [];
  const live = [];
  for (const { id, time_zone: zone } of zones) {
    const restaurant = RESTAURANTS.find((r) => r.id === id);
    const today = todayIn(zone);
    const all = { from: addDays(today, -100), to: addDays(today, 2) };
    const months = {
      from: `${all.from.slice(0, 7)}-01` as IsoDate,
      to: `${today.slice(0, 7)}-01` as IsoDate,
    };
    const ranges = [all, ...[0, 3, 4, 40].map((back) => ({
      from: addDays(today, -back),
      to: addDays(today, -back),
    }))]; // prettier-ignore
    for (const { platformId } of restaurant?.platforms ?? []) {
      const scope = { restaurantId: id, platformId };
      for (const range of ranges) {
        reports.push({
          scope,
          range,
          days: await perDay.ordersPerDay(scope, range),
          dishes: await dishList.dishes(scope, range),
        });
        live.push({
          scope,
          range,
          days: await liveOrdersPerDay(sql, scope, range),
          dishes: await liveDishes(sql, scope, range),
        });
      }
      reports.push({ scope, months, perMonth: await revenue.revenuePerMonth(scope, months) });
      live.push({ scope, months, perMonth: await liveRevenuePerMonth(sql, scope, months) });
    }
  }
  return { reports, live };
};

const expectExactAtSubscriber = async (): Promise<void> => {
  const sub = must(subscriber);
  const { reports, live } = await reportsAndLive(sub);
  expect(reports).toEqual(live);
  const { stored, expected } = await rollupTables(
    sub,
    RESTAURANTS.map((r) => r.id),
  );
  expect(stored.days.length).toBeGreaterThan(0);
  expect(stored).toEqual(expected);
};

describeWithServer('daily rollups at a logical-replication subscriber', () => {
  it('are filled exactly by the initial copy of the seeded publisher with two sync workers in its cluster', async () => {
    const [orders] = await must(subscriber)<{ n: number }[]>`select count(*)::int as n from orders`;
    expect(orders?.n).toBeGreaterThan(1000);
    await expectExactAtSubscriber();
  });

  it('stay exact through inserts, updates, state changes, deletions and a time-zone change at the publisher', async () => {
    const pub = must(publisher);
    const r1 = must(R1);
    const r2 = must(R2);
    const [tb, hs] = r1.platforms.map((p) => p.platformId);
    const today = todayIn(r1.timeZone);
    const at = (daysBack: number, time: string): string =>
      `${addDays(today, -daysBack)}T${time}+04:00`;

    // An order alone, then its lines in a second statement (a dish twice).
    const [single] = await pub<{ id: string }[]>`
      insert into orders (restaurant_id, platform_id, placed_at, state, total)
      values (${r1.id}, ${tb ?? ''}, ${at(3, '12:00:00')}, 'PLACED', 30.5)
      returning id::text as id`;
    const singleId = single?.id ?? '0';
    await pub`
      insert into order_lines (order_id, line_no, dish_name, quantity, unit_price)
      values (${singleId}::bigint, 1, 'Replicated soup', 1, 10.5),
             (${singleId}::bigint, 2, 'Replicated soup', 1, 10),
             (${singleId}::bigint, 3, 'Replicated bread', 2, 5)`;
    // An order with its lines in one statement, and orders in bulk in one transaction.
    await pub`
      with o as (
        insert into orders (restaurant_id, platform_id, placed_at, state, total)
        values (${r1.id}, ${hs ?? ''}, ${at(4, '23:59:59')}, 'DELIVERED', 42.5) returning id
      )
      insert into order_lines (order_id, line_no, dish_name, quantity, unit_price)
      select o.id, l.n, 'Replicated wrap', l.n, 8.5 from o cross join generate_series(1, 2) as l(n)`;
    const bulk = await pub.begin(async (tx) => {
      const ids = await tx<{ id: string }[]>`
        insert into orders (restaurant_id, platform_id, placed_at, state, total)
        select ${r1.id}, ${tb ?? ''}, ${at(0, '00:30:00')}::timestamptz + n * interval '1 hour',
               case when n % 3 = 0 then 'CANCELLED' else 'ACCEPTED' end, 10 + n
        from generate_series(1, 12) as n
        returning id::text as id`;
      await tx`
        insert into order_lines (order_id, line_no, dish_name, quantity, unit_price)
        select o.id::bigint, l.n, case when l.n = 2 then 'Replicated tea' else 'Replicated rice' end,
               1, 2.25
        from unnest(${ids.map((row) => row.id)}::text[]) as o(id)
        cross join generate_series(1, 3) as l(n)`;
      return ids.map((row) => row.id);
    });
    await caughtUp();
    await expectExactAtSubscriber();

    // Totals, states counted ↔ uncounted, an order moved to another day and platform.
    await pub`update orders set total = total + 1.125 where id = ${singleId}::bigint`;
    await pub`update orders set state = 'CANCELLED' where id = any(${bulk.slice(0, 4)}::text[]::bigint[])`;
    await pub`update orders set state = 'DELIVERED' where id = ${bulk[5] ?? '0'}::bigint`;
    await pub`
      update orders set placed_at = placed_at - interval '2 days', platform_id = ${hs ?? ''}
      where id = ${bulk[6] ?? '0'}::bigint`;
    await pub`
      update orders set state = 'REJECTED'
      where id = (select min(id) from orders where restaurant_id = ${r2.id} and state = 'DELIVERED')`;
    // Lines changed: renamed (the dish's order count moves), repriced, moved to another order.
    await pub`update order_lines set dish_name = 'Replicated bread' where order_id = ${singleId}::bigint and line_no = 1`;
    await pub`update order_lines set unit_price = unit_price * 2 where order_id = ${bulk[7] ?? '0'}::bigint`;
    await pub`
      update order_lines set order_id = ${bulk[8] ?? '0'}::bigint, line_no = 10
      where order_id = ${bulk[9] ?? '0'}::bigint and line_no = 2`;
    // Deletions: a line, a dish's last line, orders with their lines (the cascade).
    await pub`delete from order_lines where order_id = ${singleId}::bigint and line_no = 3`;
    await pub`delete from order_lines where order_id = ${bulk[10] ?? '0'}::bigint and dish_name = 'Replicated tea'`;
    await pub`delete from orders where id = any(${[bulk[1] ?? '0', bulk[11] ?? '0']}::text[]::bigint[])`;
    await pub`
      delete from orders
      where id in (select id from orders where restaurant_id = ${r2.id} order by id limit 5)`;
    await caughtUp();
    await expectExactAtSubscriber();

    // A time-zone change re-files the restaurant's orders at the subscriber too.
    await pub`update restaurants set time_zone = 'America/Havana' where id = ${r2.id}`;
    await caughtUp();
    const [zone] = await must(subscriber)<{ time_zone: string }[]>`
      select time_zone from restaurants where id = ${r2.id}`;
    expect(zone?.time_zone).toBe('America/Havana');
    await expectExactAtSubscriber();
  }, 120_000);

  it('never stop on a rollup out of step: the apply worker carries on and the subscription stays enabled', async () => {
    const pub = must(publisher);
    const sub = must(subscriber);
    const r1 = must(R1);
    // Drift made on purpose at the subscriber: the day rows of R-1001 gone.
    await sub`delete from report_daily_orders where restaurant_id = ${r1.id}`;
    await pub`
      delete from orders
      where id in (select id from orders where restaurant_id = ${r1.id} and state = 'DELIVERED'
                   order by id limit 3)`;
    await caughtUp();
    const [subscription] = await sub<{ enabled: boolean; pid: number | null }[]>`
      select s.subenabled as enabled, st.pid
      from pg_subscription s join pg_stat_subscription st on st.subid = s.oid
      where s.subname = 'reports_subscription' and st.relid is null`;
    expect(subscription?.enabled).toBe(true);
    expect(typeof subscription?.pid).toBe('number');
    await sub`select report_rollups_rebuild(${r1.id})`;
    await expectExactAtSubscriber();
  }, 60_000);

  it('load 40k order lines in a replica-mode session after their orders within 3x the time of an ordinary session, exactly', async () => {
    const srv = must(server);
    srv.createDatabase('replica_load');
    const sql = connect('replica_load');
    try {
      await migrate(sql);
      await sql`insert into currencies (code, minor_units) values ('AED', 2) on conflict do nothing`;
      await sql`
        insert into restaurants (id, name, time_zone, currency)
        select 'L-' || g, 'Load ' || g, 'Asia/Dubai', 'AED' from generate_series(1, 20) g`;
      await sql`
        insert into restaurant_platforms (restaurant_id, platform_id, platform_restaurant_id)
        select 'L-' || g, 'TB_L', 'tb-l-' || g from generate_series(1, 20) g`;
      await sql`
        insert into orders (restaurant_id, platform_id, placed_at, state, total)
        select 'L-' || (1 + g % 20), 'TB_L',
               timestamptz '2026-01-01' + (g % 300) * interval '1 day' + (g % 1440) * interval '1 minute',
               case when g % 7 = 3 then 'CANCELLED' else 'DELIVERED' end, 10
        from generate_series(1, 20000) g`;
      const ids = await sql<{ id: string }[]>`select id::text from orders order by id`;
      let rows = '';
      for (const [i, { id }] of ids.entries()) {
        rows += `${id}\t1\tdish ${String(i % 30)}\t1\t5.00\n${id}\t2\tdish ${String((i + 1) % 30)}\t2\t1.50\n`;
      }
      const load = async (role: 'origin' | 'replica', commit: boolean): Promise<number> => {
        let ms = 0;
        await sql
          .begin(async (tx) => {
            await tx.unsafe(`set local session_replication_role = ${role}`);
            const started = performance.now();
            await pipeline(Readable.from([rows]), await tx`copy order_lines from stdin`.writable());
            ms = performance.now() - started;
            if (!commit) throw new LoadRolledBack();
          })
          .catch((error: unknown) => {
            if (!(error instanceof LoadRolledBack)) throw error;
          });
        return ms;
      };
      const ordinary = await load('origin', false);
      const replica = await load('replica', true);
      process.stderr.write(
        `40,000 lines after their orders: ordinary session ${ordinary.toFixed(0)} ms, replica-mode session ${replica.toFixed(0)} ms\n`,
      );
      const [lines] = await sql<{ n: number }[]>`select count(*)::int as n from order_lines`;
      expect(lines?.n).toBe(40_000);
      const { stored, expected } = await rollupTables(
        sql,
        Array.from({ length: 20 }, (_, i) => `L-${String(i + 1)}`),
      );
      expect(stored.dishes.length).toBeGreaterThan(0);
      expect(stored).toEqual(expected);
      expect(replica).toBeLessThan(3 * ordinary);
    } finally {
      await sql.end();
    }
  }, 120_000);

  it('load orders and their lines in two replica-mode sessions at once while a third holds their restaurants uncommitted, exactly', async () => {
    const srv = must(server);
    srv.createDatabase('parallel_load');
    const sql = createSql({
      url: `postgres://${SUPERUSER}:${PASSWORD}@127.0.0.1:${String(srv.port)}/parallel_load`,
      poolMax: 4,
      statementTimeoutMs: 60_000,
      connectTimeoutSeconds: 10,
    });
    try {
      await migrate(sql);
      // Only what the rollups read: in replica mode no foreign key is checked.
      await sql`insert into currencies (code, minor_units) values ('AED', 2)`;
      const ids = Array.from({ length: 20_000 }, (_, i) => i + 1);
      const restaurants = Array.from(
        { length: 20 },
        (_, i) => `P-${String(i + 1)}\tParallel ${String(i + 1)}\tAsia/Dubai\tAED\n`,
      ).join('');
      const orders = ids
        .map((id) => {
          const day = `2026-${String(1 + (id % 12)).padStart(2, '0')}-${String(1 + (id % 28)).padStart(2, '0')}`;
          const state = id % 7 === 3 ? 'CANCELLED' : 'DELIVERED';
          return `${String(id)}\tP-${String(1 + (id % 20))}\tTB_P\t${day} 12:00:00+04\t${state}\t10\n`;
        })
        .join('');
      const lines = ids
        .map(
          (id) =>
            `${String(id)}\t1\tdish ${String(id % 30)}\t1\t5.00\n${String(id)}\t2\tdish ${String((id + 1) % 30)}\t2\t1.50\n`,
        )
        .join('');
      const pids: number[] = [];
      const copyIn = async (
        tx: postgres.TransactionSql,
        statement: string,
        rows: string,
        watched = false,
      ): Promise<void> => {
        await tx`set local session_replication_role = replica`;
        if (watched) {
          const [session] = await tx<{ pid: number }[]>`select pg_backend_pid() as pid`;
          pids.push(session?.pid ?? 0);
        }
        await pipeline(Readable.from([rows]), await tx.unsafe(statement).writable());
      };
      // Both watched sessions have committed (idle) or wait for a lock.
      const watchedStalledOrDone = async (): Promise<void> => {
        const deadline = Date.now() + CATCH_UP_MS;
        for (;;) {
          const [sessions] = await sql<{ settled: number }[]>`
            select count(*)::int as settled from pg_stat_activity
            where pid::text = any(${pids.map(String)})
              and (state = 'idle' or (state = 'active' and wait_event_type = 'Lock'))`;
          if (pids.length === 2 && sessions?.settled === 2) return;
          if (Date.now() > deadline) {
            throw new Error('the orders and lines copies neither ended nor waited');
          }
          await sleep(50);
        }
      };
      const started = performance.now();
      // The restaurants copy first, held open until the orders and lines copies, both at once,
      // have filed and committed or wait for it.
      let loads: Promise<unknown> = Promise.resolve();
      await sql.begin(async (tx) => {
        await copyIn(tx, 'copy restaurants from stdin', restaurants);
        loads = Promise.all([
          sql.begin((other) => copyIn(other, 'copy order_lines from stdin', lines, true)),
          sql.begin((other) =>
            copyIn(
              other,
              'copy orders (id, restaurant_id, platform_id, placed_at, state, total) from stdin',
              orders,
              true,
            ),
          ),
        ]);
        await watchedStalledOrDone();
      });
      await loads;
      process.stderr.write(
        `20 restaurants, then 20,000 orders and 40,000 lines at once, in replica-mode sessions: ${(performance.now() - started).toFixed(0)} ms\n`,
      );
      const { stored, expected } = await rollupTables(
        sql,
        Array.from({ length: 20 }, (_, i) => `P-${String(i + 1)}`),
      );
      expect(stored.dishes.length).toBeGreaterThan(0);
      expect(stored).toEqual(expected);
    } finally {
      await sql.end();
    }
  }, 120_000);

  it('are filled exactly by an initial copy with two sync workers at a subscriber of its own, with writes at the publisher during the copy', async () => {
    const pub = must(publisher);
    const srv = must(server);
    const other = await startPostgresServer({
      superuser: SUPERUSER,
      password: PASSWORD,
      hba: ['host all all 127.0.0.1/32 scram-sha-256'],
      settings: () => [
        'max_sync_workers_per_subscription = 2',
        'wal_receiver_status_interval = 1s',
      ],
    });
    let two: Sql | undefined;
    try {
      other.createDatabase('subscriber_two');
      two = createSql({
        url: `postgres://${SUPERUSER}:${PASSWORD}@127.0.0.1:${String(other.port)}/subscriber_two`,
        poolMax: 2,
        statementTimeoutMs: 60_000,
        connectTimeoutSeconds: 10,
      });
      await migrate(two);
      await slowCopies(two, 1, { linesAwaitRestaurants: true });
      const started = performance.now();
      await two.unsafe(
        `create subscription reports_two
           connection 'host=127.0.0.1 port=${String(srv.port)} dbname=publisher user=${SUPERUSER} password=${PASSWORD}'
           publication reports_source
           with (slot_name = 'reports_two', copy_data = true)`,
      );
      // While the tables are copied: orders with their lines, orders starting and stopping to
      // count, lines renamed, orders deleted with their lines, a time-zone change.
      for (let round = 0; round < 8; round += 1) {
        await pub`
          with o as (
            insert into orders (restaurant_id, platform_id, placed_at, state, total)
            select restaurant_id, platform_id, now() - ${round} * interval '5 hours', 'PLACED', 12.5
            from restaurant_platforms order by 1, 2 limit 3
            returning id
          )
          insert into order_lines (order_id, line_no, dish_name, quantity, unit_price)
          select o.id, l.n, 'Copied meanwhile ' || l.n % 2, l.n, 3.25
          from o cross join generate_series(1, 2) as l(n)`;
        await pub`
          update orders
          set state = case when state = 'CANCELLED' then 'DELIVERED' else 'CANCELLED' end
          where id in (select id from orders order by id limit 3 offset ${round * 13})`;
        await pub`
          update order_lines set dish_name = 'Renamed meanwhile'
          where order_id in (select id from orders order by id limit 2 offset ${round * 17 + 5})`;
        await pub`delete from orders where id = (select id from orders order by id offset ${round * 19 + 7} limit 1)`;
        if (round === 4) {
          await pub`update restaurants set time_zone = 'Asia/Tokyo' where id = 'R-3002'`;
        }
        await sleep(250);
      }
      await caughtUp(two, other);
      const copied = performance.now() - started;
      const overlaps = await overlappingCopies(two);
      process.stderr.write(
        `initial copy with two sync workers (each copy held 1 s): ${copied.toFixed(0)} ms; copied at once: ${overlaps.join(', ')}\n`,
      );
      expect(overlaps).not.toEqual([]);
      const ids = RESTAURANTS.map((r) => r.id);
      const { stored } = await rollupTables(two, ids);
      const { expected } = await rollupTables(pub, ids);
      expect(stored.dishes.length).toBeGreaterThan(0);
      expect(stored).toEqual(expected);
      await two.unsafe('drop subscription reports_two');
    } finally {
      await two?.end();
      other.stop();
      await pub`
        select pg_drop_replication_slot(slot_name) from pg_replication_slots
        where slot_name = 'reports_two' and not active`.catch(() => []);
    }
  }, 120_000);

  it('empty the rollups when the publisher truncates the order tables', async () => {
    await must(publisher)`truncate order_lines, orders`;
    await caughtUp();
    const [rows] = await must(subscriber)<{ days: number; dishes: number }[]>`
      select (select count(*)::int from report_daily_orders) as days,
             (select count(*)::int from report_daily_dishes) as dishes`;
    expect(rows).toEqual({ days: 0, dishes: 0 });
  }, 60_000);
});

/**
 * The same triggers in a replica-mode session of the run's database (PGlite or
 * TEST_DATABASE_URL), as AWS DMS or a restore writes: multi-row statements, where the apply
 * worker sends one row at a time; lines before their order and orders before their
 * restaurant, as parallel or reordered table loads bring them. After every statement the
 * rollups equal a full recompute. Written in a transaction that is rolled back.
 */
describe('daily rollups written in a replica-mode session', () => {
  class Rollback extends Error {}
  const IDS = ['RREP-1', 'RREP-2', 'RREP-3'];

  type LineStep =
    | { readonly kind: 'insertLines'; readonly order: number; readonly dishes: readonly number[] }
    | { readonly kind: 'renameLines'; readonly order: number; readonly dish: number }
    | { readonly kind: 'swapDishes'; readonly order: number }
    | { readonly kind: 'moveLines'; readonly order: number; readonly to: number }
    | { readonly kind: 'deleteLines'; readonly order: number; readonly dish: number }
    | { readonly kind: 'setState'; readonly order: number; readonly counted: boolean }
    | { readonly kind: 'deleteOrder'; readonly order: number }
    | { readonly kind: 'insertOrder'; readonly order: number };
  const ORDERS = 5;
  const DISHES = ['Soup', 'Bread', 'Tea'];
  const orderIndex = fc.nat({ max: ORDERS - 1 });
  const dishIndex = fc.nat({ max: DISHES.length - 1 });
  const lineStep: fc.Arbitrary<LineStep> = fc.oneof(
    fc.record({
      kind: fc.constant('insertLines' as const),
      order: orderIndex,
      dishes: fc.array(dishIndex, { minLength: 1, maxLength: 4 }),
    }),
    fc.record({ kind: fc.constant('renameLines' as const), order: orderIndex, dish: dishIndex }),
    fc.record({ kind: fc.constant('swapDishes' as const), order: orderIndex }),
    fc.record({ kind: fc.constant('moveLines' as const), order: orderIndex, to: orderIndex }),
    fc.record({ kind: fc.constant('deleteLines' as const), order: orderIndex, dish: dishIndex }),
    fc.record({ kind: fc.constant('setState' as const), order: orderIndex, counted: fc.boolean() }),
    fc.record({ kind: fc.constant('deleteOrder' as const), order: orderIndex }),
    fc.record({ kind: fc.constant('insertOrder' as const), order: orderIndex }),
  );

  it('equal a full recompute after every statement of random multi-row line histories', async () => {
    const sql = createSql({
      url: process.env.DATABASE_URL ?? '',
      poolMax: 1,
      statementTimeoutMs: 60_000,
      connectTimeoutSeconds: 10,
    });
    const id = (order: number): number => 991000 + order;
    const dish = (index: number): string => DISHES[index] ?? 'Soup';
    const insertOrder = (tx: postgres.TransactionSql, order: number) => tx`
      insert into orders (id, restaurant_id, platform_id, placed_at, state, total)
      overriding system value
      values (${id(order)}, 'RREP-1', ${order % 2 === 0 ? 'RP_A' : 'RP_B'},
              timestamptz '2023-11-05T04:40:00Z' + ${order * 25} * interval '1 minute',
              'DELIVERED', ${order + 1})
      on conflict (id) do nothing`;
    try {
      await fc.assert(
        fc.asyncProperty(fc.array(lineStep, { minLength: 1, maxLength: 12 }), async (steps) => {
          let lineNo = 0;
          const next = (): number => (lineNo += 1);
          await sql
            .begin(async (tx) => {
              await tx`insert into currencies (code, minor_units) values ('AED', 2) on conflict (code) do nothing`;
              await tx`insert into restaurants (id, name, time_zone, currency)
                       values ('RREP-1', 'Replica 1', 'America/Havana', 'AED')`;
              await tx`set local session_replication_role = replica`;
              for (let order = 0; order < ORDERS; order += 1) await insertOrder(tx, order);
              for (const [i, s] of steps.entries()) {
                switch (s.kind) {
                  case 'insertLines':
                    await tx`
                      insert into order_lines (order_id, line_no, dish_name, quantity, unit_price)
                      select ${id(s.order)}, ${next()} + n, d.dish, 1 + n, 1.5
                      from unnest(${s.dishes.map(dish)}::text[]) with ordinality as d(dish, n)`;
                    lineNo += s.dishes.length;
                    break;
                  case 'renameLines':
                    await tx`update order_lines set dish_name = ${dish(s.dish)} where order_id = ${id(s.order)}`;
                    break;
                  case 'swapDishes':
                    await tx`
                      update order_lines
                      set dish_name = case dish_name when 'Soup' then 'Bread' when 'Bread' then 'Soup' else dish_name end
                      where order_id = ${id(s.order)}`;
                    break;
                  case 'moveLines':
                    await tx`
                      update order_lines set order_id = ${id(s.to)}, line_no = line_no + 1000
                      where order_id = ${id(s.order)} and line_no < 1000`;
                    break;
                  case 'deleteLines':
                    await tx`delete from order_lines where order_id = ${id(s.order)} and dish_name = ${dish(s.dish)}`;
                    break;
                  case 'setState':
                    await tx`update orders set state = ${s.counted ? 'ACCEPTED' : 'CANCELLED'} where id = ${id(s.order)}`;
                    break;
                  case 'deleteOrder':
                    await tx`delete from orders where id = ${id(s.order)}`;
                    break;
                  case 'insertOrder':
                    await insertOrder(tx, s.order);
                    break;
                }
                const { stored, expected } = await rollupTables(tx, ['RREP-1']);
                expect({ after: `step ${String(i)} ${s.kind}`, ...stored }).toEqual({
                  after: `step ${String(i)} ${s.kind}`,
                  ...expected,
                });
              }
              throw new Rollback();
            })
            .catch((error: unknown) => {
              if (!(error instanceof Rollback)) throw error;
            });
        }),
        { numRuns: Number(process.env.ROLLUP_TEST_RUNS ?? 20) },
      );
    } finally {
      await sql.end();
    }
  }, 120_000);

  it('equal a full recompute after every multi-row statement', async () => {
    const sql = createSql({
      url: process.env.DATABASE_URL ?? '',
      poolMax: 1,
      statementTimeoutMs: 60_000,
      connectTimeoutSeconds: 10,
    });
    const steps: [string, (tx: postgres.TransactionSql) => Promise<unknown>][] = [
      [
        'orders in bulk',
        (tx) => tx`
          insert into orders (id, restaurant_id, platform_id, placed_at, state, total)
          overriding system value
          select 990000 + n, case when n % 2 = 0 then 'RREP-1' else 'RREP-3' end,
                 case when n % 3 = 0 then 'RP_B' else 'RP_A' end,
                 timestamptz '2023-11-05T04:30:00Z' + n * interval '20 minutes',
                 case when n % 5 = 0 then 'CANCELLED' else 'DELIVERED' end, n + 0.5
          from generate_series(1, 12) as n`,
      ],
      [
        'lines in bulk, a dish twice in an order',
        (tx) => tx`
          insert into order_lines (order_id, line_no, dish_name, quantity, unit_price)
          select 990000 + n, l, case when l < 3 then 'Soup' else 'Bread' end, l, 1.25
          from generate_series(1, 12) as n cross join generate_series(1, 3) as l`,
      ],
      [
        'lines before their order',
        (tx) => tx`
          insert into order_lines (order_id, line_no, dish_name, quantity, unit_price)
          values (990100, 1, 'Tea', 1, 2), (990100, 2, 'Tea', 1, 2), (990100, 3, 'Soup', 1, 3)`,
      ],
      [
        'their order',
        (tx) => tx`
          insert into orders (id, restaurant_id, platform_id, placed_at, state, total)
          overriding system value
          values (990100, 'RREP-1', 'RP_A', '2023-11-05T06:10:00Z', 'ACCEPTED', 7)`,
      ],
      [
        'orders before their restaurant',
        (tx) => tx`
          insert into orders (id, restaurant_id, platform_id, placed_at, state, total)
          overriding system value
          values (990200, 'RREP-2', 'RP_A', '2024-03-31T00:30:00Z', 'PLACED', 4),
                 (990201, 'RREP-2', 'RP_A', '2024-03-31T22:30:00Z', 'PLACED', 5)`,
      ],
      [
        'their lines',
        (tx) => tx`
          insert into order_lines (order_id, line_no, dish_name, quantity, unit_price)
          values (990200, 1, 'Soup', 1, 4), (990201, 1, 'Soup', 1, 5)`,
      ],
      [
        'their restaurant',
        (tx) => tx`
          insert into restaurants (id, name, time_zone, currency)
          values ('RREP-2', 'Replica 2', 'Europe/Berlin', 'AED')`,
      ],
      [
        'lines of an order renamed to one dish',
        (tx) => tx`update order_lines set dish_name = 'Bread' where order_id = 990002`,
      ],
      [
        'lines moved between orders',
        (tx) => tx`
          update order_lines set order_id = 990004, line_no = line_no + 10
          where order_id = 990006`,
      ],
      [
        'states and instants of many orders',
        (tx) => tx`
          update orders
          set state = case when state = 'DELIVERED' then 'REJECTED' else 'PLACED' end,
              placed_at = placed_at + interval '50 minutes'
          where id between 990001 and 990008`,
      ],
      [
        'totals and platforms',
        (tx) => tx`
          update orders set total = total * 2, platform_id = 'RP_B'
          where id in (990009, 990010, 990100)`,
      ],
      [
        'lines of one dish deleted in many orders',
        (tx) =>
          tx`delete from order_lines where order_id > 990000 and dish_name = 'Soup' and line_no = 1`,
      ],
      [
        'orders deleted (no cascade in replica mode: their lines stay, orphaned)',
        (tx) => tx`delete from orders where id in (990011, 990012, 990200)`,
      ],
      [
        'a time-zone change',
        (tx) => tx`update restaurants set time_zone = 'America/Havana' where id = 'RREP-3'`,
      ],
    ];
    try {
      await sql
        .begin(async (tx) => {
          await tx`insert into currencies (code, minor_units) values ('AED', 2) on conflict (code) do nothing`;
          await tx`insert into restaurants (id, name, time_zone, currency)
                   values ('RREP-1', 'Replica 1', 'America/Havana', 'AED'),
                          ('RREP-3', 'Replica 3', 'Asia/Dubai', 'AED')`;
          await tx`set local session_replication_role = replica`;
          for (const [name, step] of steps) {
            await step(tx);
            const { stored, expected } = await rollupTables(tx, IDS);
            expect({ after: name, ...stored }).toEqual({ after: name, ...expected });
          }
          const [rows] = await tx<{ days: number; dishes: number }[]>`
            select (select count(*)::int from report_daily_orders where restaurant_id = any(${IDS})) as days,
                   (select count(*)::int from report_daily_dishes where restaurant_id = any(${IDS})) as dishes`;
          expect(rows?.days).toBeGreaterThan(3);
          expect(rows?.dishes).toBeGreaterThan(3);
          throw new Rollback();
        })
        .catch((error: unknown) => {
          if (!(error instanceof Rollback)) throw error;
        });
    } finally {
      await sql.end();
    }
  });
});
