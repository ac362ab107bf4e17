import { buildManifest, renderManifestMarkdown } from '../../../tools/generators/manifest';
import { UNITS } from '../../../tools/generators/units';
import { catalogue, report, type Endpoint } from '../../../tools/catalogue';
import { type CatalogueReport } from '../../../shared/answers';
import type { PropertyDefinition, Unit } from '../../../shared/reports/report';

const GOOD: readonly PropertyDefinition[] = [
  { key: 'month', name: 'Month', type: 'string', unit: 'DATE_MONTH' },
  { key: 'orderCount', name: 'Orders', type: 'integer' },
  { key: 'revenue', name: 'Sales', type: 'number', unit: 'CURRENCY' },
];

/** A report made up for the test, with a handler file that exists (validate.test.ts checks that). */
const reportWith = (properties: readonly PropertyDefinition[]): Endpoint => {
  const definition: CatalogueReport = {
    id: 'monthly-test',
    title: 'Monthly test',
    description: 'A report made up for the test.',
    properties,
    parameters: [],
  };
  return {
    ...report(definition, '/v1/restaurants/{id}/reports/monthly-test'),
    handlerFile: 'functions/revenue.ts',
  };
};

/** What buildManifest threw, as [is a TypeError, message]. */
const failureOf = (list: readonly Endpoint[]): [boolean, string] => {
  try {
    buildManifest(list);
  } catch (error) {
    return [error instanceof TypeError, error instanceof Error ? error.message : String(error)];
  }
  return [false, 'did not throw'];
};

const BUNDLE_URL = {
  type: 'string',
  maxLength: 2048,
  description:
    'The bundle, `<cdn_url>/<region>/reports/<filename>`: an absolute https URL (http only when the host is written as localhost, 127.0.0.1 or [::1]), with nothing before the host (no user name, password or @), of printable ASCII without space, quotes, backtick, <, >, backslash, HTML character references or `${`; may contain a bundle placeholder such as `{bundle}`',
};

