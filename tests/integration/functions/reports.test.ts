/**
 * The deployed report handlers (functions/orders-per-day.ts, functions/dishes.ts), invoked with
 * real API Gateway events against the real database and the real local key-set server of the
 * global setup. Report figures are checked against an independent reading of the raw orders
 * (tests/support/oracle.ts).
 */
import type { APIGatewayProxyResult } from 'aws-lambda';
import { createLogger } from '../../../shared/logger';
import { handler as dishesHandler } from '../../../functions/dishes';
import { handler as ordersDayHandler } from '../../../functions/orders-per-day';
import { reportEndpoint } from '../../../middleware/compose';
import { SAMPLE_OWNERS, type SampleOwner } from '../../../scripts/db/sample-data';
import { createIssuer } from '../../../scripts/local/issuer';
import { loadConfig } from '../../../shared/config';
import { addDays, eachDay, todayIn } from '../../../scripts/dates';
import { ordersPerDay } from '../../../shared/reports/orders-per-day';
import {
  closeContainerDependencies,
  createDependencies,
  type Dependencies,
} from '../../../shared/runtime';
import {
  httpApiEvent,
  jsonBody,
  lambdaContext,
  restEvent,
  sampleEvent,
  type RequestSpec,
} from '../../support/events';
import { expectedDays, expectedDishes, rawOrders } from '../../support/oracle';
import { testIssuer, tokenFor } from '../../support/tokens';

const [owner1, owner2] = SAMPLE_OWNERS as [SampleOwner, SampleOwner, SampleOwner];
const ORDERS_DAY = '/v1/restaurants/{id}/reports/orders/day';
const DISHES = '/v1/restaurants/{id}/reports/dishes';
const CORS = { 'Access-Control-Allow-Origin': '*' };

type Handler = (event: unknown, context: unknown) => Promise<APIGatewayProxyResult>;
const invoke = (handler: unknown, event: unknown) => (handler as Handler)(event, lambdaContext());

const dubaiToday = () => todayIn('Asia/Dubai');

const built: Dependencies[] = [];
/** Dependencies for a one-off endpoint, closed after the suite. */
const dependencies = (...args: Parameters<typeof createDependencies>) => {
  const deps = createDependencies(...args);
  built.push(deps);
  return deps;
};

afterAll(async () => {
  await Promise.all([closeContainerDependencies(), ...built.map((deps) => deps.close())]);
});

const reportRequest = (
  resource: string,
  id: string,
  token: string,
  query: Record<string, string | string[]>,
  headers: Record<string, string | string[]> = {},
): RequestSpec => ({
  resource,
  pathParameters: { id },
  headers: { Authorization: `Bearer ${token}`, ...headers },
  query,
});

