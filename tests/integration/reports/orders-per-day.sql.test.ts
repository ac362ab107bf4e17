/**
 * Orders per day's SQL (shared/reports/orders-per-day.sql.ts) on the run's real database, over
 * a fixture restaurant whose rows are written inside a transaction that is rolled back, so the
 * seeded sample data stays as it was.
 */
import type { IsoDate } from '../../../shared/dates';
import { ordersPerDayQueries } from '../../../shared/reports/orders-per-day.sql';
import { FIXTURE_SCOPE as scope, withFixture, type FixtureOrder } from './fixture-restaurant';

const d = (value: string) => value as IsoDate;

describe('ordersPerDay on PostgreSQL', () => {
  it("buckets orders into the restaurant's calendar days, across a DST change", async () => {
    await withFixture(
      ordersPerDayQueries,
      { timeZone: 'Europe/Berlin', currency: 'EUR', minorUnits: 2 },
      [
        { at: '2024-03-30T23:59:59+01:00', lines: [['A', 1, '1.000']] },
        { at: '2024-03-31T00:00:00+01:00', lines: [['A', 1, '2.000']] },
        { at: '2024-03-31T23:30:00+02:00', lines: [['A', 1, '4.000']] },
        { at: '2024-03-31T22:30:00Z', lines: [['A', 1, '8.000']] }, // 00:30 on April 1st in Berlin
      ],
      async (queries) => {
        const days = await queries.ordersPerDay(scope, {
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
      ordersPerDayQueries,
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
      async (queries) => {
        const days = await queries.ordersPerDay(scope, {
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
        ordersPerDayQueries,
        { timeZone: 'Asia/Kuwait', currency, minorUnits },
        totals.map((price) => ({
          at: '2024-05-01T12:00:00+03:00',
          lines: [['A', 1, price]] as const,
        })),
        async (queries) => {
          const [day] = await queries.ordersPerDay(scope, {
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
      ordersPerDayQueries,
      { timeZone: 'Asia/Dubai', currency: 'AED', minorUnits: 2 },
      [],
      async (queries) => {
        const days = await queries.ordersPerDay(
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
