/**
 * Validation of the catalogue, before anything is generated from it (serverless.yml's
 * functions, the manifest, the OpenAPI document): every problem a deployment or the portal team
 * would meet later is a build failure here, named. An endpoint's id must be kebab-case and its
 * handler file must exist; ids, functions and routes are unique; an alias takes the path
 * parameters of its /v1 path; a function's description fits Lambda's 256 characters; every
 * report property has a key, an English name, a known type and a unit that fits its type, and
 * no two share a key or a CSV column.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Endpoint } from '../catalogue';
import type { PropertyDefinition, Unit } from '../../shared/reports/report';
import { answerSummary, pathParameterNames } from './endpoints';
import { PROPERTY_TYPES, UNITS } from './units';

const ROOT = join(import.meta.dirname, '../..');
const KEBAB_CASE = /^[a-z][a-z0-9]*(?:-[a-z0-9]+)*$/;
/** Lambda's limit on a function description. */
const MAX_DESCRIPTION = 256;

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

export const catalogueProblems = (catalogue: readonly Endpoint[]): string[] => {
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

/** What one endpoint's own declaration gets wrong: its id, handler file or description. */
const endpointProblems = (endpoint: Endpoint, root: string): string[] => {
  const problems: string[] = [];
  const { id, description } = answerSummary(endpoint.answers);
  if (!KEBAB_CASE.test(id)) problems.push(`Endpoint id "${id}" is not kebab-case`);
  if (!existsSync(join(root, endpoint.handlerFile))) {
    problems.push(`${endpoint.function}: its handler ${endpoint.handlerFile} does not exist`);
  }
  if (description.trim() === '' || description.length > MAX_DESCRIPTION) {
    problems.push(
      `${endpoint.function}: its description must have 1 to ${MAX_DESCRIPTION} characters`,
    );
  }
  return problems;
};

/** Throws a TypeError listing every problem of the catalogue; `root` is the repository. */
export const validateCatalogue = (catalogue: readonly Endpoint[], root: string = ROOT): void => {
  const problems = [
    ...catalogueProblems(catalogue),
    ...catalogue.flatMap((endpoint) => endpointProblems(endpoint, root)),
  ];
  if (problems.length > 0) throw new TypeError(problems.join('\n'));
};
