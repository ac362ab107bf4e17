/**
 * Write cost per order with migration 005 (issue 12; BENCHMARKS.md "Write cost per order with
 * migration 005"). Two databases on the local PostgreSQL, migrated up to 004 and up to 005,
 * each with one restaurant holding 60 days × 250 orders of 3 lines (so that every write lands
 * on existing rollup rows, as in production); then, alternating between the two databases
 * round by round, committed transactions of one order with 3 lines inserted (two
 * statements), cancelled, and deleted; in a third database (005) the same order written in
 * replica mode (session_replication_role = replica: the REPLICA row triggers) and deleted.
 * Medians and p95 per operation; the replica database's rollups checked against a recompute.
 *
 * Run: npx tsx tools/bench/rollup-writes.ts  (BENCH_ADMIN_DATABASE_URL, BENCH_WRITE_ROUNDS)
 * Other pairs of migrations: BENCH_WRITE_BEFORE, BENCH_WRITE_AFTER (the last migration file of
 * each database, e.g. 006_order_external_ids.sql and 007_report_rollups_deferred.sql; defaults
 * 004 and 005); the replica-mode database is migrated as the second.
 */
import { copyFile, mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import postgres from 'postgres';
import { migrate, MIGRATIONS_DIR } from '../db/migrate';

const ADMIN_URL =
  process.env.BENCH_ADMIN_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const ROUNDS = Number(process.env.BENCH_WRITE_ROUNDS ?? 2000);
const BEFORE = process.env.BENCH_WRITE_BEFORE ?? '004_report_rollup_locks.sql';
const AFTER = process.env.BENCH_WRITE_AFTER ?? '005_report_rollups_replicated.sql';
const prefix = (migration: string): string => migration.slice(0, 3);
const DATABASES = {
  before: `portal_bench_writes_${prefix(BEFORE)}`,
  after: `portal_bench_writes_${prefix(AFTER)}`,
  replica: `portal_bench_writes_${prefix(AFTER)}_replica`,
} as const;

const urlOf = (database: string): string => {
  const url = new URL(ADMIN_URL);
  url.pathname = `/${database}`;
  return url.toString();
};

const migrationsUpTo = async (last: string): Promise<string> => {
  const dir = await mkdtemp(join(tmpdir(), 'portal-migrations-'));
  for (const name of await readdir(MIGRATIONS_DIR)) {
    if (name.endsWith('.sql') && name <= last)
      await copyFile(join(MIGRATIONS_DIR, name), join(dir, name));
  }
  return dir;
};

const prepare = async (database: string, last: string): Promise<postgres.Sql> => {
  const admin = postgres(ADMIN_URL, { max: 1, onnotice: () => undefined });
  await admin.unsafe(`drop database if exists ${database}`);
  await admin.unsafe(`create database ${database}`);
  await admin.end();
  const sql = postgres(urlOf(database), { max: 1, onnotice: () => undefined });
  const dir = await migrationsUpTo(last);
  await migrate(sql, dir);
  await rm(dir, { recursive: true, force: true });
  await sql`insert into currencies values ('AED', 2)`;
  await sql`insert into restaurants values ('W-1', 'Writes', 'Asia/Dubai', 'AED')`;
  await sql`insert into restaurant_platforms values ('W-1', 'WB_AE', 'w-1')`;
  await sql`
    insert into orders (restaurant_id, platform_id, placed_at, state, total)
    select 'W-1', 'WB_AE', timestamptz '2026-09-01T06:00:00+04:00' + (n / 250) * interval '1 day'
             + (n % 250) * interval '1 minute', 'DELIVERED', 24.5
    from generate_series(0, 60 * 250 - 1) as n`;
  await sql`
    insert into order_lines (order_id, line_no, dish_name, quantity, unit_price)
    select o.id, l, 'Dish ' || ((o.id + l) % 20), 1, 8.5
    from orders o cross join generate_series(1, 3) as l`;
  await sql`vacuum analyze`;
  return sql;
};

type Operation = 'insert' | 'cancel' | 'delete' | 'insert (replica mode)';

const writeOrder = async (sql: postgres.Sql, n: number, replica: boolean): Promise<string> =>
  sql.begin(async (tx) => {
    if (replica) await tx`set local session_replication_role = replica`;
    const [row] = await tx<{ id: string }[]>`
      insert into orders (restaurant_id, platform_id, placed_at, state, total)
      values ('W-1', 'WB_AE', timestamptz '2026-10-20T12:00:00+04:00' + ${n % 600} * interval '1 minute',
              'PLACED', 25.5)
      returning id::text as id`;
    const id = row?.id ?? '0';
    await tx`
      insert into order_lines (order_id, line_no, dish_name, quantity, unit_price)
      values (${id}::bigint, 1, ${`Dish ${String(n % 20)}`}, 1, 8.5),
             (${id}::bigint, 2, ${`Dish ${String((n + 7) % 20)}`}, 1, 8.5),
             (${id}::bigint, 3, 'Tea', 2, 4.25)`;
    return id;
  });

const timed = async (run: () => Promise<unknown>): Promise<number> => {
  const started = performance.now();
  await run();
  return performance.now() - started;
};

const quantile = (values: readonly number[], q: number): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? NaN;
};

