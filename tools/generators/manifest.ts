/**
 * The manifest for the portal team (spec 1, last bullet): every endpoint with its method,
 * paths, authentication and parameters; for reports every property with its key, English name,
 * type and unit (spec 2.4); for services the schema of `data`. A catalogue the portal team could
 * not integrate is a build failure: `buildManifest` validates it first (validate.ts) and
 * throws a TypeError naming every problem.
 */
import type { Endpoint } from '../catalogue';
import type { Authentication, HttpMethod, JsonSchema } from '../../shared/answers';
import type { PropertyDefinition, Unit } from '../../shared/reports/report';
import {
  answerSummary,
  endpointErrorStatuses,
  endpointParameters,
  type EndpointParameter,
} from './endpoints';
import { UNITS, type UnitDescription } from './units';
import { validateCatalogue } from './validate';

/** What a parameter's declared format means for a caller. */
const PARAMETER_FORMATS: Readonly<Record<string, string>> = { date: 'YYYY-MM-DD' };

export interface ManifestParameter {
  readonly name: string;
  readonly in: EndpointParameter['in'];
  readonly required: boolean;
  readonly description: string;
  readonly format?: string;
  readonly values?: readonly string[];
  readonly default?: string;
}

export interface ManifestProperty {
  readonly key: string;
  readonly name: string;
  readonly type: PropertyDefinition['type'];
  readonly unit?: Unit;
  /** The unit's meaning (spec 2.4). */
  readonly unitMeaning?: string;
  readonly csvColumn: string;
}

interface ManifestEndpointBase {
  readonly function: string;
  readonly id: string;
  readonly title: string;
  readonly description: string;
  readonly method: HttpMethod;
  readonly paths: readonly string[];
  readonly authentication: Authentication;
  readonly parameters: readonly ManifestParameter[];
  /** HTTP statuses it answers with the error body of spec 2.6. */
  readonly errorStatuses: readonly number[];
}

export type ManifestEndpoint =
  | (ManifestEndpointBase & {
      readonly kind: 'report';
      readonly properties: readonly ManifestProperty[];
    })
  | (ManifestEndpointBase & { readonly kind: 'service'; readonly dataSchema: JsonSchema })
  | (ManifestEndpointBase & {
      readonly kind: 'custom';
      readonly requestBodySchema?: JsonSchema;
      readonly responseSchema: JsonSchema;
    });

export interface Manifest {
  readonly service: string;
  readonly generatedBy: string;
  readonly units: readonly UnitDescription[];
  readonly endpoints: readonly ManifestEndpoint[];
}

const manifestParameter = (parameter: EndpointParameter): ManifestParameter => ({
  name: parameter.name,
  in: parameter.in,
  required: parameter.required,
  description: parameter.description,
  ...(parameter.format ? { format: PARAMETER_FORMATS[parameter.format] ?? parameter.format } : {}),
  ...(parameter.enum ? { values: [...parameter.enum] } : {}),
  ...(parameter.default === undefined ? {} : { default: parameter.default }),
});

const manifestProperty = (property: PropertyDefinition): ManifestProperty => ({
  key: property.key,
  name: property.name,
  type: property.type,
  ...(property.unit ? { unit: property.unit, unitMeaning: UNITS[property.unit].meaning } : {}),
  csvColumn: property.csvName ?? property.key,
});

const manifestEndpoint = (endpoint: Endpoint): ManifestEndpoint => {
  const base: ManifestEndpointBase = {
    function: endpoint.function,
    ...answerSummary(endpoint.answers),
    method: endpoint.method,
    paths: [...endpoint.paths],
    authentication: endpoint.authentication,
    parameters: endpointParameters(endpoint).map(manifestParameter),
    errorStatuses: [...endpointErrorStatuses(endpoint)],
  };
  const { answers } = endpoint;
  switch (answers.kind) {
    case 'report':
      return {
        ...base,
        kind: 'report',
        properties: answers.report.properties.map(manifestProperty),
      };
    case 'service':
      return { ...base, kind: 'service', dataSchema: answers.service.dataSchema };
    case 'custom':
      return {
        ...base,
        kind: 'custom',
        ...(answers.requestBodySchema ? { requestBodySchema: answers.requestBodySchema } : {}),
        responseSchema: answers.responseSchema,
      };
  }
};

