/**
 * The ownership rule of docs/authentication.md, re-derived here independently of
 * shared/auth/ownership.ts, against every sample owner × restaurant identifier × platform naming
 * (none, empty, casings, repeated, disagreeing, wrong case, legacy key around its sunset) through
 * the real chains: 200 with the right restaurant's data exactly when the rule allows, else 403.
 * Orders per day runs the full matrix; every other endpoint about a restaurant a sample.
 */
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { pathParameterNames } from '../../tools/generators/endpoints';
import { reportEndpoint, serviceEndpoint } from '../../middleware/compose';
import {
  CURRENCIES,
  SAMPLE_LEGACY_KEY,
  SAMPLE_LEGACY_PLATFORM,
  SAMPLE_OWNERS,
  type SampleOwner,
  type SampleRestaurant,
} from '../../tools/db/sample-data';
import { catalogue, type Endpoint } from '../../tools/catalogue';
import { type CatalogueReport, type CatalogueService, type HttpMethod } from '../../shared/answers';
import { loadConfig } from '../../shared/config';
import type { DateRange, IsoDate } from '../../shared/dates';
import { addDays, eachDay, todayIn } from '../../tools/dates';
import { dashboard } from '../../shared/reports/dashboard';
import { dishes } from '../../shared/reports/dishes';
import { ordersPerDay } from '../../shared/reports/orders-per-day';
import type { ReportDefinition, ReportRow, ServiceDefinition } from '../../shared/reports/report';
import {
  closeContainerDependencies,
  createDependencies,
  type Dependencies,
} from '../../shared/runtime';
import {
  declaredParameters,
  handlerOf,
  rowProblems,
  sampleParameters,
} from '../support/declarations';
import { jsonBody, lambdaContext, restEvent } from '../support/events';
import { expectedDays, expectedDishes, rawOrders, type RawOrder } from '../support/oracle';
import { tokenFor } from '../support/tokens';

/** The served rows run real report queries: a busy machine needs more than Jest's 30 s. */
const MATRIX_TIMEOUT = 180_000;

const FORBIDDEN = { state: 'ERROR', code: 'FORBIDDEN', message: 'Forbidden' };

const RESTAURANTS = SAMPLE_OWNERS.flatMap((owner) => owner.restaurants);
const IDENTIFIERS = [
  ...RESTAURANTS.map((restaurant) => restaurant.id),
  ...RESTAURANTS.flatMap((restaurant) => restaurant.platforms.map((p) => p.restaurantId)),
];
const PLATFORMS = [...new Set(RESTAURANTS.flatMap((r) => r.platforms.map((p) => p.platformId)))];

/** Which chain answers: the deployed handler (no sunset), or the same composition with one. */
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

const SETTINGS = Object.keys(LEGACY_HONOURED) as readonly Setting[];

/** Every way of naming every platform: the full matrix runs these on orders per day. */
const ALL_NAMINGS: readonly Naming[] = [
  NONE,
  EMPTY,
  ...PLATFORMS.flatMap(platformNamings),
  ...SETTINGS.flatMap(legacyNamings),
];

/** The sample the other endpoints run: nothing named, each platform once, a disagreement, legacy. */
const SAMPLE_NAMINGS: readonly Naming[] = [
  NONE,
  ...PLATFORMS.map((platform) => header('X-Platform-Id', [platform])),
  header('x-platform-id', [PLATFORMS[0] ?? '', PLATFORMS[1] ?? ''], 'no sunset', ' (disagreeing)'),
  header('X-Platform-Id', [SAMPLE_LEGACY_KEY], 'no sunset', ' (legacy key)'),
  header('X-Platform-Id', [SAMPLE_LEGACY_KEY], 'past its sunset', ' (legacy key)'),
];

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

/** Every catalogue endpoint about one restaurant: behind the owner's token, {id} in its path. */
const ABOUT_A_RESTAURANT: readonly Endpoint[] = catalogue.filter(
  (endpoint) =>
    endpoint.authentication === 'bearer' && pathParameterNames(endpoint.paths[0]).includes('id'),
);

/** The full matrix runs on orders per day (figures identify the restaurant, cheap query). */
const fullEndpoint = (): Endpoint => {
  const found = ABOUT_A_RESTAURANT.find((endpoint) => endpoint.id === ordersPerDay.id);
  if (!found) throw new Error(`the catalogue has no ${ordersPerDay.id} about a restaurant`);
  return found;
};
const FULL_ENDPOINT = fullEndpoint();
const SAMPLED_ENDPOINTS = ABOUT_A_RESTAURANT.filter((endpoint) => endpoint !== FULL_ENDPOINT);

type Invoke = (event: APIGatewayProxyEvent) => Promise<APIGatewayProxyResult>;
/** Each endpoint's chain, by its id. */
type Chains = ReadonlyMap<string, Invoke>;

/** The week asked for ends on a recent day (chosen in beforeAll) with orders everywhere. */
let day = addDays(todayIn('UTC'), -3);
const week = (): DateRange => ({ from: addDays(day, -6), to: day });
const month = `${todayIn('UTC').slice(0, 7)}-01` as IsoDate;

