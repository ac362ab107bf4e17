/**
 * Authorization (issue 4): a generated matrix over every sample owner × every restaurant
 * identifier of the sample data (brand ids and platform restaurantIds) × every platform × every
 * way of naming the platform — none, an empty header, X-Platform-Id in several casings, the same
 * value twice, two different values (one header repeated, or two spellings of it), the value in
 * the wrong case, and the legacy key TBLEGACY_KW with no sunset, on its sunset day, the day
 * after and long past it. Each request goes through the real chain of orders/day (the deployed
 * handler, or the same composition on dependencies with a sunset) and a sample through dishes,
 * revenue, orders/today and the dashboard.
 *
 * The expectation is derived here from README "The ownership rule", independently of
 * shared/auth/ownership.ts: 200 exactly when the path id is the caller's own restaurant — its
 * brand id, or its restaurantId on the requested platform — on a platform that restaurant has,
 * and the platform is named unambiguously and validly; otherwise 403 with the spec body.
 * A 200 must also be the right restaurant's data on the right platform.
 */
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { handler as dashboardHandler } from '../../functions/dashboard/today';
import { handler as ordersTodayHandler } from '../../functions/orders/today';
import { handler as dishesHandler } from '../../functions/reports/dishes';
import { handler as ordersDayHandler } from '../../functions/reports/orders-day';
import { handler as revenueHandler } from '../../functions/reports/revenue';
import { reportEndpoint, serviceEndpoint } from '../../middleware/compose';
import {
  CURRENCIES,
  SAMPLE_LEGACY_KEY,
  SAMPLE_LEGACY_PLATFORM,
  SAMPLE_OWNERS,
  type SampleOwner,
  type SampleRestaurant,
} from '../../scripts/db/sample-data';
import { loadConfig } from '../../shared/config';
import { dashboardQueries } from '../../shared/dashboard/queries';
import { dashboard } from '../../shared/dashboard/today';
import type { IsoDate } from '../../shared/dates';
import { addDays, todayIn } from '../../scripts/dates';
import { dishes } from '../../shared/reports/dishes';
import { ordersPerDay } from '../../shared/reports/orders-per-day';
import { ordersToday } from '../../shared/reports/orders-today';
import { ordersTodayQueries } from '../../shared/reports/queries/orders-today';
import { revenueQueries } from '../../shared/reports/queries/revenue';
import { revenue } from '../../shared/reports/revenue';
import {
  closeContainerDependencies,
  createDependencies,
  type Dependencies,
} from '../../shared/runtime';
import { jsonBody, lambdaContext, restEvent } from '../support/events';
import { expectedDays, expectedDishes, rawOrders, type RawOrder } from '../support/oracle';
import { tokenFor } from '../support/tokens';

/** The served rows run real report queries: a busy machine needs more than Jest's 30 s. */
const MATRIX_TIMEOUT = 180_000;

const FORBIDDEN = { state: 'ERROR', code: 'FORBIDDEN', message: 'Forbidden' };

// ---------------------------------------------------------------------------------------------
// The sample data, as the matrix's axes.

const RESTAURANTS = SAMPLE_OWNERS.flatMap((owner) => owner.restaurants);
const IDENTIFIERS = [
  ...RESTAURANTS.map((restaurant) => restaurant.id),
  ...RESTAURANTS.flatMap((restaurant) => restaurant.platforms.map((p) => p.restaurantId)),
];
const PLATFORMS = [...new Set(RESTAURANTS.flatMap((r) => r.platforms.map((p) => p.platformId)))];

// ---------------------------------------------------------------------------------------------
// Ways of naming the platform.

/**
 * Which chain answers: the deployed handler (legacy keys configured, no sunset), or the same
 * composition with LEGACY_PLATFORM_KEYS_SUNSET set.
 */
type Setting = 'no sunset' | 'on its sunset day' | 'the day after its sunset' | 'past its sunset';

/** The legacy key is honoured while no sunset is configured and up to the sunset day, inclusive. */
const LEGACY_HONOURED: Readonly<Record<Setting, boolean>> = {
  'no sunset': true,
  'on its sunset day': true,
  'the day after its sunset': false,
  'past its sunset': false,
};

