/**
 * The plugin registry's handlers (functions/plugins.ts, functions/deploy-plugin.ts) on real API
 * Gateway events, the real database, key set and seeded deployment key. Each test starts from the
 * seeded registry plus a few plugins of its own; the seeded state is restored afterwards.
 */
import type { APIGatewayProxyEvent } from 'aws-lambda';
import { handler as deployHandler } from '../../../functions/deploy-plugin';
import { handler as listHandler } from '../../../functions/plugins';
import {
  LOCAL_PLUGIN_API_KEY,
  SAMPLE_PLUGIN_V1_BUNDLE_URL,
  SAMPLE_PLUGIN_V2_BUNDLE_URL,
  seedPlugins,
} from '../../../tools/db/seed-plugins';
import { createIssuer } from '../../../tools/local/issuer';
import type { ValidationEntry } from '../../../shared/errors';
import { hashApiKey } from '../../../shared/plugins/api-keys';
import { closeContainerDependencies } from '../../../shared/runtime';
import { httpApiEvent, jsonBody, restEvent, type RequestSpec } from '../../support/events';
import { invoke, owner1, owner2, PREFLIGHT, SPEC_CORS } from '../../support/handlers';
import { withDatabase } from '../../support/oracle';
import { BODIES, emptyField, validation } from '../../support/portal-errors';
import { tokenFor, tokenWithRestaurants } from '../../support/tokens';

const LIST = '/v1/plugins';
const DEPLOY = '/v1/plugins/{code}';

const ORDERS_KEY = 'test-orders-plugin-key';
const REVOKED_KEY = 'test-revoked-reports-key';

const CDN = 'https://cdn.example.com/eu';
const ORDERS_V1 = `${CDN}/orders/orders.v1.js`;
const ORDERS_V2 = `${CDN}/orders/orders.v2.js`;
const BETA_V2 = `${CDN}/beta/{bundle}`;
const DASHBOARD_V1 = `${CDN}/dashboard/dashboard.js`;

/** The headers of every answer but a preflight, listing and deployment alike (spec 4.3). */
const HEADERS = {
  'Content-Type': 'application/json',
  ...SPEC_CORS,
  'Access-Control-Expose-Headers': 'Content-Disposition',
};

/**
 * The seeded registry (plugin `reports` on every sample platform, v1 and v2) plus: `orders` on
 * HS_AE with v1 and v2 bundles and its own key, `beta` on TB_AE for v2 only, `dashboard` on
 * owner-2's FD_DE for v1 only, and a revoked key of `reports`.
 */
const resetRegistry = (extras: boolean) =>
  withDatabase((sql) =>
    sql.begin(async (tx) => {
      await seedPlugins(tx);
      if (!extras) return;
      await tx`insert into plugins (code, route, title) values
        ('orders', 'orders', 'Orders'), ('beta', 'beta', 'Beta'), ('dashboard', 'dashboard', 'Dashboard')`;
      await tx`insert into plugin_platforms (plugin_code, platform_id) values
        ('orders', 'HS_AE'), ('beta', 'TB_AE'), ('dashboard', 'FD_DE')`;
      await tx`insert into plugin_versions (plugin_code, portal_version, bundle_url) values
        ('orders', 'v1', ${ORDERS_V1}), ('orders', 'v2', ${ORDERS_V2}),
        ('beta', 'v2', ${BETA_V2}), ('dashboard', 'v1', ${DASHBOARD_V1})`;
      await tx`insert into plugin_api_keys (plugin_code, key_sha256, label, revoked_at) values
        ('orders', ${hashApiKey(ORDERS_KEY)}, 'orders ci', null),
        ('reports', ${hashApiKey(REVOKED_KEY)}, 'old ci', now())`;
    }),
  );

const versionRows = () =>
  withDatabase(
    (sql) => sql<{ code: string; version: string; url: string }[]>`
      select plugin_code as code, portal_version as version, bundle_url as url
      from plugin_versions order by plugin_code collate "C", portal_version`,
  );

beforeEach(() => resetRegistry(true));

afterAll(async () => {
  await resetRegistry(false);
  await closeContainerDependencies();
});

const listRequest = (
  token: string | undefined,
  query: RequestSpec['query'] = {},
  headers: Record<string, string> = {},
): RequestSpec => ({
  resource: LIST,
  headers: { ...(token === undefined ? {} : { Authorization: `Bearer ${token}` }), ...headers },
  query,
});

const list = async (token: string, portalVersion?: string) =>
  invoke(
    listHandler,
    restEvent(listRequest(token, portalVersion === undefined ? {} : { portalVersion })),
  );

