import { dashboard } from '../../../../shared/reports/dashboard';
import type { DashboardFigures, DashboardQueries } from '../../../../shared/reports/dashboard.sql';
import type { IsoDate } from '../../../../shared/dates';
import type { ReportScope } from '../../../../shared/reports/domain';
import { readerOf } from '../../../support/parameters';

/** The dashboard's queries in memory: answers the figures it was given and records the scopes asked. */
class InMemoryDashboard implements DashboardQueries {
  readonly calls: ReportScope[] = [];

  constructor(private readonly figures: DashboardFigures) {}

  todayFigures(scope: ReportScope): Promise<DashboardFigures> {
    this.calls.push(scope);
    return Promise.resolve(this.figures);
  }
}

const SCOPE: ReportScope = { restaurantId: 'R-1002', platformId: 'TB_KW' };

const FIGURES: DashboardFigures = {
  currency: 'KWD',
  today: {
    date: '2026-11-22' as IsoDate,
    orders: 14,
    revenue: 61.375,
    averageOrderValue: 4.384,
    cancellationRate: 0.0667,
  },
  compare: {
    date: '2026-11-15' as IsoDate,
    orders: 0,
    revenue: 0,
    averageOrderValue: 0,
    cancellationRate: 1,
  },
};

describe('dashboard service', () => {
  it('pairs each figure of today with the same figure a week earlier', async () => {
    // Prepare
    const port = new InMemoryDashboard(FIGURES);

    // Act / Assess
    const data = await dashboard.run(port, SCOPE, {});
    const pair = (value: number, compare: number) => ({ value, compare });
    expect(data).toStrictEqual({
      date: '2026-11-22',
      compareDate: '2026-11-15',
      currency: 'KWD',
      orders: pair(14, 0),
      revenue: pair(61.375, 0),
      averageOrderValue: pair(4.384, 0),
      cancellationRate: pair(0.0667, 1),
    });
  });

  it('reads the figures of the scope it was given', async () => {
    // Prepare
    const port = new InMemoryDashboard(FIGURES);

    // Act / Assess
    await dashboard.run(port, SCOPE, {});
    expect(port.calls).toEqual([SCOPE]);
  });

  it('answers a null currency for a restaurant the database does not know', async () => {
    // Prepare
    const port = new InMemoryDashboard({ ...FIGURES, currency: null });

    // Act / Assess
    const data = await dashboard.run(port, SCOPE, {});
    expect(data.currency).toBeNull();
  });

  it.each([
    ['no parameters', {}],
    ['unknown and repeated parameters', { from: ['2026-01-01'], x: ['1', '2'] }],
  ])('accepts a query with %s, as it takes none', (_case, query) => {
    // Act / Assess
    const parsed = dashboard.parseParameters(readerOf(query));
    expect(parsed).toEqual({});
  });

  it('describes in its data schema exactly the keys it answers, each comparison as value and compare', async () => {
    // Act / Assess
    const data = await dashboard.run(new InMemoryDashboard(FIGURES), SCOPE, {});
    const schema = dashboard.dataSchema as {
      required: string[];
      additionalProperties: boolean;
      properties: Record<string, { type: unknown; required?: string[] }>;
    };
    expect(schema.required).toEqual(Object.keys(data));
    expect(Object.keys(schema.properties)).toEqual(Object.keys(data));
    expect(schema.additionalProperties).toBe(false);
    expect(
      Object.fromEntries(
        Object.entries(schema.properties).map(([key, property]) => [
          key,
          [property.type, property.required],
        ]),
      ),
    ).toEqual({
      date: ['string', undefined],
      compareDate: ['string', undefined],
      currency: [['string', 'null'], undefined],
      orders: ['object', ['value', 'compare']],
      revenue: ['object', ['value', 'compare']],
      averageOrderValue: ['object', ['value', 'compare']],
      cancellationRate: ['object', ['value', 'compare']],
    });
    expect(dashboard.parameters).toEqual([]);
    expect(dashboard.id).toBe('dashboard');
  });
});
