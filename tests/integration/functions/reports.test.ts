/**
 * The deployed report handlers (functions/orders-per-day.ts, functions/dishes.ts) on real API
 * Gateway events, the real database and key set; figures are checked against an independent
 * reading of the raw orders (tests/support/oracle.ts).
 */
import { handler as dishesHandler } from '../../../functions/dishes';
import { handler as ordersDayHandler } from '../../../functions/orders-per-day';
import { reportEndpoint } from '../../../middleware/compose';
import { claimsFor } from '../../../tools/db/sample-data';
import { createIssuer } from '../../../tools/local/issuer';
import { loadConfig } from '../../../shared/config';
import { addDays, eachDay, todayIn } from '../../../tools/dates';
import type { DateRange } from '../../../shared/dates';
import { ordersPerDay } from '../../../shared/reports/orders-per-day';
import {
  closeContainerDependencies,
  createDependencies,
  type Dependencies,
} from '../../../shared/runtime';
import { httpApiEvent, jsonBody, restEvent, sampleEvent } from '../../support/events';
import {
  CORS,
  expectError,
  invoke,
  owner1,
  owner2,
  PREFLIGHT,
  reportRequest,
} from '../../support/handlers';
import { expectedDays, expectedDishes, rawOrders } from '../../support/oracle';
import { BODIES, emptyField, validation } from '../../support/portal-errors';
import { testIssuer, tokenFor } from '../../support/tokens';

const ORDERS_DAY = '/v1/restaurants/{id}/reports/orders/day';
const DISHES = '/v1/restaurants/{id}/reports/dishes';
const HANDLERS = { [ORDERS_DAY]: ordersDayHandler, [DISHES]: dishesHandler };

const dubaiToday = () => todayIn('Asia/Dubai');
/** The last `days` days up to today in `timeZone`, both ends included. */
const lastDays = (days: number, timeZone = 'Asia/Dubai') => {
  const today = todayIn(timeZone);
  return { from: addDays(today, 1 - days), to: today };
};

const built: Dependencies[] = [];
/** A report endpoint of its own for the orders/day report, closed after the suite. */
const ordersDayEndpoint = (...args: Parameters<typeof createDependencies>) => {
  const deps = createDependencies(...args);
  built.push(deps);
  return reportEndpoint(ordersPerDay, deps.database.bind(ordersPerDay.queries), deps);
};

/** The first sample owner's token, for the tests that need no other. */
let token = '';
beforeAll(async () => {
  token = await tokenFor(owner1);
});
afterAll(async () => {
  await Promise.all([closeContainerDependencies(), ...built.map((deps) => deps.close())]);
});

/** GET the report at `resource` of restaurant `id` through a REST (v1) event. */
const getReport = (
  resource: keyof typeof HANDLERS,
  id: string,
  token: string,
  query: Readonly<Record<string, string>>,
  headers: Readonly<Record<string, string>> = {},
) => invoke(HANDLERS[resource], restEvent(reportRequest(resource, id, token, query, headers)));

/** A restaurant's platform, as the oracle reads its raw orders. */
const DUBAI = { id: 'R-1001', platform: 'TB_AE', timeZone: 'Asia/Dubai', minorUnits: 2 };
const KUWAIT = { id: 'R-1002', platform: 'TB_KW', timeZone: 'Asia/Kuwait', minorUnits: 3 };
type Platform = typeof DUBAI;

/** The orders/day rows of `of` over `range`, read from its raw orders. */
const daysOf = async (of: Platform, range: DateRange) =>
  expectedDays(await rawOrders(of.id, of.platform), of.timeZone, eachDay(range), of.minorUnits);
/** The dishes rows of `of` over `range`, read from its raw orders. */
const dishesOf = async (of: Platform, range: DateRange) =>
  expectedDishes(await rawOrders(of.id, of.platform), of.timeZone, range, of.minorUnits);
/** A report body of these rows, without compare values. */
const rowsOf = (rows: readonly unknown[]) => ({ data: rows.map((data) => ({ data })) });