const deployEvent = (
  code: string,
  body: unknown,
  headers: Record<string, string | string[]> = { 'x-api-key': LOCAL_PLUGIN_API_KEY },
  { raw = false, base64 = false }: { raw?: boolean; base64?: boolean } = {},
): APIGatewayProxyEvent => {
  const text = raw ? (body as string | null) : JSON.stringify(body);
  return {
    ...restEvent({
      method: 'PUT',
      resource: DEPLOY,
      pathParameters: { code },
      headers: { 'Content-Type': 'application/json', ...headers },
    }),
    body: base64 && text !== null ? Buffer.from(text).toString('base64') : text,
    isBase64Encoded: base64,
  };
};

/** Invokes the deployment handler with deployEvent(...args). */
const deploy = (...args: Parameters<typeof deployEvent>) =>
  invoke(deployHandler, deployEvent(...args));

const refused = (statusCode: number, body: unknown, extraHeaders: Record<string, string> = {}) => ({
  statusCode,
  headers: { ...HEADERS, ...extraHeaders },
  body: JSON.stringify(body),
});
const ok = (body: unknown) => refused(200, body);

const reportsV1 = { code: 'reports', route: 'reports', bundleUrl: SAMPLE_PLUGIN_V1_BUNDLE_URL };
const reportsV2 = { code: 'reports', route: 'reports', bundleUrl: SAMPLE_PLUGIN_V2_BUNDLE_URL };
const ordersV1 = { code: 'orders', route: 'orders', bundleUrl: ORDERS_V1 };
const ordersV2 = { code: 'orders', route: 'orders', bundleUrl: ORDERS_V2 };
const betaV2 = { code: 'beta', route: 'beta', bundleUrl: BETA_V2 };
const dashboardV1 = { code: 'dashboard', route: 'dashboard', bundleUrl: DASHBOARD_V1 };

describe('GET /v1/plugins (spec 2.1, 4.4)', () => {
  it.each<[string, () => Promise<string>, string | undefined, unknown[]]>([
    [
      "answers the JSON array of Plugin Objects on the owner's platforms, v1 by default, by code",
      () => tokenFor(owner1),
      undefined,
      [ordersV1, reportsV1],
    ],
    [
      'answers the v2 portal its own bundles, and nothing that has only a v1 bundle',
      () => tokenFor(owner1),
      'v2',
      [betaV2, ordersV2, reportsV2],
    ],
    [
      "answers another owner the plugins of that owner's platforms",
      () => tokenFor(owner2),
      'v1',
      [dashboardV1, reportsV1],
    ],
    [
      'offers a plugin on any platform of the token, whichever restaurant carries it',
      () =>
        tokenWithRestaurants([
          { id: 'R-9', platforms: [{ restaurantId: 'x-1', platformId: 'XX_ZZ' }] },
          { id: 'R-10', platforms: [{ restaurantId: 'hs-1', platformId: 'HS_AE' }] },
        ]),
      'v2',
      [ordersV2, reportsV2],
    ],
    [
      'answers an empty array to a token with no platform the registry knows',
      () =>
        tokenWithRestaurants([
          { id: 'R-9', platforms: [{ restaurantId: 'x', platformId: 'XX_ZZ' }] },
        ]),
      undefined,
      [],
    ],
    [
      'answers an empty array to a token with no restaurants at all',
      () => tokenWithRestaurants([]),
      undefined,
      [],
    ],
  ])('%s', async (_behaviour, token, portalVersion, plugins) => {
    // Prepare / Act
    const result = await list(await token(), portalVersion);

    // Assess
    expect(result).toStrictEqual(ok(plugins));
  });

  it('answers an HTTP API (v2) event exactly as a REST (v1) event', async () => {
    // Prepare
    const spec = listRequest(await tokenFor(owner1), { portalVersion: 'v2' });

    // Act
    const [rest, http] = await Promise.all([
      invoke(listHandler, restEvent(spec)),
      invoke(listHandler, httpApiEvent(spec)),
    ]);

    // Assess
    expect(http).toStrictEqual(rest);
  });
});