/** A sunset far ahead, for the two settings whose "today" the test fixes. */
const SUNSET_DAY = '2030-06-30' as IsoDate;
const DAY_AFTER_SUNSET = '2030-07-01' as IsoDate;
const PAST_SUNSET = '2020-01-01';

interface Naming {
  readonly name: string;
  readonly headers: Readonly<Record<string, string | readonly string[]>>;
  /** Every platform value the client sent, in order. */
  readonly sent: readonly string[];
  readonly setting: Setting;
}

const header = (
  name: string,
  values: readonly string[],
  setting: Setting = 'no sunset',
  note = '',
): Naming => ({
  name: `${name}: ${values.join(', ')}${note} [${setting}]`,
  headers: { [name]: values.length === 1 ? (values[0] ?? '') : values },
  sent: values,
  setting,
});

const HEADER_CASINGS = ['X-Platform-Id', 'x-platform-id', 'X-PLATFORM-ID', 'x-PlAtFoRm-iD'];

const platformNamings = (platform: string): Naming[] => {
  const other = PLATFORMS[(PLATFORMS.indexOf(platform) + 1) % PLATFORMS.length] ?? platform;
  return [
    ...HEADER_CASINGS.map((name) => header(name, [platform])),
    header('X-Platform-Id', [platform, platform], 'no sunset', ' (repeated)'),
    header('X-Platform-Id', [platform, other], 'no sunset', ' (repeated, disagreeing)'),
    {
      name: `X-Platform-Id: ${platform} and x-platform-id: ${other} (two spellings, disagreeing)`,
      headers: { 'X-Platform-Id': platform, 'x-platform-id': other },
      sent: [platform, other],
      setting: 'no sunset',
    },
    header('X-Platform-Id', [platform.toLowerCase()], 'no sunset', ' (value in lower case)'),
  ];
};

const legacyNamings = (setting: Setting): Naming[] => [
  header('X-Platform-Id', [SAMPLE_LEGACY_KEY], setting, ' (legacy key)'),
  header(
    'X-Platform-Id',
    [SAMPLE_LEGACY_KEY, SAMPLE_LEGACY_PLATFORM],
    setting,
    ' (legacy key beside its platformId)',
  ),
  ...(setting === 'no sunset' ? [] : [header('X-Platform-Id', [SAMPLE_LEGACY_PLATFORM], setting)]),
];

const NONE: Naming = { name: 'no platform named', headers: {}, sent: [], setting: 'no sunset' };
const EMPTY = header('X-Platform-Id', [''], 'no sunset', '(empty)');

const SETTINGS: readonly Setting[] = [
  'no sunset',
  'on its sunset day',
  'the day after its sunset',
  'past its sunset',
];

/** Every way of naming every platform: the full matrix runs these on orders/day. */
const ALL_NAMINGS: readonly Naming[] = [
  NONE,
  EMPTY,
  ...PLATFORMS.flatMap(platformNamings),
  ...SETTINGS.flatMap(legacyNamings),
];

/** The sample the other routes run: nothing named, each platform once, a disagreement, legacy. */
const SAMPLE_NAMINGS: readonly Naming[] = [
  NONE,
  ...PLATFORMS.map((platform) => header('X-Platform-Id', [platform])),
  header('x-platform-id', [PLATFORMS[0] ?? '', PLATFORMS[1] ?? ''], 'no sunset', ' (disagreeing)'),
  header('X-Platform-Id', [SAMPLE_LEGACY_KEY], 'no sunset', ' (legacy key)'),
  header('X-Platform-Id', [SAMPLE_LEGACY_KEY], 'past its sunset', ' (legacy key)'),
];

// ---------------------------------------------------------------------------------------------
// The rule, re-derived from the README.

const LEGACY_KEYS: ReadonlyMap<string, string> = new Map([
  [SAMPLE_LEGACY_KEY, SAMPLE_LEGACY_PLATFORM],
]);

type Expected =
  | { readonly status: 200; readonly restaurant: SampleRestaurant; readonly platform: string }
  | { readonly status: 403 };