/** The manifest of a catalogue; throws a TypeError listing every problem it finds. */
export const buildManifest = (catalogue: readonly Endpoint[]): Manifest => {
  validateCatalogue(catalogue);
  return {
    service: 'portal-service-api',
    generatedBy: 'npm run manifest (from tools/catalogue.ts)',
    units: Object.values(UNITS),
    endpoints: catalogue.map(manifestEndpoint),
  };
};

const AUTHENTICATION: Readonly<Record<Authentication, string>> = {
  bearer: 'token',
  'api-key': 'API key',
};

/** A Markdown table cell: one line, pipes escaped. */
const cell = (text: string): string => text.replaceAll('|', '\\|').replaceAll(/\s*\n\s*/g, ' ');

const table = (header: readonly string[], rows: readonly (readonly string[])[]): string[] => [
  `| ${header.join(' | ')} |`,
  `| ${header.map(() => '---').join(' | ')} |`,
  ...rows.map((row) => `| ${row.map(cell).join(' | ')} |`),
];

const code = (text: string): string => `\`${text}\``;

/** A parameter as a list item: name, where, whether required, its format, its description. */
const parameterItem = (parameter: ManifestParameter): string => {
  const facts = [
    parameter.in,
    parameter.required ? 'required' : 'optional',
    parameter.format ?? '',
    parameter.values ? parameter.values.map(code).join(' or ') : '',
    parameter.default === undefined ? '' : `default ${code(parameter.default)}`,
  ].filter((part) => part !== '');
  return `- ${code(parameter.name)} (${facts.join(', ')}): ${parameter.description}`;
};

/** A parameter's identity: two endpoints share it when every field is the same. */
const parameterKey = (parameter: ManifestParameter): string => JSON.stringify(parameter);

/** The parameters that more than one endpoint declares identically, in first-seen order. */
const sharedParameters = (endpoints: readonly ManifestEndpoint[]): ManifestParameter[] => {
  const seen = new Map<string, { parameter: ManifestParameter; count: number }>();
  for (const parameter of endpoints.flatMap((endpoint) => endpoint.parameters)) {
    const entry = seen.get(parameterKey(parameter));
    seen.set(parameterKey(parameter), { parameter, count: (entry?.count ?? 0) + 1 });
  }
  return [...seen.values()].filter(({ count }) => count > 1).map(({ parameter }) => parameter);
};

const schemaText = (value: unknown): string =>
  Array.isArray(value) ? value.map(String).join(' or ') : String(value);

/** What a schema says besides its properties: type, format, choices, length, requiredness. */
const schemaFacts = (schema: JsonSchema, required: boolean): string =>
  [
    schema['type'] === undefined ? '' : schemaText(schema['type']),
    schema['format'] === undefined ? '' : schemaText(schema['format']),
    Array.isArray(schema['enum'])
      ? schema['enum'].map((value) => code(String(value))).join(', ')
      : '',
    schema['maxLength'] === undefined
      ? ''
      : `at most ${schemaText(schema['maxLength'])} characters`,
    required ? 'required' : '',
  ]
    .filter((part) => part !== '')
    .join(', ');

const objectProperties = (schema: JsonSchema): [string, JsonSchema][] =>
  Object.entries((schema['properties'] ?? {}) as Record<string, JsonSchema>);

/** Where a schema was first listed in an endpoint's section, by its JSON text. */
interface Listed {
  /** A description already listed: the dotted name of its property. */
  readonly described: Map<string, string>;
  /** An object's properties already listed, by their JSON text: the dotted name of the object. */
  readonly fields: Map<string, string>;
}

/**
 * A JSON schema as a nested list, one line per property. A description, or an object's fields,
 * listed before in the section are not repeated: the line points to the first.
 */
