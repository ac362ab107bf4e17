/**
 * Orders per day's SQL (shared/reports/orders-per-day.sql.ts) on the run's real database, over
 * a fixture restaurant written inside a transaction that is rolled back.
 */
import type { IsoDate } from '../../../shared/dates';
import { ordersPerDayQueries } from '../../../shared/reports/orders-per-day.sql';
import { FIXTURE_SCOPE as scope, withFixture, type FixtureOrder } from './fixture-restaurant';

const days = (from: string, to: string) => ({ from: from as IsoDate, to: to as IsoDate });
const DUBAI = { timeZone: 'Asia/Dubai', currency: 'AED', minorUnits: 2 };

describe('ordersPerDay on PostgreSQL', () => {
  it("buckets orders into the restaurant's calendar days, across a DST change", async () => {
    const berlin = { timeZone: 'Europe/Berlin', currency: 'EUR', minorUnits: 2 };
    const orders: FixtureOrder[] = [
      { at: '2024-03-30T23:59:59+01:00', lines: [['A', 1, '1.000']] },
      { at: '2024-03-31T00:00:00+01:00', lines: [['A', 1, '2.000']] },
      { at: '2024-03-31T23:30:00+02:00', lines: [['A', 1, '4.000']] },
      { at: '2024-03-31T22:30:00Z', lines: [['A', 1, '8.000']] }, // 00:30 on April 1st in Berlin
    ];

    await withFixture(ordersPerDayQueries, berlin, orders, async (queries) => {
      expect(await queries.ordersPerDay(scope, days('2024-03-30', '2024-04-01'))).toEqual([
        { date: '2024-03-30', orderCount: 1, revenue: 1 },
        { date: '2024-03-31', orderCount: 2, revenue: 6 },
        { date: '2024-04-01', orderCount: 1, revenue: 8 },
      ]);
    });
  });

  it('counts placed, accepted and delivered orders but not cancelled or rejected ones, nor other platforms', async () => {
    const at = '2024-05-01T12:00:00+04:00';
    const orders: FixtureOrder[] = [
      ...['PLACED', 'ACCEPTED', 'DELIVERED', 'CANCELLED', 'REJECTED'].map(
        (state): FixtureOrder => ({ at, state, lines: [['A', 1, '10.000']] }),
      ),
      { at, platform: 'FY_AE', lines: [['A', 1, '99.000']] },
    ];

    await withFixture(ordersPerDayQueries, DUBAI, orders, async (queries) => {
      expect(await queries.ordersPerDay(scope, days('2024-05-01', '2024-05-01'))).toEqual([
        { date: '2024-05-01', orderCount: 3, revenue: 30 },
      ]);
    });
  });

  it.each([
    ['AED', 2, ['0.100', '0.200', '1.005'], 1.31],
    ['KWD', 3, ['0.125', '1.250', '0.001'], 1.376],
    ['JPY', 0, ['100.500', '0.400'], 101],
  ] as const)(
    'sums %s exactly and rounds to its %d-digit minor unit',
    async (currency, minorUnits, totals, expected) => {
      const orders = totals.map((price) => ({
        at: '2024-05-01T12:00:00+03:00',
        lines: [['A', 1, price]] as const,
      }));

      await withFixture(
        ordersPerDayQueries,
        { timeZone: 'Asia/Kuwait', currency, minorUnits },
        orders,
        async (queries) => {
          const [day] = await queries.ordersPerDay(scope, days('2024-05-01', '2024-05-01'));

          expect(day).toEqual({ date: '2024-05-01', orderCount: totals.length, revenue: expected });
        },
      );
    },
  );

  it('answers a restaurant it does not know with zero days, not an error', async () => {
    await withFixture(ordersPerDayQueries, DUBAI, [], async (queries) => {
      const unknown = { restaurantId: 'UNKNOWN', platformId: 'FX_AE' };

      expect(await queries.ordersPerDay(unknown, days('2024-05-01', '2024-05-02'))).toEqual([
        { date: '2024-05-01', orderCount: 0, revenue: 0 },
        { date: '2024-05-02', orderCount: 0, revenue: 0 },
      ]);
    });
  });
});
