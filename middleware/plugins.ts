/**
 * The plugin registry's two endpoints, composed in the order the contract needs:
 * - the registry (spec 2.1, 4.4): the authenticated chain (CORS → errors → bearer → JWT),
 *   without the ownership step, then `portalVersion` → a JSON array of Plugin Objects;
 * - the deployment call (spec 4.6): CORS → errors → API key → JSON body → `{ "data": … }`.
 */
import { internalError } from '../shared/errors';
import { headerValues, jsonResult } from '../shared/http/event';
import { parseDeploymentRequest, type DeploymentRequest } from '../shared/plugins/deployment';
import { parsePluginQuery, type PluginQuery } from '../shared/plugins/query';
import type { PluginDeployment, PluginRegistry } from '../shared/plugins/registry';
import type { Dependencies } from '../shared/runtime';
import { apiKey, authenticatedPlugin } from './api-key';
import { authenticatedChain, baseChain } from './compose';
import { queryParameters } from './query';
import {
  requireState,
  type PortalContext,
  type PortalMiddleware,
  type PortalRequest,
} from './types';

/** The invocation's context once the deployment body is read. */
type DeploymentContext = PortalContext & { deployment?: DeploymentRequest };

/** Body validation of the deployment call: the parsed request is handed forward. */
export const deploymentBody = (): PortalMiddleware => {
  const deploymentBodyBefore = (request: PortalRequest) => {
    const { event } = request;
    const context: DeploymentContext = request.context;
    context.deployment = parseDeploymentRequest({
      body: event.body,
      isBase64Encoded: event.isBase64Encoded,
      contentTypes: headerValues(event, 'content-type'),
    });
  };
  return { before: deploymentBodyBefore };
};

/** GET /v1/plugins: the plugins offered on any platform of the caller's token. */
export const pluginListEndpoint = (
  registry: Pick<PluginRegistry, 'available'>,
  deps: Pick<Dependencies, 'logger' | 'verifier'>,
) =>
  authenticatedChain(deps)
    .use(queryParameters(parsePluginQuery))
    .handler(async (_event, context) => {
      const { restaurants } = requireState(context, 'claims');
      const { portalVersion } = requireState(context, 'query') as PluginQuery;
      const platformIds = restaurants.flatMap(({ platforms }) =>
        platforms.map(({ platformId }) => platformId),
      );
      return jsonResult(200, await registry.available(platformIds, portalVersion));
    });

/** PUT /v1/plugins/{code}: stores the bundle of one portal version of the key's plugin. */
export const pluginDeployEndpoint = (
  registry: PluginRegistry,
  deps: Pick<Dependencies, 'logger'>,
) =>
  baseChain(deps)
    .use(apiKey({ lookup: registry }))
    .use(deploymentBody())
    .handler(async (_event, context) => {
      const { deployment }: DeploymentContext = context;
      if (deployment === undefined) {
        throw internalError(new Error('chain did not read the deployment body'));
      }
      const stored: PluginDeployment = await registry.deploy({
        code: authenticatedPlugin(context),
        ...deployment,
      });
      return jsonResult(200, { data: stored });
    });