const main = async (): Promise<void> => {
  console.log(`before: migrated to ${BEFORE}; after: migrated to ${AFTER}`);
  const before = await prepare(DATABASES.before, BEFORE);
  const after = await prepare(DATABASES.after, AFTER);
  // Replica-mode writes in a database of their own, so that the two compared above keep the
  // same history of writes (dead rows included).
  const replica = await prepare(DATABASES.replica, AFTER);
  const samples = new Map<string, number[]>();
  const record = (key: string, ms: number): void => {
    samples.set(key, [...(samples.get(key) ?? []), ms]);
  };
  const round = async (label: 'before' | 'after', sql: postgres.Sql, n: number): Promise<void> => {
    let id = '';
    record(`${label}|insert`, await timed(async () => (id = await writeOrder(sql, n, false))));
    record(
      `${label}|cancel`,
      await timed(() => sql`update orders set state = 'CANCELLED' where id = ${id}::bigint`),
    );
    await sql`update orders set state = 'PLACED' where id = ${id}::bigint`;
    record(`${label}|delete`, await timed(() => sql`delete from orders where id = ${id}::bigint`));
  };
  for (let n = 0; n < ROUNDS + 100; n += 1) {
    const warm = n < 100;
    const order: ('before' | 'after')[] = n % 2 === 0 ? ['before', 'after'] : ['after', 'before'];
    for (const label of order) await round(label, label === 'before' ? before : after, n);
    let replicated = '';
    const ms = await timed(async () => (replicated = await writeOrder(replica, n, true)));
    record('after|insert (replica mode)', ms);
    await replica`delete from orders where id = ${replicated}::bigint`;
    if (warm) samples.clear();
  }
  const operations: Operation[] = ['insert', 'cancel', 'delete', 'insert (replica mode)'];
  const rows = operations.map((operation) => {
    const b = samples.get(`before|${operation}`) ?? [];
    const a = samples.get(`after|${operation}`) ?? [];
    return {
      operation,
      before: b.length
        ? `${quantile(b, 0.5).toFixed(3)} / ${quantile(b, 0.95).toFixed(3)} ms`
        : '—',
      after: `${quantile(a, 0.5).toFixed(3)} / ${quantile(a, 0.95).toFixed(3)} ms`,
      samples: a.length,
    };
  });
  console.table(rows);
  const check = await replica`select count(*)::int as drift from (
      select restaurant_id, platform_id, day, local_day, orders, revenue from report_daily_orders
      except
      select o.restaurant_id, o.platform_id, report_day(o.placed_at, r.time_zone),
             report_local_day(o.placed_at, r.time_zone), count(*)::int, sum(o.total)
      from orders o join restaurants r on r.id = o.restaurant_id
      where report_counts(o.state) group by 1, 2, 3, 4) d`;
  console.log(`rollup rows differing from the source after the run (${AFTER}):`, check[0]?.drift);
  await before.end();
  await after.end();
  await replica.end();
};

await main();
