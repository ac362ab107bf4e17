/**
 * One rule for money precision (migration 005, docs/import.md): `currencies` holds 0 to 3 minor
 * units, as order totals and line prices are numeric(14, 3), so an amount of each allowed
 * precision is stored and read back exactly, and a currency of 4 is refused. Each test writes in
 * a transaction it rolls back, on PGlite and on PostgreSQL.
 */
import postgres from 'postgres';

let sql: postgres.Sql;

beforeAll(() => {
  sql = postgres(process.env.DATABASE_URL ?? '', { max: 1, onnotice: () => undefined });
});

afterAll(async () => {
  await sql.end({ timeout: 1 });
});

class RolledBack extends Error {}

/** Runs `work` in a transaction that is always rolled back, and gives its result. */
const rolledBack = async <T>(work: (tx: postgres.TransactionSql) => Promise<T>): Promise<T> => {
  let result: T | undefined;
  await sql
    .begin(async (tx) => {
      result = await work(tx);
      throw new RolledBack();
    })
    .catch((error: unknown) => {
      if (!(error instanceof RolledBack)) throw error;
    });
  return result as T;
};

describe('money precision from schema to amounts', () => {
  it.each([
    [0, '99999999999'],
    [1, '99999999999.9'],
    [2, '99999999999.99'],
    [3, '99999999999.999'],
  ])(
    'stores an amount of a currency of %i minor units and reads it back exactly: %s',
    async (minorUnits, amount) => {
      // Act
      const [row] = await rolledBack(async (tx) => {
        await tx`insert into currencies (code, minor_units) values ('ZZZ', ${minorUnits})`;
        await tx`insert into restaurants (id, name, time_zone, currency)
                 values ('money-precision', 'Precision', 'UTC', 'ZZZ')`;
        await tx`insert into restaurant_platforms (restaurant_id, platform_id, platform_restaurant_id)
                 values ('money-precision', 'ZZ_TEST', 'money-precision')`;
        const [order] = await tx<{ id: string }[]>`
          insert into orders (restaurant_id, platform_id, placed_at, state, total)
          values ('money-precision', 'ZZ_TEST', now(), 'DELIVERED', ${amount}::numeric)
          returning id`;
        await tx`insert into order_lines (order_id, line_no, dish_name, quantity, unit_price)
                 values (${order?.id ?? ''}, 1, 'Tea', 1, ${amount}::numeric)`;
        return tx<{ total: string; unit_price: string }[]>`
          select round(o.total, c.minor_units)::text as total,
                 round(l.unit_price, c.minor_units)::text as unit_price
          from orders o
          join order_lines l on l.order_id = o.id
          join restaurants r on r.id = o.restaurant_id
          join currencies c on c.code = r.currency
          where o.restaurant_id = 'money-precision'`;
      });

      // Assess
      expect(row).toEqual({ total: amount, unit_price: amount });
    },
  );

  it('refuses a currency of 4 minor units, which the amounts could not hold', async () => {
    // Act
    const refused = await rolledBack(
      async (tx) => tx`insert into currencies (code, minor_units) values ('ZZZ', 4)`,
    ).then(
      () => undefined,
      (error: unknown) => error as { code?: string; constraint_name?: string },
    );

    // Assess: check_violation of the minor units' constraint
    expect(refused).toMatchObject({
      code: '23514',
      constraint_name: 'currencies_minor_units_check',
    });
  });
});
