/**
 * One definition per report: every report of the catalogue, through its deployed handler module
 * over the sample data with a query made from its declared parameters, answers rows of exactly
 * its declared keys, types and unit formats, in `data` and in `compare`.
 */
import type { IsoDate } from '../../../shared/dates';
import { todayIn } from '../../../tools/dates';
import { catalogue } from '../../../tools/catalogue';
import { type CatalogueReport } from '../../../shared/answers';
import type { PropertyDefinition, ReportResponse, RowValues } from '../../../shared/reports/report';
import { dishes } from '../../../shared/reports/dishes';
import { ordersPerDay } from '../../../shared/reports/orders-per-day';
import { ordersToday } from '../../../shared/reports/orders-today';
import { revenue } from '../../../shared/reports/revenue';
import { closeContainerDependencies } from '../../../shared/runtime';
import {
  handlerOf,
  recentRanges,
  rowProblems,
  SAMPLE_SCOPES,
  sampleParameters,
  scopeEvent,
  valueProblems,
} from '../../support/declarations';
import { jsonBody, lambdaContext } from '../../support/events';

afterAll(closeContainerDependencies);

/** A query for the last 7 days (compare: the 7 before) or 4 months, a choice's first value. */
const sampleQuery = (report: CatalogueReport, today: IsoDate): Record<string, string> =>
  sampleParameters(report.id, report.parameters, recentRanges(today, 7));

const reportEndpoints = catalogue.flatMap((endpoint) => {
  const { answers } = endpoint;
  return answers.kind === 'report'
    ? endpoint.paths.map((path) => ({
        fn: endpoint.function,
        endpoint,
        path,
        report: answers.report,
      }))
    : [];
});

describe('every report row keeps its declaration', () => {
  it('covers every report of the catalogue', () => {
    // Assess
    expect(reportEndpoints.length).toBeGreaterThan(0);
  });

  it.each(reportEndpoints)(
    '$fn answers on $path, for every sample restaurant and platform, rows of exactly its declared keys, types and units',
    async ({ endpoint, path, report }) => {
      // Prepare
      const handler = await handlerOf(endpoint);
      const queries = SAMPLE_SCOPES.map((scope) => sampleQuery(report, todayIn(scope.timeZone)));

      // Act
      const answers = await Promise.all(
        SAMPLE_SCOPES.map(async (scope, i) => {
          const event = await scopeEvent(scope, path, queries[i] ?? {});
          const result = await handler(event, lambdaContext());
          return { scope: `${scope.id} on ${scope.platformId}`, result };
        }),
      );

      // Assess
      expect(answers.map(({ scope, result }) => [scope, result.statusCode])).toEqual(
        SAMPLE_SCOPES.map((scope) => [`${scope.id} on ${scope.platformId}`, 200]),
      );
      const rows = answers.map(({ scope, result }) => ({
        scope,
        rows: (jsonBody(result) as ReportResponse).data,
      }));
      expect(
        rows.flatMap(({ scope, rows: list }) =>
          rowProblems(report.properties, list).map((problem) => `${scope}: ${problem}`),
        ),
      ).toEqual([]);
      // Rows to check (a report that is always empty proves nothing): the day reports answer
      // rows everywhere; today's orders exist only where the local day has reached its first
      // seeded order (10:00), which is true somewhere among the sample time zones at any hour.
      expect(
        rows.filter(({ rows: list }) => list.length > 0).map(({ scope }) => scope),
      ).not.toEqual([]);
      if ('compare[from]' in (queries[0] ?? {})) {
        expect(
          rows.flatMap(({ rows: list }) => list).some((row) => row.compare !== undefined),
        ).toBe(true);
      }
    },
  );
});

describe('the sample query, made from the declared parameters', () => {
  const RANGES = {
    days: { from: '2026-01-10' as IsoDate, to: '2026-01-16' as IsoDate },
    compare: { from: '2026-01-03' as IsoDate, to: '2026-01-09' as IsoDate },
    months: { from: '2025-10-01' as IsoDate, to: '2026-01-01' as IsoDate },
  };

  it.each([
    [
      ordersPerDay.id,
      ordersPerDay,
      {
        from: '2026-01-10',
        to: '2026-01-16',
        'compare[from]': '2026-01-03',
        'compare[to]': '2026-01-09',
      },
    ],
    [dishes.id, dishes, { from: '2026-01-10', to: '2026-01-16' }],
    [revenue.id, revenue, { from: '2025-10-01', to: '2026-01-01' }],
    [ordersToday.id, ordersToday, {}],
  ] as const)('asks %s for its declared day or month range', (_id, definition, query) => {
    // Act / Assess
    expect(sampleParameters(definition.id, definition.parameters, RANGES)).toEqual(query);
  });

  it('leaves the comparison out when no compare range is given, and takes a choice first value', () => {
    // Act
    const sample = sampleParameters(
      'made-up',
      [
        ...ordersPerDay.parameters,
        { name: 'level', description: 'A choice', required: true, enum: ['low', 'high'] },
        { name: 'style', description: 'An optional choice', required: false, enum: ['a', 'b'] },
      ],
      { days: RANGES.days, months: RANGES.months },
    );

    // Assess
    expect(sample).toEqual({ from: '2026-01-10', to: '2026-01-16', level: 'low' });
  });

  it('names a required parameter whose declaration says nothing it could send', () => {
    // Act
    const sample = () =>
      sampleParameters(
        'made-up',
        [{ name: 'code', description: 'Free text', required: true }],
        RANGES,
      );

    // Assess
    expect(sample).toThrow(
      "no sample value for made-up's required parameter code: its declaration names no date range or choice",
    );
  });
});

