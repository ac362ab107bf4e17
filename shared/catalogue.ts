/**
 * Every endpoint of the service, as data: its serverless function (serverless.yml), method,
 * paths (the /v1 path and any spec 4.2 alias), authentication, and what it answers — a report
 * (spec 2.4), a service in the generic envelope (spec 2.5), or a body of its own (the plugin
 * registry and its deployment call, spec 2.1, 4.4, 4.6). The manifest for the portal team and
 * the OpenAPI document are built from this list; tests hold it equal to serverless.yml.
 *
 * Adding a report is one line in `catalogue` (and its import).
 */
import type { ParameterDefinition, PropertyDefinition } from './reports/report';
import { dashboard } from './dashboard/today';
import { MAX_BUNDLE_URL_LENGTH } from './plugins/deployment';
import { PORTAL_VERSION_PARAMETER } from './plugins/query';
import { DEFAULT_PORTAL_VERSION, PORTAL_VERSIONS } from './plugins/registry';
import { dishes } from './reports/dishes';
import { ordersPerDay } from './reports/orders-per-day';
import { ordersToday } from './reports/orders-today';
import { revenue } from './reports/revenue';

export type JsonSchema = Readonly<Record<string, unknown>>;

export type HttpMethod = 'GET' | 'PUT';

/** The statuses of spec 7. */
export const ERROR_STATUSES = [400, 401, 403, 500] as const;
export type ErrorStatus = (typeof ERROR_STATUSES)[number];

/** `bearer`: the owner's JWT (spec 5); `api-key`: the deployment key in `x-api-key` (spec 4.6). */
export type Authentication = 'bearer' | 'api-key';

/**
 * What the catalogue reads of a report: its description, never its query or data port, so a
 * definition of any query and port fits.
 */
export interface CatalogueReport {
  readonly id: string;
  readonly title: string;
  readonly description: string;
  readonly properties: readonly PropertyDefinition[];
  readonly parameters: readonly ParameterDefinition[];
}

/** What the catalogue reads of a service (spec 2.5). */
export interface CatalogueService {
  readonly id: string;
  readonly title: string;
  readonly description: string;
  readonly parameters: readonly ParameterDefinition[];
  readonly dataSchema: JsonSchema;
}

/** A query parameter of an endpoint with a body of its own. */
export interface CustomParameter extends ParameterDefinition {
  /** The value assumed when the parameter is absent. */
  readonly default?: string;
}

export type Answer =
  | { readonly kind: 'report'; readonly report: CatalogueReport }
  | { readonly kind: 'service'; readonly service: CatalogueService }
  | {
      readonly kind: 'custom';
      readonly id: string;
      readonly title: string;
      readonly description: string;
      readonly parameters: readonly CustomParameter[];
      /** JSON body the request must carry (application/json). */
      readonly requestBodySchema?: JsonSchema;
      /** JSON body of the success answer (200). */
      readonly responseSchema: JsonSchema;
      /** The error statuses it can answer (reports and services: all of them). */
      readonly errorStatuses: readonly ErrorStatus[];
    };

export interface Endpoint {
  /** The function's name in serverless.yml. */
  readonly function: string;
  readonly method: HttpMethod;
  /** The /v1 path first, then its aliases; every path also answers OPTIONS (spec 4.3). */
  readonly paths: readonly [string, ...string[]];
  readonly authentication: Authentication;
  readonly answers: Answer;
}

/** A parameter as the manifest and the OpenAPI document list it. */
export interface EndpointParameter extends CustomParameter {
  readonly in: 'path' | 'query' | 'header';
}

/** A report behind the owner's token; `paths` as in serverless.yml. */
export const reportAt = (
  fn: string,
  report: CatalogueReport,
  ...paths: [string, ...string[]]
): Endpoint => ({
  function: fn,
  method: 'GET',
  paths,
  authentication: 'bearer',
  answers: { kind: 'report', report },
});

/** A service (spec 2.5) behind the owner's token; `paths` as in serverless.yml. */
export const serviceAt = (
  fn: string,
  service: CatalogueService,
  ...paths: [string, ...string[]]
): Endpoint => ({
  function: fn,
  method: 'GET',
  paths,
  authentication: 'bearer',
  answers: { kind: 'service', service },
});

/** Plugin Object (spec 2.1). */
export const PLUGIN_OBJECT_SCHEMA: JsonSchema = {
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
      description: "Location of the plugin's JavaScript bundle; may contain a bundle placeholder",
    },
  },
};

const pluginRegistry: Endpoint = {
  function: 'plugins',
  method: 'GET',
  paths: ['/v1/plugins'],
  authentication: 'bearer',
  answers: {
    kind: 'custom',
    id: 'plugins',
    title: 'Plugin registry',
    description:
      "The plugins available to the caller's brand and platforms for a portal version (spec 2.1, 4.4): a JSON array of Plugin Objects.",
    parameters: [
      {
        name: PORTAL_VERSION_PARAMETER,
        description: 'Portal version the plugins are deployed to (spec 9)',
        required: false,
        enum: PORTAL_VERSIONS,
        default: DEFAULT_PORTAL_VERSION,
      },
    ],
    responseSchema: { type: 'array', items: PLUGIN_OBJECT_SCHEMA },
    // No ownership step: the plugins of every platform in the token.
    errorStatuses: [400, 401, 500],
  },
};

