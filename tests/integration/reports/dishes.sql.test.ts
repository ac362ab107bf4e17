/**
 * The dishes report's SQL (shared/reports/dishes.sql.ts) on the run's real database, over a
 * fixture restaurant written inside a transaction that is rolled back.
 */
import type { IsoDate } from '../../../shared/dates';
import { dishesQueries } from '../../../shared/reports/dishes.sql';
import { FIXTURE_SCOPE as scope, withFixture, type FixtureOrder } from './fixture-restaurant';

const DUBAI = { timeZone: 'Asia/Dubai', currency: 'AED', minorUnits: 2 };
const MAY_1_TO_2 = { from: '2024-05-01' as IsoDate, to: '2024-05-02' as IsoDate };

describe('dishes on PostgreSQL', () => {
  it('lists dishes by revenue, then orders, then name, counting each order once per dish', async () => {
    const orders: FixtureOrder[] = [
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
    ];

    await withFixture(dishesQueries, DUBAI, orders, async (queries) => {
      expect(await queries.dishes(scope, MAY_1_TO_2)).toEqual([
        { name: 'Bowl', orderCount: 1, revenue: 15 },
        { name: 'Soup', orderCount: 1, revenue: 15 },
        { name: 'Wrap', orderCount: 1, revenue: 15 },
        { name: 'Cake', orderCount: 1, revenue: 3 },
        { name: 'Tea', orderCount: 1, revenue: 3 },
      ]);
    });
  });

  it('answers a restaurant it does not know with an empty list', async () => {
    await withFixture(dishesQueries, DUBAI, [], async (queries) => {
      const unknown = { restaurantId: 'UNKNOWN', platformId: 'FX_AE' };

      expect(await queries.dishes(unknown, MAY_1_TO_2)).toEqual([]);
    });
  });
});