const expectedFor = (owner: SampleOwner, id: string, naming: Naming): Expected => {
  const sent = naming.sent.map((value) => value.trim()).filter((value) => value !== '');
  let platform: string | undefined;
  if (sent.length === 0) {
    // Nothing named: the first platform of the first restaurant in the token (spec 5.5).
    platform = owner.restaurants[0]?.platforms[0]?.platformId;
  } else {
    const named = sent.map((value) => {
      const current = LEGACY_KEYS.get(value);
      if (current === undefined) return value;
      return LEGACY_HONOURED[naming.setting] ? current : undefined;
    });
    const distinct = new Set(named);
    platform = distinct.size === 1 && !distinct.has(undefined) ? named[0] : undefined;
  }
  if (platform === undefined) return { status: 403 };
  const onPlatform = owner.restaurants.filter((restaurant) =>
    restaurant.platforms.some((p) => p.platformId === platform),
  );
  const restaurant =
    onPlatform.find((candidate) => candidate.id === id) ??
    onPlatform.find((candidate) =>
      candidate.platforms.some((p) => p.platformId === platform && p.restaurantId === id),
    );
  return restaurant ? { status: 200, restaurant, platform } : { status: 403 };
};

// ---------------------------------------------------------------------------------------------
// Routes and the chains that answer them.

type Route = 'orders/day' | 'dishes' | 'revenue' | 'orders/today' | 'dashboard';
type Invoke = (event: APIGatewayProxyEvent) => Promise<APIGatewayProxyResult>;
type Chains = Readonly<Record<Route, Invoke>>;

const RESOURCES: Readonly<Record<Route, string>> = {
  'orders/day': '/v1/restaurants/{id}/reports/orders/day',
  dishes: '/v1/restaurants/{id}/reports/dishes',
  revenue: '/res/{id}/reports/revenue',
  'orders/today': '/v1/restaurants/{id}/orders/today',
  dashboard: '/res/{id}/dashboard',
};

/**
 * The day orders/day reports (one day: the query is cheap), chosen in beforeAll among the last
 * 30 days as one on which every restaurant has counted orders on every platform, so that a
 * served body shows figures that identify its restaurant.
 */
let day = addDays(todayIn('UTC'), -3);
const week = () => ({ from: addDays(day, -6), to: day });
const month = `${todayIn('UTC').slice(0, 7)}-01`;

const queryFor = (route: Route): Readonly<Record<string, string>> => {
  switch (route) {
    case 'orders/day':
      return { from: day, to: day };
    case 'dishes':
      return week();
    case 'revenue':
      return { from: month, to: month };
    default:
      return {};
  }
};

const invoking =
  (handler: (event: APIGatewayProxyEvent, context: ReturnType<typeof lambdaContext>) => unknown) =>
  (event: APIGatewayProxyEvent) =>
    handler(event, lambdaContext()) as Promise<APIGatewayProxyResult>;

const DEPLOYED: Chains = {
  'orders/day': invoking(ordersDayHandler),
  dishes: invoking(dishesHandler),
  revenue: invoking(revenueHandler),
  'orders/today': invoking(ordersTodayHandler),
  dashboard: invoking(dashboardHandler),
};

/** The compositions of functions/, on other dependencies. */
const composed = (deps: Dependencies): Chains => ({
  'orders/day': invoking(reportEndpoint(ordersPerDay, deps.reports, deps)),
  dishes: invoking(reportEndpoint(dishes, deps.reports, deps)),
  revenue: invoking(reportEndpoint(revenue, revenueQueries(deps.sql), deps)),
  'orders/today': invoking(reportEndpoint(ordersToday, ordersTodayQueries(deps.sql), deps)),
  dashboard: invoking(serviceEndpoint(dashboard, dashboardQueries(deps.sql), deps)),
});

const built: Dependencies[] = [];
const chains = new Map<Setting, Chains>();
const tokens = new Map<string, string>();
const orders = new Map<string, RawOrder[]>();

