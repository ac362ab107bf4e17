/**
 * The orders-today, revenue and dashboard handlers on real API Gateway events, the real database
 * and key set, checked against an independent reading of the orders (services-oracle.ts) at the
 * moments before and after the call; DST days and months on a rolled-back fixture restaurant.
 */
import type { APIGatewayProxyResult } from 'aws-lambda';
import { handler as dashboardHandler } from '../../../functions/dashboard';
import { handler as ordersTodayHandler } from '../../../functions/orders-today';
import { handler as revenueHandler } from '../../../functions/revenue';
import type { SampleOwner } from '../../../tools/db/sample-data';
import type { IsoDate } from '../../../shared/dates';
import { addDays, todayIn } from '../../../tools/dates';
import { dashboard } from '../../../shared/reports/dashboard';
import { dashboardQueries } from '../../../shared/reports/dashboard.sql';
import { ordersToday } from '../../../shared/reports/orders-today';
import { ordersTodayQueries } from '../../../shared/reports/orders-today.sql';
import { revenue } from '../../../shared/reports/revenue';
import { revenueQueries } from '../../../shared/reports/revenue.sql';
import { closeContainerDependencies } from '../../../shared/runtime';
import {
  httpApiEvent,
  jsonBody,
  restEvent,
  sampleEvent,
  type RequestSpec,
} from '../../support/events';
import {
  CORS,
  expectError,
  invoke,
  owner1,
  owner2,
  owner3,
  PREFLIGHT,
  reportRequest,
} from '../../support/handlers';
import { BODIES, emptyField, repeatedField, validation } from '../../support/portal-errors';
import {
  addMonths,
  eachMonth,
  expectedDashboard,
  expectedOrdersToday,
  expectedRevenue,
  listedOrders,
  monthlySampleEvent,
  monthOf,
  withFixture,
  type Fixture,
} from '../../support/services-oracle';
import { tokenFor, tokenWithRestaurants } from '../../support/tokens';

const ORDERS_TODAY = '/v1/restaurants/{id}/orders/today';
const REVENUE = '/v1/restaurants/{id}/reports/revenue';
const DASHBOARD = '/v1/restaurants/{id}/dashboard';
/** A route's alias under /res (spec 4.2). */
const res = (route: string) => route.replace('/v1/restaurants/', '/res/');

/** Invokes and notes the clock just before and just after, for answers that depend on it. */
const invokeTimed = async (handler: unknown, event: unknown) => {
  const before = new Date();
  const result = await invoke(handler, event);
  const after = new Date();
  return { result, moments: [before, after] };
};

afterAll(closeContainerDependencies);

const restaurantOf = (
  owner: SampleOwner,
  id: string,
  platform: string,
  timeZone: string,
  currency: string,
  minorUnits: number,
) => ({ owner, id, platform, timeZone, currency, minorUnits });
type Restaurant = ReturnType<typeof restaurantOf>;
const DUBAI = restaurantOf(owner1, 'R-1001', 'TB_AE', 'Asia/Dubai', 'AED', 2);
const KUWAIT = restaurantOf(owner1, 'R-1002', 'TB_KW', 'Asia/Kuwait', 'KWD', 3);
const BERLIN = restaurantOf(owner2, 'R-2001', 'FD_DE', 'Europe/Berlin', 'EUR', 2);
const MEXICO = restaurantOf(owner3, 'R-3001', 'PY_MX', 'America/Mexico_City', 'MXN', 2);

type EventKind = 'REST v1' | 'HTTP API v2';

const eventOf = (kind: EventKind, spec: RequestSpec) =>
  kind === 'REST v1' ? restEvent(spec) : httpApiEvent(spec);

/** GET `resource` of `restaurant` on its platform with the bearer `token`. */
const request = (
  resource: string,
  restaurant: Restaurant,
  token: string,
  query: Record<string, string | string[]> = {},
): RequestSpec =>
  reportRequest(resource, restaurant.id, token, query, { 'X-Platform-Id': restaurant.platform });

