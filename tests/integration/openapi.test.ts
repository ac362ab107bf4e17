/**
 * The OpenAPI document and the manifest against what is deployed: the document is valid OpenAPI
 * 3.1 and documents exactly serverless.yml's functions, which come from the catalogue alone; each
 * handler is its endpoint's module; docs/ holds what `npm run manifest` and `npm run openapi` write.
 */
import { resolverOf } from '../support/resolvers';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Validator } from '@seriousme/openapi-schema-validator';
import { buildOpenApiDocument } from '../../tools/generators/openapi';
import { preTrafficFunction } from '../../tools/generators/pre-traffic';
import { heartbeatFunction } from '../../tools/generators/heartbeat';
import { serverlessFunctions } from '../../tools/generators/serverless';
import { catalogue } from '../../tools/catalogue';
import { closeContainerDependencies } from '../../shared/runtime';
import { handlerOf } from '../support/declarations';
import { SPEC_CODES } from '../support/portal-errors';
import { ROOT, run } from '../support/processes';

const TSX = createRequire(import.meta.url).resolve('tsx/cli');
const { version } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
  version: string;
};
const document = buildOpenApiDocument(catalogue, { version });

const METHODS = new Set(['get', 'put', 'post', 'patch', 'delete', 'options', 'head']);

type Operation = Record<string, unknown> & {
  responses: Record<string, unknown>;
  security: Record<string, unknown>[];
};

/** Every operation of the document, by its `METHOD path`. */
const operations = (): [string, Operation][] =>
  Object.entries(document.paths).flatMap(([path, item]) =>
    Object.entries(item)
      .filter(([key]) => METHODS.has(key))
      .map(([method, operation]): [string, Operation] => [
        `${method.toUpperCase()} ${path}`,
        operation as Operation,
      ]),
  );

const sorted = (list: readonly string[]): string[] => [...list].sort();

