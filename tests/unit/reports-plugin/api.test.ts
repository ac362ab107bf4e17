import {
  authorisedGet,
  describeFailure,
  fetchDashboard,
  fetchRows,
  fileNameOf,
  ReportError,
  reportUrl,
  type Fetch,
} from '../../../tools/reports-plugin/src/api';
import type { ReportSpec } from '../../../tools/reports-plugin/src/reports';
import * as refusals from '../../../shared/errors';
import type { PortalError } from '../../../shared/errors';
import { outOfMonthRange } from '../../../shared/reports/revenue';

/** The body the API sends for an error (middleware/error-handler.ts renders toBody()). */
const answer = (error: PortalError) => [error.statusCode, JSON.stringify(error.toBody())] as const;

const PER_DAY: ReportSpec = {
  id: 'orders-per-day',
  title: 'Orders per day',
  path: '/v1/restaurants/{id}/reports/orders/day',
  properties: [],
  range: { granularity: 'day', max: 31 },
  compare: true,
};

describe('what the user is told, from the error body', () => {
  it.each([refusals.headerInvalid(), refusals.tokenUnverifiable(), refusals.tokenExpired()])(
    '401 %# asks to sign in again',
    (error) => {
      expect(describeFailure(...answer(error))).toEqual({
        kind: 'session',
        status: 401,
        message: 'error.session',
        details: [],
      });
    },
  );

  it('403 says the restaurant is not the user’s, without the body’s bare "Forbidden"', () => {
    expect(describeFailure(...answer(refusals.forbidden()))).toEqual({
      kind: 'forbidden',
      status: 403,
      message: 'error.forbidden',
      details: [],
    });
  });

  it('400 VALIDATION_ERROR lists each field with its message', () => {
    const error = refusals.validationError([
      refusals.cannotBeEmpty('from'),
      {
        field: 'to',
        code: 'INVALID_DATE',
        message: 'to must be a calendar date in YYYY-MM-DD form',
      },
    ]);
    expect(describeFailure(...answer(error))).toEqual({
      kind: 'validation',
      status: 400,
      message: 'error.validation',
      details: ['from: from cannot be empty', 'to: to must be a calendar date in YYYY-MM-DD form'],
    });
  });

  it('400 OUT_OF_RANGE says the period is too long, with the body message (31 days, 12 months)', () => {
    expect(describeFailure(...answer(refusals.outOfRange())).details).toEqual([
      refusals.outOfRange().toBody().message,
    ]);
    expect(describeFailure(...answer(outOfMonthRange()))).toEqual({
      kind: 'range',
      status: 400,
      message: 'error.range',
      details: ['Only 12 months can be selected'],
    });
  });

  it('any other failure shows its message, or its status when the body says nothing', () => {
    expect(describeFailure(...answer(refusals.internalError()))).toMatchObject({
      message: 'error.other',
      details: ['Unknown error'],
    });
    expect(describeFailure(502, '<html>Bad gateway</html>')).toEqual({
      kind: 'other',
      status: 502,
      message: 'error.other',
      details: [],
    });
    expect(
      describeFailure(400, '{"code":"VALIDATION_ERROR","errors":[null,{"field":"x"}]}'),
    ).toMatchObject({ kind: 'validation', details: [] });
  });
});

