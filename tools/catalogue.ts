/**
 * The one registry of the service: every endpoint, declared once, as data. From its id (the id
 * of what it answers) follow its handler `functions/<id>.ts`, its serverless function (the id in
 * camelCase), its sample event `events/<id>.json` (where it has one) and its logs; with its
 * method, paths (the /v1 path and any spec 4.2 alias) and authentication it produces
 * serverless.yml's functions and routes, the manifest for the portal team and the OpenAPI
 * document (tools/generators/), and every test suite that covers all endpoints reads it.
 *
 * No function imports this list (lint-enforced): a bundle holds its own endpoint only.
 * Adding a report is its own files and one line below (`npm run new:report -- <id>`).
 */
import type {
  Answer,
  Authentication,
  CatalogueReport,
  CatalogueService,
  CustomAnswer,
  HttpMethod,
} from '../shared/answers';
import { deployPlugin, plugins } from './plugin-endpoints';
import { dashboard } from '../shared/reports/dashboard';
import { dishes } from '../shared/reports/dishes';
import { ordersPerDay } from '../shared/reports/orders-per-day';
import { ordersToday } from '../shared/reports/orders-today';
import { revenue } from '../shared/reports/revenue';

export interface Endpoint {
  /** Kebab-case id of what it answers: names its handler file, function and sample event. */
  readonly id: string;
  /** The serverless function: the id in camelCase. */
  readonly function: string;
  /** The handler module, relative to the repository: `functions/<id>.ts`. */
  readonly handlerFile: string;
  readonly method: HttpMethod;
  /** The /v1 path first, then its aliases; every path also answers OPTIONS (spec 4.3). */
  readonly paths: readonly [string, ...string[]];
  readonly authentication: Authentication;
  readonly answers: Answer;
}

/** `orders-per-day` → `ordersPerDay`. */
export const camelCase = (id: string): string =>
  id.replace(/-([a-z0-9])/g, (_dash, next: string) => next.toUpperCase());

const endpoint = (
  id: string,
  method: HttpMethod,
  authentication: Authentication,
  answers: Answer,
  paths: readonly [string, ...string[]],
): Endpoint => ({
  id,
  function: camelCase(id),
  handlerFile: `functions/${id}.ts`,
  method,
  paths,
  authentication,
  answers,
});

/** A report behind the owner's token, at its /v1 path and any aliases. */
export const report = (definition: CatalogueReport, ...paths: [string, ...string[]]): Endpoint =>
  endpoint(definition.id, 'GET', 'bearer', { kind: 'report', report: definition }, paths);

/** A service (spec 2.5) behind the owner's token, at its /v1 path and any aliases. */
export const service = (definition: CatalogueService, ...paths: [string, ...string[]]): Endpoint =>
  endpoint(definition.id, 'GET', 'bearer', { kind: 'service', service: definition }, paths);

/** An endpoint with a body of its own. */
export const custom = (
  answers: CustomAnswer,
  method: HttpMethod,
  authentication: Authentication,
  ...paths: [string, ...string[]]
): Endpoint => endpoint(answers.id, method, authentication, answers, paths);

export const catalogue: readonly Endpoint[] = [
  report(ordersPerDay, '/v1/restaurants/{id}/reports/orders/day'),
  report(dishes, '/v1/restaurants/{id}/reports/dishes'),
  report(revenue, '/v1/restaurants/{id}/reports/revenue', '/res/{id}/reports/revenue'),
  report(ordersToday, '/v1/restaurants/{id}/orders/today', '/res/{id}/orders/today'),
  service(dashboard, '/v1/restaurants/{id}/dashboard', '/res/{id}/dashboard'),
  custom(plugins, 'GET', 'bearer', '/v1/plugins'),
  custom(deployPlugin, 'PUT', 'api-key', '/v1/plugins/{code}'),
];
