import { type DateRange, type IsoDate } from '../../../../shared/dates';
import type { ErrorBody, ValidationEntry } from '../../../../shared/errors';
import type { ReportScope } from '../../../../shared/reports/domain';
import { toCsv } from '../../../../shared/reports/csv';
import { parseMonthRange, revenue } from '../../../../shared/reports/revenue';
import type { MonthTotals, RevenueQueries } from '../../../../shared/reports/revenue.sql';
import { notGiven, readerOf, type Query } from '../../../support/parameters';
import {
  BODIES,
  emptyField,
  portalErrorOf,
  repeatedField,
  validation,
} from '../../../support/portal-errors';

const notFirstOfMonth = (field: string): ValidationEntry => ({
  field,
  code: 'INVALID_DATE',
  message: `${field} must be the first day of a month (YYYY-MM-01)`,
});

const d = (value: string) => value as IsoDate;
const months = (from: string, to: string): DateRange => ({ from: d(from), to: d(to) });
/** The status and body of the refusal of `query`. */
const refusal = (query: Query) => {
  const error = portalErrorOf(() => parseMonthRange(readerOf(query)));
  return { status: error.statusCode, body: error.toBody() };
};

describe('parseMonthRange', () => {
  it.each<[string, Query]>([
    ['a range of first days of months', { from: '2026-01-01', to: '2026-03-01' }],
    ['a range of a single month', { from: '2026-02-01', to: '2026-02-01' }],
    ['12 months with both ends included', { from: '2026-01-01', to: '2026-12-01' }],
    ['12 months across a year end', { from: '2025-11-01', to: '2026-10-01' }],
    [
      'a range, ignoring parameters it does not read, such as format',
      { from: '2026-02-01', to: '2026-02-01', format: 'csv', extra: ['1', '2'] },
    ],
  ])('reads %s', (_case, query) => {
    // Act / Assess
    expect(parseMonthRange(readerOf(query))).toEqual({
      months: { from: query.from, to: query.to },
    });
  });

  describe.each(['from', 'to'])('when %s is not given', (field) => {
    const other: Query = field === 'from' ? { to: '2026-03-01' } : { from: '2026-01-01' };

    it.each(notGiven(field))(
      'answers VALIDATION_ERROR with one FIELD_CANNOT_BE_EMPTY entry (%s)',
      (_case, given) => {
        // Act / Assess
        expect(refusal({ ...other, ...given })).toEqual({
          status: 400,
          body: validation(emptyField(field)),
        });
      },
    );
  });

  it.each([
    ['a day that is not the first', '2026-01-15'],
    ['the last day of a month', '2026-01-31'],
    ['a month without a day', '2026-01'],
    ['an impossible month', '2026-13-01'],
    ['a day without leading zeros', '2026-1-01'],
    ['a date-time', '2026-01-01T00:00:00Z'],
    ['leading space', ' 2026-01-01'],
    ['a word', 'january'],
  ])('refuses from as INVALID_DATE for %s (%j)', (_case, value) => {
    // Act / Assess
    expect(refusal({ from: value, to: '2026-03-01' })).toEqual({
      status: 400,
      body: validation(notFirstOfMonth('from')),
    });
  });

  it.each([
    ['two months', ['2026-01-01', '2026-02-01']],
    ['the same month twice', ['2026-01-01', '2026-01-01']],
    ['two empty values', ['', '']],
  ])('refuses a repeated from (%s) as FIELD_REPEATED', (_case, values) => {
    // Act / Assess
    expect(refusal({ from: values, to: '2026-03-01' })).toEqual({
      status: 400,
      body: validation(repeatedField('from')),
    });
  });

  it.each([
    ['2026-01-01', '2027-01-01'],
    ['2025-11-01', '2026-11-01'],
    ['2020-01-01', '2026-01-01'],
  ])('refuses %s to %s, more than 12 months, as OUT_OF_RANGE', (from, to) => {
    // Act / Assess
    expect(refusal({ from, to })).toEqual({ status: 400, body: BODIES.monthsOutOfRange });
  });

  it.each<[string, Query, ErrorBody]>([
    [
      'one FIELD_CANNOT_BE_EMPTY entry per missing field, from before to',
      {},
      validation(emptyField('from'), emptyField('to')),
    ],
    [
      'a to that is not the first of a month as INVALID_DATE',
      { from: '2026-01-01', to: '2026-03-31' },
      validation(notFirstOfMonth('to')),
    ],
    [
      'with an entry for each field when one is invalid and the other missing',
      { to: '2026-03-02' },
      validation(notFirstOfMonth('to'), emptyField('from')),
    ],
    [
      'a repeated to as FIELD_REPEATED',
      { from: '2026-01-01', to: ['2026-03-01', '2026-04-01'] },
      validation(repeatedField('to')),
    ],
    [
      'a range whose from is after its to as INVALID_RANGE',
      { from: '2026-04-01', to: '2026-03-01' },
      validation({ field: 'from', code: 'INVALID_RANGE', message: 'from must not be after to' }),
    ],
  ])('refuses %s', (_case, query, body) => {
    // Act / Assess
    expect(refusal(query)).toEqual({ status: 400, body });
  });
});