/** GET `resource` of `restaurant` as its owner, through an event of `kind`, timed. */
const getAsOwner = async (
  handler: unknown,
  restaurant: Restaurant,
  kind: EventKind,
  resource: string,
  query: Record<string, string | string[]> = {},
) => {
  const token = await tokenFor(restaurant.owner);
  return invokeTimed(handler, eventOf(kind, request(resource, restaurant, token, query)));
};

/** The orders of `r` on its platform, read independently of the handlers. */
const ordersOf = (r: Restaurant) => listedOrders(r.id, r.platform);
/** The orders-today body of `r` at a moment, read from its orders. */
const ordersTodayAt = async (r: Restaurant) => {
  const orders = await ordersOf(r);
  return (now: Date) => ({
    data: expectedOrdersToday(orders, r.timeZone, r.minorUnits, now).map((data) => ({ data })),
  });
};
/** The dashboard body of `r` at a moment, read from its orders. */
const dashboardAt = async (r: Restaurant) => {
  const orders = await ordersOf(r);
  return (now: Date) => ({
    data: expectedDashboard(orders, r.timeZone, r.currency, r.minorUnits, now),
  });
};
/** The revenue rows of `r` over the months from `from` to `to`, read from its orders. */
const revenueOf = async (r: Restaurant, from: IsoDate, to: IsoDate) =>
  expectedRevenue(await ordersOf(r), r.timeZone, eachMonth(from, to), r.minorUnits);

/** An RFC 4180 body as the reports export it: every value quoted, CRLF line ends. */
const csvOf = (header: string, rows: readonly (readonly (string | number)[])[]): string =>
  [header, ...rows.map((row) => row.map((value) => `"${String(value)}"`).join(','))]
    .map((line) => `${line}\r\n`)
    .join('');

/**
 * Restaurants whose local day is not Dubai's, each asked through an event kind on `route` or
 * its alias: a 3-decimal currency, a zone with DST, a negative UTC offset.
 */
const localDays = (route: string) =>
  [
    ['R-1002', 'a 3-decimal currency', 'REST v1', res(route), KUWAIT],
    ['R-2001', 'a zone with DST', 'HTTP API v2', route, BERLIN],
    ['R-3001', 'a negative UTC offset', 'HTTP API v2', res(route), MEXICO],
  ] as const;

/** Expects a 200 JSON answer with the CORS header, `expected` at one of the moments. */
const expectAnswerAt = (
  result: APIGatewayProxyResult,
  moments: readonly Date[],
  expected: (now: Date) => unknown,
) => {
  expect(result.statusCode).toBe(200);
  expect(result.headers).toMatchObject({ 'Content-Type': 'application/json', ...CORS });
  expect(moments.map(expected)).toContainEqual(jsonBody(result));
};

const CSV = { format: 'csv' };
/** Expects a 200 CSV download named `filename`, with the CORS header. */
const expectCsv = (result: APIGatewayProxyResult, filename: string) => {
  expect(result.statusCode).toBe(200);
  expect(result.headers).toMatchObject({
    'Content-Type': 'text/csv; charset=utf-8',
    'Content-Disposition': `attachment; filename="${filename}"`,
    ...CORS,
  });
};

/** A dashboard of zeros on `date`, compared with the week before. */
const zeroDashboard = (date: IsoDate, currency: string | null) => {
  const zero = { value: 0, compare: 0 };
  const figures = { orders: zero, revenue: zero, averageOrderValue: zero, cancellationRate: zero };
  return { date, compareDate: addDays(date, -7), currency, ...figures };
};

/** The months the sample data covers (its 90 days up to today), and one month after. */
const sampleMonths = (timeZone: string) => {
  const today = todayIn(timeZone);
  return { from: monthOf(addDays(today, -89)), to: addMonths(monthOf(today), 1) };
};

