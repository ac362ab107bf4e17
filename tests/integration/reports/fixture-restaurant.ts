/**
 * A fixture restaurant for the report SQL tests on the run's real database, written inside a
 * transaction that is rolled back; migration 004's triggers fill the rollups as rows arrive.
 */
import postgres from 'postgres';
import type { Sql } from '../../../shared/db/client';

class Rollback extends Error {}

/** Runs `run` in a rolled-back transaction on a connection of its own, with `options`. */
export const rolledBack = async (
  run: (tx: postgres.TransactionSql) => Promise<void>,
  options: postgres.Options<Record<string, postgres.PostgresType>> = {},
): Promise<void> => {
  const sql = postgres(process.env.DATABASE_URL ?? '', {
    max: 1,
    onnotice: () => undefined,
    ...options,
  });
  try {
    await sql
      .begin(async (tx) => {
        await run(tx);
        throw new Rollback();
      })
      .catch((error: unknown) => {
        if (!(error instanceof Rollback)) throw error;
      });
  } finally {
    await sql.end();
  }
};

export interface FixtureOrder {
  readonly at: string; // an instant with offset, e.g. 2024-03-31T23:30:00+02:00
  readonly state?: string;
  readonly platform?: string;
  readonly lines: readonly (readonly [dish: string, quantity: number, unitPrice: string])[];
}

export interface FixtureRestaurant {
  readonly timeZone: string;
  readonly currency: string;
  readonly minorUnits: number;
}

/** The fixture restaurant's id and its platform FX_AE (it is also sold on FY_AE). */
export const FIXTURE_SCOPE = { restaurantId: 'FIX-1', platformId: 'FX_AE' } as const;

/** Runs `check` on the report's queries, bound to a connection that sees `orders` of FIX-1. */
export const withFixture = async <Q>(
  bind: (sql: Sql) => Q,
  restaurant: FixtureRestaurant,
  orders: readonly FixtureOrder[],
  check: (queries: Q) => Promise<void>,
): Promise<void> => {
  await rolledBack(async (tx) => {
    await tx`insert into currencies (code, minor_units) values (${restaurant.currency}, ${restaurant.minorUnits})
             on conflict (code) do nothing`;
    await tx`insert into restaurants (id, name, time_zone, currency)
             values ('FIX-1', 'Fixture', ${restaurant.timeZone}, ${restaurant.currency})`;
    await tx`insert into restaurant_platforms values ('FIX-1', 'FX_AE', 'fx-1'), ('FIX-1', 'FY_AE', 'fy-1')`;
    for (const order of orders) {
      const total = order.lines.reduce((sum, [, q, price]) => sum + q * Number(price), 0);
      const [row] = await tx<{ id: string }[]>`
        insert into orders (restaurant_id, platform_id, placed_at, state, total)
        values ('FIX-1', ${order.platform ?? 'FX_AE'}, ${order.at}::timestamptz,
                ${order.state ?? 'DELIVERED'}, ${total.toFixed(3)})
        returning id`;
      for (const [i, [dish, quantity, unitPrice]] of order.lines.entries()) {
        await tx`insert into order_lines values (${row?.id ?? ''}, ${i + 1}, ${dish}, ${quantity}, ${unitPrice})`;
      }
    }
    await check(bind(tx as unknown as Sql));
  });
};