describe('GET /v1/plugins: the contract tests', () => {
  it('answers OPTIONS 200 with the spec headers, no token needed', async () => {
    // Act
    const result = await invoke(listHandler, restEvent({ method: 'OPTIONS', resource: LIST }));

    // Assess
    expect(result).toStrictEqual(PREFLIGHT);
  });

  it.each([
    ['no Authorization header', {}],
    ['the Bearer prefix forgotten', { Authorization: 'TOKEN' }],
  ])('401 TOKEN_INVALID with CORS for %s', async (_case, headers) => {
    // Act / Assess
    expect(await invoke(listHandler, restEvent(listRequest(undefined, {}, headers)))).toStrictEqual(
      refused(401, BODIES.bearerMissing, { 'WWW-Authenticate': 'Bearer' }),
    );
  });

  it('401 TOKEN_INVALID with CORS for a token the key set cannot verify', async () => {
    // Prepare
    const stranger = await createIssuer();
    const token = await stranger.sign({ sub: 'x', authSchema: { restaurants: [] } });

    // Act / Assess
    expect(await list(token)).toStrictEqual(
      refused(401, BODIES.unverifiable, { 'WWW-Authenticate': 'Bearer error="invalid_token"' }),
    );
  });

  it.each([
    ['v3', ['v3'], 'INVALID_VALUE', 'portalVersion must be v1 or v2'],
    ['devnext', ['devnext'], 'INVALID_VALUE', 'portalVersion must be v1 or v2'],
    ['repeated', ['v1', 'v2'], 'FIELD_REPEATED', 'portalVersion must be given once'],
  ] as const)(
    '400 VALIDATION_ERROR with CORS for portalVersion %s',
    async (_case, values, code, message) => {
      // Prepare
      const token = await tokenFor(owner1);

      // Act / Assess
      expect(
        await invoke(listHandler, restEvent(listRequest(token, { portalVersion: [...values] }))),
      ).toStrictEqual(refused(400, validation({ field: 'portalVersion', code, message })));
    },
  );
});