describe('GET /v1/restaurants/{id}/orders/today', () => {
  it("answers the sample event with every order of the restaurant's local day, newest first", async () => {
    // Act
    const { result, moments } = await invokeTimed(
      ordersTodayHandler,
      sampleEvent('orders-today', await tokenFor(owner1)),
    );

    // Assess
    expectAnswerAt(result, moments, await ordersTodayAt(DUBAI));
  });

  it.each(localDays(ORDERS_TODAY))(
    'lists the local day of %s (%s) with its offsets, through %s on %s',
    async (_id, _case, kind, resource, restaurant) => {
      // Act
      const { result, moments } = await getAsOwner(ordersTodayHandler, restaurant, kind, resource);

      // Assess
      expectAnswerAt(result, moments, await ordersTodayAt(restaurant));
    },
  );

  it('exports CSV with format=csv: one quoted line per order under the declared columns', async () => {
    // Act
    const timed = await getAsOwner(ordersTodayHandler, DUBAI, 'REST v1', ORDERS_TODAY, CSV);

    // Assess
    const { result, moments } = timed;
    const orders = await ordersOf(DUBAI);
    expectCsv(result, 'orders-today_R-1001_today.csv');
    const rowsAt = (now: Date) =>
      expectedOrdersToday(orders, DUBAI.timeZone, 2, now).map((o) => [
        o.id,
        o.placedAt,
        o.state,
        o.itemCount,
        o.total,
      ]);
    expect(moments.map((now) => csvOf('order,placed_at,state,items,total', rowsAt(now)))).toContain(
      result.body,
    );
  });
});

describe('GET /v1/restaurants/{id}/reports/revenue', () => {
  it('answers the sample event with one row per month, each with its year', async () => {
    // Prepare
    const token = await tokenFor(owner1);
    const thisMonth = monthOf(todayIn(DUBAI.timeZone));

    // Act
    const result = await invoke(revenueHandler, monthlySampleEvent('revenue', token));

    // Assess
    const expected = await revenueOf(DUBAI, addMonths(thisMonth, -2), thisMonth);
    expect(result.statusCode).toBe(200);
    expect(result.headers).toMatchObject({ 'Content-Type': 'application/json', ...CORS });
    expect(jsonBody(result)).toEqual({ data: expected.map((data) => ({ data })) });
    expect(expected.some((month) => month.orderCount > 0)).toBe(true);
  });

  it.each([
    ['R-2001', 'a zone with DST', 'HTTP API v2', res(REVENUE), BERLIN],
    ['R-3001', 'evening orders on the next UTC day', 'REST v1', REVENUE, MEXICO],
    ['R-1002', 'a 3-decimal currency', 'HTTP API v2', REVENUE, KUWAIT],
  ] as const)(
    'counts the local months of %s (%s), an empty month as zeros, through %s on %s',
    async (_id, _case, kind, resource, restaurant) => {
      // Prepare
      const { from, to } = sampleMonths(restaurant.timeZone);

      // Act
      const { result } = await getAsOwner(revenueHandler, restaurant, kind, resource, { from, to });

      // Assess
      const expected = await revenueOf(restaurant, from, to);
      expect(result.statusCode).toBe(200);
      expect(jsonBody(result)).toEqual({ data: expected.map((data) => ({ data })) });
      expect(expected.at(-1)?.orderCount).toBe(0);
      expect(expected.some((month) => month.orderCount > 0)).toBe(true);
    },
  );

  it('exports CSV with format=csv under month,year,orders,sales', async () => {
    // Prepare
    const { from, to } = sampleMonths(DUBAI.timeZone);

    // Act
    const { result } = await getAsOwner(revenueHandler, DUBAI, 'REST v1', REVENUE, {
      ...CSV,
      from,
      to,
    });

    // Assess
    const expected = await revenueOf(DUBAI, from, to);
    expectCsv(result, `revenue_R-1001_${from.slice(0, 7)}_${to.slice(0, 7)}.csv`);
    expect(result.body).toBe(
      csvOf(
        'month,year,orders,sales',
        expected.map((row) => [row.month, row.year, row.orderCount, row.revenue]),
      ),
    );
  });

  it.each([
    ['from and to missing', {}, validation(emptyField('from'), emptyField('to'))],
    [
      'a day that is not the first of a month',
      { from: '2026-01-15', to: '2026-03-01' },
      validation({
        field: 'from',
        code: 'INVALID_DATE',
        message: 'from must be the first day of a month (YYYY-MM-01)',
      }),
    ],
    [
      'from after to',
      { from: '2026-04-01', to: '2026-03-01' },
      validation({ field: 'from', code: 'INVALID_RANGE', message: 'from must not be after to' }),
    ],
    [
      'a repeated to',
      { from: '2026-01-01', to: ['2026-02-01', '2026-03-01'] },
      validation(repeatedField('to')),
    ],
    ['thirteen months', { from: '2025-01-01', to: '2026-01-01' }, BODIES.monthsOutOfRange],
  ])('400 for %s, with the CORS header', async (_case, query, body) => {
    // Act
    const { result } = await getAsOwner(revenueHandler, DUBAI, 'REST v1', REVENUE, query);

    // Assess
    expectError(result, 400, body, { 'Content-Type': 'application/json' });
  });
});

