/**
 * What the tests hold the code to, read from the catalogue (tools/catalogue.ts) and the
 * definitions it lists, never from a list of the tests' own: every row a report answers has
 * exactly its declared keys, types and unit formats; each endpoint is answered by the `handler`
 * of its handler file (the module serverless.yml's generated `functions:` deploys); and a
 * request's query string is made from the parameters its definition declares, for every sample
 * restaurant and platform.
 */
import { join } from 'node:path';
import type { APIGatewayProxyResult } from 'aws-lambda';
import type { Endpoint } from '../../tools/catalogue';
import { addDays } from '../../tools/dates';
import { SAMPLE_OWNERS, type SampleOwner } from '../../tools/db/sample-data';
import { parseIsoDate, type DateRange, type IsoDate } from '../../shared/dates';
import type {
  ParameterDefinition,
  PropertyDefinition,
  ReportRow,
  RowValues,
} from '../../shared/reports/report';
import { MONTH_RANGE_PARAMETERS } from '../../shared/reports/revenue';
import { restEvent } from './events';
import { tokenFor } from './tokens';

/** YYYY-MM-DD that is a real calendar date. */
const isCalendarDate = (value: string): boolean => parseIsoDate(value) !== undefined;

/** A finite number written with at most 3 decimals (the largest currency minor unit). */
const isCurrency = (value: number): boolean =>
  Number.isFinite(value) && /^-?\d+(\.\d{1,3})?$/.test(String(value));

const unitProblem = (property: PropertyDefinition, value: string | number): string | undefined => {
  switch (property.unit) {
    case undefined:
      return undefined;
    case 'DATE':
      return typeof value === 'string' && isCalendarDate(value)
        ? undefined
        : 'not a YYYY-MM-DD date';
    case 'DATE_MONTH':
      return typeof value === 'string' && isCalendarDate(value) && value.endsWith('-01')
        ? undefined
        : 'not the first day of a month (YYYY-MM-01)';
    case 'DATE_YEAR':
      return typeof value === 'string' && isCalendarDate(value) && value.endsWith('-01-01')
        ? undefined
        : 'not January 1st (YYYY-01-01)';
    case 'CURRENCY':
      return typeof value === 'number' && isCurrency(value)
        ? undefined
        : 'not a finite number with at most 3 decimals';
  }
};

const typeProblem = (property: PropertyDefinition, value: unknown): string | undefined => {
  switch (property.type) {
    case 'string':
      return typeof value === 'string' ? undefined : 'not a string';
    case 'integer':
      return Number.isInteger(value) ? undefined : 'not an integer';
    case 'number':
      return typeof value === 'number' && Number.isFinite(value)
        ? undefined
        : 'not a finite number';
  }
};

/** Every way one row's values (`data` or `compare`) break the declaration, as readable lines. */
export const valueProblems = (
  properties: readonly PropertyDefinition[],
  values: RowValues,
  where: string,
): string[] => {
  const declared = new Set(properties.map((property) => property.key));
  const problems = Object.keys(values)
    .filter((key) => !declared.has(key))
    .map((key) => `${where}: undeclared key "${key}"`);
  for (const property of properties) {
    if (!Object.hasOwn(values, property.key)) {
      problems.push(`${where}: missing "${property.key}"`);
      continue;
    }
    const value = values[property.key];
    const problem =
      typeProblem(property, value) ??
      (value === undefined ? undefined : unitProblem(property, value));
    if (problem) {
      problems.push(`${where}: "${property.key}" = ${JSON.stringify(value)} is ${problem}`);
    }
  }
  return problems;
};

/** Every way a report's rows break its declaration; `[]` when they all keep it. */
export const rowProblems = (
  properties: readonly PropertyDefinition[],
  rows: readonly ReportRow[],
): string[] =>
  rows.flatMap((row, index) => {
    const extra = Object.keys(row)
      .filter((key) => key !== 'data' && key !== 'compare')
      .map((key) => `row ${index}: unexpected field "${key}"`);
    return [
      ...extra,
      ...valueProblems(properties, row.data, `row ${index} data`),
      ...(row.compare === undefined
        ? []
        : valueProblems(properties, row.compare, `row ${index} compare`)),
    ];
  });

const ROOT = join(import.meta.dirname, '../..');

export type Handler = (event: unknown, context: unknown) => Promise<APIGatewayProxyResult>;

/** Imports one after the other: Jest's ESM loader fails imports of shared modules at once. */
let importing: Promise<unknown> = Promise.resolve();