describe('the OpenAPI document', () => {
  it('is a valid OpenAPI 3.1 document', async () => {
    // Prepare
    const validator = new Validator();

    // Act
    const result = await validator.validate(structuredClone({ ...document }));

    // Assess
    expect(result).toEqual({ valid: true });
    expect(validator.version).toBe('3.1');
  });

  it("documents exactly the routes of serverless.yml's functions", () => {
    // Prepare
    const deployed = Object.values(serverlessFunctions()).flatMap((fn) =>
      fn.events.map(({ http }) => `${http.method.toUpperCase()} ${http.path}`),
    );

    // Act / Assess
    expect(sorted(operations().map(([route]) => route))).toEqual(sorted(deployed));
  });

  it('answers every report with rows built from its properties, data required and compare optional', () => {
    // Act
    const { schemas } = document.components;

    // Assess
    expect(schemas?.OrdersPerDayRow).toEqual({
      title: 'Orders per day row',
      type: 'object',
      required: ['date', 'orderCount', 'revenue'],
      additionalProperties: false,
      properties: {
        date: {
          title: 'Day',
          type: 'string',
          description: 'Full date (DATE): YYYY-MM-DD',
          format: 'date',
          pattern: '^[0-9]{4}-[0-9]{2}-[0-9]{2}$',
          'x-unit': 'DATE',
        },
        orderCount: { title: 'Orders', type: 'integer' },
        revenue: {
          title: 'Sales',
          type: 'number',
          description:
            "Restaurant currency (CURRENCY): number, rounded to the currency's minor unit",
          'x-unit': 'CURRENCY',
        },
      },
    });
    expect(schemas?.OrdersPerDayResponse).toEqual({
      description: 'Report response (spec 2.4)',
      type: 'object',
      required: ['data'],
      additionalProperties: false,
      properties: {
        data: {
          type: 'array',
          items: {
            type: 'object',
            required: ['data'],
            additionalProperties: false,
            properties: {
              data: { $ref: '#/components/schemas/OrdersPerDayRow' },
              compare: {
                description: 'The same keys, for the comparison period',
                $ref: '#/components/schemas/OrdersPerDayRow',
              },
            },
          },
        },
      },
    });
    const reports = catalogue.flatMap((endpoint) =>
      endpoint.answers.kind === 'report' ? [endpoint.answers.report] : [],
    );
    expect(
      reports.map((report) => {
        const row = Object.values(schemas ?? {}).find(
          (schema) => schema.title === `${report.title} row`,
        );
        return { id: report.id, required: row?.required };
      }),
    ).toEqual(
      reports.map(({ id, properties }) => ({ id, required: properties.map((p) => p.key) })),
    );
  });

  it('answers a report as JSON or as CSV on every one of its paths', () => {
    // Prepare
    const reportRoutes = catalogue.flatMap((endpoint) =>
      endpoint.answers.kind === 'report'
        ? endpoint.paths.map((path) => `${endpoint.method} ${path}`)
        : [],
    );

    // Act
    const contentTypes = operations()
      .filter(([route]) => reportRoutes.includes(route))
      .map(([route, operation]) => {
        const ok = operation.responses['200'] as { content: Record<string, unknown> };
        return [route, Object.keys(ok.content)];
      });

    // Assess
    expect(contentTypes).toEqual(
      reportRoutes.map((route) => [route, ['application/json', 'text/csv']]),
    );
  });

  it('gives every operation but OPTIONS the spec 2.6 error body for 400, 401, 403 (but the registry) and 500', () => {
    // Act
    const errors = operations()
      .filter(([route]) => !route.startsWith('OPTIONS '))
      .map(([route, operation]) => [
        route,
        Object.fromEntries(
          Object.entries(operation.responses).filter(([status]) => status !== '200'),
        ),
      ]);

    // Assess
    const ref = (name: string) => ({ $ref: `#/components/responses/${name}` });
    expect(errors).toEqual(
      errors.map(([route]) => [
        route,
        {
          400: ref('BadRequest'),
          401: ref('Unauthorized'),
          ...(route === 'GET /v1/plugins' ? {} : { 403: ref('Forbidden') }),
          500: ref('InternalError'),
        },
      ]),
    );
    expect(document.components.schemas?.ErrorBody).toEqual({
      description: 'Error body (spec 2.6)',
      type: 'object',
      required: ['state', 'code', 'message'],
      additionalProperties: false,
      properties: {
        state: { const: 'ERROR' },
        code: { type: 'string', enum: SPEC_CODES },
        message: { type: 'string' },
        errors: {
          description: 'Only for VALIDATION_ERROR: one entry per field at fault',
          type: 'array',
          items: { $ref: '#/components/schemas/ValidationEntry' },
        },
      },
    });
    expect(document.components.responses?.Unauthorized).toEqual({
      description: 'No valid credentials',
      headers: {
        'Access-Control-Allow-Origin': { $ref: '#/components/headers/AccessControlAllowOrigin' },
        'Access-Control-Allow-Credentials': {
          $ref: '#/components/headers/AccessControlAllowCredentials',
        },
      },
      content: {
        'application/json': {
          schema: {
            allOf: [
              { $ref: '#/components/schemas/ErrorBody' },
              { properties: { code: { enum: ['TOKEN_INVALID', 'TOKEN_EXPIRED'] } } },
            ],
          },
        },
      },
    });
  });

  it('answers OPTIONS on every path with 200 and the four CORS headers of spec 4.3, unauthenticated', () => {
    // Act
    const preflights = operations().filter(([route]) => route.startsWith('OPTIONS '));

    // Assess
    expect(preflights.map(([route]) => route)).toEqual(
      Object.keys(document.paths).map((path) => `OPTIONS ${path}`),
    );
    expect(new Set(preflights.map(([, operation]) => JSON.stringify(operation.responses)))).toEqual(
      new Set([JSON.stringify({ 200: { $ref: '#/components/responses/Preflight' } })]),
    );
    expect(preflights.every(([, operation]) => operation.security.length === 0)).toBe(true);
    const header = (value: string) => ({
      required: true,
      schema: { type: 'string', const: value },
    });
    const { headers } = document.components;
    expect({
      origin: headers?.AccessControlAllowOrigin,
      allowHeaders: headers?.AccessControlAllowHeaders,
      methods: headers?.AccessControlAllowMethods,
      credentials: headers?.AccessControlAllowCredentials,
    }).toEqual({
      origin: { description: 'On every response, errors included (spec 4.3)', ...header('*') },
      allowHeaders: {
        description: 'Preflight (spec 4.3)',
        ...header('Content-Type,Authorization'),
      },
      methods: { description: 'Preflight (spec 4.3)', ...header('OPTIONS,GET') },
      credentials: { description: 'On every response (spec 4.3)', ...header('false') },
    });
  });

  it('secures the deployment call by x-api-key and every other call by the bearer token', () => {
    // Act
    const security = operations()
      .filter(([route]) => !route.startsWith('OPTIONS '))
      .map(([route, operation]) => [route, operation.security]);

    // Assess
    expect(security).toEqual(
      security.map(([route]) => [
        route,
        [route === 'PUT /v1/plugins/{code}' ? { deploymentKey: [] } : { ownerToken: [] }],
      ]),
    );
    expect(document.components.securitySchemes).toEqual({
      ownerToken: {
        type: 'http',
        scheme: 'bearer',
        bearerFormat: 'JWT',
        description:
          "The restaurant owner's portal token (spec 5), verified against the environment's key set",
      },
      deploymentKey: {
        type: 'apiKey',
        in: 'header',
        name: 'x-api-key',
        description: 'The deployment API key (spec 4.6)',
      },
    });
  });

  it('takes the plugin registry portal version and answers a JSON array of Plugin Objects', () => {
    // Act
    const list = document.paths['/v1/plugins']?.get;

    // Assess
    expect(list).toMatchObject({
      parameters: [
        {
          name: 'portalVersion',
          in: 'query',
          required: false,
          schema: { type: 'string', enum: ['v1', 'v2'], default: 'v1' },
        },
      ],
      responses: {
        200: {
          content: {
            'application/json': { schema: { $ref: '#/components/schemas/PluginsResponse' } },
          },
        },
      },
    });
    expect(document.components.schemas?.PluginsResponse).toEqual({
      type: 'array',
      items: {
        type: 'object',
        required: ['code', 'route', 'bundleUrl'],
        properties: {
          code: { type: 'string', description: 'Identifier of the plugin' },
          route: {
            type: 'string',
            description: 'Route segment under which the portal mounts the plugin',
          },
          bundleUrl: {
            type: 'string',
            description:
              "Location of the plugin's JavaScript bundle; may contain a bundle placeholder",
          },
        },
      },
    });
  });
});

