/**
 * The OpenAPI 3.1 document of the service, built from the endpoint catalogue: every endpoint
 * on every path alias with its parameters, its success body (a report's rows built from its
 * properties, JSON or CSV; a service's envelope; a body of its own), the error body of spec 2.6
 * for 400/401/403/500, and the OPTIONS preflight of spec 4.3. Pure: `npm run openapi` writes
 * it, tests validate it.
 */
import { SPEC_CORS_HEADERS } from '../../middleware/cors';
import { type Endpoint } from '../catalogue';
import {
  ERROR_STATUSES,
  type Answer,
  type ErrorStatus,
  type JsonSchema,
} from '../../shared/answers';
import type { ErrorCode, ValidationCode } from '../../shared/errors';
import type { PropertyDefinition } from '../../shared/reports/report';
import {
  answerSummary,
  endpointErrorStatuses,
  endpointParameters,
  pathParameterNames,
  type EndpointParameter,
} from './endpoints';
import { UNITS } from './units';
import { validateCatalogue } from './validate';

export interface OpenApiDocument {
  readonly openapi: '3.1.0';
  readonly info: JsonSchema;
  /** Path → `parameters` (of its path template) and one operation per method. */
  readonly paths: Readonly<Record<string, Readonly<Record<string, unknown>>>>;
  readonly components: Readonly<Record<string, Readonly<Record<string, JsonSchema>>>>;
}

/** Spec section 7: every error code, by the status it comes with. */
const ERROR_CODE_STATUSES: Readonly<Record<ErrorCode, ErrorStatus>> = {
  OUT_OF_RANGE: 400,
  VALIDATION_ERROR: 400,
  TOKEN_INVALID: 401,
  TOKEN_EXPIRED: 401,
  FORBIDDEN: 403,
  INTERNAL_ERROR: 500,
};

/** Entry codes of `errors[]`: the spec's FIELD_CANNOT_BE_EMPTY and ours (docs/reports.md, Errors). */
const VALIDATION_CODES: Readonly<Record<ValidationCode, true>> = {
  FIELD_CANNOT_BE_EMPTY: true,
  INVALID_DATE: true,
  INVALID_RANGE: true,
  FIELD_REPEATED: true,
  FIELD_REQUIRED_WITH: true,
  INVALID_ENCODING: true,
  INVALID_VALUE: true,
};

const ERROR_RESPONSES: Readonly<Record<ErrorStatus, { name: string; description: string }>> = {
  400: {
    name: 'BadRequest',
    description: 'Missing, empty or malformed input, or a range too long',
  },
  401: { name: 'Unauthorized', description: 'No valid credentials' },
  403: { name: 'Forbidden', description: 'The caller may not access this resource' },
  500: { name: 'InternalError', description: 'Our failure (Unknown error)' },
};

const SECURITY = {
  bearer: 'ownerToken',
  'api-key': 'deploymentKey',
} as const;

const ref = (kind: string, name: string): JsonSchema => ({ $ref: `#/components/${kind}/${name}` });

/** `orders-per-day` → `OrdersPerDay`. */
const pascal = (id: string): string =>
  id
    .split(/[^A-Za-z0-9]+/)
    .filter((word) => word !== '')
    .map((word) => word.charAt(0).toUpperCase() + word.slice(1))
    .join('');

const HEADER_NAMES = {
  'Access-Control-Allow-Origin': 'AccessControlAllowOrigin',
  'Access-Control-Allow-Headers': 'AccessControlAllowHeaders',
  'Access-Control-Allow-Methods': 'AccessControlAllowMethods',
  'Access-Control-Allow-Credentials': 'AccessControlAllowCredentials',
  'Access-Control-Max-Age': 'AccessControlMaxAge',
  'Access-Control-Expose-Headers': 'AccessControlExposeHeaders',
  'Content-Disposition': 'ContentDisposition',
} as const;

type HeaderName = keyof typeof HEADER_NAMES;

const headerRefs = (names: readonly HeaderName[]): JsonSchema =>
  Object.fromEntries(names.map((name) => [name, ref('headers', HEADER_NAMES[name])]));

const constHeader = (value: string, description: string): JsonSchema => ({
  description,
  required: true,
  schema: { type: 'string', const: value },
});

const HEADERS: Readonly<Record<string, JsonSchema>> = {
  AccessControlAllowOrigin: constHeader(
    SPEC_CORS_HEADERS['Access-Control-Allow-Origin'],
    'On every response, errors included (spec 4.3)',
  ),
  AccessControlAllowHeaders: constHeader(
    SPEC_CORS_HEADERS['Access-Control-Allow-Headers'],
    'Preflight (spec 4.3)',
  ),
  AccessControlAllowMethods: constHeader(
    SPEC_CORS_HEADERS['Access-Control-Allow-Methods'],
    'Preflight (spec 4.3)',
  ),
  AccessControlAllowCredentials: constHeader(
    SPEC_CORS_HEADERS['Access-Control-Allow-Credentials'],
    'On every response (spec 4.3)',
  ),
  AccessControlMaxAge: {
    description: 'Seconds a browser may cache the preflight answer',
    schema: { type: 'string', pattern: '^[0-9]+$' },
  },
  AccessControlExposeHeaders: {
    description: 'Lets a browser page read the CSV file name',
    schema: { type: 'string' },
  },
  ContentDisposition: {
    description: 'CSV only: `attachment; filename="<report>_<restaurant>_<range>.csv"`',
    schema: { type: 'string' },
  },
};

