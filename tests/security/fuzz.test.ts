/**
 * Property-based fuzzing (fast-check, fixed seeds) of every catalogue handler, loaded from its
 * handler file, with the real database and key set: arbitrary methods, paths, path parameters,
 * queries, headers (mostly owner-1's valid token) and bodies, in REST and HTTP API events. Never a
 * 5xx; always CORS `*`; every refusal the spec 2.6 body; no stack, SQL, token or key in any body or
 * log. The deployment handler skips requests that would store a bundle; its success path is fuzzed
 * on an in-memory registry.
 */
import fc from 'fast-check';
import type {
  APIGatewayProxyEvent,
  APIGatewayProxyEventV2,
  APIGatewayProxyResult,
} from 'aws-lambda';
import { endpointParameters } from '../../tools/generators/endpoints';
import { deployPluginEndpoint } from '../../middleware/compose';
import { SAMPLE_OWNERS, type SampleOwner } from '../../tools/db/sample-data';
import { LOCAL_PLUGIN_API_KEY } from '../../tools/db/seed-plugins';
import { createIssuer } from '../../tools/local/issuer';
import { catalogue } from '../../tools/catalogue';
import { addDays, todayIn } from '../../tools/dates';
import { headerValues, pathParameter, type GatewayEvent } from '../../shared/http/event';
import { createLogger } from '../../shared/logger';
import { hashApiKey } from '../../shared/plugins/api-keys';
import { parseDeploymentRequest } from '../../shared/plugins/deployment';
import { deployPlugin } from '../../tools/plugin-endpoints';
import type { PluginDeployment, PluginRegistry } from '../../shared/plugins/registry';
import { handlerOf } from '../support/declarations';
import { lambdaContext } from '../support/events';
import { captureLogs, claimSecrets, type LogCapture } from '../support/log-capture';
import { SPEC_CODES } from '../support/portal-errors';
import { testIssuer, tokenFor } from '../support/tokens';

type Handler = (event: GatewayEvent, context: unknown) => Promise<APIGatewayProxyResult>;

/** Runs per handler and base seed (+ the property's index); FUZZ_RUNS / FUZZ_SEED override. */
const RUNS = Number(process.env.FUZZ_RUNS) || 500;
const BASE_SEED = Number(process.env.FUZZ_SEED) || 20_260_415;
const PROPERTY_TIMEOUT_MS = 120_000;

const [owner1, owner2] = SAMPLE_OWNERS as [SampleOwner, SampleOwner, SampleOwner];

type TokenKind = 'valid' | 'otherOwner' | 'expired' | 'foreign' | 'unreadableSchema';
type Tokens = Readonly<Record<TokenKind | 'tampered' | 'unsigned', string>>;

let tokens: Tokens;
let logs: LogCapture;
/** Every endpoint's handler, by its function name, loaded from its handler file. */
const handlers = new Map<string, Handler>();

/** The deployment call's function (the one fuzzing must not let store a bundle). */
const DEPLOY_FUNCTION = catalogue.find((endpoint) => endpoint.id === deployPlugin.id)?.function;

beforeAll(async () => {
  process.env.LOG_LEVEL = 'debug';
  logs = captureLogs();
  for (const endpoint of catalogue) handlers.set(endpoint.function, await handlerOf(endpoint));
  const valid = await tokenFor(owner1, {}, '30m');
  const [header = '', , signature = ''] = valid.split('.');
  const forged = Buffer.from(
    JSON.stringify({ sub: owner2.sub, exp: Math.floor(Date.now() / 1000) + 600 }),
  ).toString('base64url');
  tokens = {
    valid,
    otherOwner: await tokenFor(owner2, {}, '30m'),
    expired: await tokenFor(owner1, {}, Math.floor(Date.now() / 1000) - 3600),
    foreign: await (await createIssuer()).sign({ sub: owner1.sub }, { expiresIn: '30m' }),
    unreadableSchema: await (await testIssuer()).sign({ authSchema: '{' }, { expiresIn: '30m' }),
    tampered: `${header}.${forged}.${signature}`,
    unsigned: `${Buffer.from('{"alg":"none"}').toString('base64url')}.${forged}.`,
  };
}, 60_000);

afterAll(async () => {
  const { closeContainerDependencies } = await import('../../shared/runtime');
  await closeContainerDependencies();
  logs.stop();
  logs.expectClean([
    ...Object.values(tokens),
    LOCAL_PLUGIN_API_KEY,
    ...SAMPLE_OWNERS.flatMap(claimSecrets),
  ]);
});

