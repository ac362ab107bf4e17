/**
 * The manifest for the portal team (spec 1, last bullet): every endpoint with its method,
 * paths, authentication and parameters; for reports every property with its key, English name,
 * type and unit (spec 2.4); for services the schema of `data`. A report the portal team could
 * not integrate — a property without an English name, an unknown unit, a unit on the wrong
 * type, two properties with one key — is a build failure: `buildManifest` throws a TypeError
 * naming the report and the property.
 */
import {
  answerSummary,
  endpointErrorStatuses,
  endpointParameters,
  pathParameterNames,
  type Authentication,
  type Endpoint,
  type EndpointParameter,
  type HttpMethod,
  type JsonSchema,
} from '../catalogue';
import type { PropertyDefinition, Unit } from './report';

export interface UnitDescription {
  readonly unit: Unit;
  readonly meaning: string;
  /** How the value is written in a row. */
  readonly valueFormat: string;
  /** How the portal renders it (browser locale). */
  readonly renderedAs: string;
  /** The property type the unit requires. */
  readonly type: PropertyDefinition['type'];
}

/** The supported units of spec 2.4. */
export const UNITS: Readonly<Record<Unit, UnitDescription>> = {
  DATE: {
    unit: 'DATE',
    meaning: 'Full date',
    valueFormat: 'YYYY-MM-DD',
    renderedAs: 'locale date',
    type: 'string',
  },
  DATE_MONTH: {
    unit: 'DATE_MONTH',
    meaning: 'Month',
    valueFormat: 'first day of the month, YYYY-MM-01',
    renderedAs: 'month name',
    type: 'string',
  },
  DATE_YEAR: {
    unit: 'DATE_YEAR',
    meaning: 'Year',
    valueFormat: 'first day of the year, YYYY-01-01',
    renderedAs: 'year',
    type: 'string',
  },
  CURRENCY: {
    unit: 'CURRENCY',
    meaning: 'Restaurant currency',
    valueFormat: "number, rounded to the currency's minor unit",
    renderedAs: 'the number; the currency symbol is shown only in the table header',
    type: 'number',
  },
};

const PROPERTY_TYPES: readonly string[] = ['string', 'integer', 'number'];

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

const isUnit = (unit: string): unit is Unit => Object.hasOwn(UNITS, unit);

/** Everything about one report's properties the portal team could not integrate. */
const propertyProblems = (
  reportId: string,
  properties: readonly PropertyDefinition[],
): string[] => {
  const where = `Report "${reportId}"`;
  if (properties.length === 0) return [`${where} declares no properties`];
  const problems: string[] = [];
  const keys = new Set<string>();
  const columns = new Set<string>();
  properties.forEach((property, index) => {
    const { key, name, type, unit } = property as {
      key: unknown;
      name: unknown;
      type: unknown;
      unit?: unknown;
    };
    if (typeof key !== 'string' || key.trim() === '') {
      problems.push(`${where}: property #${index + 1} has no key`);
      return;
    }
    const at = `${where}: property "${key}"`;
    if (keys.has(key)) problems.push(`${where}: two properties share the key "${key}"`);
    keys.add(key);
    const column = property.csvName ?? key;
    if (columns.has(column)) {
      problems.push(`${where}: two properties share the CSV column "${column}"`);
    }
    columns.add(column);
    if (typeof name !== 'string' || name.trim() === '') {
      problems.push(`${at} has no English name`);
    }
    if (typeof type !== 'string' || !PROPERTY_TYPES.includes(type)) {
      problems.push(
        `${at} has unknown type ${JSON.stringify(type)} (expected ${PROPERTY_TYPES.join(', ')})`,
      );
    }
    if (unit === undefined) return;
    if (typeof unit !== 'string' || !isUnit(unit)) {
      problems.push(
        `${at} has unknown unit ${JSON.stringify(unit)} (expected ${Object.keys(UNITS).join(', ')})`,
      );
    } else if (UNITS[unit].type !== type) {
      problems.push(`${at} has unit ${unit}, which needs type ${UNITS[unit].type}`);
    }
  });
  return problems;
};

const catalogueProblems = (catalogue: readonly Endpoint[]): string[] => {
  const problems: string[] = [];
  const functions = new Set<string>();
  const ids = new Set<string>();
  const routes = new Set<string>();
  for (const endpoint of catalogue) {
    if (functions.has(endpoint.function)) {
      problems.push(`Function "${endpoint.function}" is catalogued twice`);
    }
    functions.add(endpoint.function);
    const { id } = answerSummary(endpoint.answers);
    if (ids.has(id)) problems.push(`Two endpoints answer the id "${id}"`);
    ids.add(id);
    const names = pathParameterNames(endpoint.paths[0]).join(',');
    for (const path of endpoint.paths) {
      const route = `${endpoint.method} ${path}`;
      if (routes.has(route)) problems.push(`${route} is catalogued twice`);
      routes.add(route);
      if (pathParameterNames(path).join(',') !== names) {
        problems.push(`${endpoint.function}: ${path} does not take the parameters of its /v1 path`);
      }
    }
    if (endpoint.answers.kind === 'report') {
      problems.push(
        ...propertyProblems(endpoint.answers.report.id, endpoint.answers.report.properties),
      );
    }
  }
  return problems;
};

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
  const problems = catalogueProblems(catalogue);
  if (problems.length > 0) throw new TypeError(problems.join('\n'));
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