describe('GET /v1/restaurants/{id}/reports/orders/day', () => {
  it('answers the sample event with one row per day, each carrying its compare day', async () => {
    const today = dubaiToday();

    const result = await invoke(ordersDayHandler, sampleEvent('orders-per-day', token));

    const main = await daysOf(DUBAI, { from: addDays(today, -6), to: today });
    const compare = await daysOf(DUBAI, { from: addDays(today, -13), to: addDays(today, -7) });
    expect(result.statusCode).toBe(200);
    expect(result.headers).toMatchObject({ 'Content-Type': 'application/json', ...CORS });
    expect(jsonBody(result)).toEqual({
      data: main.map((data, i) => ({ data, compare: compare[i] })),
    });
  });

  it.each([DUBAI, KUWAIT])(
    'counts $id days in its own time zone over 31 days, zeros included, cancelled excluded, rounded to the currency',
    async (restaurant) => {
      const range = lastDays(31, restaurant.timeZone);

      const result = await getReport(ORDERS_DAY, restaurant.id, token, range, {
        'x-platform-id': restaurant.platform,
      });

      const expected = await daysOf(restaurant, range);
      expect(result.statusCode).toBe(200);
      expect(jsonBody(result)).toEqual(rowsOf(expected));
      expect(expected.some((day) => day.orderCount === 0) || expected.length === 31).toBe(true);
    },
  );

  it('reports through an HTTP API (v2) event exactly as through a REST (v1) event', async () => {
    const token = await tokenFor(owner2);
    const today = todayIn('Europe/Berlin');
    const spec = reportRequest(ORDERS_DAY, 'R-2001', token, {
      from: addDays(today, -9),
      to: today,
      'compare[from]': addDays(today, -19),
      'compare[to]': addDays(today, -10),
    });

    const [rest, http] = await Promise.all([
      invoke(ordersDayHandler, restEvent(spec)),
      invoke(ordersDayHandler, httpApiEvent(spec)),
    ]);

    expect(http.statusCode).toBe(200);
    expect(jsonBody(http)).toEqual(jsonBody(rest));
  });

  it.each([
    [
      "reads a restaurant's second platform by its platform restaurantId and X-Platform-Id",
      'hs-ae-7702',
      { 'X-PLATFORM-ID': 'HS_AE' },
      { ...DUBAI, platform: 'HS_AE' },
      14,
    ],
    [
      'accepts the legacy platform key as the platformId it stands for',
      'R-1002',
      { 'X-Platform-Id': 'TBLEGACY_KW' },
      KUWAIT,
      3,
    ],
  ])('%s', async (_behaviour, id, headers, restaurant, days) => {
    const range = lastDays(days, restaurant.timeZone);

    const result = await getReport(ORDERS_DAY, id, token, range, headers);

    expect(jsonBody(result)).toEqual(rowsOf(await daysOf(restaurant, range)));
  });

  it('leaves compare off the rows past the end of a shorter compare range', async () => {
    const today = dubaiToday();

    const result = await getReport(ORDERS_DAY, 'R-1001', token, {
      from: addDays(today, -4),
      to: today,
      'compare[from]': addDays(today, -40),
      'compare[to]': addDays(today, -39),
    });

    const rows = (jsonBody(result) as { data: { compare?: unknown }[] }).data;
    expect(rows.map((row) => 'compare' in row)).toEqual([true, true, false, false, false]);
  });
});

describe('CSV export', () => {
  it('answers orders/day with compare as exactly the comparison CSV of spec 2.4, as a download', async () => {
    const today = dubaiToday();
    const query = {
      from: addDays(today, -2),
      to: today,
      'compare[from]': addDays(today, -9),
      'compare[to]': addDays(today, -7),
      format: 'csv',
    };

    const [csv, json] = await Promise.all([
      getReport(ORDERS_DAY, 'R-1001', token, query),
      getReport(ORDERS_DAY, 'R-1001', token, { ...query, format: 'json' }),
    ]);

    type Values = Record<'date' | 'orderCount' | 'revenue', string | number>;
    const rows = (jsonBody(json) as { data: { data: Values; compare: Values }[] }).data;
    const line = (values: (string | number)[]) =>
      `${values.map((value) => `"${String(value)}"`).join(',')}\r\n`;
    expect(csv.statusCode).toBe(200);
    expect(csv.headers).toMatchObject({
      'Content-Type': 'text/csv; charset=utf-8',
      'Content-Disposition': `attachment; filename="orders-per-day_R-1001_${query.from}_${query.to}_vs_${query['compare[from]']}_${query['compare[to]']}.csv"`,
      ...CORS,
      'Access-Control-Expose-Headers': 'Content-Disposition',
    });
    expect(csv.body).toBe(
      'day,orders,sales,day_comparison,orders_comparison,sales_comparison\r\n' +
        rows
          .map(({ data, compare }) =>
            line([data, compare].flatMap((v) => [v.date, v.orderCount, v.revenue])),
          )
          .join(''),
    );
  });

  it('answers dishes as CSV when the client sends Accept: text/csv', async () => {
    const result = await getReport(DISHES, 'R-1001', token, lastDays(7), { Accept: 'text/csv' });

    expect(result.statusCode).toBe(200);
    expect(result.body.split('\r\n')[0]).toBe('dish,orders,sales');
    expect(result.body.split('\r\n').length).toBeGreaterThan(2);
  });

  it.each([
    ['text/csv;charset=utf-8', 'text/csv; charset=utf-8'],
    ['text/csv;header=present', 'text/csv; charset=utf-8'],
    ['text/csv;charset=iso-8859-1', 'application/json'],
    ['text/csv;q=1.5', 'application/json'],
  ])('answers dishes to Accept: %s as %s', async (accept, contentType) => {
    const result = await getReport(DISHES, 'R-1001', token, lastDays(7), { Accept: accept });

    expect(result.statusCode).toBe(200);
    expect(result.headers?.['Content-Type']).toBe(contentType);
  });

  it('keeps errors JSON when CSV was asked for', async () => {
    const result = await getReport(DISHES, 'R-2001', token, { ...lastDays(1), format: 'csv' });

    expectError(result, 403, BODIES.forbidden, { 'Content-Type': 'application/json' });
  });
});

