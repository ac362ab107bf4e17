/**
 * The PostgreSQL report adapter on the run's real database, with fixture rows written inside a
 * transaction that is rolled back, so the seeded sample data stays as it was.
 */
import postgres from 'postgres';
import type { Sql } from '../../../shared/db/client';
import { createSql } from '../../../shared/db/client';
import type { IsoDate } from '../../../shared/dates';
import { createPostgresReportRepository } from '../../../shared/reports/postgres-repository';

const d = (value: string) => value as IsoDate;

class Rollback extends Error {}

interface FixtureOrder {
  readonly at: string; // an instant with offset, e.g. 2024-03-31T23:30:00+02:00
  readonly state?: string;
  readonly platform?: string;
  readonly lines: readonly (readonly [dish: string, quantity: number, unitPrice: string])[];
}

/** Runs `check` against a repository that sees `orders` of one fixture restaurant. */
const withFixture = async (
  restaurant: { timeZone: string; currency: string; minorUnits: number },
  orders: readonly FixtureOrder[],
  check: (repository: ReturnType<typeof createPostgresReportRepository>) => Promise<void>,
) => {
  const sql = postgres(process.env.DATABASE_URL ?? '', { max: 1, onnotice: () => undefined });
  try {
    await sql
      .begin(async (tx) => {
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
        await check(createPostgresReportRepository(tx as unknown as Sql));
        throw new Rollback();
      })
      .catch((error: unknown) => {
        if (!(error instanceof Rollback)) throw error;
      });
  } finally {
    await sql.end();
  }
};

const scope = { restaurantId: 'FIX-1', platformId: 'FX_AE' };

describe('ordersPerDay on PostgreSQL', () => {
  it("buckets orders into the restaurant's calendar days, across a DST change", async () => {
    await withFixture(
      { timeZone: 'Europe/Berlin', currency: 'EUR', minorUnits: 2 },
      [
        { at: '2024-03-30T23:59:59+01:00', lines: [['A', 1, '1.000']] },
        { at: '2024-03-31T00:00:00+01:00', lines: [['A', 1, '2.000']] },
        { at: '2024-03-31T23:30:00+02:00', lines: [['A', 1, '4.000']] },
        { at: '2024-03-31T22:30:00Z', lines: [['A', 1, '8.000']] }, // 00:30 on April 1st in Berlin
      ],
      async (repository) => {
        const days = await repository.ordersPerDay(scope, {
          from: d('2024-03-30'),
          to: d('2024-04-01'),
        });

        expect(days).toEqual([
          { date: '2024-03-30', orderCount: 1, revenue: 1 },
          { date: '2024-03-31', orderCount: 2, revenue: 6 },
          { date: '2024-04-01', orderCount: 1, revenue: 8 },
        ]);
      },
    );
  });

  it('counts placed, accepted and delivered orders but not cancelled or rejected ones, nor other platforms', async () => {
    await withFixture(
      { timeZone: 'Asia/Dubai', currency: 'AED', minorUnits: 2 },
      [
        ...['PLACED', 'ACCEPTED', 'DELIVERED', 'CANCELLED', 'REJECTED'].map(
          (state): FixtureOrder => ({
            at: '2024-05-01T12:00:00+04:00',
            state,
            lines: [['A', 1, '10.000']],
          }),
        ),
        { at: '2024-05-01T12:00:00+04:00', platform: 'FY_AE', lines: [['A', 1, '99.000']] },
      ],
      async (repository) => {
        const days = await repository.ordersPerDay(scope, {
          from: d('2024-05-01'),
          to: d('2024-05-01'),
        });

        expect(days).toEqual([{ date: '2024-05-01', orderCount: 3, revenue: 30 }]);
      },
    );
  });

  it.each([
    ['AED', 2, ['0.100', '0.200', '1.005'], 1.31],
    ['KWD', 3, ['0.125', '1.250', '0.001'], 1.376],
    ['JPY', 0, ['100.500', '0.400'], 101],
  ] as const)(
    'sums %s exactly and rounds to its %d-digit minor unit',
    async (currency, minorUnits, totals, expected) => {
      await withFixture(
        { timeZone: 'Asia/Kuwait', currency, minorUnits },
        totals.map((price) => ({
          at: '2024-05-01T12:00:00+03:00',
          lines: [['A', 1, price]] as const,
        })),
        async (repository) => {
          const [day] = await repository.ordersPerDay(scope, {
            from: d('2024-05-01'),
            to: d('2024-05-01'),
          });

          expect(day).toEqual({ date: '2024-05-01', orderCount: totals.length, revenue: expected });
        },
      );
    },
  );

  it('answers a restaurant it does not know with zero days, not an error', async () => {
    await withFixture(
      { timeZone: 'Asia/Dubai', currency: 'AED', minorUnits: 2 },
      [],
      async (repository) => {
        const days = await repository.ordersPerDay(
          { restaurantId: 'UNKNOWN', platformId: 'FX_AE' },
          { from: d('2024-05-01'), to: d('2024-05-02') },
        );

        expect(days).toEqual([
          { date: '2024-05-01', orderCount: 0, revenue: 0 },
          { date: '2024-05-02', orderCount: 0, revenue: 0 },
        ]);
      },
    );
  });
});

