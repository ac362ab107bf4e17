import { type DateRange, type IsoDate } from '../../../../shared/dates';
import type { ValidationEntry } from '../../../../shared/errors';
import type { ReportScope } from '../../../../shared/reports/domain';
import { toCsv } from '../../../../shared/reports/csv';
import { parseMonthRange, revenue } from '../../../../shared/reports/revenue';
import type { MonthTotals, RevenueQueries } from '../../../../shared/reports/revenue.sql';
import { notGiven, readerOf, type Query } from '../../../support/parameters';
import {
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

describe('parseMonthRange', () => {
  it('reads a range of first days of months', () => {
    // Act
    const query = parseMonthRange(readerOf({ from: '2026-01-01', to: '2026-03-01' }));

    // Assess
    expect(query).toEqual({ months: { from: '2026-01-01', to: '2026-03-01' } });
  });

  it('reads a range of a single month', () => {
    // Act
    const query = parseMonthRange(readerOf({ from: '2026-02-01', to: '2026-02-01' }));

    // Assess
    expect(query).toEqual({ months: { from: '2026-02-01', to: '2026-02-01' } });
  });

  it('ignores parameters it does not read, such as format', () => {
    // Act
    const query = parseMonthRange(
      readerOf({ from: '2026-02-01', to: '2026-02-01', format: 'csv', extra: ['1', '2'] }),
    );

    // Assess
    expect(query).toEqual({ months: { from: '2026-02-01', to: '2026-02-01' } });
  });

  describe.each(['from', 'to'])('when %s is not given', (field) => {
    const other: Query = field === 'from' ? { to: '2026-03-01' } : { from: '2026-01-01' };

    it.each(notGiven(field))(
      'answers VALIDATION_ERROR with one FIELD_CANNOT_BE_EMPTY entry (%s)',
      (_case, given) => {
        // Act
        const error = portalErrorOf(() => parseMonthRange(readerOf({ ...other, ...given })));

        // Assess
        expect(error.statusCode).toBe(400);
        expect(error.toBody()).toEqual(validation(emptyField(field)));
      },
    );
  });

  it('answers one FIELD_CANNOT_BE_EMPTY entry per missing field, from before to', () => {
    // Act
    const error = portalErrorOf(() => parseMonthRange(readerOf({})));

    // Assess
    expect(error.statusCode).toBe(400);
    expect(error.toBody()).toEqual(validation(emptyField('from'), emptyField('to')));
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
    // Act
    const error = portalErrorOf(() => parseMonthRange(readerOf({ from: value, to: '2026-03-01' })));

    // Assess
    expect(error.statusCode).toBe(400);
    expect(error.toBody()).toEqual(validation(notFirstOfMonth('from')));
  });

  it('refuses a to that is not the first of a month as INVALID_DATE', () => {
    // Act
    const error = portalErrorOf(() =>
      parseMonthRange(readerOf({ from: '2026-01-01', to: '2026-03-31' })),
    );

    // Assess
    expect(error.toBody()).toEqual(validation(notFirstOfMonth('to')));
  });

  it('answers an entry for each field when one is invalid and the other missing', () => {
    // Act
    const error = portalErrorOf(() => parseMonthRange(readerOf({ to: '2026-03-02' })));

    // Assess
    expect(error.toBody()).toEqual(validation(notFirstOfMonth('to'), emptyField('from')));
  });

  it.each([
    ['two months', ['2026-01-01', '2026-02-01']],
    ['the same month twice', ['2026-01-01', '2026-01-01']],
    ['two empty values', ['', '']],
  ])('refuses a repeated from (%s) as FIELD_REPEATED', (_case, values) => {
    // Act
    const error = portalErrorOf(() =>
      parseMonthRange(readerOf({ from: values, to: '2026-03-01' })),
    );

    // Assess
    expect(error.toBody()).toEqual(validation(repeatedField('from')));
  });

  it('refuses a repeated to as FIELD_REPEATED', () => {
    // Act
    const error = portalErrorOf(() =>
      parseMonthRange(readerOf({ from: '2026-01-01', to: ['2026-03-01', '2026-04-01'] })),
    );

    // Assess
    expect(error.toBody()).toEqual(validation(repeatedField('to')));
  });

  it('refuses a range whose from is after its to as INVALID_RANGE', () => {
    // Act
    const error = portalErrorOf(() =>
      parseMonthRange(readerOf({ from: '2026-04-01', to: '2026-03-01' })),
    );

    // Assess
    expect(error.statusCode).toBe(400);
    expect(error.toBody()).toEqual(
      validation({ field: 'from', code: 'INVALID_RANGE', message: 'from must not be after to' }),
    );
  });

  it.each([
    ['2026-01-01', '2026-12-01'],
    ['2025-11-01', '2026-10-01'],
  ])('accepts %s to %s, 12 months with both ends included', (from, to) => {
    // Act
    const query = parseMonthRange(readerOf({ from, to }));

    // Assess
    expect(query).toEqual({ months: { from, to } });
  });

  it.each([
    ['2026-01-01', '2027-01-01'],
    ['2025-11-01', '2026-11-01'],
    ['2020-01-01', '2026-01-01'],
  ])('refuses %s to %s, more than 12 months, as OUT_OF_RANGE', (from, to) => {
    // Act
    const error = portalErrorOf(() => parseMonthRange(readerOf({ from, to })));

    // Assess
    expect(error.statusCode).toBe(400);
    expect(error.toBody()).toEqual({
      state: 'ERROR',
      code: 'OUT_OF_RANGE',
      message: 'Only 12 months can be selected',
    });
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

const TOTALS: readonly MonthTotals[] = [
  { month: d('2025-11-01'), orderCount: 310, revenue: 4210.5 },
  { month: d('2025-12-01'), orderCount: 0, revenue: 0 },
  { month: d('2026-01-01'), orderCount: 298, revenue: 3999.9 },
];

describe('revenue report', () => {
  it('renders one row per month with its month, the first day of its year, orders and sales', async () => {
    // Prepare
    const port = new InMemoryRevenue(TOTALS);

    // Act
    const rows = await revenue.rows(port, SCOPE, { months: months('2025-11-01', '2026-01-01') });

    // Assess
    expect(rows).toStrictEqual([
      { data: { month: '2025-11-01', year: '2025-01-01', orderCount: 310, revenue: 4210.5 } },
      { data: { month: '2025-12-01', year: '2025-01-01', orderCount: 0, revenue: 0 } },
      { data: { month: '2026-01-01', year: '2026-01-01', orderCount: 298, revenue: 3999.9 } },
    ]);
  });

  it('reads the months of the query for the scope it was given', async () => {
    // Prepare
    const port = new InMemoryRevenue(TOTALS);

    // Act
    await revenue.rows(port, SCOPE, { months: months('2025-11-01', '2026-01-01') });

    // Assess
    expect(port.calls).toEqual([{ scope: SCOPE, months: months('2025-11-01', '2026-01-01') }]);
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
    // Act
    const rows = await revenue.rows(new InMemoryRevenue(TOTALS), SCOPE, {
      months: months('2025-11-01', '2026-01-01'),
    });

    // Assess
    const keys = revenue.properties.map((property) => property.key);
    for (const row of rows) expect(Object.keys(row.data)).toEqual(keys);
  });

  it('exports CSV with the month, year, orders and sales columns', async () => {
    // Prepare
    const rows = await revenue.rows(new InMemoryRevenue(TOTALS.slice(0, 1)), SCOPE, {
      months: months('2025-11-01', '2025-11-01'),
    });

    // Act
    const csv = toCsv(revenue.properties, rows);

    // Assess
    expect(csv).toBe('month,year,orders,sales\r\n"2025-11-01","2025-01-01","310","4210.5"\r\n');
  });

  it('names its CSV file after the first and last month', () => {
    // Act
    const parts = revenue.fileNameParts({ months: months('2025-11-01', '2026-01-01') });

    // Assess
    expect(parts).toEqual(['2025-11', '2026-01']);
  });
});
