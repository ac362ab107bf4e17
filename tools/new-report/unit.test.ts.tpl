import type { DateRange, IsoDate } from '../../../../shared/dates';
import type { ReportScope } from '../../../../shared/reports/domain';
import { __CAMEL__ } from '../../../../shared/reports/__NAME__';
import type { __PASCAL__Queries } from '../../../../shared/reports/__NAME__.sql';

const scope: ReportScope = { restaurantId: 'R-1', platformId: 'TB_AE' };

describe('__NAME__ report', () => {
  it('asks its query for the scope and range, and answers one row per entry in its order', async () => {
    const calls: [ReportScope, DateRange][] = [];
    const queries: __PASCAL__Queries = {
      __CAMEL__: (asked, range) => {
        calls.push([asked, range]);
        return Promise.resolve([
          { state: 'DELIVERED', orderCount: 3, revenue: 41.5 },
          { state: 'CANCELLED', orderCount: 1, revenue: 9 },
        ]);
      },
    };
    const parameters = __CAMEL__.parseParameters((name) => ({ from: ['2026-01-01'], to: ['2026-01-07'] })[name] ?? []);

    const rows = await __CAMEL__.rows(queries, scope, parameters);

    expect(calls).toEqual([[scope, { from: '2026-01-01' as IsoDate, to: '2026-01-07' as IsoDate }]]);
    expect(rows).toEqual([
      { data: { state: 'DELIVERED', orderCount: 3, revenue: 41.5 } },
      { data: { state: 'CANCELLED', orderCount: 1, revenue: 9 } },
    ]);
  });

  it('declares an English name for every property', () => {
    expect(__CAMEL__.properties.every((property) => property.name.trim() !== '')).toBe(true);
  });
});