describe('GET /v1/restaurants/{id}/dashboard', () => {
  it("answers the sample event with today's figures against the same weekday a week earlier", async () => {
    // Act
    const { result, moments } = await invokeTimed(
      dashboardHandler,
      sampleEvent('dashboard', await tokenFor(owner1)),
    );

    // Assess
    expectAnswerAt(result, moments, await dashboardAt(DUBAI));
  });

  it.each(localDays(DASHBOARD))(
    'compares like with like for %s (%s), through %s on %s',
    async (_id, _case, kind, resource, restaurant) => {
      // Act
      const { result, moments } = await getAsOwner(dashboardHandler, restaurant, kind, resource);

      // Assess
      expectAnswerAt(result, moments, await dashboardAt(restaurant));
    },
  );
});

describe('a restaurant the token grants but the database does not know', () => {
  const unknown: Restaurant = { ...DUBAI, id: 'R-9999', platform: 'TB_AE' };
  const grant = () =>
    tokenWithRestaurants([
      { id: 'R-9999', platforms: [{ restaurantId: 'tb-ae-9999', platformId: 'TB_AE' }] },
    ]);

  it('has no orders today', async () => {
    // Act
    const result = await invoke(
      ordersTodayHandler,
      restEvent(request(ORDERS_TODAY, unknown, await grant())),
    );

    // Assess
    expect(result.statusCode).toBe(200);
    expect(jsonBody(result)).toEqual({ data: [] });
  });

  it('has zero months', async () => {
    // Act
    const result = await invoke(
      revenueHandler,
      restEvent(request(REVENUE, unknown, await grant(), { from: '2026-01-01', to: '2026-02-01' })),
    );

    // Assess
    expect(result.statusCode).toBe(200);
    expect(jsonBody(result)).toEqual({
      data: [
        { data: { month: '2026-01-01', year: '2026-01-01', orderCount: 0, revenue: 0 } },
        { data: { month: '2026-02-01', year: '2026-01-01', orderCount: 0, revenue: 0 } },
      ],
    });
  });

  it('has a dashboard of zeros on the UTC day, without a currency', async () => {
    // Act
    const { result, moments } = await invokeTimed(
      dashboardHandler,
      restEvent(request(DASHBOARD, unknown, await grant())),
    );

    // Assess
    expect(result.statusCode).toBe(200);
    expect(
      moments.map((now) => ({ data: zeroDashboard(todayIn('UTC', now), null) })),
    ).toContainEqual(jsonBody(result));
  });
});