/** The query string of an endpoint, made from the parameters its definition declares. */
const queryFor = (endpoint: Endpoint): Readonly<Record<string, string>> =>
  sampleParameters(endpoint.id, declaredParameters(endpoint), {
    days: week(),
    months: { from: month, to: month },
  });

const invoking =
  (handler: (event: APIGatewayProxyEvent, context: ReturnType<typeof lambdaContext>) => unknown) =>
  (event: APIGatewayProxyEvent) =>
    handler(event, lambdaContext()) as Promise<APIGatewayProxyResult>;

/** The catalogue names a definition; the chain needs its parameters' parser, SQL and rows too. */
const isReportDefinition = (
  report: CatalogueReport,
): report is CatalogueReport & ReportDefinition<unknown, unknown> => {
  const { parseParameters, queries, rows } = report as Partial<ReportDefinition<unknown, unknown>>;
  return [parseParameters, queries, rows].every((part) => typeof part === 'function');
};

const isServiceDefinition = (
  service: CatalogueService,
): service is CatalogueService & ServiceDefinition<unknown, unknown, unknown> => {
  const { parseParameters, queries, run } = service as Partial<
    ServiceDefinition<unknown, unknown, unknown>
  >;
  return [parseParameters, queries, run].every((part) => typeof part === 'function');
};

/** What functions/<id>.ts composes for an endpoint (compose.ts), on other dependencies. */
const composedChain = (endpoint: Endpoint, deps: Dependencies): Invoke => {
  const { answers } = endpoint;
  if (answers.kind === 'report' && isReportDefinition(answers.report)) {
    return invoking(
      reportEndpoint(answers.report, deps.database.bind(answers.report.queries), deps),
    );
  }
  if (answers.kind === 'service' && isServiceDefinition(answers.service)) {
    return invoking(
      serviceEndpoint(answers.service, deps.database.bind(answers.service.queries), deps),
    );
  }
  throw new TypeError(
    `${endpoint.function}: no composition of a ${answers.kind} endpoint about a restaurant`,
  );
};

/** Every endpoint about a restaurant, composed on other dependencies. */
const composed = (deps: Dependencies): Chains =>
  new Map(ABOUT_A_RESTAURANT.map((endpoint) => [endpoint.id, composedChain(endpoint, deps)]));

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
  const deployed = new Map<string, Invoke>();
  for (const endpoint of ABOUT_A_RESTAURANT)
    deployed.set(endpoint.id, invoking(await handlerOf(endpoint)));
  chains.set('no sunset', deployed);
  const onDay = (date: IsoDate) =>
    composed({ ...sunsetDay, ownership: { ...sunsetDay.ownership, today: () => date } });
  chains.set('on its sunset day', onDay(SUNSET_DAY));
  chains.set('the day after its sunset', onDay(DAY_AFTER_SUNSET));
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

interface Row {
  readonly endpoint: Endpoint;
  /** Which of its paths the request names (the rows take each in turn). */
  readonly path: string;
  readonly owner: SampleOwner;
  readonly id: string;
  readonly naming: Naming;
  readonly expected: Expected;
}

const rowsFor = (endpoint: Endpoint, namings: readonly Naming[]): Row[] =>
  SAMPLE_OWNERS.flatMap((owner) =>
    IDENTIFIERS.flatMap((id) => namings.map((naming) => ({ owner, id, naming }))),
  ).map((row, index) => ({
    ...row,
    endpoint,
    path: endpoint.paths[index % endpoint.paths.length] ?? endpoint.paths[0],
    expected: expectedFor(row.owner, row.id, row.naming),
  }));

const minorUnits = (currency: string): number =>
  CURRENCIES.find(([code]) => code === currency)?.[1] ?? 2;

/** A report body (spec 2.4) of these rows. */
const report = (rows: readonly unknown[]) => ({ data: rows.map((data) => ({ data })) });

/** What is wrong with a 200's body: not the right restaurant's figures on the platform, etc. */
const servedBodyProblem = (
  endpoint: Endpoint,
  body: unknown,
  restaurant: SampleRestaurant,
  platform: string,
): string | undefined => {
  const raw = orders.get(`${restaurant.id}/${platform}`) ?? [];
  const units = minorUnits(restaurant.currency);
  const data = (body as { data?: unknown }).data;
  let expected: unknown;
  switch (endpoint.id) {
    case ordersPerDay.id:
      expected = report(expectedDays(raw, restaurant.timeZone, eachDay(week()), units));
      break;
    case dishes.id:
      expected = report(expectedDishes(raw, restaurant.timeZone, week(), units));
      break;
    case dashboard.id:
      return (data as { currency?: unknown } | undefined)?.currency === restaurant.currency
        ? undefined
        : `dashboard currency is not ${restaurant.currency}`;
    default: {
      const { answers } = endpoint;
      if (answers.kind !== 'report') {
        return typeof data === 'object' && data !== null ? undefined : 'no data';
      }
      if (!Array.isArray(data)) return 'no data array';
      const problems = rowProblems(answers.report.properties, data as ReportRow[]);
      return problems.length === 0 ? undefined : `rows off their declaration: ${problems[0]}`;
    }
  }
  return JSON.stringify(body) === JSON.stringify(expected) ? undefined : 'not its own figures';
};