interface FuzzRequest {
  readonly shape: 'rest' | 'http';
  readonly method: string;
  /** The route template API Gateway matched (resource / routeKey). */
  readonly resource: string;
  readonly path: string;
  readonly pathParameters: Readonly<Record<string, string>> | null;
  readonly headers: readonly (readonly [string, string])[];
  readonly query: readonly (readonly [string, string])[];
  readonly body: string | null;
  readonly isBase64Encoded: boolean;
}

const MALFORMED_ESCAPES = [
  '%',
  '%%',
  '%zz',
  '%2',
  '%E0%A4%A',
  '%C3%28',
  '%C0%AF',
  '%FF%FE',
  '%ED%A0%80',
  '%00',
  '%25',
  '%u0041',
] as const;

const NASTY_STRINGS = [
  '',
  ' ',
  '\t',
  '\u0000',
  'a\u0000b',
  '\uD800',
  '\uDFFF\uD800',
  '\u202E',
  '\uFEFF',
  '\r\nX-Injected: 1',
  '..',
  '../../etc/passwd',
  "' or 1=1 --",
  "R-1001' --",
  'R-1001;drop table orders',
  '$(id)',
  '`id`',
  '<script>alert(1)</script>',
  '{{7*7}}',
  '${jndi:ldap://x}',
  '__proto__',
  'constructor',
  'toString',
  'null',
  'undefined',
  'NaN',
  '[]',
  '{}',
  '[object Object]',
  '-1',
  '1e309',
  'R-1001 ',
  ' R-1001',
  'r-1001',
  'R-1001,R-2001',
  'R-1001%00',
  'R%2D1001',
  ...MALFORMED_ESCAPES,
] as const;

/** Text the service gets from a careless or hostile client. */
const junk: fc.Arbitrary<string> = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...NASTY_STRINGS) },
  { weight: 2, arbitrary: fc.string() },
  { weight: 2, arbitrary: fc.string({ unit: 'binary', maxLength: 40 }) },
  { weight: 1, arbitrary: fc.string({ unit: 'grapheme', maxLength: 20 }) },
  {
    weight: 2,
    arbitrary: fc
      .array(fc.oneof(fc.constantFrom(...MALFORMED_ESCAPES), fc.string({ maxLength: 4 })), {
        minLength: 1,
        maxLength: 6,
      })
      .map((parts) => parts.join('')),
  },
  {
    weight: 1,
    arbitrary: fc
      .tuple(
        fc.constantFrom('x', '%', '9', 'é', '\u0000', '%C3%28'),
        fc.integer({ min: 1, max: 70_000 }),
      )
      .map(([unit, times]) => unit.repeat(times)),
  },
);

const today = todayIn('Asia/Dubai');

/** A date near today (where the sample data is), anywhere in 0001–9999, or a first of month. */
const dateText: fc.Arbitrary<string> = fc.oneof(
  { weight: 4, arbitrary: fc.integer({ min: -120, max: 30 }).map((days) => addDays(today, days)) },
  {
    weight: 2,
    arbitrary: fc
      .date({
        min: new Date('0001-01-01T00:00:00Z'),
        max: new Date('9999-12-31T00:00:00Z'),
        noInvalidDate: true,
      })
      .map((date) => date.toISOString().slice(0, 10)),
  },
  {
    weight: 2,
    arbitrary: fc.integer({ min: -14, max: 2 }).map((months) => {
      const date = new Date(`${today.slice(0, 7)}-01T00:00:00Z`);
      date.setUTCMonth(date.getUTCMonth() + months);
      return date.toISOString().slice(0, 10);
    }),
  },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      '0000-01-01',
      '0001-01-01',
      '9999-12-31',
      '10000-01-01',
      '2024-02-29',
      '2023-02-29',
      '2024-02-30',
      '2024-1-5',
      '2024-01-01T00:00:00Z',
      '2024-01-01 ',
      '２０２４-01-01',
      '2024/01/01',
      '+002024-01-01',
    ),
  },
  { weight: 2, arbitrary: junk },
);