beforeAll(async () => {
  // The rule above assumes the legacy key of the sample data is what the service is configured with.
  expect(process.env.LEGACY_PLATFORM_KEYS).toBe(`${SAMPLE_LEGACY_KEY}=${SAMPLE_LEGACY_PLATFORM}`);
  const withSunset = (sunset: string) => {
    const deps = createDependencies(
      loadConfig({ ...process.env, LEGACY_PLATFORM_KEYS_SUNSET: sunset }),
    );
    built.push(deps);
    return deps;
  };
  const sunsetDay = withSunset(SUNSET_DAY);
  chains.set('no sunset', DEPLOYED);
  chains.set(
    'on its sunset day',
    composed({ ...sunsetDay, ownership: { ...sunsetDay.ownership, today: () => SUNSET_DAY } }),
  );
  chains.set(
    'the day after its sunset',
    composed({
      ...sunsetDay,
      ownership: { ...sunsetDay.ownership, today: () => DAY_AFTER_SUNSET },
    }),
  );
  chains.set('past its sunset', composed(withSunset(PAST_SUNSET)));
  for (const owner of SAMPLE_OWNERS) tokens.set(owner.sub, await tokenFor(owner, {}, '15m'));
  for (const restaurant of RESTAURANTS) {
    for (const { platformId } of restaurant.platforms) {
      orders.set(`${restaurant.id}/${platformId}`, await rawOrders(restaurant.id, platformId));
    }
  }
  const busy = (candidate: IsoDate) =>
    RESTAURANTS.every((restaurant) =>
      restaurant.platforms.every(({ platformId }) =>
        expectedDays(
          orders.get(`${restaurant.id}/${platformId}`) ?? [],
          restaurant.timeZone,
          [candidate],
          2,
        ).every((totals) => totals.orderCount > 0),
      ),
    );
  const today = todayIn('UTC');
  day = Array.from({ length: 30 }, (_, i) => addDays(today, -1 - i)).find(busy) ?? day;
});

afterAll(async () => {
  await Promise.all([closeContainerDependencies(), ...built.map((deps) => deps.close())]);
});

// ---------------------------------------------------------------------------------------------
// Running rows.

interface Row {
  readonly route: Route;
  readonly owner: SampleOwner;
  readonly id: string;
  readonly naming: Naming;
  readonly expected: Expected;
}

const rowsFor = (route: Route, namings: readonly Naming[]): Row[] =>
  SAMPLE_OWNERS.flatMap((owner) =>
    IDENTIFIERS.flatMap((id) =>
      namings.map((naming) => ({
        route,
        owner,
        id,
        naming,
        expected: expectedFor(owner, id, naming),
      })),
    ),
  );

const minorUnits = (currency: string): number =>
  CURRENCIES.find(([code]) => code === currency)?.[1] ?? 2;

/** A report body (spec 2.4) of these rows. */
const report = (rows: readonly unknown[]) => ({ data: rows.map((data) => ({ data })) });

/** The body a 200 must have: the right restaurant's figures on the right platform. */
const servedBodyProblem = (
  route: Route,
  body: unknown,
  restaurant: SampleRestaurant,
  platform: string,
): string | undefined => {
  const raw = orders.get(`${restaurant.id}/${platform}`) ?? [];
  const units = minorUnits(restaurant.currency);
  let expected: unknown;
  switch (route) {
    case 'orders/day':
      expected = report(expectedDays(raw, restaurant.timeZone, [day], units));
      break;
    case 'dishes':
      expected = report(expectedDishes(raw, restaurant.timeZone, week(), units));
      break;
    case 'dashboard':
      return (body as { data?: { currency?: unknown } }).data?.currency === restaurant.currency
        ? undefined
        : `dashboard currency is not ${restaurant.currency}`;
    default:
      return Array.isArray((body as { data?: unknown }).data) ? undefined : 'no data array';
  }
  return JSON.stringify(body) === JSON.stringify(expected) ? undefined : 'not its own figures';
};