describe('calls', () => {
  const calls: { url: string; init: RequestInit }[] = [];
  const respond =
    (response: () => Response): Fetch =>
    (url, init) => {
      calls.push({ url, init });
      return Promise.resolve(response());
    };
  beforeEach(() => {
    calls.length = 0;
  });

  it('builds the path with the restaurant, the range and the comparison', () => {
    const query = {
      restaurantId: 'R 1/1',
      range: { from: '2026-11-01', to: '2026-11-07' },
      compare: { from: '2026-10-01', to: '2026-10-07' },
    };
    expect(reportUrl('https://api.example.com', PER_DAY, query)).toBe(
      'https://api.example.com/v1/restaurants/R%201%2F1/reports/orders/day' +
        '?from=2026-11-01&to=2026-11-07&compare%5Bfrom%5D=2026-10-01&compare%5Bto%5D=2026-10-07',
    );
    expect(
      reportUrl(
        'http://localhost:3000',
        { ...PER_DAY, compare: false, range: null },
        {
          ...query,
          restaurantId: 'R-1001',
          format: 'csv',
        },
      ),
    ).toBe('http://localhost:3000/v1/restaurants/R-1001/reports/orders/day?format=csv');
  });

  it('sends the token as a bearer and nothing else', async () => {
    const rows = [{ data: { date: '2026-11-01', orderCount: 1, revenue: 2.5 } }];
    const fetch = respond(() => Response.json({ data: rows }));

    await expect(fetchRows(fetch, 'https://api/x', 'the-token')).resolves.toEqual(rows);
    expect(calls).toEqual([
      { url: 'https://api/x', init: { headers: { Authorization: 'Bearer the-token' } } },
    ]);
  });

  it('a failed answer throws the failure its body describes', async () => {
    const fetch = respond(() => Response.json(refusals.forbidden().toBody(), { status: 403 }));
    const failure = await fetchRows(fetch, 'https://api/x', 't').catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(ReportError);
    expect((failure as ReportError).failure.kind).toBe('forbidden');
  });

  it('an unreachable API is said so; an aborted call stays an abort', async () => {
    const down: Fetch = () => Promise.reject(new TypeError('Failed to fetch'));
    await expect(authorisedGet(down, 'https://api/x', 't')).rejects.toMatchObject({
      failure: { kind: 'other', status: 0 },
    });
    const controller = new AbortController();
    controller.abort();
    const aborting: Fetch = (_url, init) => Promise.reject(init.signal?.reason as Error);
    await expect(authorisedGet(aborting, 'https://api/x', 't', controller.signal)).rejects.toBe(
      controller.signal.reason,
    );
  });

  it('reads the dashboard’s data.currency and data.date (the restaurant’s today), undefined when malformed', async () => {
    await expect(
      fetchDashboard(
        respond(() => Response.json({ data: { currency: 'KWD', date: '2026-11-26' } })),
        'u',
        't',
      ),
    ).resolves.toEqual({
      currency: 'KWD',
      date: '2026-11-26',
      figures: [],
      compareDate: undefined,
    });
    await expect(
      fetchDashboard(
        respond(() => Response.json({ data: { currency: null, date: '26.11.2026' } })),
        'u',
        't',
      ),
    ).resolves.toEqual({
      currency: undefined,
      date: undefined,
      figures: [],
      compareDate: undefined,
    });
  });

  it('reads the dashboard’s figures of today against the same weekday a week earlier', async () => {
    const pair = (value: number, compare: number) => ({ value, compare });
    const data = {
      date: '2026-11-26',
      compareDate: '2026-11-19',
      currency: 'AED',
      orders: pair(12, 8),
      revenue: pair(300, 400),
      averageOrderValue: pair(25, 50),
      cancellationRate: pair(0.1, 0),
    };
    await expect(
      fetchDashboard(
        respond(() => Response.json({ data })),
        'u',
        't',
      ),
    ).resolves.toEqual({
      currency: 'AED',
      date: '2026-11-26',
      compareDate: '2026-11-19',
      figures: [
        { key: 'orders', value: 12, compare: { value: 8, change: 0.5 } },
        { key: 'sales', value: 300, compare: { value: 400, change: -0.25 } },
        { key: 'average', value: 25, compare: { value: 50, change: -0.5 } },
        { key: 'cancelled', value: 0.1, compare: { value: 0, change: null } },
      ],
    });
  });

  it('the CSV file name is the one Content-Disposition gives', () => {
    expect(
      fileNameOf('attachment; filename="orders-per-day_R-1001_2026-11-01_2026-11-07.csv"', 'x.csv'),
    ).toBe('orders-per-day_R-1001_2026-11-01_2026-11-07.csv');
    expect(fileNameOf(null, 'revenue.csv')).toBe('revenue.csv');
  });
});