describe('the row validator', () => {
  const PROPERTIES: readonly PropertyDefinition[] = [
    { key: 'day', name: 'Day', type: 'string', unit: 'DATE' },
    { key: 'month', name: 'Month', type: 'string', unit: 'DATE_MONTH' },
    { key: 'year', name: 'Year', type: 'string', unit: 'DATE_YEAR' },
    { key: 'orders', name: 'Orders', type: 'integer' },
    { key: 'share', name: 'Share', type: 'number' },
    { key: 'sales', name: 'Sales', type: 'number', unit: 'CURRENCY' },
    { key: 'dish', name: 'Dish', type: 'string' },
  ];
  const GOOD: RowValues = {
    day: '2024-02-29',
    month: '2024-02-01',
    year: '2024-01-01',
    orders: 12,
    share: 0.3333333,
    sales: 1234.125,
    dish: 'Kunafa',
  };

  it('accepts rows that keep the declaration, with or without compare', () => {
    // Act
    const problems = rowProblems(PROPERTIES, [
      { data: GOOD },
      { data: GOOD, compare: { ...GOOD, sales: 0, orders: 0 } },
    ]);

    // Assess
    expect(problems).toEqual([]);
  });

  const DECIMALS = 'is not a finite number with at most 3 decimals';
  const MONTH = 'is not the first day of a month (YYYY-MM-01)';
  const [DATE, YEAR] = ['is not a YYYY-MM-DD date', 'is not January 1st (YYYY-01-01)'];
  // Each case: one value of GOOD changed, and the problem after `row 0 data: "key" = value`.
  it.each<[string, string, string | number, string]>([
    ['a fractional integer', 'orders', 1.5, '1.5 is not an integer'],
    ['an integer as text', 'orders', '12', '"12" is not an integer'],
    ['a number as text', 'share', '0.5', '"0.5" is not a finite number'],
    ['a string as number', 'dish', 7, '7 is not a string'],
    ['a DATE that is no calendar day', 'day', '2023-02-29', `"2023-02-29" ${DATE}`],
    ['a DATE with a time', 'day', '2024-02-29T00:00:00Z', `"2024-02-29T00:00:00Z" ${DATE}`],
    ['a DATE_MONTH that is not the 1st', 'month', '2024-02-15', `"2024-02-15" ${MONTH}`],
    ['a DATE_MONTH without its day', 'month', '2024-02', `"2024-02" ${MONTH}`],
    ['a DATE_YEAR that is not January 1st', 'year', '2024-02-01', `"2024-02-01" ${YEAR}`],
    ['a CURRENCY with 4 decimals', 'sales', 1.2345, `1.2345 ${DECIMALS}`],
    ['a CURRENCY with a float error', 'sales', 0.1 + 0.2, `0.30000000000000004 ${DECIMALS}`],
    ['a CURRENCY as decimal text', 'sales', '12.50', '"12.50" is not a finite number'],
  ])('refuses %s', (_case, key, value, problem) => {
    // Act
    const problems = rowProblems(PROPERTIES, [{ data: { ...GOOD, [key]: value } }]);

    // Assess
    expect(problems).toEqual([`row 0 data: "${key}" = ${problem}`]);
  });

  it.each<[string, RowValues, string]>([
    ['an undeclared key', { ...GOOD, extra: 1 }, 'row 0 data: undeclared key "extra"'],
    [
      'a missing key',
      Object.fromEntries(Object.entries(GOOD).filter(([key]) => key !== 'dish')),
      'row 0 data: missing "dish"',
    ],
  ])('refuses %s', (_case, data, problem) => {
    // Act / Assess
    expect(rowProblems(PROPERTIES, [{ data }])).toEqual([problem]);
  });

  it('holds compare to the same declaration and refuses a field beside data and compare', () => {
    // Prepare
    const row = { data: GOOD, compare: { ...GOOD, month: '2024-03-31' }, total: 1 };

    // Act / Assess
    expect(rowProblems(PROPERTIES, [row])).toEqual([
      'row 0: unexpected field "total"',
      'row 0 compare: "month" = "2024-03-31" is not the first day of a month (YYYY-MM-01)',
    ]);
  });

  it('reads a non-finite number as a type problem', () => {
    // Act
    const problems = valueProblems(PROPERTIES, { ...GOOD, sales: Number.NaN }, 'row');

    // Assess
    expect(problems).toEqual(['row: "sales" = null is not a finite number']);
  });
});