describe("serverless.yml's functions", () => {
  afterAll(closeContainerDependencies);

  it('are generated from the catalogue: serverless.yml holds no function of its own', () => {
    // Prepare
    const yaml = readFileSync(join(ROOT, 'serverless.yml'), 'utf8').split('\n');

    // Act
    const functions = yaml.filter((line) => /^functions:/.test(line));
    const handlers = yaml.filter((line) => /^\s*handler:/.test(line));

    // Assess
    expect(functions).toEqual(['functions: ${file(./tools/serverless/functions.cjs):functions}']);
    expect(handlers).toEqual([]);
  });

  it('resolve, as serverless reads them through tools/serverless/functions.cjs, to the functions of every catalogue endpoint, the release’s pre-traffic check and the heartbeat', async () => {
    // Act: dev in eu-west-1, whose stage gives no function a size of its own
    const { functions } = await resolverOf<{ functions: Record<string, unknown> }>(
      'tools/serverless/functions.cjs',
      [],
    )({ 'sls:stage': 'dev', 'self:provider.region': 'eu-west-1' }, {});

    // Assess
    expect(functions).toEqual({
      ...serverlessFunctions(),
      ...preTrafficFunction(),
      ...heartbeatFunction(),
    });
    expect(Object.keys(functions)).toEqual([
      ...catalogue.map((endpoint) => endpoint.function),
      'preTraffic',
      'heartbeat',
    ]);
  });

  it("run, each, the handler its endpoint's module exports, routed by its method and OPTIONS on each of its paths", async () => {
    // Prepare
    const functions = serverlessFunctions();

    // Act
    const deployed = await Promise.all(
      catalogue.map(async (endpoint) => ({
        function: endpoint.function,
        handler: functions[endpoint.function]?.handler,
        runs: typeof (await handlerOf(endpoint)),
        routes: functions[endpoint.function]?.events.map(
          ({ http }) => `${http.method.toUpperCase()} ${http.path}`,
        ),
      })),
    );

    // Assess
    expect(deployed).toEqual(
      catalogue.map((endpoint) => ({
        function: endpoint.function,
        handler: `${endpoint.handlerFile.replace(/\.ts$/, '')}.handler`,
        runs: 'function',
        routes: endpoint.paths.flatMap((path) => [`${endpoint.method} ${path}`, `OPTIONS ${path}`]),
      })),
    );
  });
});

describe('the committed docs/', () => {
  let out: string;
  beforeAll(async () => {
    out = mkdtempSync(join(tmpdir(), 'portal-docs-'));
    const results = await Promise.all([
      run([TSX, 'tools/manifest.ts', '--out', out], {}),
      run([TSX, 'tools/openapi.ts', '--out', out], {}),
    ]);
    expect(results.map(({ code, stderr }) => ({ code, stderr }))).toEqual([
      { code: 0, stderr: '' },
      { code: 0, stderr: '' },
    ]);
  });
  afterAll(() => {
    rmSync(out, { recursive: true, force: true });
  });

  it.each(['portal-manifest.json', 'portal-manifest.md', 'openapi.json'])(
    'hold %s exactly as the scripts write it now (run npm run manifest && npm run openapi)',
    (file) => {
      // Act
      const generated = readFileSync(join(out, file), 'utf8');

      // Assess
      expect(readFileSync(join(ROOT, 'docs', file), 'utf8')).toBe(generated);
    },
  );

  it('hold in openapi.json the document the builder makes', () => {
    // Act
    const committed: unknown = JSON.parse(readFileSync(join(ROOT, 'docs/openapi.json'), 'utf8'));

    // Assess
    expect(committed).toEqual(document);
  });
});