describe('PUT /v1/plugins/{code}: the deployment call (spec 4.6, 9)', () => {
  it('stores a v2 bundle that the v2 portal then lists, leaving v1 as it was', async () => {
    // Prepare
    const bundleUrl = 'https://cdn.example.com/eu/reports/reports.v2.{bundle}.js';
    const token = await tokenFor(owner1);

    // Act
    const result = await deploy('reports', { bundleUrl, portalVersion: 'v2' });

    // Assess
    expect(result).toStrictEqual(ok({ data: { code: 'reports', portalVersion: 'v2', bundleUrl } }));
    expect(jsonBody(await list(token, 'v2'))).toEqual([
      betaV2,
      ordersV2,
      { code: 'reports', route: 'reports', bundleUrl },
    ]);
    expect(jsonBody(await list(token, 'v1'))).toEqual([ordersV1, reportsV1]);
  });

  it('replaces the bundle of a portal version on a second deployment', async () => {
    // Prepare
    const first = `${CDN}/reports/one.js`;
    const second = `${CDN}/reports/two.js`;

    // Act
    await deploy('reports', { bundleUrl: first, portalVersion: 'v1' });
    const result = await deploy('reports', { bundleUrl: second, portalVersion: 'v1' });

    // Assess
    expect(result).toStrictEqual(
      ok({ data: { code: 'reports', portalVersion: 'v1', bundleUrl: second } }),
    );
    expect(await versionRows()).toEqual([
      { code: 'beta', version: 'v2', url: BETA_V2 },
      { code: 'dashboard', version: 'v1', url: DASHBOARD_V1 },
      { code: 'orders', version: 'v1', url: ORDERS_V1 },
      { code: 'orders', version: 'v2', url: ORDERS_V2 },
      { code: 'reports', version: 'v1', url: second },
      { code: 'reports', version: 'v2', url: SAMPLE_PLUGIN_V2_BUNDLE_URL },
    ]);
  });

  it('deploys with its own key the plugin that key belongs to, from a base64 body', async () => {
    // Prepare
    const bundleUrl = `${CDN}/orders/orders.v2.1.js`;

    const headers = { 'X-API-KEY': ORDERS_KEY };

    // Act
    const result = await deploy('orders', { bundleUrl, portalVersion: 'v2' }, headers, {
      base64: true,
    });

    // Assess
    expect(result).toStrictEqual(ok({ data: { code: 'orders', portalVersion: 'v2', bundleUrl } }));
  });

  it('answers OPTIONS 200 with the spec headers, no key needed', async () => {
    // Act / Assess
    expect(
      await invoke(
        deployHandler,
        restEvent({ method: 'OPTIONS', resource: DEPLOY, pathParameters: { code: 'reports' } }),
      ),
    ).toStrictEqual(PREFLIGHT);
  });

  const KEY_INVALID = refused(401, BODIES.unverifiable, {
    'WWW-Authenticate': 'ApiKey header="x-api-key"',
  });
  const valid = { bundleUrl: `${CDN}/reports/x.js`, portalVersion: 'v2' };

  it.each<[string, Record<string, string | string[]>]>([
    ['no x-api-key header', {}],
    ['an unknown key', { 'x-api-key': 'not-a-key' }],
    ['a revoked key', { 'x-api-key': REVOKED_KEY }],
    ['the key as a bearer token', { Authorization: `Bearer ${LOCAL_PLUGIN_API_KEY}` }],
    ['two keys', { 'x-api-key': [LOCAL_PLUGIN_API_KEY, LOCAL_PLUGIN_API_KEY] }],
  ])('401 TOKEN_INVALID with CORS for %s, storing nothing', async (_case, headers) => {
    // Prepare
    const before = await versionRows();

    // Act
    const result = await deploy('reports', valid, headers);

    // Assess
    expect(result).toStrictEqual(KEY_INVALID);
    expect(await versionRows()).toEqual(before);
  });

  it("403 FORBIDDEN with CORS for another plugin's key, storing nothing", async () => {
    // Prepare
    const before = await versionRows();

    // Act
    const result = await deploy('reports', valid, { 'x-api-key': ORDERS_KEY });

    // Assess
    expect(result).toStrictEqual(refused(403, BODIES.forbidden));
    expect(await versionRows()).toEqual(before);
  });

  const invalid = (field: string, message: string): ValidationEntry => ({
    field,
    code: 'INVALID_VALUE',
    message,
  });
  const badUrl = invalid(
    'bundleUrl',
    'bundleUrl must be an absolute https URL (http only for localhost) of at most 2048 characters',
  );
  const badCharacters = invalid(
    'bundleUrl',
    'bundleUrl must contain only printable ASCII characters other than space, \' " ` < > and \\, and no ${ or HTML character reference (&#, &name; or &quot)',
  );

  const formHeaders = {
    'x-api-key': LOCAL_PLUGIN_API_KEY,
    'Content-Type': 'application/x-www-form-urlencoded',
  };
  /** A valid body but for its bundleUrl. */
  const url = (bundleUrl: unknown) => deployEvent('reports', { ...valid, bundleUrl });

  it.each<[string, APIGatewayProxyEvent, ValidationEntry | ValidationEntry[]]>([
    [
      'an empty body',
      deployEvent('reports', null, undefined, { raw: true }),
      [emptyField('bundleUrl'), emptyField('portalVersion')],
    ],
    [
      'no portalVersion',
      deployEvent('reports', { bundleUrl: valid.bundleUrl }),
      [emptyField('portalVersion')],
    ],
    [
      'portalVersion v3',
      deployEvent('reports', { ...valid, portalVersion: 'v3' }),
      invalid('portalVersion', 'portalVersion must be v1 or v2'),
    ],
    ['a number as bundleUrl', url(7), badUrl],
    ['plain http to a CDN', url('http://cdn.example.com/x.js'), badUrl],
    [
      'a bundleUrl with a single quote (a known attack)',
      url("https://cdn.example.com/a.js'onload='x"),
      badCharacters,
    ],
    ['plain http to 127.1, 127.0.0.1 only once normalised', url('http://127.1/a.js'), badUrl],
    ['plain http to 2130706433 (127.0.0.1 normalised)', url('http://2130706433/a.js'), badUrl],
    ['an empty user name, which a URL parser drops', url('https://@cdn.example.com/a.js'), badUrl],
    [
      'malformed JSON',
      deployEvent('reports', '{"bundleUrl":', undefined, { raw: true }),
      invalid('body', 'body must be a JSON object'),
    ],
    [
      'a form body',
      deployEvent('reports', 'bundleUrl=x', formHeaders, { raw: true }),
      invalid('Content-Type', 'Content-Type must be application/json'),
    ],
  ])('400 VALIDATION_ERROR with CORS for %s, storing nothing', async (_case, event, errors) => {
    // Prepare
    const before = await versionRows();

    // Act
    const result = await invoke(deployHandler, event);

    // Assess
    expect(result).toStrictEqual(refused(400, validation(...[errors].flat())));
    expect(await versionRows()).toEqual(before);
  });

  it('checks the key before the body: a bad body with a bad key is 401', async () => {
    // Act
    const result = await deploy('reports', {}, { 'x-api-key': 'not-a-key' });

    // Assess
    expect(result).toStrictEqual(KEY_INVALID);
  });

  it('never answers with the key', async () => {
    // Act
    const results = await Promise.all([
      deploy('reports', valid),
      deploy('reports', {}),
      deploy('orders', valid),
    ]);

    // Assess
    expect(results.map((result) => result.statusCode)).toEqual([200, 400, 403]);
    for (const result of results) {
      expect(JSON.stringify(result)).not.toContain(LOCAL_PLUGIN_API_KEY);
      expect(JSON.stringify(result)).not.toContain(hashApiKey(LOCAL_PLUGIN_API_KEY));
    }
  });
});

describe('the sample registry', () => {
  it('is restored by seedPlugins: reports on every sample platform, v1 and v2', async () => {
    // Prepare
    await resetRegistry(false);
    const token = await tokenFor(owner2);

    // Act
    const [v1, v2] = [await list(token, 'v1'), await list(token, 'v2')];

    // Assess
    expect(jsonBody(v1)).toEqual([reportsV1]);
    expect(jsonBody(v2)).toEqual([reportsV2]);
  });
});