describe('dishes on PostgreSQL', () => {
  it('lists dishes by revenue, then orders, then name, counting each order once per dish', async () => {
    await withFixture(
      { timeZone: 'Asia/Dubai', currency: 'AED', minorUnits: 2 },
      [
        {
          at: '2024-05-01T12:00:00+04:00',
          lines: [
            ['Wrap', 2, '5.000'],
            ['Wrap', 1, '5.000'],
            ['Tea', 1, '3.000'],
          ],
        },
        {
          at: '2024-05-02T12:00:00+04:00',
          lines: [
            ['Bowl', 1, '15.000'],
            ['Cake', 1, '3.000'],
          ],
        },
        { at: '2024-05-02T13:00:00+04:00', lines: [['Soup', 1, '15.000']] },
        { at: '2024-05-02T14:00:00+04:00', state: 'CANCELLED', lines: [['Cake', 9, '3.000']] },
        { at: '2024-05-03T12:00:00+04:00', lines: [['Late', 1, '50.000']] },
      ],
      async (repository) => {
        const list = await repository.dishes(scope, { from: d('2024-05-01'), to: d('2024-05-02') });

        expect(list).toEqual([
          { name: 'Bowl', orderCount: 1, revenue: 15 },
          { name: 'Soup', orderCount: 1, revenue: 15 },
          { name: 'Wrap', orderCount: 1, revenue: 15 },
          { name: 'Cake', orderCount: 1, revenue: 3 },
          { name: 'Tea', orderCount: 1, revenue: 3 },
        ]);
      },
    );
  });

  it('answers a restaurant it does not know with an empty list', async () => {
    await withFixture(
      { timeZone: 'Asia/Dubai', currency: 'AED', minorUnits: 2 },
      [],
      async (repository) => {
        expect(
          await repository.dishes(
            { restaurantId: 'UNKNOWN', platformId: 'FX_AE' },
            { from: d('2024-05-01'), to: d('2024-05-02') },
          ),
        ).toEqual([]);
      },
    );
  });
});

describe('the connection pool', () => {
  it('keeps DATE values as YYYY-MM-DD strings and sets the statement timeout on real PostgreSQL', async () => {
    const sql = createSql({
      url: process.env.DATABASE_URL ?? '',
      poolMax: 1,
      statementTimeoutMs: 1234,
      connectTimeoutSeconds: 5,
    });
    try {
      const [row] = await sql<{ day: unknown; timeout: string }[]>`
        select '2024-02-29'::date as day, current_setting('statement_timeout') as timeout`;

      expect(row?.day).toBe('2024-02-29');
      // PGlite's wire server ignores startup parameters; a real server applies them.
      expect(row?.timeout).toBe(process.env.TEST_DATABASE_KIND === 'postgresql' ? '1234ms' : '0');
    } finally {
      await sql.end();
    }
  });
});