describe.each([
  ['orders today', ordersTodayHandler, ORDERS_TODAY, res(ORDERS_TODAY), {}],
  ['revenue', revenueHandler, REVENUE, res(REVENUE), { from: '2026-01-01', to: '2026-03-01' }],
  ['dashboard', dashboardHandler, DASHBOARD, res(DASHBOARD), {}],
])('the %s endpoint keeps the contract of every endpoint', (_name, handler, v1, res, query) => {
  it.each([v1, res])('OPTIONS %s: 200 with the spec 4.3 headers, no token needed', async (path) => {
    // Act
    const result = await invoke(
      handler,
      restEvent({ method: 'OPTIONS', resource: path, pathParameters: { id: 'R-1001' } }),
    );

    // Assess
    expect(result).toEqual(PREFLIGHT);
  });

  it('401 TOKEN_INVALID without a token, with the CORS header', async () => {
    // Act
    const result = await invoke(
      handler,
      httpApiEvent({ resource: res, pathParameters: { id: 'R-1001' }, query }),
    );

    // Assess
    expectError(result, 401, BODIES.bearerMissing, { 'WWW-Authenticate': 'Bearer' });
  });

  it("403 FORBIDDEN for another owner's restaurant, with the CORS header", async () => {
    // Prepare
    const token = await tokenFor(owner2);

    // Act
    const result = await invoke(handler, restEvent(request(v1, DUBAI, token, query)));

    // Assess
    expectError(result, 403, BODIES.forbidden);
  });

  it('400 VALIDATION_ERROR for an empty restaurant id, with the CORS header', async () => {
    // Prepare
    const token = await tokenFor(owner1);

    // Act
    const result = await invoke(handler, restEvent(reportRequest(v1, '', token, query)));

    // Assess
    expectError(result, 400, validation(emptyField('id')));
  });
});

describe.each([
  ['orders today', ordersTodayHandler, ORDERS_TODAY, {}],
  ['revenue', revenueHandler, REVENUE, { from: '2026-01-01', to: '2026-03-01' }],
])('the %s report', (_name, handler, resource, query) => {
  it('400 VALIDATION_ERROR for an unknown format, with the CORS header', async () => {
    // Act
    const xml = { ...query, format: 'xml' };
    const { result } = await getAsOwner(handler, DUBAI, 'REST v1', resource, xml);

    // Assess
    expectError(
      result,
      400,
      validation({ field: 'format', code: 'INVALID_VALUE', message: 'format must be json or csv' }),
    );
  });
});