/** The `handler` its handler file exports: what the endpoint's deployed function runs. */
export const handlerOf = async (endpoint: Endpoint): Promise<Handler> => {
  const module = importing.then(
    () => import(join(ROOT, endpoint.handlerFile)) as Promise<{ handler?: unknown }>,
  );
  importing = module.catch(() => undefined);
  const loaded = await module;
  if (typeof loaded.handler !== 'function') {
    throw new TypeError(`${endpoint.handlerFile} exports no handler function`);
  }
  return loaded.handler as Handler;
};

/** The query-string parameters an endpoint's definition declares. */
export const declaredParameters = ({ answers }: Endpoint): readonly ParameterDefinition[] =>
  answers.kind === 'report'
    ? answers.report.parameters
    : answers.kind === 'service'
      ? answers.service.parameters
      : answers.parameters;

/** The ranges a sample request asks for. */
export interface SampleRanges {
  /** A day range (`from`, `to`). */
  readonly days: DateRange;
  /** The comparison days (`compare[from]`, `compare[to]`); without it they are left out. */
  readonly compare?: DateRange;
  /** A month range (the parameters of MONTH_RANGE_PARAMETERS): first days of months. */
  readonly months: DateRange;
}

/** The first day of the month `back` months before the month of `today`. */
const monthStart = (today: IsoDate, back: number): IsoDate => {
  const index = Number(today.slice(0, 4)) * 12 + Number(today.slice(5, 7)) - 1 - back;
  return `${String(Math.floor(index / 12)).padStart(4, '0')}-${String((index % 12) + 1).padStart(2, '0')}-01` as IsoDate;
};

/**
 * Ranges of the recent past up to `today`: its last `days` days, the as many days before them
 * to compare with, and its last 4 months.
 */
export const recentRanges = (today: IsoDate, days: number): SampleRanges => ({
  days: { from: addDays(today, 1 - days), to: today },
  compare: { from: addDays(today, 1 - 2 * days), to: addDays(today, -days) },
  months: { from: monthStart(today, 3), to: monthStart(today, 0) },
});

/** A sample owner's restaurant on one of its platforms. */
export interface SampleScope {
  readonly owner: SampleOwner;
  readonly id: string;
  readonly timeZone: string;
  readonly platformId: string;
}

/** Every sample restaurant on every platform, the sample owner's R-1001 on TB_AE first. */
export const SAMPLE_SCOPES: readonly SampleScope[] = SAMPLE_OWNERS.flatMap((owner) =>
  owner.restaurants.flatMap((restaurant) =>
    restaurant.platforms.map((platform) => ({
      owner,
      id: restaurant.id,
      timeZone: restaurant.timeZone,
      platformId: platform.platformId,
    })),
  ),
);

/** GET `resource` of the scope's restaurant on its platform, as its owner, with `query`. */
export const scopeEvent = async (
  scope: SampleScope,
  resource: string,
  query: Readonly<Record<string, string>>,
) =>
  restEvent({
    resource,
    pathParameters: { id: scope.id },
    headers: {
      Authorization: `Bearer ${await tokenFor(scope.owner)}`,
      'X-Platform-Id': scope.platformId,
    },
    query,
  });

/** Declared as the month range (revenue's parameters, or any definition's that reuses them). */
const isMonthParameter = (parameter: ParameterDefinition): boolean =>
  MONTH_RANGE_PARAMETERS.includes(parameter);

/**
 * A query string made from a definition's declared parameters: a date parameter takes the day
 * (or, declared as a month range, the month) its name asks for in `ranges`; a required choice
 * takes its first value; optional parameters without a sample value are left out. Throws when
 * a required parameter's declaration does not say what to send.
 */
export const sampleParameters = (
  owner: string,
  parameters: readonly ParameterDefinition[],
  ranges: SampleRanges,
): Record<string, string> => {
  const days: Readonly<Record<string, string | undefined>> = {
    from: ranges.days.from,
    to: ranges.days.to,
    'compare[from]': ranges.compare?.from,
    'compare[to]': ranges.compare?.to,
  };
  const months: Readonly<Record<string, string | undefined>> = {
    from: ranges.months.from,
    to: ranges.months.to,
  };
  const query: Record<string, string> = {};
  for (const parameter of parameters) {
    const date =
      parameter.format === 'date'
        ? (isMonthParameter(parameter) ? months : days)[parameter.name]
        : undefined;
    const choice = parameter.enum?.[0];
    if (date !== undefined) query[parameter.name] = date;
    else if (parameter.required && choice !== undefined) query[parameter.name] = choice;
    else if (parameter.required) {
      throw new Error(
        `no sample value for ${owner}'s required parameter ${parameter.name}: its declaration names no date range or choice`,
      );
    }
  }
  return query;
};