describe('buildManifest', () => {
  it('lists every catalogued endpoint with its function, method and paths', () => {
    // Act
    const manifest = buildManifest(catalogue);

    // Assess
    expect(
      manifest.endpoints.map(({ function: fn, method, paths }) => ({ fn, method, paths })),
    ).toEqual(
      catalogue.map(({ function: fn, method, paths }) => ({ fn, method, paths: [...paths] })),
    );
    expect(manifest.units).toEqual(Object.values(UNITS));
  });

  it('gives a report its parameters and every property with key, English name, type, unit and CSV column', () => {
    // Act
    const manifest = buildManifest(catalogue);

    // Assess
    expect(manifest.endpoints.find((endpoint) => endpoint.function === 'ordersPerDay')).toEqual({
      function: 'ordersPerDay',
      id: 'orders-per-day',
      kind: 'report',
      title: 'Orders per day',
      description:
        'Orders and sales per day of the restaurant, optionally beside a comparison period.',
      method: 'GET',
      paths: ['/v1/restaurants/{id}/reports/orders/day'],
      authentication: 'bearer',
      parameters: [
        {
          name: 'id',
          in: 'path',
          required: true,
          description:
            "The restaurant: the brand's own id or its restaurantId on the requested platform (must not be empty)",
        },
        {
          name: 'X-Platform-Id',
          in: 'header',
          required: false,
          description:
            'The requested platform (spec 4.2); without it, the first platform in the token (spec 5.5). A browser page on another origin cannot send it (spec 4.3 CORS headers).',
        },
        {
          name: 'from',
          in: 'query',
          required: true,
          description: "First day, in the restaurant's time zone",
          format: 'YYYY-MM-DD',
        },
        {
          name: 'to',
          in: 'query',
          required: true,
          description: 'Last day, included; at most 31 days after from',
          format: 'YYYY-MM-DD',
        },
        {
          name: 'compare[from]',
          in: 'query',
          required: false,
          description: 'First day of the comparison period (with compare[to])',
          format: 'YYYY-MM-DD',
        },
        {
          name: 'compare[to]',
          in: 'query',
          required: false,
          description: 'Last day of the comparison period (with compare[from])',
          format: 'YYYY-MM-DD',
        },
        {
          name: 'format',
          in: 'query',
          required: false,
          description: 'csv answers the report as a CSV download (as does Accept: text/csv)',
          values: ['json', 'csv'],
          default: 'json',
        },
      ],
      errorStatuses: [400, 401, 403, 500],
      properties: [
        {
          key: 'date',
          name: 'Day',
          type: 'string',
          unit: 'DATE',
          unitMeaning: 'Full date',
          csvColumn: 'day',
        },
        { key: 'orderCount', name: 'Orders', type: 'integer', csvColumn: 'orders' },
        {
          key: 'revenue',
          name: 'Sales',
          type: 'number',
          unit: 'CURRENCY',
          unitMeaning: 'Restaurant currency',
          csvColumn: 'sales',
        },
      ],
    });
  });

  it('gives the deployment call its path parameter, API key, request body and answer', () => {
    // Act
    const manifest = buildManifest(catalogue);

    // Assess
    expect(manifest.endpoints.find((endpoint) => endpoint.function === 'deployPlugin')).toEqual({
      function: 'deployPlugin',
      id: 'deploy-plugin',
      kind: 'custom',
      title: 'Plugin deployment',
      description:
        'Points a plugin of a portal version at a new bundle (the `PUT {update_url}` call of spec 4.6). `v2` makes it available to the v2 portal (devnext) without touching `v1`.',
      method: 'PUT',
      paths: ['/v1/plugins/{code}'],
      authentication: 'api-key',
      parameters: [{ name: 'code', in: 'path', required: true, description: 'The plugin code' }],
      errorStatuses: [400, 401, 403, 500],
      requestBodySchema: {
        type: 'object',
        required: ['bundleUrl', 'portalVersion'],
        properties: {
          bundleUrl: BUNDLE_URL,
          portalVersion: { type: 'string', enum: ['v1', 'v2'] },
        },
      },
      responseSchema: {
        type: 'object',
        required: ['data'],
        properties: {
          data: {
            type: 'object',
            required: ['code', 'portalVersion', 'bundleUrl'],
            properties: {
              code: { type: 'string' },
              portalVersion: { type: 'string', enum: ['v1', 'v2'] },
              bundleUrl: BUNDLE_URL,
            },
          },
        },
      },
    });
  });

  it('accepts a report whose every property is named and of a known unit', () => {
    // Act
    const manifest = buildManifest([reportWith(GOOD)]);

    // Assess
    expect(manifest.endpoints).toHaveLength(1);
  });

  const [MONTH, ORDERS] = [GOOD[0]!, GOOD[1]!];
  const NO_NAME = 'property "orderCount" has no English name';

  it.each<[string, readonly PropertyDefinition[], string]>([
    ['a property with an empty English name', [MONTH, { ...ORDERS, name: '' }], NO_NAME],
    ['a property named in whitespace only', [MONTH, { ...ORDERS, name: ' \t ' }], NO_NAME],
    [
      'a property without a name at all',
      [{ key: 'orderCount', type: 'integer' } as unknown as PropertyDefinition],
      NO_NAME,
    ],
    [
      'a property of an unknown unit',
      [{ key: 'share', name: 'Share', type: 'number', unit: 'PERCENT' as Unit }],
      'property "share" has unknown unit "PERCENT" (expected DATE, DATE_MONTH, DATE_YEAR, CURRENCY)',
    ],
    [
      'two properties with one key',
      [...GOOD, { key: 'revenue', name: 'Net sales', type: 'number', csvName: 'net' }],
      'two properties share the key "revenue"',
    ],
    [
      'two properties with one CSV column',
      [MONTH, { ...ORDERS, csvName: 'month' }],
      'two properties share the CSV column "month"',
    ],
    [
      'a currency that is not a number',
      [{ key: 'revenue', name: 'Sales', type: 'string', unit: 'CURRENCY' }],
      'property "revenue" has unit CURRENCY, which needs type number',
    ],
    [
      'a month that is not a string',
      [{ ...MONTH, type: 'integer' }],
      'property "month" has unit DATE_MONTH, which needs type string',
    ],
    [
      'a property of an unknown type',
      [{ key: 'open', name: 'Open', type: 'boolean' } as unknown as PropertyDefinition],
      'property "open" has unknown type "boolean" (expected string, integer, number)',
    ],
    ['a property without a key', [MONTH, { ...ORDERS, key: ' ' }], 'property #2 has no key'],
    ['no properties', [], 'Report "monthly-test" declares no properties'],
  ])(
    'refuses a report with %s, naming the report and the property',
    (_case, properties, message) => {
      // Act / Assess
      const expected = message.startsWith('Report') ? message : `Report "monthly-test": ${message}`;
      expect(failureOf([...catalogue, reportWith(properties)])).toEqual([true, expected]);
    },
  );

  it('names every problem of a report at once', () => {
    // Prepare
    const properties: PropertyDefinition[] = [
      { key: 'month', name: '', type: 'string', unit: 'DATE_MONTH' },
      { key: 'month', name: 'Month again', type: 'string', unit: 'MONTH' as Unit },
    ];

    // Act / Assess
    expect(failureOf([reportWith(properties)])).toEqual([
      true,
      [
        'Report "monthly-test": property "month" has no English name',
        'Report "monthly-test": two properties share the key "month"',
        'Report "monthly-test": two properties share the CSV column "month"',
        'Report "monthly-test": property "month" has unknown unit "MONTH" (expected DATE, DATE_MONTH, DATE_YEAR, CURRENCY)',
      ].join('\n'),
    ]);
  });

  it('lists the error statuses of the plugin registry without 403: it has no ownership step', () => {
    // Act
    const manifest = buildManifest(catalogue);

    // Assess
    expect(
      manifest.endpoints.find((endpoint) => endpoint.function === 'plugins')?.errorStatuses,
    ).toEqual([400, 401, 500]);
  });

  it('refuses an alias that does not take the parameters of its /v1 path', () => {
    // Prepare
    const endpoint = { ...reportWith(GOOD), paths: ['/v1/restaurants/{id}/x', '/res/x'] } as const;

    // Act / Assess
    expect(failureOf([endpoint])).toEqual([
      true,
      'monthlyTest: /res/x does not take the parameters of its /v1 path',
    ]);
  });
});

describe('renderManifestMarkdown', () => {
  it('shows every path, parameter and property English name of the catalogue', () => {
    // Prepare
    const manifest = buildManifest(catalogue);

    // Act
    const markdown = renderManifestMarkdown(manifest);

    // Assess
    const expected = manifest.endpoints.flatMap((endpoint) => [
      ...endpoint.paths.map((path) => `\`${endpoint.method} ${path}\``),
      ...endpoint.parameters.map((parameter) => `- \`${parameter.name}\` (${parameter.in}, `),
      ...(endpoint.kind === 'report'
        ? endpoint.properties.map((property) => `| \`${property.key}\` | ${property.name} |`)
        : []),
    ]);
    expect(expected.filter((text) => !markdown.includes(text))).toEqual([]);
  });

  it('keeps a pipe in a description inside its table cell', () => {
    // Prepare
    const endpoint = reportWith([{ key: 'a', name: 'A | B', type: 'string' }]);

    // Act / Assess
    expect(renderManifestMarkdown(buildManifest([endpoint]))).toContain(
      '| `a` | A \\| B | string |  | `a` |',
    );
  });
});
