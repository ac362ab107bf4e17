import { jest } from '@jest/globals';
import fc from 'fast-check';
import { apiKey, authenticatedPlugin, type ApiKeyOptions } from '../../../middleware/api-key';
import { errorHandler } from '../../../middleware/error-handler';
import type { GatewayEvent } from '../../../shared/http/event';
import { jsonResult } from '../../../shared/http/event';
import { hashApiKey, type ApiKeyLookup, type KeyHash } from '../../../shared/plugins/api-keys';
import { httpApiEvent, lambdaContext, restEvent, type RequestSpec } from '../../support/events';
import {
  chain,
  collectingLogger,
  FORBIDDEN_BODY,
  INTERNAL_BODY,
  TOKEN_UNVERIFIABLE_BODY,
  type TestHandler,
} from './fixtures';

const ROUTE = '/v1/plugins/{code}';
const REPORTS_KEY = 'reports-key-0123456789';
const REPORTS_KEY_2 = 'reports-key-rotated';
const ORDERS_KEY = 'orders-key-9876543210';

/** The registry's keys: reports has two active keys, orders one. */
const KEYS: Readonly<Record<string, readonly string[]>> = {
  reports: [REPORTS_KEY, REPORTS_KEY_2],
  orders: [ORDERS_KEY],
};

const fakeLookup = () => {
  const activeKeyHashes = jest.fn<ApiKeyLookup['activeKeyHashes']>((code) =>
    Promise.resolve((KEYS[code] ?? []).map(hashApiKey)),
  );
  const pluginOfKey = jest.fn<ApiKeyLookup['pluginOfKey']>((hash: KeyHash) =>
    Promise.resolve(
      Object.entries(KEYS).find(([, keys]) => keys.map(hashApiKey).includes(hash))?.[0],
    ),
  );
  return { activeKeyHashes, pluginOfKey };
};

const setup = (opts: Partial<ApiKeyOptions> = {}) => {
  const lookup = fakeLookup();
  const logs = collectingLogger();
  const handler = jest.fn<TestHandler>((_event, context) =>
    Promise.resolve(jsonResult(200, { plugin: authenticatedPlugin(context) })),
  );
  const lambda = chain()
    .use(errorHandler({ logger: logs.logger }))
    .use(apiKey({ lookup, ...opts }))
    .handler(handler);
  return { lambda, handler, lookup, logs };
};

const request = (code: string, headers?: RequestSpec['headers']): RequestSpec => ({
  method: 'PUT',
  resource: ROUTE,
  pathParameters: { code },
  ...(headers ? { headers } : {}),
});

/** PUT the plugin `code` with `key` in x-api-key, through `build`'s event. */
const withKey = (
  lambda: ReturnType<typeof setup>['lambda'],
  code: string,
  key: string,
  build: (spec: RequestSpec) => GatewayEvent = restEvent,
) => lambda(build(request(code, { 'x-api-key': key })), lambdaContext());

const versions: [string, (spec: RequestSpec) => GatewayEvent][] = [
  ['REST v1', restEvent],
  ['HTTP API v2', httpApiEvent],
];

const authenticated = (plugin: string) => ({
  statusCode: 200,
  headers: { 'Content-Type': 'application/json' },
  body: JSON.stringify({ plugin }),
});

const KEY_INVALID = {
  statusCode: 401,
  headers: { 'Content-Type': 'application/json', 'WWW-Authenticate': 'ApiKey header="x-api-key"' },
  body: TOKEN_UNVERIFIABLE_BODY,
};

const JSON_HEADERS = { 'Content-Type': 'application/json' };
const FORBIDDEN = { statusCode: 403, headers: JSON_HEADERS, body: FORBIDDEN_BODY };
const INTERNAL = { statusCode: 500, headers: JSON_HEADERS, body: INTERNAL_BODY };

