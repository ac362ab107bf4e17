/**
 * The manifest for the portal team (spec 1, last bullet): every endpoint with its method,
 * paths, authentication and parameters; for reports every property with its key, English name,
 * type and unit (spec 2.4); for services the schema of `data`. A catalogue the portal team could
 * not integrate is a build failure: `buildManifest` validates it first (validate.ts) and
 * throws a TypeError naming every problem.
 */
import type { Endpoint } from '../shared/catalogue';
import type { Authentication, HttpMethod, JsonSchema } from '../shared/answers';
import type { PropertyDefinition, Unit } from '../shared/reports/report';
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
    generatedBy: 'npm run manifest (from shared/catalogue.ts)',
    units: Object.values(UNITS),
    endpoints: catalogue.map(manifestEndpoint),
  };
};

const AUTHENTICATION: Readonly<Record<Authentication, string>> = {
  bearer: "the owner's token: `Authorization: Bearer <token>`",
  'api-key': 'the deployment API key: `x-api-key: <API_KEY>`',
};

/** A Markdown table cell: one line, pipes escaped. */
const cell = (text: string): string => text.replaceAll('|', '\\|').replaceAll(/\s*\n\s*/g, ' ');

const table = (header: readonly string[], rows: readonly (readonly string[])[]): string[] => [
  `| ${header.join(' | ')} |`,
  `| ${header.map(() => '---').join(' | ')} |`,
  ...rows.map((row) => `| ${row.map(cell).join(' | ')} |`),
];

const code = (text: string): string => `\`${text}\``;

const schemaBlock = (title: string, schema: JsonSchema): string[] => [
  `${title}:`,
  '',
  '```json',
  JSON.stringify(schema, null, 2),
  '```',
];

const parameterRows = (parameters: readonly ManifestParameter[]): string[][] =>
  parameters.map((parameter) => [
    code(parameter.name),
    parameter.in,
    parameter.required ? 'yes' : 'no',
    [
      parameter.format ?? '',
      parameter.values ? parameter.values.map(code).join(', ') : '',
      parameter.default === undefined ? '' : `default ${code(parameter.default)}`,
    ]
      .filter((part) => part !== '')
      .join('; '),
    parameter.description,
  ]);

const endpointSection = (endpoint: ManifestEndpoint): string[] => {
  const lines = [
    `### ${endpoint.title} (${code(endpoint.id)})`,
    '',
    endpoint.description,
    '',
    ...endpoint.paths.map((path) => `- ${code(`${endpoint.method} ${path}`)}`),
    `- Function: ${code(endpoint.function)}`,
    `- Authentication: ${AUTHENTICATION[endpoint.authentication]}`,
    `- Errors (spec 2.6 body): ${endpoint.errorStatuses.join(', ')}`,
    '',
    ...table(
      ['Parameter', 'In', 'Required', 'Format', 'Description'],
      parameterRows(endpoint.parameters),
    ),
    '',
  ];
  switch (endpoint.kind) {
    case 'report':
      return [
        ...lines,
        'Answers `{"data":[{"data":{…},"compare"?:{…}}]}` (spec 2.4) with these properties in `data` and `compare`, or CSV with `format=csv`:',
        '',
        ...table(
          ['Key', 'English name', 'Type', 'Unit', 'CSV column'],
          endpoint.properties.map((property) => [
            code(property.key),
            property.name,
            property.type,
            property.unit ? `${code(property.unit)} (${property.unitMeaning ?? ''})` : '',
            code(property.csvColumn),
          ]),
        ),
        '',
      ];
    case 'service':
      return [
        ...lines,
        ...schemaBlock(
          'Answers `{"data": …}` (spec 2.5); the schema of `data`',
          endpoint.dataSchema,
        ),
        '',
      ];
    case 'custom':
      return [
        ...lines,
        ...(endpoint.requestBodySchema
          ? [...schemaBlock('Request body (JSON)', endpoint.requestBodySchema), '']
          : []),
        ...schemaBlock('Answers (JSON)', endpoint.responseSchema),
        '',
      ];
  }
};

/** The manifest as Markdown for people: the same content as the JSON. */
export const renderManifestMarkdown = (manifest: Manifest): string =>
  [
    `# ${manifest.service}: portal integration manifest`,
    '',
    `Generated by ${code(manifest.generatedBy)}; do not edit by hand.`,
    '',
    'Every endpoint answers OPTIONS with the CORS headers of spec 4.3 and errors with the body of spec 2.6.',
    '',
    '## Units (spec 2.4)',
    '',
    ...table(
      ['Unit', 'Meaning', 'Value', 'Rendered as'],
      manifest.units.map((unit) => [
        code(unit.unit),
        unit.meaning,
        unit.valueFormat,
        unit.renderedAs,
      ]),
    ),
    '',
    '## Endpoints',
    '',
    ...table(
      ['Function', 'Method', 'Paths', 'Answers'],
      manifest.endpoints.map((endpoint) => [
        code(endpoint.function),
        endpoint.method,
        endpoint.paths.map(code).join(', '),
        `${endpoint.title} (${endpoint.kind})`,
      ]),
    ),
    '',
    ...manifest.endpoints.flatMap(endpointSection),
  ].join('\n');