/** A well-formed range: days (up to 40, so the 31-day limit is crossed) or months. */
const rangePairs: fc.Arbitrary<(readonly [string, string])[]> = fc.oneof(
  fc
    .tuple(fc.integer({ min: -100, max: 0 }), fc.integer({ min: 0, max: 40 }), fc.boolean())
    .map(([start, span, compare]) => {
      const from = addDays(today, start);
      const to = addDays(from, span);
      const pairs: (readonly [string, string])[] = [
        ['from', from],
        ['to', to],
      ];
      if (compare) {
        pairs.push(['compare[from]', addDays(from, -span - 1)], ['compare[to]', addDays(from, -1)]);
      }
      return pairs;
    }),
  fc
    .tuple(fc.integer({ min: -13, max: 0 }), fc.integer({ min: 0, max: 13 }))
    .map(([start, span]) => {
      const month = (offset: number) => {
        const date = new Date(`${today.slice(0, 7)}-01T00:00:00Z`);
        date.setUTCMonth(date.getUTCMonth() + offset);
        return date.toISOString().slice(0, 10);
      };
      return [
        ['from', month(start)],
        ['to', month(start + span)],
      ] as (readonly [string, string])[];
    }),
);

/** Every query-string parameter an endpoint of the catalogue declares, in catalogue order. */
const DECLARED_QUERY_KEYS = [
  ...new Set(
    catalogue.flatMap((endpoint) =>
      endpointParameters(endpoint)
        .filter((parameter) => parameter.in === 'query')
        .map((parameter) => parameter.name),
    ),
  ),
];

const queryKey: fc.Arbitrary<string> = fc.oneof(
  { weight: 5, arbitrary: fc.constantFrom(...DECLARED_QUERY_KEYS) },
  {
    weight: 2,
    arbitrary: fc.constantFrom(
      'compare[from][x]',
      'compare[to][]',
      'compare[]',
      'compare',
      'compare[from',
      'compare%5Bfrom%5D',
      'from[]',
      'from[0]',
      '[from]',
      'FROM',
      ' from',
      'from ',
      '',
      '=',
      'to%00',
      'token',
      'access_token',
      '__proto__',
      'constructor',
      'hasOwnProperty',
    ),
  },
  { weight: 1, arbitrary: junk },
);

const queryValue: fc.Arbitrary<string> = fc.oneof(
  { weight: 4, arbitrary: dateText },
  {
    weight: 2,
    arbitrary: fc.constantFrom('csv', 'json', 'CSV', 'xml', 'v1', 'v2', 'v3', '', 'csv,json'),
  },
  { weight: 2, arbitrary: junk },
);

const queryPairs: fc.Arbitrary<(readonly [string, string])[]> = fc
  .tuple(
    fc.option(rangePairs, { freq: 2 }),
    fc.array(fc.tuple(queryKey, queryValue), { maxLength: 6 }),
  )
  .map(([range, extra]) => [...(range ?? []), ...extra]);

const PLATFORM_IDS = [
  'TB_AE',
  'HS_AE',
  'TB_KW',
  'TBLEGACY_KW',
  'FD_DE',
  'PY_MX',
  'FP_SG',
  'tb_ae',
  'TB_AE,HS_AE',
  ' TB_AE ',
] as const;

interface HeaderGenerators {
  readonly authorization: fc.Arbitrary<string>;
}

const caseVariants = (name: string) =>
  fc.constantFrom(name, name.toLowerCase(), name.toUpperCase());

const headerPair = ({ authorization }: HeaderGenerators): fc.Arbitrary<readonly [string, string]> =>
  fc.oneof(
    { weight: 1, arbitrary: fc.tuple(caseVariants('Authorization'), authorization) },
    {
      weight: 3,
      arbitrary: fc.tuple(
        fc.constantFrom('X-Platform-Id', 'x-platform-id', 'X-PLATFORM-ID', 'x-Platform-ID'),
        fc.oneof(fc.constantFrom(...PLATFORM_IDS), junk),
      ),
    },
    {
      weight: 2,
      arbitrary: fc.tuple(
        caseVariants('Content-Type'),
        fc.oneof(
          fc.constantFrom(
            'application/json',
            'application/json; charset=utf-8',
            'application/json; charset=latin1',
            'APPLICATION/JSON',
            'text/plain',
            'multipart/form-data; boundary=x',
            '',
          ),
          junk,
        ),
      ),
    },
    {
      weight: 2,
      arbitrary: fc.tuple(
        fc.constantFrom('x-api-key', 'X-Api-Key', 'X-API-KEY'),
        fc.oneof(
          fc.constant(LOCAL_PLUGIN_API_KEY),
          fc.constantFrom(`${LOCAL_PLUGIN_API_KEY} `, 'x'.repeat(513), 'ppk_unknown'),
          junk,
        ),
      ),
    },
    {
      weight: 1,
      arbitrary: fc.tuple(
        caseVariants('Accept'),
        fc.oneof(fc.constantFrom('text/csv', 'application/json', '*/*', 'text/csv;q=0'), junk),
      ),
    },
    {
      weight: 1,
      arbitrary: fc.tuple(
        fc.constantFrom('Cookie', 'Origin', 'Host', 'X-Forwarded-For', 'Content-Length'),
        junk,
      ),
    },
    { weight: 1, arbitrary: fc.tuple(junk, junk) },
  );