describe('apiKey: a valid key of the path plugin (spec 4.6)', () => {
  const names = ['x-api-key', 'X-API-KEY', 'X-Api-Key'];
  const cases = versions.flatMap(([version, build]) =>
    names.map((name) => [version, name, build] as const),
  );

  it.each(cases)(
    'hands the plugin code to the handler (%s, header %s)',
    async (_v, name, build) => {
      // Prepare
      const { lambda, handler, lookup } = setup();

      // Act
      const response = await lambda(
        build(request('reports', { [name]: REPORTS_KEY })),
        lambdaContext(),
      );

      // Assess
      expect(response).toStrictEqual(authenticated('reports'));
      expect(handler).toHaveBeenCalledTimes(1);
      expect(lookup.activeKeyHashes).toHaveBeenCalledWith('reports');
      expect(lookup.pluginOfKey).not.toHaveBeenCalled();
    },
  );

  it("accepts any of the plugin's active keys (key rotation)", async () => {
    // Prepare
    const { lambda } = setup();

    // Act
    const response = await withKey(lambda, 'reports', REPORTS_KEY_2);

    // Assess
    expect(response).toStrictEqual(authenticated('reports'));
  });

  it('only hands the stored hash lookup the plugin code, never the key', async () => {
    // Prepare
    const { lambda, lookup } = setup();

    // Act
    await lambda(restEvent(request('orders', { 'x-api-key': REPORTS_KEY })), lambdaContext());

    // Assess
    expect(lookup.activeKeyHashes.mock.calls).toEqual([['orders']]);
    expect(lookup.pluginOfKey.mock.calls).toEqual([[hashApiKey(REPORTS_KEY)]]);
  });
});

describe('apiKey: no key or an unknown key is 401 TOKEN_INVALID (spec 7)', () => {
  const refused: [string, RequestSpec['headers']][] = [
    ['no x-api-key header', undefined],
    ['an empty key', { 'x-api-key': '' }],
    ['an unknown key', { 'x-api-key': 'not-a-key' }],
    ['a key differing in case', { 'x-api-key': REPORTS_KEY.toUpperCase() }],
    ['a key with a trailing character', { 'x-api-key': `${REPORTS_KEY}x` }],
    ['the key in the Authorization header', { Authorization: `Bearer ${REPORTS_KEY}` }],
    ['the key in another header', { 'x-api-token': REPORTS_KEY }],
  ];
  const cases = versions.flatMap(([version, build]) =>
    refused.map(([name, headers]) => [version, name, build, headers] as const),
  );

  it.each(cases)('refuses (%s) %s without reaching the handler', async (_v, _n, build, headers) => {
    // Prepare
    const { lambda, handler } = setup();

    // Act
    const response = await lambda(build(request('reports', headers)), lambdaContext());

    // Assess
    expect(response).toStrictEqual(KEY_INVALID);
    expect(handler).not.toHaveBeenCalled();
  });

  it.each<[string, GatewayEvent]>([
    [
      'REST v1: one name sent twice',
      restEvent(request('reports', { 'x-api-key': [REPORTS_KEY, REPORTS_KEY] })),
    ],
    [
      'REST v1: two spellings of the name',
      restEvent(request('reports', { 'x-api-key': REPORTS_KEY, 'X-API-KEY': REPORTS_KEY })),
    ],
    [
      'HTTP API v2: two values joined by a comma',
      httpApiEvent(request('reports', { 'x-api-key': [REPORTS_KEY, REPORTS_KEY] })),
    ],
  ])('refuses two x-api-key headers (%s) without reaching the handler', async (_n, event) => {
    // Prepare
    const { lambda, handler } = setup();

    // Act
    const response = await lambda(event, lambdaContext());

    // Assess
    expect(response).toStrictEqual(KEY_INVALID);
    expect(handler).not.toHaveBeenCalled();
  });

  it('refuses a key longer than maxKeyLength before any lookup', async () => {
    // Prepare
    const { lambda, lookup } = setup({ maxKeyLength: 8 });

    // Act
    const response = await lambda(
      restEvent(request('reports', { 'x-api-key': 'a'.repeat(9) })),
      lambdaContext(),
    );

    // Assess
    expect(response).toStrictEqual(KEY_INVALID);
    expect(lookup.activeKeyHashes).not.toHaveBeenCalled();
  });

  it('refuses a request without a plugin code in the path', async () => {
    // Prepare
    const { lambda, handler } = setup();
    const event = { ...restEvent(request('', { 'x-api-key': 'unknown' })), pathParameters: null };

    // Act
    const response = await lambda(event, lambdaContext());

    // Assess
    expect(response).toStrictEqual(KEY_INVALID);
    expect(handler).not.toHaveBeenCalled();
  });

  it('refuses arbitrary keys with the same 401, never a crash (fuzz)', async () => {
    // Prepare
    const { lambda, handler } = setup();

    // Act / Assess
    await fc.assert(
      fc.asyncProperty(fc.string({ maxLength: 600 }), async (key) => {
        fc.pre(!Object.values(KEYS).flat().includes(key));
        const response = await withKey(lambda, 'reports', key);
        expect(response).toStrictEqual(KEY_INVALID);
      }),
      { numRuns: 200 },
    );
    expect(handler).not.toHaveBeenCalled();
  });
});

