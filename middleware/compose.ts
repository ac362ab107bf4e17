/**
 * The one place chains are composed, in the order the contract needs:
 * access log → CORS → error formatting → authentication (bearer and JWT verification, or the
 * API key) → ownership → parameters → handler.
 * `before` phases run in that order; `onError`/`after` in reverse, so the error formatter
 * renders every failure and CORS then decorates it.
 *
 * Each endpoint kind has two entries: `…Endpoint(definition, queries, deps)` composes the chain
 * around given queries and dependencies (tests hand in their own), and `…Handler(definition)`
 * is what a file under functions/ exports: the same chain on the container's dependencies,
 * with the definition's SQL bound to its pool once per container.
 */
import middy, { type Request } from '@middy/core';
import type { Database } from '../shared/db/database';
import { enterRequestDeadline } from '../shared/deadline';
import { headerValues, jsonResult, queryStringValues } from '../shared/http/event';
import type { GatewayEvent, GatewayResult } from '../shared/http/event';
import { parsePluginParameters, type PluginParameters } from '../shared/plugins/parameters';
import {
  createPostgresPluginRegistry,
  type PluginDeployment,
  type PluginRegistry,
} from '../shared/plugins/registry';
import { csvFileName, csvResult, reportFormat, toCsv } from '../shared/reports/csv';
import type { ReportDefinition, ReportResponse, ServiceDefinition } from '../shared/reports/report';
import { containerDependencies, type Dependencies } from '../shared/runtime';
import { accessLog } from './access-log';
import { apiKey, authenticatedPlugin } from './api-key';
import { bearer } from './bearer';
import { cors } from './cors';
import { deploymentBody, deploymentOf } from './deployment-body';
import { errorHandler } from './error-handler';
import { nonHttpEvent } from './non-http-event';
import { ownership } from './ownership';
import { parameters } from './parameters';
import { requireState, type PortalContext } from './types';
import { verifyJwt } from './verify-jwt';

type ChainDependencies = Pick<Dependencies, 'logger' | 'verifier' | 'ownership'>;

/**
 * Non-HTTP events, access log, CORS and error formatting: the start of every chain. An event
 * that is not an API Gateway request (a schedule, a warm-up, `{}`, the pre-traffic check of
 * `database`, and of `keySet` and `issuer` for a chain that `verifiesTokens`) is answered first, before any
 * step that reads a request. The access log comes next so that it times the whole request and
 * sees the final response.
 */
export const baseChain = (
  deps: Pick<Dependencies, 'logger'> &
    Partial<Pick<Dependencies, 'ready' | 'keySet' | 'issuer'>> & {
      readonly database?: Pick<Database, 'check'>;
    },
  { verifiesTokens = false }: { readonly verifiesTokens?: boolean } = {},
) => {
  const log = accessLog({ logger: deps.logger });
  return middy<GatewayEvent, GatewayResult, Error, PortalContext>({
    ...log.plugin,
    // Before any step, synchronously: the database bounds this invocation's queries by it.
    // Middy calls the hook with the request, which its types leave out.
    requestStart: ((request: Pick<Request, 'context'>) => {
      enterRequestDeadline(request.context);
    }) as () => void,
  })
    .use(
      nonHttpEvent({
        logger: deps.logger,
        ...(deps.ready ? { ready: deps.ready } : {}),
        ...(deps.database ? { database: deps.database } : {}),
        ...(verifiesTokens && deps.keySet ? { keySet: deps.keySet } : {}),
        ...(verifiesTokens ? { issuer: deps.issuer === undefined ? 'unset' : 'set' } : {}),
      }),
    )
    .use(log.middleware)
    .use(cors({ exposeHeaders: 'Content-Disposition' }))
    .use(errorHandler({ logger: deps.logger }));
};

/** The base chain, bearer and verification: every endpoint called with the owner's token. */
export const authenticatedChain = (deps: Pick<Dependencies, 'logger' | 'verifier'>) =>
  baseChain(deps, { verifiesTokens: true })
    .use(bearer())
    .use(verifyJwt({ verifier: deps.verifier }));

/** The authenticated chain plus the ownership check: every endpoint about one restaurant. */
export const portalChain = (deps: ChainDependencies) =>
  authenticatedChain(deps).use(ownership({ rules: deps.ownership }));

