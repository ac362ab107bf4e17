/**
 * What the tests hold the code to: the declarations of the reports (every row a report answers
 * has exactly its declared keys, types and unit formats) and the routes of serverless.yml (read
 * with a regular expression over its one-line `- http: { path, method }` events).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseIsoDate } from '../../shared/dates';
import type { PropertyDefinition, ReportRow, RowValues } from '../../shared/reports/report';

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

export interface ServerlessFunction {
  readonly name: string;
  /** The handler's module, e.g. functions/reports/orders-day */
  readonly module: string;
  readonly routes: readonly { readonly method: string; readonly path: string }[];
}

const FUNCTION_LINE = /^ {2}(\w+):\s*$/;
const HANDLER_LINE = /^ {4}handler:\s*(\S+)\.(\w+)\s*$/;
const HTTP_LINE = /^\s+- http: \{ path: '([^']+)', method: (\w+) \}\s*$/;

/** The functions of serverless.yml, with their handler module and their http routes. */
export const serverlessFunctions = (
  file = join(import.meta.dirname, '../../serverless.yml'),
): ServerlessFunction[] => {
  const lines = readFileSync(file, 'utf8').split('\n');
  const start = lines.indexOf('functions:');
  const end = lines.findIndex((line, index) => index > start && /^\S/.test(line));
  const functions: { name: string; module: string; routes: { method: string; path: string }[] }[] =
    [];
  for (const line of lines.slice(start + 1, end === -1 ? undefined : end)) {
    const name = FUNCTION_LINE.exec(line)?.[1];
    if (name) {
      functions.push({ name, module: '', routes: [] });
      continue;
    }
    const current = functions.at(-1);
    const handler = HANDLER_LINE.exec(line);
    if (current && handler) current.module = handler[1] ?? '';
    const http = HTTP_LINE.exec(line);
    if (current && http) {
      current.routes.push({ path: http[1] ?? '', method: (http[2] ?? '').toUpperCase() });
    }
  }
  return functions;
};