/**
 * The report's queries in memory: one entry per month of the range, as the PostgreSQL adapter
 * answers. Entries carry one field more than MonthTotals, which no row may show.
 */
class InMemoryRevenue implements RevenueQueries {
  readonly calls: { scope: ReportScope; months: DateRange }[] = [];

  constructor(private readonly totals: readonly MonthTotals[]) {}

  revenuePerMonth(scope: ReportScope, asked: DateRange): Promise<MonthTotals[]> {
    this.calls.push({ scope, months: asked });
    return Promise.resolve(
      this.totals.map((entry) => ({ ...entry, platformId: scope.platformId })),
    );
  }
}

const SCOPE: ReportScope = { restaurantId: 'R-2001', platformId: 'FD_DE' };
const QUARTER = months('2025-11-01', '2026-01-01');
const TOTALS: readonly MonthTotals[] = [
  { month: d('2025-11-01'), orderCount: 310, revenue: 4210.5 },
  { month: d('2025-12-01'), orderCount: 0, revenue: 0 },
  { month: d('2026-01-01'), orderCount: 298, revenue: 3999.9 },
];

/** The report over `totals` for `asked`: its rows, and what it asked the port for. */
const report = async (totals = TOTALS, asked = QUARTER) => {
  const port = new InMemoryRevenue(totals);
  const rows = await revenue.rows(port, SCOPE, { months: asked });
  return { rows, calls: port.calls };
};

describe('revenue report', () => {
  it('renders one row per month with its month, the first day of its year, orders and sales', async () => {
    // Act / Assess
    const { rows } = await report();
    expect(rows).toStrictEqual([
      { data: { month: '2025-11-01', year: '2025-01-01', orderCount: 310, revenue: 4210.5 } },
      { data: { month: '2025-12-01', year: '2025-01-01', orderCount: 0, revenue: 0 } },
      { data: { month: '2026-01-01', year: '2026-01-01', orderCount: 298, revenue: 3999.9 } },
    ]);
  });

  it('reads the months of the query for the scope it was given', async () => {
    // Act / Assess
    expect((await report()).calls).toEqual([{ scope: SCOPE, months: QUARTER }]);
  });

  it('declares an English name for each property, DATE_MONTH, DATE_YEAR and CURRENCY', () => {
    // Assess
    expect(revenue.id).toBe('revenue');
    expect(revenue.properties).toEqual([
      { key: 'month', name: 'Month', type: 'string', unit: 'DATE_MONTH', csvName: 'month' },
      { key: 'year', name: 'Year', type: 'string', unit: 'DATE_YEAR', csvName: 'year' },
      { key: 'orderCount', name: 'Orders', type: 'integer', csvName: 'orders' },
      { key: 'revenue', name: 'Sales', type: 'number', unit: 'CURRENCY', csvName: 'sales' },
    ]);
    expect(
      revenue.parameters.map(({ name, required, format }) => [name, required, format]),
    ).toEqual([
      ['from', true, 'date'],
      ['to', true, 'date'],
    ]);
  });

  it('declares exactly the keys its rows carry, in the same order', async () => {
    // Act / Assess
    const { rows } = await report();
    const keys = revenue.properties.map((property) => property.key);
    for (const row of rows) expect(Object.keys(row.data)).toEqual(keys);
  });

  it('exports CSV with the month, year, orders and sales columns', async () => {
    // Prepare
    const { rows } = await report(TOTALS.slice(0, 1), months('2025-11-01', '2025-11-01'));

    // Act / Assess
    expect(toCsv(revenue.properties, rows)).toBe(
      'month,year,orders,sales\r\n"2025-11-01","2025-01-01","310","4210.5"\r\n',
    );
  });

  it('names its CSV file after the first and last month', () => {
    // Act / Assess
    expect(revenue.fileNameParts({ months: QUARTER })).toEqual(['2025-11', '2026-01']);
  });
});