describe('GET /v1/restaurants/{id}/reports/dishes', () => {
  it('answers the sample event with every dish ordered, highest revenue first', async () => {
    const result = await invoke(dishesHandler, sampleEvent('dishes', token));

    const expected = await dishesOf(DUBAI, lastDays(7));
    expect(result.statusCode).toBe(200);
    expect(expected.length).toBeGreaterThan(0);
    expect(jsonBody(result)).toEqual(rowsOf(expected));
  });

  it('reports a 3-decimal currency through an HTTP API (v2) event', async () => {
    const range = lastDays(31, KUWAIT.timeZone);

    const result = await invoke(
      dishesHandler,
      httpApiEvent(reportRequest(DISHES, 'tb-kw-3301', token, range, { 'X-Platform-Id': 'TB_KW' })),
    );

    expect(jsonBody(result)).toEqual(rowsOf(await dishesOf(KUWAIT, range)));
  });
});

describe('spec section 7, as a client meets each row', () => {
  const week = () => lastDays(7);

  it('400 OUT_OF_RANGE when the range is longer than 31 days', async () => {
    const result = await getReport(ORDERS_DAY, 'R-1001', token, lastDays(32));

    expectError(result, 400, BODIES.daysOutOfRange);
  });

  it.each([
    ['orders/day', ORDERS_DAY, { from: '0000-01-01', to: '0000-01-03' }],
    [
      'orders/day compare',
      ORDERS_DAY,
      {
        from: '2026-01-01',
        to: '2026-01-02',
        'compare[from]': '0000-12-30',
        'compare[to]': '0001-01-01',
      },
    ],
    ['dishes', DISHES, { from: '0000-01-01', to: '0000-01-03' }],
  ] as const)(
    '400, not 500, for the year 0000 on %s, which PostgreSQL cannot store',
    async (_case, resource, query) => {
      const result = await getReport(resource, 'R-1001', token, query);

      expect(result.statusCode).toBe(400);
      expect(jsonBody(result)).toMatchObject({ state: 'ERROR', code: 'VALIDATION_ERROR' });
    },
  );

  it('400 VALIDATION_ERROR with one entry per missing field', async () => {
    const result = await getReport(DISHES, 'R-1001', token, { to: '' });

    expectError(result, 400, validation(emptyField('from'), emptyField('to')));
  });

  it.each([
    ['no Authorization header', {}],
    ['the Bearer prefix forgotten', { Authorization: 'TOKEN' }],
    ['another scheme', { Authorization: 'Basic dXNlcjpwYXNz' }],
  ])('401 TOKEN_INVALID asking about Bearer for %s', async (_case, headers) => {
    const result = await invoke(
      dishesHandler,
      restEvent({ resource: DISHES, pathParameters: { id: 'R-1001' }, headers, query: week() }),
    );

    expectError(result, 401, BODIES.bearerMissing, { 'WWW-Authenticate': 'Bearer' });
  });

  it('401 TOKEN_INVALID when the token cannot be verified against the key set', async () => {
    const stranger = await createIssuer();
    const token = await stranger.sign({ sub: 'x', authSchema: { restaurants: [] } });

    const result = await getReport(DISHES, 'R-1001', token, week());

    expectError(result, 401, BODIES.unverifiable);
  });

  it('401 TOKEN_EXPIRED when the token has expired', async () => {
    const issuer = await testIssuer();
    const token = await issuer.sign(claimsFor(owner1), {
      expiresIn: Math.floor(Date.now() / 1000) - 60,
    });

    const result = await getReport(ORDERS_DAY, 'R-1001', token, week());

    expectError(result, 401, BODIES.expired);
  });

  it.each([
    ["another owner's restaurant", 'R-2001', {}],
    ['an own restaurant on a platform it is not on', 'R-1002', { 'X-Platform-Id': 'TB_AE' }],
    ["another restaurant's id on an own platform", 'tb-kw-3301', { 'X-Platform-Id': 'TB_AE' }],
  ])('403 FORBIDDEN for %s', async (_case, id, headers) => {
    const result = await getReport(ORDERS_DAY, id, token, week(), headers);

    expectError(result, 403, BODIES.forbidden);
  });

  it('500 INTERNAL_ERROR when the database cannot be reached', async () => {
    const endpoint = ordersDayEndpoint(
      loadConfig({
        ...process.env,
        DATABASE_URL: 'postgres://postgres@127.0.0.1:9/none',
        DB_CONNECT_TIMEOUT_SECONDS: '1',
      }),
    );

    const result = await invoke(
      endpoint,
      restEvent(reportRequest(ORDERS_DAY, 'R-1001', token, week())),
    );

    expectError(result, 500, BODIES.internal);
  });
});

describe('OPTIONS (spec 4.3)', () => {
  it('answers the sample preflight event with 200 and the four CORS headers, no token needed', async () => {
    const result = await invoke(ordersDayHandler, sampleEvent('orders-per-day-preflight', ''));

    expect(result).toEqual(PREFLIGHT);
  });
});
