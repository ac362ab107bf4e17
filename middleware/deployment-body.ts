/**
 * Body validation of the plugin deployment call (spec 4.6): the JSON body is parsed and
 * checked, and the parsed request handed forward on the invocation's context.
 */
import { internalError } from '../shared/errors';
import { headerValues } from '../shared/http/event';
import { parseDeploymentRequest, type DeploymentRequest } from '../shared/plugins/deployment';
import type { PortalContext, PortalMiddleware, PortalRequest } from './types';

/** The invocation's context once the deployment body is read. */
type DeploymentContext = PortalContext & { deployment?: DeploymentRequest };

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

/** The deployment request an earlier `deploymentBody` step read. */
export const deploymentOf = (context: PortalContext): DeploymentRequest => {
  const { deployment }: DeploymentContext = context;
  if (deployment === undefined) {
    throw internalError(new Error('chain did not read the deployment body'));
  }
  return deployment;
};