const schemaList = (schema: JsonSchema, listed: Listed, parent = ''): string[] => {
  const item = schema['type'] === 'array' ? (schema['items'] as JsonSchema) : schema;
  const required = new Set((item['required'] ?? []) as string[]);
  const indent = '  '.repeat(parent === '' ? 0 : parent.split('.').length);
  return objectProperties(item).flatMap(([name, property]) => {
    const path = parent === '' ? name : `${parent}.${name}`;
    const description = typeof property['description'] === 'string' ? property['description'] : '';
    const sameAs = description === '' ? undefined : listed.described.get(description);
    const fields = property['properties'];
    const fieldsKey = JSON.stringify(fields);
    const sameFields = fields === undefined ? undefined : listed.fields.get(fieldsKey);
    const text = [
      sameAs ? `as ${code(sameAs)}` : description,
      sameFields ? `fields as ${code(sameFields)}` : '',
    ]
      .filter((part) => part !== '')
      .join('; ');
    const line = `${indent}- ${code(name)} (${schemaFacts(property, required.has(name))})${text === '' ? '' : `: ${text}`}`;
    if (description !== '' && !sameAs) listed.described.set(description, path);
    if (fields === undefined || sameFields) return [line];
    listed.fields.set(fieldsKey, path);
    return [line, ...schemaList(property, listed, path)];
  });
};

const schemaBlock = (title: string, schema: JsonSchema, listed: Listed): string[] => [
  `${title}${schema['type'] === 'array' ? ', an array of objects' : ''}:`,
  '',
  ...schemaList(schema, listed),
  '',
];

const endpointSection = (endpoint: ManifestEndpoint, shared: ReadonlySet<string>): string[] => {
  const own = endpoint.parameters.filter((parameter) => !shared.has(parameterKey(parameter)));
  const common = endpoint.parameters.filter((parameter) => shared.has(parameterKey(parameter)));
  const listed: Listed = { described: new Map(), fields: new Map() };
  const lines = [
    `### ${endpoint.title}`,
    '',
    `${endpoint.paths.map((path) => code(`${endpoint.method} ${path}`)).join(', ')} (${code(endpoint.function)}, id ${code(endpoint.id)}): ${AUTHENTICATION[endpoint.authentication]}; errors ${endpoint.errorStatuses.join(', ')}. ${endpoint.description}`,
    '',
    ...(common.length > 0
      ? [
          `Parameters: the shared ${common.map((parameter) => code(parameter.name)).join(', ')}${own.length > 0 ? ', and:' : '.'}`,
          '',
        ]
      : []),
    ...(own.length > 0 ? [...own.map(parameterItem), ''] : []),
  ];
  switch (endpoint.kind) {
    case 'report':
      return [
        ...lines,
        ...table(
          ['Key', 'English name', 'Type', 'Unit', 'CSV column'],
          endpoint.properties.map((property) => [
            code(property.key),
            property.name,
            property.type,
            property.unit ? code(property.unit) : '',
            code(property.csvColumn),
          ]),
        ),
        '',
      ];
    case 'service':
      return [...lines, ...schemaBlock('`data` (spec 2.5)', endpoint.dataSchema, listed)];
    case 'custom':
      return [
        ...lines,
        ...(endpoint.requestBodySchema
          ? schemaBlock('Request body (JSON)', endpoint.requestBodySchema, listed)
          : []),
        ...schemaBlock('Answer (JSON)', endpoint.responseSchema, listed),
      ];
  }
};

/**
 * The manifest as Markdown for people: the content of the JSON, each parameter that several
 * endpoints share described once, the schemas as lists.
 */
export const renderManifestMarkdown = (manifest: Manifest): string => {
  const shared = sharedParameters(manifest.endpoints);
  const sharedKeys = new Set(shared.map(parameterKey));
  return [
    `# ${manifest.service}: portal integration manifest`,
    '',
    `Generated by ${code(manifest.generatedBy)}; do not edit by hand. [portal-manifest.json](portal-manifest.json) holds the same with the full JSON schemas.`,
    '',
    'Every endpoint answers OPTIONS with the CORS headers of spec 4.3, and errors with the body of spec 2.6. "token": the owner\'s, `Authorization: Bearer <token>`; "API key": `x-api-key: <API_KEY>`. A report answers `{"data":[{"data":{…},"compare"?:{…}}]}` (spec 2.4), or CSV with `format=csv`.',
    '',
    '## Units (spec 2.4)',
    '',
    ...manifest.units.map(
      (unit) =>
        `- ${code(unit.unit)}, ${unit.meaning}: ${unit.valueFormat}; rendered as ${unit.renderedAs}.`,
    ),
    '',
    '## Shared parameters',
    '',
    ...shared.map(parameterItem),
    '',
    '## Endpoints',
    '',
    ...manifest.endpoints.flatMap((endpoint) => endpointSection(endpoint, sharedKeys)),
  ].join('\n');
};