describe('apiKey: a valid key of another plugin is 403 FORBIDDEN', () => {
  it.each([
    ['(REST v1) the orders key on the reports plugin', restEvent, 'reports', ORDERS_KEY],
    ['(HTTP API v2) the orders key on the reports plugin', httpApiEvent, 'reports', ORDERS_KEY],
    ['a valid key on a plugin that does not exist', restEvent, 'no-such-plugin', REPORTS_KEY],
  ])('refuses %s', async (_n, build, code, key) => {
    // Prepare
    const { lambda, handler } = setup();

    // Act
    const response = await withKey(lambda, code, key, build);

    // Assess
    expect(response).toStrictEqual(FORBIDDEN);
    expect(handler).not.toHaveBeenCalled();
  });
});

describe('apiKey: the key stays secret', () => {
  it('never writes the key, or its hash, to a log line', async () => {
    // Prepare
    const { lambda, logs } = setup();

    // Act
    await lambda(restEvent(request('reports', { 'x-api-key': ORDERS_KEY })), lambdaContext());
    await lambda(restEvent(request('reports', { 'x-api-key': 'wrong-key' })), lambdaContext());

    // Assess
    const refused = (status: number, code: string) => ({
      level: 'debug',
      message: 'request refused',
      route: `PUT ${ROUTE}`,
      requestId: expect.any(String) as unknown,
      status,
      code,
    });
    expect(logs.untimed()).toEqual([refused(403, 'FORBIDDEN'), refused(401, 'TOKEN_INVALID')]);
    const written = logs.lines.join('\n');
    for (const secret of [ORDERS_KEY, 'wrong-key', hashApiKey(ORDERS_KEY)]) {
      expect(written).not.toContain(secret);
    }
  });
});

describe('apiKey: failures that are not the client’s', () => {
  it('answers 500 INTERNAL_ERROR when the key lookup fails', async () => {
    // Prepare
    const { lambda, lookup, handler } = setup();
    lookup.activeKeyHashes.mockRejectedValueOnce(new Error('connection refused'));

    // Act
    const response = await withKey(lambda, 'reports', REPORTS_KEY);

    // Assess
    expect(response).toStrictEqual(INTERNAL);
    expect(handler).not.toHaveBeenCalled();
  });

  it('answers 500 when a handler asks for the plugin without the apiKey step', async () => {
    // Prepare
    const lambda = chain()
      .use(errorHandler({ logger: collectingLogger().logger }))
      .handler((_event, context) =>
        Promise.resolve(jsonResult(200, { plugin: authenticatedPlugin(context) })),
      );

    // Act
    const response = await lambda(restEvent(request('reports')), lambdaContext());

    // Assess
    expect(response).toStrictEqual(INTERNAL);
  });
});

describe('apiKey: options', () => {
  it.each([0, -1, 1.5, Number.NaN])('refuses maxKeyLength %p when the factory runs', (value) => {
    // Act
    const build = () => apiKey({ lookup: fakeLookup(), maxKeyLength: value });

    // Assess
    expect(build).toThrow(new TypeError('apiKey: maxKeyLength must be a positive whole number'));
  });

  it.each([
    ['header', { header: ' ' }],
    ['pathParameter', { pathParameter: '' }],
  ])('refuses an empty %s when the factory runs', (_name, opts) => {
    // Act
    const build = () => apiKey({ lookup: fakeLookup(), ...opts });

    // Assess
    expect(build).toThrow(new TypeError('apiKey: header and pathParameter must not be empty'));
  });

  it('refuses a missing lookup when the factory runs', () => {
    // Act
    const build = () => apiKey({} as ApiKeyOptions);

    // Assess
    expect(build).toThrow(new TypeError('apiKey: lookup is required'));
  });

  it('reads the key and the plugin from the configured header and path parameter', async () => {
    // Prepare
    const { lambda } = setup({ header: 'X-Deploy-Key', pathParameter: 'plugin' });
    const event = restEvent({
      method: 'PUT',
      resource: '/deploy/{plugin}',
      pathParameters: { plugin: 'orders' },
      headers: { 'x-deploy-key': ORDERS_KEY },
    });

    // Act
    const response = await lambda(event, lambdaContext());

    // Assess
    expect(response).toStrictEqual(authenticated('orders'));
  });
});