describe('GET /v1/restaurants/{id}/reports/orders/day', () => {
  it('answers the sample event with one row per day, each carrying its compare day', async () => {
    const token = await tokenFor(owner1);
    const today = dubaiToday();

    const result = await invoke(ordersDayHandler, sampleEvent('orders-per-day', token));

    const orders = await rawOrders('R-1001', 'TB_AE');
    const main = expectedDays(
      orders,
      'Asia/Dubai',
      eachDay({ from: addDays(today, -6), to: today }),
      2,
    );
    const compare = expectedDays(
      orders,
      'Asia/Dubai',
      eachDay({ from: addDays(today, -13), to: addDays(today, -7) }),
      2,
    );
    expect(result.statusCode).toBe(200);
    expect(result.headers).toMatchObject({ 'Content-Type': 'application/json', ...CORS });
    expect(jsonBody(result)).toEqual({
      data: main.map((data, i) => ({ data, compare: compare[i] })),
    });
  });

  it.each([
    ['R-1001', 'TB_AE', 'Asia/Dubai', 2],
    ['R-1002', 'TB_KW', 'Asia/Kuwait', 3],
  ] as const)(
    'counts %s days in its own time zone over 31 days, zeros included, cancelled excluded, rounded to the currency',
    async (id, platform, timeZone, minorUnits) => {
      const today = todayIn(timeZone);
      const range = { from: addDays(today, -30), to: today };
      const token = await tokenFor(owner1);

      const result = await invoke(
        ordersDayHandler,
        restEvent(reportRequest(ORDERS_DAY, id, token, range, { 'x-platform-id': platform })),
      );

      const expected = expectedDays(
        await rawOrders(id, platform),
        timeZone,
        eachDay(range),
        minorUnits,
      );
      expect(result.statusCode).toBe(200);
      expect(jsonBody(result)).toEqual({ data: expected.map((data) => ({ data })) });
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

  it("reads a restaurant's second platform by its platform restaurantId and X-Platform-Id", async () => {
    const token = await tokenFor(owner1);
    const today = dubaiToday();
    const range = { from: addDays(today, -13), to: today };

    const result = await invoke(
      ordersDayHandler,
      restEvent(
        reportRequest(ORDERS_DAY, 'hs-ae-7702', token, range, { 'X-PLATFORM-ID': 'HS_AE' }),
      ),
    );

    const expected = expectedDays(
      await rawOrders('R-1001', 'HS_AE'),
      'Asia/Dubai',
      eachDay(range),
      2,
    );
    expect(jsonBody(result)).toEqual({ data: expected.map((data) => ({ data })) });
  });

  it('accepts the legacy platform key as the platformId it stands for', async () => {
    const token = await tokenFor(owner1);
    const today = todayIn('Asia/Kuwait');
    const range = { from: addDays(today, -2), to: today };

    const result = await invoke(
      ordersDayHandler,
      restEvent(
        reportRequest(ORDERS_DAY, 'R-1002', token, range, { 'X-Platform-Id': 'TBLEGACY_KW' }),
      ),
    );

    const expected = expectedDays(
      await rawOrders('R-1002', 'TB_KW'),
      'Asia/Kuwait',
      eachDay(range),
      3,
    );
    expect(jsonBody(result)).toEqual({ data: expected.map((data) => ({ data })) });
  });

  it('leaves compare off the rows past the end of a shorter compare range', async () => {
    const token = await tokenFor(owner1);
    const today = dubaiToday();

    const result = await invoke(
      ordersDayHandler,
      restEvent(
        reportRequest(ORDERS_DAY, 'R-1001', token, {
          from: addDays(today, -4),
          to: today,
          'compare[from]': addDays(today, -40),
          'compare[to]': addDays(today, -39),
        }),
      ),
    );

    const rows = (jsonBody(result) as { data: { compare?: unknown }[] }).data;
    expect(rows.map((row) => 'compare' in row)).toEqual([true, true, false, false, false]);
  });
});

describe('CSV export', () => {
  it('answers orders/day with compare as exactly the comparison CSV of spec 2.4, as a download', async () => {
    const token = await tokenFor(owner1);
    const today = dubaiToday();
    const query = {
      from: addDays(today, -2),
      to: today,
      'compare[from]': addDays(today, -9),
      'compare[to]': addDays(today, -7),
      format: 'csv',
    };

    const [csv, json] = await Promise.all([
      invoke(ordersDayHandler, restEvent(reportRequest(ORDERS_DAY, 'R-1001', token, query))),
      invoke(
        ordersDayHandler,
        restEvent(reportRequest(ORDERS_DAY, 'R-1001', token, { ...query, format: 'json' })),
      ),
    ]);

    type Row = { data: Record<string, string | number>; compare: Record<string, string | number> };
    const rows = (jsonBody(json) as { data: Row[] }).data;
    const quoted = (values: (string | number)[]) =>
      values.map((value) => `"${String(value)}"`).join(',');
    expect(csv.statusCode).toBe(200);
    expect(csv.headers).toMatchObject({
      'Content-Type': 'text/csv; charset=utf-8',
      'Content-Disposition': `attachment; filename="orders-per-day_R-1001_${query.from}_${query.to}_vs_${query['compare[from]']}_${query['compare[to]']}.csv"`,
      'Access-Control-Allow-Origin': '*',
      'Access-Control-Expose-Headers': 'Content-Disposition',
    });
    expect(csv.body).toBe(
      [
        'day,orders,sales,day_comparison,orders_comparison,sales_comparison',
        ...rows.map((row) =>
          quoted([
            row.data.date,
            row.data.orderCount,
            row.data.revenue,
            row.compare.date,
            row.compare.orderCount,
            row.compare.revenue,
          ] as (string | number)[]),
        ),
      ]
        .map((line) => `${line}\r\n`)
        .join(''),
    );
  });

  it('answers dishes as CSV when the client sends Accept: text/csv', async () => {
    const token = await tokenFor(owner1);
    const today = dubaiToday();

    const result = await invoke(
      dishesHandler,
      restEvent(
        reportRequest(
          DISHES,
          'R-1001',
          token,
          { from: addDays(today, -6), to: today },
          { Accept: 'text/csv' },
        ),
      ),
    );

    expect(result.statusCode).toBe(200);
    expect(result.body.split('\r\n')[0]).toBe('dish,orders,sales');
    expect(result.body.split('\r\n').length).toBeGreaterThan(2);
  });

  it('keeps errors JSON when CSV was asked for', async () => {
    const token = await tokenFor(owner1);

    const result = await invoke(
      dishesHandler,
      restEvent(
        reportRequest(DISHES, 'R-2001', token, {
          from: dubaiToday(),
          to: dubaiToday(),
          format: 'csv',
        }),
      ),
    );

    expect(result.statusCode).toBe(403);
    expect(result.headers).toMatchObject({ 'Content-Type': 'application/json' });
    expect(jsonBody(result)).toEqual({ state: 'ERROR', code: 'FORBIDDEN', message: 'Forbidden' });
  });
});

describe('GET /v1/restaurants/{id}/reports/dishes', () => {
  it('answers the sample event with every dish ordered, highest revenue first', async () => {
    const token = await tokenFor(owner1);
    const today = dubaiToday();

    const result = await invoke(dishesHandler, sampleEvent('dishes', token));

    const expected = expectedDishes(
      await rawOrders('R-1001', 'TB_AE'),
      'Asia/Dubai',
      { from: addDays(today, -6), to: today },
      2,
    );
    expect(result.statusCode).toBe(200);
    expect(expected.length).toBeGreaterThan(0);
    expect(jsonBody(result)).toEqual({ data: expected.map((data) => ({ data })) });
  });

  it('reports a 3-decimal currency through an HTTP API (v2) event', async () => {
    const token = await tokenFor(owner1);
    const today = todayIn('Asia/Kuwait');
    const range = { from: addDays(today, -30), to: today };

    const result = await invoke(
      dishesHandler,
      httpApiEvent(reportRequest(DISHES, 'tb-kw-3301', token, range, { 'X-Platform-Id': 'TB_KW' })),
    );

    const expected = expectedDishes(await rawOrders('R-1002', 'TB_KW'), 'Asia/Kuwait', range, 3);
    expect(jsonBody(result)).toEqual({ data: expected.map((data) => ({ data })) });
  });
});

describe('spec section 7, as a client meets each row', () => {
  const today = () => dubaiToday();
  const week = () => ({ from: addDays(today(), -6), to: today() });

  it('400 OUT_OF_RANGE when the range is longer than 31 days', async () => {
    const token = await tokenFor(owner1);
    const event = restEvent(
      reportRequest(ORDERS_DAY, 'R-1001', token, { from: addDays(today(), -31), to: today() }),
    );

    const result = await invoke(ordersDayHandler, event);

    expect(result.statusCode).toBe(400);
    expect(result.headers).toMatchObject(CORS);
    expect(jsonBody(result)).toEqual({
      state: 'ERROR',
      code: 'OUT_OF_RANGE',
      message: 'Only 31 days can be selected',
    });
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
  ])(
    '400, not 500, for the year 0000 on %s, which PostgreSQL cannot store',
    async (_case, resource, query) => {
      const token = await tokenFor(owner1);
      const handler = resource === DISHES ? dishesHandler : ordersDayHandler;

      const result = await invoke(
        handler,
        restEvent(reportRequest(resource, 'R-1001', token, query)),
      );

      expect(result.statusCode).toBe(400);
      expect(jsonBody(result)).toMatchObject({ state: 'ERROR', code: 'VALIDATION_ERROR' });
    },
  );

  it('400 VALIDATION_ERROR with one entry per missing field', async () => {
    const token = await tokenFor(owner1);

    const result = await invoke(
      dishesHandler,
      restEvent(reportRequest(DISHES, 'R-1001', token, { to: '' })),
    );

    expect(result.statusCode).toBe(400);
    expect(result.headers).toMatchObject(CORS);
    expect(jsonBody(result)).toEqual({
      state: 'ERROR',
      code: 'VALIDATION_ERROR',
      message: 'Error',
      errors: [
        { field: 'from', code: 'FIELD_CANNOT_BE_EMPTY', message: 'from cannot be empty' },
        { field: 'to', code: 'FIELD_CANNOT_BE_EMPTY', message: 'to cannot be empty' },
      ],
    });
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

    expect(result.statusCode).toBe(401);
    expect(result.headers).toMatchObject({ ...CORS, 'WWW-Authenticate': 'Bearer' });
    expect(jsonBody(result)).toEqual({
      state: 'ERROR',
      code: 'TOKEN_INVALID',
      message: 'Authorization header is invalid. Did you forget to add "Bearer "?',
    });
  });

  it('401 TOKEN_INVALID when the token cannot be verified against the key set', async () => {
    const stranger = await createIssuer();
    const token = await stranger.sign({ sub: 'x', authSchema: { restaurants: [] } });

    const result = await invoke(
      dishesHandler,
      restEvent(reportRequest(DISHES, 'R-1001', token, week())),
    );

    expect(result.statusCode).toBe(401);
    expect(result.headers).toMatchObject(CORS);
    expect(jsonBody(result)).toEqual({
      state: 'ERROR',
      code: 'TOKEN_INVALID',
      message: 'The provided token cannot be verified',
    });
  });

  it('401 TOKEN_EXPIRED when the token has expired', async () => {
    const issuer = await testIssuer();
    const { claimsFor } = await import('../../../scripts/db/sample-data');
    const token = await issuer.sign(claimsFor(owner1), {
      expiresIn: Math.floor(Date.now() / 1000) - 60,
    });

    const result = await invoke(
      ordersDayHandler,
      restEvent(reportRequest(ORDERS_DAY, 'R-1001', token, week())),
    );

    expect(result.statusCode).toBe(401);
    expect(result.headers).toMatchObject(CORS);
    expect(jsonBody(result)).toEqual({
      state: 'ERROR',
      code: 'TOKEN_EXPIRED',
      message: 'The provided token has expired',
    });
  });

  it.each([
    ["another owner's restaurant", 'R-2001', {}],
    ['an own restaurant on a platform it is not on', 'R-1002', { 'X-Platform-Id': 'TB_AE' }],
    ["another restaurant's id on an own platform", 'tb-kw-3301', { 'X-Platform-Id': 'TB_AE' }],
  ])('403 FORBIDDEN for %s', async (_case, id, headers) => {
    const token = await tokenFor(owner1);

    const result = await invoke(
      ordersDayHandler,
      restEvent(reportRequest(ORDERS_DAY, id, token, week(), headers)),
    );

    expect(result.statusCode).toBe(403);
    expect(result.headers).toMatchObject(CORS);
    expect(jsonBody(result)).toEqual({ state: 'ERROR', code: 'FORBIDDEN', message: 'Forbidden' });
  });

  it('500 INTERNAL_ERROR, logged, when the key-set host is unreachable and nothing is cached', async () => {
    const lines: string[] = [];
    const deps = dependencies(
      loadConfig({ ...process.env, JWKS_URL: 'http://127.0.0.1:9/v2/jwks.json' }),
      createLogger('info', (line) => lines.push(line)),
    );
    const endpoint = reportEndpoint(ordersPerDay, deps.database.bind(ordersPerDay.queries), deps);
    const token = await tokenFor(owner1);

    const result = await invoke(
      endpoint,
      restEvent(reportRequest(ORDERS_DAY, 'R-1001', token, week())),
    );

    expect(result.statusCode).toBe(500);
    expect(result.headers).toMatchObject(CORS);
    expect(jsonBody(result)).toEqual({
      state: 'ERROR',
      code: 'INTERNAL_ERROR',
      message: 'Unknown error',
    });
    expect(lines.join('')).toContain('"message":"key set fetch failed"');
    expect(lines.join('')).not.toContain(token);
  });

  it('500 INTERNAL_ERROR when the database cannot be reached', async () => {
    const deps = dependencies(
      loadConfig({
        ...process.env,
        DATABASE_URL: 'postgres://postgres@127.0.0.1:9/none',
        DB_CONNECT_TIMEOUT_SECONDS: '1',
      }),
    );
    const endpoint = reportEndpoint(ordersPerDay, deps.database.bind(ordersPerDay.queries), deps);
    const token = await tokenFor(owner1);

    const result = await invoke(
      endpoint,
      restEvent(reportRequest(ORDERS_DAY, 'R-1001', token, week())),
    );

    expect(result.statusCode).toBe(500);
    expect(jsonBody(result)).toEqual({
      state: 'ERROR',
      code: 'INTERNAL_ERROR',
      message: 'Unknown error',
    });
  });
});

describe('OPTIONS (spec 4.3)', () => {
  it('answers the sample preflight event with 200 and the four CORS headers, no token needed', async () => {
    const result = await invoke(ordersDayHandler, sampleEvent('orders-per-day-preflight', ''));

    expect(result).toEqual({
      statusCode: 200,
      headers: {
        'Access-Control-Allow-Origin': '*',
        'Access-Control-Allow-Headers': 'Content-Type,Authorization',
        'Access-Control-Allow-Methods': 'OPTIONS,GET',
        'Access-Control-Allow-Credentials': 'false',
        'Access-Control-Max-Age': '600',
      },
      body: '',
    });
  });
});