/**
 * A report endpoint (spec 4.1, 2.4): the chain, the report's parameter validation, then its
 * rows as JSON or, when asked, CSV.
 */
export const reportEndpoint = <P, D>(
  report: ReportDefinition<P, D>,
  queries: D,
  deps: ChainDependencies,
) =>
  portalChain(deps)
    .use(parameters((read) => report.parseParameters(read)))
    .handler(async (event, context) => {
      const format = reportFormat(
        queryStringValues(event, 'format'),
        headerValues(event, 'accept'),
      );
      const { restaurantId, platformId } = requireState(context, 'access');
      const parsed = requireState(context, 'parameters') as P;
      const rows = await report.rows(queries, { restaurantId, platformId }, parsed);
      if (format === 'csv') {
        const fileName = csvFileName([report.id, restaurantId, ...report.fileNameParts(parsed)]);
        return csvResult(toCsv(report.properties, rows), fileName);
      }
      const body: ReportResponse = { data: rows };
      return jsonResult(200, body);
    });

/** A service endpoint (spec 2.5): the chain, its parameter validation, then `{ "data": … }`. */
export const serviceEndpoint = <P, D, B>(
  service: ServiceDefinition<P, D, B>,
  queries: D,
  deps: ChainDependencies,
) =>
  portalChain(deps)
    .use(parameters((read) => service.parseParameters(read)))
    .handler(async (_event, context) => {
      const { restaurantId, platformId } = requireState(context, 'access');
      const parsed = requireState(context, 'parameters') as P;
      return jsonResult(200, {
        data: await service.run(queries, { restaurantId, platformId }, parsed),
      });
    });

/**
 * GET /v1/plugins (spec 2.1, 4.4): the authenticated chain without the ownership step (the
 * plugins of every platform in the token), then `portalVersion` → a JSON array of Plugin
 * Objects.
 */
export const pluginsEndpoint = (
  registry: Pick<PluginRegistry, 'available'>,
  deps: Pick<Dependencies, 'logger' | 'verifier'>,
) =>
  authenticatedChain(deps)
    .use(parameters(parsePluginParameters))
    .handler(async (_event, context) => {
      const { restaurants } = requireState(context, 'claims');
      const { portalVersion } = requireState(context, 'parameters') as PluginParameters;
      const platformIds = restaurants.flatMap(({ platforms }) =>
        platforms.map(({ platformId }) => platformId),
      );
      return jsonResult(200, await registry.available(platformIds, portalVersion));
    });

/**
 * PUT /v1/plugins/{code} (spec 4.6): the base chain, the API key, the JSON body, then stores
 * the bundle of one portal version of the key's plugin.
 */
export const deployPluginEndpoint = (
  registry: PluginRegistry,
  deps: Pick<Dependencies, 'logger'>,
) =>
  baseChain(deps)
    .use(apiKey({ lookup: registry }))
    .use(deploymentBody())
    .handler(async (_event, context) => {
      const stored: PluginDeployment = await registry.deploy({
        code: authenticatedPlugin(context),
        ...deploymentOf(context),
      });
      return jsonResult(200, { data: stored });
    });

/** functions/<report id>.ts: the report on the container's dependencies. */
export const reportHandler = <P, D>(report: ReportDefinition<P, D>) => {
  const deps = containerDependencies();
  return reportEndpoint(report, deps.database.bind(report.queries), deps);
};

/** functions/<service id>.ts: the service on the container's dependencies. */
export const serviceHandler = <P, D, B>(service: ServiceDefinition<P, D, B>) => {
  const deps = containerDependencies();
  return serviceEndpoint(service, deps.database.bind(service.queries), deps);
};

/** functions/plugins.ts: the plugin registry on the container's database. */
export const pluginsHandler = () => {
  const deps = containerDependencies();
  return pluginsEndpoint(deps.database.bind(createPostgresPluginRegistry), deps);
};

/** functions/deploy-plugin.ts: the deployment call on the container's database. */
export const deployPluginHandler = () => {
  const deps = containerDependencies();
  return deployPluginEndpoint(deps.database.bind(createPostgresPluginRegistry), deps);
};
