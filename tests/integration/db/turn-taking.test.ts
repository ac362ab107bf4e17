/**
 * What taking turns costs (migration 004, docs/adopting.md "Load paths and times"): a
 * replica-mode transaction holds the turn from its first filing to its commit, so an ordinary
 * writer of the rollups waits for the rest of that transaction, however long it runs, and both
 * stay exact. PostgreSQL only: the embedded PGlite has one connection.
 */
import postgres from 'postgres';
import { findDrift } from '../../../tools/db/drift';

const TAG = `TURN${String(process.pid)}`;
const HOLD_MS = 1_500;
const POSTGRESQL = process.env.TEST_DATABASE_KIND === 'postgresql';

let sql: postgres.Sql;

const removeFixture = async () => {
  await sql`delete from orders where restaurant_id = ${TAG}`;
  await sql`delete from report_daily_orders where restaurant_id = ${TAG}`;
  await sql`delete from report_daily_dishes where restaurant_id = ${TAG}`;
  await sql`delete from restaurant_platforms where restaurant_id = ${TAG}`;
  await sql`delete from restaurants where id = ${TAG}`;
};

/** Inserts one order of one line on `writer`, and says when it returned. */
const insertOrder = async (writer: postgres.Sql | postgres.ReservedSql, total: string) => {
  const [order] = await writer<{ id: string }[]>`
    insert into orders (restaurant_id, platform_id, placed_at, state, total, external_id)
    values (${TAG}, 'TT_AE', now(), 'DELIVERED', ${total}::numeric, ${`${TAG}-${total}`})
    returning id::text as id`;
  await writer`insert into order_lines (order_id, line_no, dish_name, quantity, unit_price)
               values (${order?.id ?? ''}::bigint, 1, 'Tea', 1, ${total}::numeric)`;
  return performance.now();
};

(POSTGRESQL ? describe : describe.skip)('taking turns to file the rollups (PostgreSQL)', () => {
  beforeAll(async () => {
    sql = postgres(process.env.DATABASE_URL ?? '', { max: 4, onnotice: () => undefined });
    await removeFixture();
    await sql`insert into currencies (code, minor_units) values ('AED', 2) on conflict do nothing`;
    await sql`insert into restaurants (id, name, time_zone, currency)
              values (${TAG}, 'Turn taking', 'Asia/Dubai', 'AED')`;
    await sql`insert into restaurant_platforms (restaurant_id, platform_id, platform_restaurant_id)
              values (${TAG}, 'TT_AE', ${TAG})`;
  });

  afterAll(async () => {
    await removeFixture();
    await sql.end({ timeout: 1 });
  });

  it('makes an ordinary writer wait for the rest of a replica-mode transaction holding the turn, both exact', async () => {
    // Prepare: an ordinary insert alone, for its usual time
    const alone = performance.now();
    const aloneDone = await insertOrder(sql, '1.00');
    const usualMs = aloneDone - alone;
    const replica = await sql.reserve();
    await replica`set session_replication_role = replica`;

    // Act: the replica-mode writer files an order (taking the turn) and holds it open; an
    // ordinary writer starts meanwhile
    await replica`begin`;
    await insertOrder(replica, '2.00');
    const started = performance.now();
    const ordinary = insertOrder(sql, '3.00');
    await new Promise((resolve) => setTimeout(resolve, HOLD_MS));
    await replica`commit`;
    const committed = performance.now();
    const ordinaryDone = await ordinary;
    await replica`set session_replication_role = origin`;
    replica.release();

    // Assess: the ordinary insert returned only once the replica-mode transaction committed
    expect(ordinaryDone).toBeGreaterThanOrEqual(committed);
    expect(ordinaryDone - started).toBeGreaterThanOrEqual(HOLD_MS);
    expect(usualMs).toBeLessThan(HOLD_MS);
    expect(await findDrift(sql, { restaurantId: TAG })).toEqual([]);
    const [rollup] = await sql<{ orders: number; revenue: string }[]>`
      select sum(orders)::int as orders, sum(revenue)::text as revenue
      from report_daily_orders where restaurant_id = ${TAG}`;
    expect(rollup).toEqual({ orders: 3, revenue: '6.000' });
  });
});