const SCHEMAS: Readonly<Record<string, JsonSchema>> = {
  ValidationEntry: {
    type: 'object',
    required: ['field', 'code', 'message'],
    additionalProperties: false,
    properties: {
      field: { type: 'string', description: 'The input at fault (id, from, to, …)' },
      code: { type: 'string', enum: Object.keys(VALIDATION_CODES) },
      message: { type: 'string', examples: ['from cannot be empty'] },
    },
  },
  ErrorBody: {
    description: 'Error body (spec 2.6)',
    type: 'object',
    required: ['state', 'code', 'message'],
    additionalProperties: false,
    properties: {
      state: { const: 'ERROR' },
      code: { type: 'string', enum: Object.keys(ERROR_CODE_STATUSES) },
      message: { type: 'string' },
      errors: {
        description: 'Only for VALIDATION_ERROR: one entry per field at fault',
        type: 'array',
        items: ref('schemas', 'ValidationEntry'),
      },
    },
  },
};

const errorResponse = (status: ErrorStatus): JsonSchema => {
  const codes = Object.entries(ERROR_CODE_STATUSES)
    .filter(([, code]) => code === status)
    .map(([name]) => name);
  return {
    description: ERROR_RESPONSES[status].description,
    headers: headerRefs(['Access-Control-Allow-Origin', 'Access-Control-Allow-Credentials']),
    content: {
      'application/json': {
        schema: {
          allOf: [ref('schemas', 'ErrorBody'), { properties: { code: { enum: codes } } }],
        },
      },
    },
  };
};

const RESPONSES: Readonly<Record<string, JsonSchema>> = {
  ...Object.fromEntries(
    ERROR_STATUSES.map((status) => [ERROR_RESPONSES[status].name, errorResponse(status)]),
  ),
  Preflight: {
    description: 'CORS preflight, answered before any authentication (spec 4.3)',
    headers: headerRefs([
      'Access-Control-Allow-Origin',
      'Access-Control-Allow-Headers',
      'Access-Control-Allow-Methods',
      'Access-Control-Allow-Credentials',
      'Access-Control-Max-Age',
    ]),
  },
};

const SECURITY_SCHEMES: Readonly<Record<string, JsonSchema>> = {
  [SECURITY.bearer]: {
    type: 'http',
    scheme: 'bearer',
    bearerFormat: 'JWT',
    description:
      "The restaurant owner's portal token (spec 5), verified against the environment's key set",
  },
  [SECURITY['api-key']]: {
    type: 'apiKey',
    in: 'header',
    name: 'x-api-key',
    description: 'The deployment API key (spec 4.6)',
  },
};

const UNIT_SCHEMAS: Readonly<Record<string, JsonSchema>> = {
  DATE: { format: 'date', pattern: '^[0-9]{4}-[0-9]{2}-[0-9]{2}$' },
  DATE_MONTH: { format: 'date', pattern: '^[0-9]{4}-[0-9]{2}-01$' },
  DATE_YEAR: { format: 'date', pattern: '^[0-9]{4}-01-01$' },
  CURRENCY: {},
};

const propertySchema = (property: PropertyDefinition): JsonSchema => {
  const unit = property.unit ? UNITS[property.unit] : undefined;
  return {
    title: property.name,
    type: property.type,
    ...(property.unit && unit
      ? {
          description: `${unit.meaning} (${property.unit}): ${unit.valueFormat}`,
          ...UNIT_SCHEMAS[property.unit],
          'x-unit': property.unit,
        }
      : {}),
  };
};

const rowSchema = (title: string, properties: readonly PropertyDefinition[]): JsonSchema => ({
  title: `${title} row`,
  type: 'object',
  required: properties.map((property) => property.key),
  additionalProperties: false,
  properties: Object.fromEntries(
    properties.map((property) => [property.key, propertySchema(property)]),
  ),
});

const reportResponseSchema = (rowName: string): JsonSchema => ({
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
          data: ref('schemas', rowName),
          compare: {
            description: 'The same keys, for the comparison period',
            ...ref('schemas', rowName),
          },
        },
      },
    },
  },
});