const check = async ({ route, owner, id, naming, expected }: Row): Promise<string | undefined> => {
  const handler = chains.get(naming.setting)?.[route];
  if (!handler) return `no chain for ${naming.setting}`;
  const result = await handler(
    restEvent({
      resource: RESOURCES[route],
      pathParameters: { id },
      headers: { Authorization: `Bearer ${tokens.get(owner.sub) ?? ''}`, ...naming.headers },
      query: queryFor(route),
    }),
  );
  const body = jsonBody(result);
  const where = `${owner.sub} GET ${RESOURCES[route].replace('{id}', id)} ${naming.name}`;
  const got = `${result.statusCode} ${JSON.stringify(body).slice(0, 160)}`;
  if (result.headers?.['Access-Control-Allow-Origin'] !== '*') return `${where}: no CORS header`;
  if (result.statusCode !== expected.status)
    return `${where}: expected ${expected.status}, got ${got}`;
  if (expected.status === 403) {
    return JSON.stringify(body) === JSON.stringify(FORBIDDEN) ? undefined : `${where}: got ${got}`;
  }
  const problem = servedBodyProblem(route, body, expected.restaurant, expected.platform);
  return problem === undefined ? undefined : `${where}: ${problem}: ${got}`;
};

/** The rows whose answer differs from the rule, described; [] when every row holds. */
const mismatches = async (rows: readonly Row[]): Promise<string[]> => {
  const problems: string[] = [];
  let next = 0;
  const worker = async () => {
    while (next < rows.length) {
      const row = rows[next];
      next += 1;
      if (row) {
        const problem = await check(row);
        if (problem) problems.push(problem);
      }
    }
  };
  await Promise.all(Array.from({ length: 8 }, worker));
  return problems.sort();
};

// ---------------------------------------------------------------------------------------------

const FULL = rowsFor('orders/day', ALL_NAMINGS);
const SAMPLED: readonly Row[] = (
  ['dishes', 'revenue', 'orders/today', 'dashboard'] as const
).flatMap((route) => rowsFor(route, SAMPLE_NAMINGS));

const counts = (rows: readonly Row[]) => ({
  requests: rows.length,
  allowed: rows.filter((row) => row.expected.status === 200).length,
  forbidden: rows.filter((row) => row.expected.status === 403).length,
});

describe('the matrix', () => {
  const full = counts(FULL);
  const sampled = counts(SAMPLED);

  it(`covers ${SAMPLE_OWNERS.length} owners × ${IDENTIFIERS.length} restaurant identifiers × ${ALL_NAMINGS.length} platform namings = ${full.requests} requests on orders/day (${full.allowed} allowed), and ${sampled.requests} on the other four routes`, () => {
    expect(FULL).toHaveLength(SAMPLE_OWNERS.length * IDENTIFIERS.length * ALL_NAMINGS.length);
    expect(IDENTIFIERS).toHaveLength(11);
    expect(PLATFORMS).toHaveLength(6);
    expect(new Set(SAMPLED.map((row) => row.route)).size).toBe(4);
    // Every identifier is readable by its owner in some naming, and by no other owner in any.
    for (const id of IDENTIFIERS) {
      const readers = new Set(
        [...FULL, ...SAMPLED]
          .filter((row) => row.id === id && row.expected.status === 200)
          .map((row) => row.owner.sub),
      );
      expect(readers.size).toBe(1);
    }
    expect(full.allowed).toBeGreaterThan(0);
    expect(full.forbidden).toBeGreaterThan(full.allowed);
  });
});

describe.each(SAMPLE_OWNERS.map((owner) => [owner.sub, owner] as const))(
  'GET /v1/restaurants/{id}/reports/orders/day as %s',
  (_sub, owner) => {
    const rows = FULL.filter((row) => row.owner === owner);
    const { requests, allowed, forbidden } = counts(rows);

    it(
      `answers ${requests} requests as the ownership rule says: ${allowed} served with its own figures, ${forbidden} 403 FORBIDDEN`,
      async () => {
        expect(await mismatches(rows)).toEqual([]);
      },
      MATRIX_TIMEOUT,
    );
  },
);

describe.each(['dishes', 'revenue', 'orders/today', 'dashboard'] as const)('GET %s', (route) => {
  const rows = SAMPLED.filter((row) => row.route === route);
  const { requests, allowed, forbidden } = counts(rows);

  it(
    `answers a sample of ${requests} requests as the ownership rule says: ${allowed} served, ${forbidden} 403 FORBIDDEN`,
    async () => {
      expect(await mismatches(rows)).toEqual([]);
    },
    MATRIX_TIMEOUT,
  );
});