/** Authorization values: mostly owner-1's valid token, so requests get past verification. */
const authorizationValue = (t: Tokens): fc.Arbitrary<string> =>
  fc.oneof(
    { weight: 8, arbitrary: fc.constant(`Bearer ${t.valid}`) },
    {
      weight: 4,
      arbitrary: fc.constantFrom(
        `bearer ${t.valid}`,
        `BEARER   ${t.valid}`,
        `Bearer ${t.valid} `,
        ` Bearer ${t.valid}`,
        `Bearer\t${t.valid}`,
        t.valid,
        `Token ${t.valid}`,
        `Bearer ${t.valid},Bearer ${t.valid}`,
        `Bearer ${t.valid}x`,
        `Bearer ${t.valid}.`,
        `Bearer ${t.valid.slice(0, -2)}`,
        `Bearer ${t.otherOwner}`,
        `Bearer ${t.expired}`,
        `Bearer ${t.foreign}`,
        `Bearer ${t.unreadableSchema}`,
        `Bearer ${t.tampered}`,
        `Bearer ${t.unsigned}`,
        'Bearer',
        'Bearer ',
        'Basic dXNlcjpwYXNz',
        'Bearer a.b.c',
        'Bearer ...',
        'Bearer e30.e30.e30',
        `Bearer ${'A'.repeat(20_000)}`,
        `Bearer ${'A'.repeat(16_000)}.${'B'.repeat(100)}.C`,
      ),
    },
    { weight: 2, arbitrary: junk.map((value) => `Bearer ${value}`) },
    { weight: 1, arbitrary: junk },
  );

/** The header list: owner-1's token first more often than not, then anything. */
const headerList = (t: Tokens): fc.Arbitrary<(readonly [string, string])[]> => {
  const authorization = authorizationValue(t);
  return fc
    .tuple(
      fc.option(fc.constant([`Authorization`, `Bearer ${t.valid}`] as const), { freq: 3 }),
      fc.array(headerPair({ authorization }), { maxLength: 5 }),
    )
    .map(([first, rest]) => (first ? [first, ...rest] : rest));
};

const OWN_IDS = ['R-1001', 'tb-ae-5501', 'hs-ae-7702', 'R-1002', 'tb-kw-3301'] as const;
const OTHER_IDS = ['R-2001', 'fd-de-1201', 'R-3001', 'R-9999'] as const;

const restaurantId: fc.Arbitrary<string> = fc.oneof(
  { weight: 5, arbitrary: fc.constantFrom(...OWN_IDS) },
  { weight: 1, arbitrary: fc.constantFrom(...OTHER_IDS) },
  { weight: 3, arbitrary: junk },
);

const pluginCode: fc.Arbitrary<string> = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom('reports', 'orders', 'no-such-plugin', 'REPORTS') },
  { weight: 3, arbitrary: junk },
);

/** Path parameters as the route names them, or missing, or with extra names. */
const pathParametersFor = (template: string) => {
  const names = [...template.matchAll(/\{(\w+)\}/g)].map((match) => match[1] ?? '');
  const value = (name: string) => (name === 'code' ? pluginCode : restaurantId);
  const named = fc.record(Object.fromEntries(names.map((name) => [name, value(name)])));
  return fc.oneof(
    { weight: 8, arbitrary: named },
    { weight: 1, arbitrary: fc.constant(null) },
    { weight: 1, arbitrary: fc.dictionary(junk, junk, { maxKeys: 3 }) },
  );
};