const check = async (row: Row): Promise<string | undefined> => {
  const { endpoint, path, owner, id, naming, expected } = row;
  const handler = chains.get(naming.setting)?.get(endpoint.id);
  if (!handler) return `no chain of ${endpoint.function} for ${naming.setting}`;
  const result = await handler(
    restEvent({
      method: endpoint.method,
      resource: path,
      pathParameters: { id },
      headers: { Authorization: `Bearer ${tokens.get(owner.sub) ?? ''}`, ...naming.headers },
      query: queryFor(endpoint),
    }),
  );
  const body = jsonBody(result);
  const where = `${owner.sub} ${endpoint.method} ${path.replace('{id}', id)} ${naming.name}`;
  const got = `${result.statusCode} ${JSON.stringify(body).slice(0, 160)}`;
  if (result.headers?.['Access-Control-Allow-Origin'] !== '*') return `${where}: no CORS header`;
  if (result.statusCode !== expected.status)
    return `${where}: expected ${expected.status}, got ${got}`;
  if (expected.status === 403) {
    return JSON.stringify(body) === JSON.stringify(FORBIDDEN) ? undefined : `${where}: got ${got}`;
  }
  const problem = servedBodyProblem(endpoint, body, expected.restaurant, expected.platform);
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

const FULL = rowsFor(FULL_ENDPOINT, ALL_NAMINGS);
const SAMPLED: readonly Row[] = SAMPLED_ENDPOINTS.flatMap((endpoint) =>
  rowsFor(endpoint, SAMPLE_NAMINGS),
);

const counts = (rows: readonly Row[]) => ({
  requests: rows.length,
  allowed: rows.filter((row) => row.expected.status === 200).length,
  forbidden: rows.filter((row) => row.expected.status === 403).length,
});

/** `GET /v1/… and /res/…` */
const routeName = (method: HttpMethod, paths: readonly string[]) =>
  `${method} ${paths.join(' and ')}`;

describe('the matrix', () => {
  const full = counts(FULL);
  const sampled = counts(SAMPLED);

  it(`covers ${SAMPLE_OWNERS.length} owners × ${IDENTIFIERS.length} restaurant identifiers × ${ALL_NAMINGS.length} platform namings = ${full.requests} requests on ${FULL_ENDPOINT.id} (${full.allowed} allowed), and ${sampled.requests} on the other ${SAMPLED_ENDPOINTS.length} endpoints about a restaurant`, () => {
    expect(FULL).toHaveLength(SAMPLE_OWNERS.length * IDENTIFIERS.length * ALL_NAMINGS.length);
    expect(IDENTIFIERS).toHaveLength(11);
    expect(PLATFORMS).toHaveLength(6);
    // Every endpoint of the catalogue about a restaurant, on every one of its paths: every
    // report and service, and no other endpoint (those have no restaurant to own).
    const covered = [...FULL, ...SAMPLED];
    expect([...new Set(covered.map((row) => row.endpoint.id))].sort()).toEqual(
      ABOUT_A_RESTAURANT.map((endpoint) => endpoint.id).sort(),
    );
    expect(ABOUT_A_RESTAURANT.map((endpoint) => endpoint.id).sort()).toEqual(
      catalogue
        .filter((endpoint) => endpoint.answers.kind !== 'custom')
        .map((endpoint) => endpoint.id)
        .sort(),
    );
    expect(SAMPLED_ENDPOINTS.length).toBeGreaterThanOrEqual(4);
    expect([...new Set(covered.map((row) => `${row.endpoint.method} ${row.path}`))].sort()).toEqual(
      ABOUT_A_RESTAURANT.flatMap((endpoint) =>
        endpoint.paths.map((path) => `${endpoint.method} ${path}`),
      ).sort(),
    );
    // Every identifier is readable by its owner in some naming, and by no other owner in any.
    for (const id of IDENTIFIERS) {
      const readers = new Set(
        covered
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
  `${routeName(FULL_ENDPOINT.method, FULL_ENDPOINT.paths)} as %s`,
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

describe.each(
  SAMPLED_ENDPOINTS.map(
    (endpoint) => [routeName(endpoint.method, endpoint.paths), endpoint] as const,
  ),
)('%s', (_route, endpoint) => {
  const rows = SAMPLED.filter((row) => row.endpoint === endpoint);
  const { requests, allowed, forbidden } = counts(rows);

  it(
    `answers a sample of ${requests} requests as the ownership rule says: ${allowed} served, ${forbidden} 403 FORBIDDEN`,
    async () => {
      expect(await mismatches(rows)).toEqual([]);
    },
    MATRIX_TIMEOUT,
  );
});