describe('days and months around DST changes, on a restaurant inside a rolled-back transaction', () => {
  const SCOPE = { restaurantId: 'R-FIXTURE', platformId: 'FX_DE' };
  const fixture = (timeZone: string, orders: Fixture['orders'], now?: string): Fixture => ({
    ...SCOPE,
    timeZone,
    currency: 'EUR',
    orders,
    ...(now === undefined ? {} : { now }),
  });
  const order = (placedAt: string, state = 'DELIVERED', total = '1.000', quantities = [1]) => ({
    placedAt,
    state,
    total,
    quantities,
  });

  /** The placedAt of every order today lists on the fixture, newest first. */
  const placedTimes = (of: Fixture) =>
    withFixture(of, async (sql) =>
      (await ordersToday.rows(ordersTodayQueries(sql), SCOPE, {})).map((row) => row.data.placedAt),
    );

  it('lists the 25 hours of the autumn DST day in Berlin, each order with the offset of its instant', async () => {
    // Prepare
    const orders = [
      order('2026-10-24T21:59:00Z'), // 23:59+02:00 the day before
      order('2026-10-24T22:00:00Z', 'DELIVERED', '12.345', [2, 1]), // 00:00+02:00
      order('2026-10-25T00:30:00Z', 'CANCELLED', '0.005', [1]), // 02:30+02:00
      order('2026-10-25T01:30:00Z', 'REJECTED', '10.004', [4]), // 02:30+01:00, an hour later
      order('2026-10-25T22:59:00Z', 'PLACED', '7.000', [1, 1, 1]), // 23:59+01:00
      order('2026-10-25T23:00:00Z'), // 00:00+01:00 the day after
    ];

    // Act
    const { rows, ids } = await withFixture(
      fixture('Europe/Berlin', orders, '2026-10-25T12:00:00Z'),
      async (sql, ids) => ({
        rows: await ordersToday.rows(ordersTodayQueries(sql), SCOPE, {}),
        ids,
      }),
    );

    const row = (i: number, placedAt: string, state: string, itemCount: number, total: number) => ({
      data: { id: ids[i], placedAt, state, itemCount, total },
    });

    // Assess
    expect(rows).toEqual([
      row(4, '2026-10-25T23:59:00+01:00', 'PLACED', 3, 7),
      row(3, '2026-10-25T02:30:00+01:00', 'REJECTED', 4, 10),
      row(2, '2026-10-25T02:30:00+02:00', 'CANCELLED', 1, 0.01),
      row(1, '2026-10-25T00:00:00+02:00', 'DELIVERED', 3, 12.35),
    ]);
  });

  it('lists the 23 hours of the spring DST day in Berlin', async () => {
    // Prepare
    const orders = [
      order('2026-03-28T22:59:00Z'), // 23:59+01:00 the day before
      order('2026-03-28T23:00:00Z'), // 00:00+01:00
      order('2026-03-29T00:59:00Z'), // 01:59+01:00
      order('2026-03-29T01:00:00Z'), // 03:00+02:00, the next minute
      order('2026-03-29T21:59:00Z'), // 23:59+02:00
      order('2026-03-29T22:00:00Z'), // 00:00+02:00 the day after
    ];

    // Act
    const placed = await placedTimes(fixture('Europe/Berlin', orders, '2026-03-29T10:00:00Z'));

    // Assess
    expect(placed).toEqual([
      '2026-03-29T23:59:00+02:00',
      '2026-03-29T03:00:00+02:00',
      '2026-03-29T01:59:00+01:00',
      '2026-03-29T00:00:00+01:00',
    ]);
  });

  it.each([
    ['America/St_Johns', '2026-07-01T02:30:00Z', '2026-07-01T00:00:00-02:30'],
    ['Asia/Kathmandu', '2026-06-30T18:15:00Z', '2026-07-01T00:00:00+05:45'],
    ['UTC', '2026-07-01T00:00:00Z', '2026-07-01T00:00:00+00:00'],
  ])(
    'writes the offset of %s with its sign and minutes, from its local midnight',
    async (timeZone, midnight, placedAt) => {
      // Prepare
      const before = new Date(Date.parse(midnight) - 60_000).toISOString();

      // Act
      const placed = await placedTimes(
        fixture(timeZone, [order(before), order(midnight)], '2026-07-01T12:00:00Z'),
      );

      // Assess
      expect(placed).toEqual([placedAt]);
    },
  );

  it("buckets counted orders into Berlin's calendar months on both sides of each DST change", async () => {
    // Prepare
    const orders = [
      order('2025-12-31T22:59:00Z', 'DELIVERED', '1000.000'), // 2025-12-31 23:59+01:00
      order('2026-02-28T22:59:00Z', 'DELIVERED', '1.000'), // 02-28 23:59+01:00
      order('2026-02-28T23:00:00Z', 'DELIVERED', '2.000'), // 03-01 00:00+01:00
      order('2026-03-15T12:00:00Z', 'CANCELLED', '500.000'), // not counted
      order('2026-03-31T21:59:00Z', 'ACCEPTED', '4.005'), // 03-31 23:59+02:00
      order('2026-03-31T22:00:00Z', 'PLACED', '8.000'), // 04-01 00:00+02:00
      order('2026-09-30T21:59:00Z', 'DELIVERED', '16.000'), // 09-30 23:59+02:00
      order('2026-09-30T22:00:00Z', 'DELIVERED', '32.000'), // 10-01 00:00+02:00
      order('2026-10-31T22:59:00Z', 'REJECTED', '64.000'), // not counted
      order('2026-10-31T22:59:30Z', 'DELIVERED', '64.000'), // 10-31 23:59+01:00
      order('2026-10-31T23:00:00Z', 'DELIVERED', '128.000'), // 11-01 00:00+01:00
      order('2026-12-31T23:00:00Z', 'DELIVERED', '1000.000'), // 2027-01-01 00:00+01:00
    ];

    // Act
    const rows = await withFixture(fixture('Europe/Berlin', orders), (sql) =>
      revenue.rows(revenueQueries(sql), SCOPE, {
        months: { from: '2026-01-01' as IsoDate, to: '2026-12-01' as IsoDate },
      }),
    );

    // Assess
    const counts = [0, 1, 2, 1, 0, 0, 0, 0, 1, 2, 1, 0]; // January to December
    const sales = [0, 1, 6.01, 8, 0, 0, 0, 0, 16, 96, 128, 0];
    expect(rows).toEqual(
      counts.map((orderCount, i) => ({
        data: {
          month: `2026-${String(i + 1).padStart(2, '0')}-01`,
          year: '2026-01-01',
          orderCount,
          revenue: sales[i],
        },
      })),
    );
  });

  it('compares the autumn DST day with the week before up to the same local time, not the same instant', async () => {
    // Prepare: now is 13:00+01:00 on Sunday 2026-10-25; a week earlier 13:00 was 11:00Z.
    const orders = [
      order('2026-10-24T21:59:00Z', 'DELIVERED', '50.000'), // the day before
      order('2026-10-24T22:00:00Z', 'DELIVERED', '10.005'), // local midnight
      order('2026-10-25T08:00:00Z', 'CANCELLED', '5.000'),
      order('2026-10-25T12:00:00Z', 'ACCEPTED', '20.000'), // now
      order('2026-10-25T12:01:00Z', 'DELIVERED', '99.000'), // after now
      order('2026-10-17T21:59:00Z', 'DELIVERED', '50.000'), // the day before the compare day
      order('2026-10-17T22:00:00Z', 'PLACED', '7.500'), // its local midnight
      order('2026-10-18T09:00:00Z', 'CANCELLED', '3.000'),
      order('2026-10-18T10:00:00Z', 'REJECTED', '3.000'),
      order('2026-10-18T11:00:00Z', 'DELIVERED', '2.500'), // 13:00+02:00
      order('2026-10-18T11:01:00Z', 'DELIVERED', '100.000'), // 13:01+02:00, a week before now
    ];

    // Act
    const data = await withFixture(
      fixture('Europe/Berlin', orders, '2026-10-25T12:00:00Z'),
      (sql) => dashboard.run(dashboardQueries(sql), SCOPE, {}),
    );

    // Assess
    expect(data).toEqual({
      date: '2026-10-25',
      compareDate: '2026-10-18',
      currency: 'EUR',
      orders: { value: 2, compare: 2 },
      revenue: { value: 30.01, compare: 10 },
      averageOrderValue: { value: 15, compare: 5 },
      cancellationRate: { value: 0.3333, compare: 0.5 },
    });
  });

  it('answers zeros, not a division by zero, on a dashboard without orders', async () => {
    // Act
    const data = await withFixture(fixture('Europe/Berlin', [], '2026-10-25T12:00:00Z'), (sql) =>
      dashboard.run(dashboardQueries(sql), SCOPE, {}),
    );

    // Assess
    expect(data).toEqual({
      ...zeroDashboard('2026-10-25' as IsoDate, 'EUR'),
      compareDate: '2026-10-18',
    });
  });
});