const method = (main: string): fc.Arbitrary<string> =>
  fc.oneof(
    { weight: 8, arbitrary: fc.constant(main) },
    {
      weight: 3,
      arbitrary: fc.constantFrom(
        'GET',
        'PUT',
        'OPTIONS',
        'POST',
        'DELETE',
        'HEAD',
        'PATCH',
        'options',
        'get',
        '',
      ),
    },
    { weight: 1, arbitrary: fc.stringMatching(/^[A-Za-z!#$&'*+.^_`|~-]{1,10}$/) },
  );

const bundleUrl: fc.Arbitrary<string> = fc.oneof(
  fc.webUrl({ validSchemes: ['https', 'http'] }),
  fc.constantFrom(
    'https://cdn.example.com/eu/reports/{bundle}',
    'http://localhost:8080/reports/a.js',
    'javascript:alert(1)',
    'https://user:pass@cdn.example.com/a.js',
    `https://cdn.example.com/${'a'.repeat(2100)}`,
    'https://cdn.example.com/"><script>',
    '//cdn.example.com/a.js',
  ),
  junk,
);

/** JSON text of a generated value (fast-check's JSON values are never undefined). */
const jsonText = (value: unknown): string => JSON.stringify(value);

/** A deployment body of the right shape, each field valid more often than not. */
const deploymentBody: fc.Arbitrary<string> = fc
  .record(
    {
      bundleUrl: fc.oneof(
        { weight: 3, arbitrary: fc.webUrl({ validSchemes: ['https'] }) },
        { weight: 2, arbitrary: bundleUrl },
        { weight: 1, arbitrary: fc.jsonValue() },
      ),
      portalVersion: fc.oneof(
        { weight: 4, arbitrary: fc.constantFrom('v1', 'v2') },
        { weight: 1, arbitrary: fc.constantFrom('V2', 'v3', '', ' v1') },
        { weight: 1, arbitrary: fc.jsonValue() },
      ),
      extra: fc.jsonValue(),
    },
    { requiredKeys: [] },
  )
  .map(jsonText);

const body: fc.Arbitrary<string | null> = fc.oneof(
  { weight: 2, arbitrary: fc.constant(null) },
  { weight: 4, arbitrary: deploymentBody },
  { weight: 2, arbitrary: fc.jsonValue().map(jsonText) },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      '{',
      '{"bundleUrl":',
      '{"__proto__":{"bundleUrl":"https://cdn.example.com/a.js"},"portalVersion":"v1"}',
      '{"bundleUrl":"https://cdn.example.com/a.js","bundleUrl":"x","portalVersion":"v1"}',
      `{"bundleUrl":"https://cdn.example.com/a.js","portalVersion":"v1","pad":"${'x'.repeat(17_000)}"}`,
      '\uFEFF{"bundleUrl":"https://cdn.example.com/a.js","portalVersion":"v1"}',
      '[]',
      '""',
    ),
  },
  { weight: 2, arbitrary: junk },
);

/** The body as API Gateway hands it over: as text, base64-encoded, or flagged base64 but not. */
const payload = (text: fc.Arbitrary<string | null>) =>
  fc.tuple(text, fc.constantFrom('text', 'text', 'base64', 'not-base64')).map(([value, as]) => ({
    body: as === 'base64' && value !== null ? Buffer.from(value, 'utf8').toString('base64') : value,
    isBase64Encoded: as !== 'text',
  }));

const requestFor = (
  paths: readonly string[],
  mainMethod: string,
  t: Tokens,
): fc.Arbitrary<FuzzRequest> =>
  fc
    .constantFrom(...paths)
    .chain((template) =>
      fc.record({
        shape: fc.constantFrom('rest' as const, 'http' as const),
        method: method(mainMethod),
        resource: fc.oneof(
          { weight: 8, arbitrary: fc.constant(template) },
          { weight: 1, arbitrary: fc.constantFrom('/{proxy+}', '$default') },
        ),
        pathParameters: pathParametersFor(template),
        rawPath: fc.oneof(
          { weight: 4, arbitrary: fc.constant(undefined) },
          { weight: 1, arbitrary: junk.map((value) => `/${value}`) },
        ),
        template: fc.constant(template),
        headers: headerList(t),
        query: queryPairs,
        payload: payload(body),
      }),
    )
    .map(({ rawPath, template, payload: { body: text, isBase64Encoded }, ...request }) => ({
      ...request,
      body: text,
      isBase64Encoded,
      // The path the client sent: the template with its parameters as sent (unencoded, so
      // malformed escapes stay), or anything at all.
      path:
        rawPath ??
        template.replace(/\{(\w+)\}/g, (_m, name: string) => request.pathParameters?.[name] ?? ''),
    }));

/** Percent-encodes what cannot stand in a URL, keeping `%` so malformed escapes reach us raw. */
const urlText = (value: string): string =>
  Array.from(value)
    .map((char) =>
      /^[A-Za-z0-9\-._~!$'()*+,;:@/?%[\]]$/.test(char)
        ? char
        : [...Buffer.from(char, 'utf8')]
            .map((byte) => `%${byte.toString(16).toUpperCase().padStart(2, '0')}`)
            .join(''),
    )
    .join('');

const lenientDecode = (value: string): string => {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
};

/** Groups name → values, every name an own property (even `__proto__`), as JSON.parse would. */
const grouped = (pairs: readonly (readonly [string, string])[]): Map<string, string[]> => {
  const groups = new Map<string, string[]>();
  for (const [name, value] of pairs) groups.set(name, [...(groups.get(name) ?? []), value]);
  return groups;
};

const restEventOf = (request: FuzzRequest): APIGatewayProxyEvent => {
  const headers = grouped(request.headers);
  const query = grouped(request.query);
  const last = (groups: Map<string, string[]>) =>
    groups.size === 0 ? null : Object.fromEntries([...groups].map(([k, v]) => [k, v.at(-1) ?? '']));
  const all = (groups: Map<string, string[]>) =>
    groups.size === 0 ? null : Object.fromEntries(groups);
  return {
    resource: request.resource,
    path: request.path,
    httpMethod: request.method,
    headers: last(headers) as APIGatewayProxyEvent['headers'],
    multiValueHeaders: all(headers) as APIGatewayProxyEvent['multiValueHeaders'],
    queryStringParameters: last(query),
    multiValueQueryStringParameters: all(query),
    pathParameters: request.pathParameters ? { ...request.pathParameters } : null,
    stageVariables: null,
    requestContext: {
      accountId: '123456789012',
      apiId: 'fuzz',
      authorizer: null,
      protocol: 'HTTP/1.1',
      httpMethod: request.method,
      identity: { sourceIp: '203.0.113.10' } as APIGatewayProxyEvent['requestContext']['identity'],
      path: request.path,
      stage: 'test',
      requestId: `fuzz-${Math.random().toString(36).slice(2)}`,
      requestTimeEpoch: Date.now(),
      resourceId: 'r',
      resourcePath: request.resource,
    },
    body: request.body,
    isBase64Encoded: request.isBase64Encoded,
  };
};

const httpEventOf = (request: FuzzRequest): APIGatewayProxyEventV2 => {
  const headers: Record<string, string> = {};
  for (const [name, values] of grouped(
    request.headers.map(([k, v]) => [k.toLowerCase(), v] as const),
  )) {
    headers[name] = values.join(',');
  }
  const query = grouped(
    request.query.map(([k, v]) => [lenientDecode(k), lenientDecode(v)] as const),
  );
  const routeKey =
    request.resource === '$default' ? '$default' : `${request.method} ${request.resource}`;
  return {
    version: '2.0',
    routeKey,
    rawPath: urlText(request.path),
    rawQueryString: request.query.map(([k, v]) => `${urlText(k)}=${urlText(v)}`).join('&'),
    headers,
    ...(query.size > 0
      ? { queryStringParameters: Object.fromEntries([...query].map(([k, v]) => [k, v.join(',')])) }
      : {}),
    ...(request.pathParameters ? { pathParameters: { ...request.pathParameters } } : {}),
    requestContext: {
      accountId: '123456789012',
      apiId: 'fuzz',
      domainName: 'fuzz.execute-api.eu-west-1.amazonaws.com',
      domainPrefix: 'fuzz',
      http: {
        method: request.method,
        path: urlText(request.path),
        protocol: 'HTTP/1.1',
        sourceIp: '203.0.113.10',
        userAgent: 'fast-check',
      },
      requestId: `fuzz-${Math.random().toString(36).slice(2)}`,
      routeKey,
      stage: '$default',
      time: new Date().toISOString(),
      timeEpoch: Date.now(),
    },
    ...(request.body === null ? {} : { body: request.body }),
    isBase64Encoded: request.isBase64Encoded,
  };
};

const eventOf = (request: FuzzRequest): GatewayEvent =>
  request.shape === 'rest' ? restEventOf(request) : httpEventOf(request);

/** Secrets a request carried that no answer may repeat: its bearer tokens and API keys. */
const secretsSent = (event: GatewayEvent): string[] =>
  [
    ...headerValues(event, 'authorization').flatMap((value) =>
      value.split(/[\s,]+/).filter((part) => !/^bearer$/i.test(part)),
    ),
    ...headerValues(event, 'x-api-key'),
  ]
    .map((value) => value.trim())
    .filter((value) => value.length >= 16);

const headerNamed = (result: APIGatewayProxyResult, name: string): unknown[] =>
  Object.entries(result.headers ?? {})
    .filter(([key]) => key.toLowerCase() === name.toLowerCase())
    .map(([, value]) => value);

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** Why a response breaks the contract, or undefined when it keeps it. */
const breach = (event: GatewayEvent, result: APIGatewayProxyResult): string | undefined => {
  if (!Number.isInteger(result.statusCode)) return `status ${String(result.statusCode)}`;
  if (result.statusCode >= 500) return `5xx: ${String(result.statusCode)} ${result.body}`;
  const origin = headerNamed(result, 'Access-Control-Allow-Origin');
  if (origin.length !== 1 || origin[0] !== '*') return `CORS origin ${JSON.stringify(origin)}`;
  const text = typeof result.body === 'string' ? result.body : '';
  if (text.includes('    at ')) return 'a stack trace in the body';
  if (/\bselect\b/i.test(text) || /from orders/i.test(text)) return 'SQL text in the body';
  const leaked = secretsSent(event).find((secret) => text.includes(secret));
  if (leaked !== undefined) return 'a token or key of the request in the body';
  if (result.statusCode < 400) return undefined;

  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return `a ${String(result.statusCode)} body that is not JSON: ${text.slice(0, 200)}`;
  }
  if (!isRecord(parsed)) return 'an error body that is not an object';
  const { state, code, message, errors, ...rest } = parsed;
  if (state !== 'ERROR') return `state ${JSON.stringify(state)}`;
  if (typeof code !== 'string' || !(SPEC_CODES as readonly string[]).includes(code)) {
    return `code ${JSON.stringify(code)}`;
  }
  if (typeof message !== 'string' || message === '') return `message ${JSON.stringify(message)}`;
  if (Object.keys(rest).length > 0) return `extra fields ${Object.keys(rest).join(',')}`;
  if (code === 'VALIDATION_ERROR') {
    const entriesOk =
      Array.isArray(errors) &&
      errors.every(
        (entry) =>
          isRecord(entry) &&
          typeof entry.field === 'string' &&
          typeof entry.code === 'string' &&
          typeof entry.message === 'string',
      );
    if (!entriesOk) return `errors ${JSON.stringify(errors)}`;
  } else if (errors !== undefined) {
    return `errors on a ${code}`;
  }
  const expectedStatus: Record<string, number> = {
    OUT_OF_RANGE: 400,
    VALIDATION_ERROR: 400,
    TOKEN_INVALID: 401,
    TOKEN_EXPIRED: 401,
    FORBIDDEN: 403,
    INTERNAL_ERROR: 500,
  };
  if (expectedStatus[code] !== result.statusCode)
    return `${code} answered ${String(result.statusCode)}`;
  return undefined;
};

/** A request the real deployment handler would answer by storing a bundle of `reports`. */
const wouldStoreBundle = (event: GatewayEvent): boolean => {
  const keys = headerValues(event, 'x-api-key');
  if (keys.length !== 1 || keys[0] !== LOCAL_PLUGIN_API_KEY) return false;
  if (pathParameter(event, 'code') !== 'reports') return false;
  try {
    parseDeploymentRequest({
      body: event.body,
      isBase64Encoded: event.isBase64Encoded,
      contentTypes: headerValues(event, 'content-type'),
    });
    return true;
  } catch {
    return false;
  }
};

const fuzzHandler = async (
  handler: Handler,
  arbitrary: fc.Arbitrary<FuzzRequest>,
  seed: number,
  skip: (event: GatewayEvent) => boolean = () => false,
): Promise<Set<number>> => {
  const reached = new Set<number>();
  await fc.assert(
    fc.asyncProperty(arbitrary, async (request) => {
      const event = eventOf(request);
      fc.pre(!skip(event));
      const result = await handler(event, lambdaContext());
      reached.add(result.statusCode);
      const problem = breach(event, result);
      if (problem !== undefined) throw new Error(problem);
    }),
    { seed, numRuns: RUNS },
  );
  return reached;
};

const endpoints = catalogue.map((endpoint, index) => ({
  name: endpoint.function,
  method: endpoint.method,
  paths: endpoint.paths,
  seed: BASE_SEED + index,
}));

describe('Bad input, fuzzed: every handler of the service', () => {
  it("has a fuzzed handler, loaded from its handler file, for every endpoint of the catalogue, and the deployment call's among them", () => {
    expect([...handlers.keys()]).toEqual(catalogue.map((endpoint) => endpoint.function));
    expect([...handlers.values()].every((handler) => typeof handler === 'function')).toBe(true);
    expect(DEPLOY_FUNCTION).toBeDefined();
    expect(DECLARED_QUERY_KEYS).toEqual(expect.arrayContaining(['from', 'to', 'format']));
  });

  it.each(endpoints)(
    `$name ($method $paths.0): arbitrary paths, path parameters, queries, headers, methods and bodies, REST and HTTP API events, never a 5xx, always CORS and the spec error body, never a stack, SQL or token (seed $seed, ${RUNS} runs)`,
    async ({ name, method: mainMethod, paths, seed }) => {
      const handler = handlers.get(name);
      if (!handler) throw new Error(`no handler for ${name}`);
      const reached = await fuzzHandler(
        handler,
        requestFor(paths, mainMethod, tokens),
        seed,
        name === DEPLOY_FUNCTION ? wouldStoreBundle : undefined,
      );
      // The generators reach past the token into the deeper layers, not only 401s.
      expect([...reached]).toEqual(expect.arrayContaining([200, 401]));
      expect([...reached].some((status) => status === 400 || status === 403)).toBe(true);
    },
    PROPERTY_TIMEOUT_MS,
  );
});

describe('Bad input, fuzzed: the deployment chain up to a stored bundle', () => {
  const FUZZ_KEY = 'fuzz-deploy-key-0123456789abcdef';

  /** The real chain over a registry that keeps deployments in memory (no shared rows touched). */
  const memoryRegistry = (): PluginRegistry => ({
    available: () => Promise.resolve([]),
    deploy: (deployment: PluginDeployment) => Promise.resolve(deployment),
    activeKeyHashes: (code) => Promise.resolve(code === 'reports' ? [hashApiKey(FUZZ_KEY)] : []),
    pluginOfKey: (hash) => Promise.resolve(hash === hashApiKey(FUZZ_KEY) ? 'reports' : undefined),
  });

  it(
    `PUT /v1/plugins/{code} with the plugin's own key and arbitrary bodies: stores or refuses with the spec body, never a 5xx (seed ${BASE_SEED + 100}, ${RUNS} runs)`,
    async () => {
      const handler = deployPluginEndpoint(memoryRegistry(), {
        logger: createLogger('debug'),
      }) as unknown as Handler;
      const arbitrary = fc
        .record({
          shape: fc.constantFrom('rest' as const, 'http' as const),
          method: fc.constant('PUT'),
          resource: fc.constant('/v1/plugins/{code}'),
          path: fc.constant('/v1/plugins/reports'),
          pathParameters: fc.constant({ code: 'reports' }),
          headers: fc
            .array(
              fc.tuple(
                caseVariants('Content-Type'),
                fc.oneof(
                  { weight: 4, arbitrary: fc.constant('application/json') },
                  { weight: 1, arbitrary: junk },
                ),
              ),
              { minLength: 1, maxLength: 2 },
            )
            .map((pairs) => [['x-api-key', FUZZ_KEY] as const, ...pairs]),
          query: fc.constant([]),
          payload: payload(
            fc.oneof({ weight: 4, arbitrary: deploymentBody }, { weight: 1, arbitrary: body }),
          ),
        })
        .map(({ payload: { body: text, isBase64Encoded }, ...request }) => ({
          ...request,
          body: text,
          isBase64Encoded,
        }));

      const reached = await fuzzHandler(handler, arbitrary, BASE_SEED + 100);

      expect([...reached]).toEqual(expect.arrayContaining([200, 400]));
    },
    PROPERTY_TIMEOUT_MS,
  );
});

describe('Bad input, fuzzed: counterexamples found, kept as fixed cases', () => {
  it.each([
    ['a NUL byte as the plugin code', '\u0000'],
    ['a NUL byte inside the plugin code', 'reports\u0000'],
  ])(
    'PUT /v1/plugins/{code} with %s (found by the fuzzer) is refused with a 4xx spec body, not a 500 from the database',
    async (_what, code) => {
      const handler = handlers.get(DEPLOY_FUNCTION ?? '');
      if (!handler) throw new Error('no handler of the deployment call');
      const event = restEventOf({
        shape: 'rest',
        method: 'PUT',
        resource: '/v1/plugins/{code}',
        path: `/v1/plugins/${code}`,
        pathParameters: { code },
        headers: [
          ['x-api-key', `${LOCAL_PLUGIN_API_KEY} `],
          ['Content-Type', 'application/json'],
        ],
        query: [],
        body: '{}',
        isBase64Encoded: false,
      });

      const result = await handler(event, lambdaContext());

      expect(breach(event, result)).toBeUndefined();
      expect(result.statusCode).toBeGreaterThanOrEqual(400);
    },
  );
});