/** Kept exactly as deployed: a placeholder such as `{bundle}` is not a URI character. */
const BUNDLE_URL_SCHEMA: JsonSchema = {
  type: 'string',
  maxLength: MAX_BUNDLE_URL_LENGTH,
  description:
    'The bundle, `<cdn_url>/<region>/reports/<filename>`: an absolute https URL (http only for localhost), without credentials; may contain a bundle placeholder such as `{bundle}`',
};

const pluginDeployment: Endpoint = {
  function: 'deployPlugin',
  method: 'PUT',
  paths: ['/v1/plugins/{code}'],
  authentication: 'api-key',
  answers: {
    kind: 'custom',
    id: 'deploy-plugin',
    title: 'Plugin deployment',
    description:
      'Points a plugin of a portal version at a new bundle (the `PUT {update_url}` call of spec 4.6). `v2` makes it available to the v2 portal (devnext) without touching `v1`.',
    parameters: [],
    requestBodySchema: {
      type: 'object',
      required: ['bundleUrl', 'portalVersion'],
      properties: {
        bundleUrl: BUNDLE_URL_SCHEMA,
        portalVersion: { type: 'string', enum: PORTAL_VERSIONS },
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
            portalVersion: { type: 'string', enum: PORTAL_VERSIONS },
            bundleUrl: BUNDLE_URL_SCHEMA,
          },
        },
      },
    },
    // 401: no key or an unknown key; 403: the key of another plugin.
    errorStatuses: [400, 401, 403, 500],
  },
};

export const catalogue: readonly Endpoint[] = [
  reportAt('ordersPerDay', ordersPerDay, '/v1/restaurants/{id}/reports/orders/day'),
  reportAt('dishes', dishes, '/v1/restaurants/{id}/reports/dishes'),
  reportAt('revenue', revenue, '/v1/restaurants/{id}/reports/revenue', '/res/{id}/reports/revenue'),
  reportAt(
    'ordersToday',
    ordersToday,
    '/v1/restaurants/{id}/orders/today',
    '/res/{id}/orders/today',
  ),
  // A new report: one reportAt line above this one (function name as in serverless.yml, paths).
  serviceAt('dashboard', dashboard, '/v1/restaurants/{id}/dashboard', '/res/{id}/dashboard'),
  pluginRegistry,
  pluginDeployment,
];

/** Path parameters every endpoint may use, by the name in its path template. */
export const PATH_PARAMETERS: Readonly<Record<string, EndpointParameter>> = {
  id: {
    name: 'id',
    in: 'path',
    required: true,
    description:
      "The restaurant: the brand's own id or its restaurantId on the requested platform (must not be empty)",
  },
  code: { name: 'code', in: 'path', required: true, description: 'The plugin code' },
};

export const PLATFORM_HEADER: EndpointParameter = {
  name: 'X-Platform-Id',
  in: 'header',
  required: false,
  description:
    'The requested platform (spec 4.2); without it, the first platform in the token (spec 5.5). A browser page on another origin cannot send it (spec 4.3 CORS headers).',
};

export const FORMAT_PARAMETER: EndpointParameter = {
  name: 'format',
  in: 'query',
  required: false,
  description: 'csv answers the report as a CSV download (as does Accept: text/csv)',
  enum: ['json', 'csv'],
  default: 'json',
};

/** The `{name}` parts of a path template, in order. */
export const pathParameterNames = (path: string): string[] =>
  [...path.matchAll(/\{([^}]+)\}/g)].map((match) => match[1] ?? '');

/** Every parameter of an endpoint: path, then header, then query. */
export const endpointParameters = (endpoint: Endpoint): EndpointParameter[] => {
  const pathParameters = pathParameterNames(endpoint.paths[0]).map((name) => {
    const parameter = PATH_PARAMETERS[name];
    if (!parameter) throw new TypeError(`${endpoint.function}: no description of {${name}}`);
    return parameter;
  });
  const query = (list: readonly CustomParameter[]): EndpointParameter[] =>
    list.map((parameter) => ({ ...parameter, in: 'query' }));
  const { answers } = endpoint;
  switch (answers.kind) {
    case 'report':
      return [
        ...pathParameters,
        PLATFORM_HEADER,
        ...query(answers.report.parameters),
        FORMAT_PARAMETER,
      ];
    case 'service':
      return [...pathParameters, PLATFORM_HEADER, ...query(answers.service.parameters)];
    case 'custom':
      return [...pathParameters, ...query(answers.parameters)];
  }
};

/** The error statuses an endpoint can answer, each with the body of spec 2.6. */
export const endpointErrorStatuses = (endpoint: Endpoint): readonly ErrorStatus[] =>
  endpoint.answers.kind === 'custom' ? endpoint.answers.errorStatuses : ERROR_STATUSES;

/** The id, title and description of whatever an endpoint answers. */
export const answerSummary = (
  answers: Answer,
): { id: string; title: string; description: string } => {
  const { id, title, description } =
    answers.kind === 'report'
      ? answers.report
      : answers.kind === 'service'
        ? answers.service
        : answers;
  return { id, title, description };
};