/** The schemas an answer adds to the components, and its success response. */
const answerParts = (
  answers: Answer,
): { schemas: Record<string, JsonSchema>; success: JsonSchema; requestBody?: JsonSchema } => {
  const name = pascal(answerSummary(answers).id);
  const cors = ['Access-Control-Allow-Origin', 'Access-Control-Allow-Credentials'] as const;
  switch (answers.kind) {
    case 'report': {
      const columns = answers.report.properties.map((property) => property.csvName ?? property.key);
      return {
        schemas: {
          [`${name}Row`]: rowSchema(answers.report.title, answers.report.properties),
          [`${name}Response`]: reportResponseSchema(`${name}Row`),
        },
        success: {
          description: 'The report rows: JSON, or CSV with format=csv or Accept: text/csv',
          headers: headerRefs([...cors, 'Access-Control-Expose-Headers', 'Content-Disposition']),
          content: {
            'application/json': { schema: ref('schemas', `${name}Response`) },
            'text/csv': {
              schema: {
                type: 'string',
                description: `RFC 4180, UTF-8, every value double-quoted, CRLF line ends. Columns: ${columns.join(', ')}; with compare values, the same again suffixed _comparison.`,
              },
            },
          },
        },
      };
    }
    case 'service':
      return {
        schemas: {
          [`${name}Response`]: {
            description: 'Success envelope (spec 2.5)',
            type: 'object',
            required: ['data'],
            properties: { data: answers.service.dataSchema },
          },
        },
        success: {
          description: answers.service.title,
          headers: headerRefs(cors),
          content: { 'application/json': { schema: ref('schemas', `${name}Response`) } },
        },
      };
    case 'custom':
      return {
        schemas: {
          [`${name}Response`]: answers.responseSchema,
          ...(answers.requestBodySchema ? { [`${name}Request`]: answers.requestBodySchema } : {}),
        },
        success: {
          description: answers.title,
          headers: headerRefs(cors),
          content: { 'application/json': { schema: ref('schemas', `${name}Response`) } },
        },
        ...(answers.requestBodySchema
          ? {
              requestBody: {
                required: true,
                content: { 'application/json': { schema: ref('schemas', `${name}Request`) } },
              },
            }
          : {}),
      };
  }
};

const parameterObject = (parameter: EndpointParameter): JsonSchema => ({
  name: parameter.name,
  in: parameter.in,
  required: parameter.required,
  description: parameter.description,
  schema: {
    type: 'string',
    ...(parameter.format ? { format: parameter.format } : {}),
    ...(parameter.enum ? { enum: [...parameter.enum] } : {}),
    ...(parameter.default === undefined ? {} : { default: parameter.default }),
  },
});

/** The operationId of an endpoint on its n-th path: the function, then `Alias`, `Alias2`, … */
const operationId = (endpoint: Endpoint, index: number, suffix = ''): string =>
  `${endpoint.function}${suffix}${index === 0 ? '' : index === 1 ? 'Alias' : `Alias${index}`}`;

/** The OpenAPI 3.1 document of a catalogue; throws a TypeError when the catalogue is invalid. */
export const buildOpenApiDocument = (
  catalogue: readonly Endpoint[],
  info: { readonly version: string },
): OpenApiDocument => {
  validateCatalogue(catalogue);
  const schemas: Record<string, JsonSchema> = { ...SCHEMAS };
  const paths: Record<string, Record<string, unknown>> = {};
  for (const endpoint of catalogue) {
    const parts = answerParts(endpoint.answers);
    Object.assign(schemas, parts.schemas);
    const { title, description } = answerSummary(endpoint.answers);
    const parameters = endpointParameters(endpoint);
    endpoint.paths.forEach((path, index) => {
      const item = (paths[path] ??= {});
      const pathNames = new Set(pathParameterNames(path));
      const inPath = parameters.filter(
        (parameter) => parameter.in === 'path' && pathNames.has(parameter.name),
      );
      if (inPath.length > 0) item.parameters = inPath.map(parameterObject);
      item[endpoint.method.toLowerCase()] = {
        operationId: operationId(endpoint, index),
        summary: title,
        description:
          index === 0 ? description : `${description} Alias of ${endpoint.paths[0]} (spec 4.2).`,
        security: [{ [SECURITY[endpoint.authentication]]: [] }],
        parameters: parameters.filter((parameter) => parameter.in !== 'path').map(parameterObject),
        ...(parts.requestBody ? { requestBody: parts.requestBody } : {}),
        responses: {
          200: parts.success,
          ...Object.fromEntries(
            endpointErrorStatuses(endpoint).map((status) => [
              status,
              ref('responses', ERROR_RESPONSES[status].name),
            ]),
          ),
        },
      };
      item.options = {
        operationId: operationId(endpoint, index, 'Preflight'),
        summary: `CORS preflight of ${path}`,
        security: [],
        responses: { 200: ref('responses', 'Preflight') },
      };
    });
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'portal-service-api',
      version: info.version,
      description:
        "The brand-built portal service API of the vendor portal: a restaurant owner's reports, orders, dashboard, and the plugin registry with its deployment call. Generated by `npm run openapi` from tools/catalogue.ts.",
    },
    paths,
    components: {
      securitySchemes: SECURITY_SCHEMES,
      headers: HEADERS,
      responses: RESPONSES,
      schemas,
    },
  };
};
