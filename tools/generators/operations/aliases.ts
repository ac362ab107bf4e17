/**
 * Releases through a `live` alias per function: API Gateway calls the alias, which points at the
 * version this deployment published, so a release is rolled back by moving the alias.
 */
import { isArnOf, refOf, resourcesOfType, type Resource, type Template } from '../cloudformation';
import { HEARTBEAT_LOGICAL_ID } from '../heartbeat';
import { PRE_TRAFFIC_LOGICAL_ID } from '../pre-traffic';

/** The alias API Gateway calls. */
export const LIVE_ALIAS = 'live';

/** `OrdersPerDayLambdaFunction` → `OrdersPerDayLiveLambdaAlias`. */
export const aliasLogicalId = (functionLogicalId: string): string =>
  `${functionLogicalId.replace(/LambdaFunction$/, '')}LiveLambdaAlias`;

/**
 * One `live` alias per function, on the version this template publishes; every API Gateway
 * integration and invoke permission of the function pointed at the alias instead of $LATEST.
 * Returns the resources to add and replace.
 */
export const liveAliases = (template: Template): Record<string, Resource> => {
  const functions = resourcesOfType(template, 'AWS::Lambda::Function');
  const versions = resourcesOfType(template, 'AWS::Lambda::Version');
  const changed: Record<string, Resource> = {};
  const aliasOf = new Map<string, string>();
  for (const [fn] of functions) {
    // The release's hook is invoked by CodeDeploy, the heartbeat by its schedule: no alias.
    if (fn === PRE_TRAFFIC_LOGICAL_ID || fn === HEARTBEAT_LOGICAL_ID) continue;
    const version = versions.find(([, v]) => refOf(v.Properties?.FunctionName) === fn);
    if (!version) {
      throw new TypeError(
        `${fn} has no AWS::Lambda::Version: the live alias needs provider.versionFunctions (osls's default, true)`,
      );
    }
    const alias = aliasLogicalId(fn);
    aliasOf.set(fn, alias);
    changed[alias] = {
      Type: 'AWS::Lambda::Alias',
      Properties: {
        FunctionName: { Ref: fn },
        FunctionVersion: { 'Fn::GetAtt': [version[0], 'Version'] },
        Name: LIVE_ALIAS,
        Description:
          'What API Gateway calls: the version of the last deployment (docs/operations.md)',
      },
    };
  }
  const aliasFor = (value: unknown): string | undefined =>
    [...aliasOf].find(([fn]) => isArnOf(value, fn))?.[1];

  for (const [id, method] of resourcesOfType(template, 'AWS::ApiGateway::Method')) {
    const integration = method.Properties?.Integration as
      { Type?: string; Uri?: { 'Fn::Join'?: [string, unknown[]] } } | undefined;
    const join = integration?.Uri?.['Fn::Join'];
    if (integration?.Type !== 'AWS_PROXY' || !join) continue;
    const parts = join[1];
    const index = parts.findIndex((part) => aliasFor(part) !== undefined);
    const alias = index === -1 ? undefined : aliasFor(parts[index]);
    if (alias === undefined) continue;
    const uriParts = parts.map((part, i) => (i === index ? { Ref: alias } : part));
    changed[id] = {
      ...method,
      Properties: {
        ...method.Properties,
        Integration: { ...integration, Uri: { 'Fn::Join': [join[0], uriParts] } },
      },
    };
  }
  for (const [id, permission] of resourcesOfType(template, 'AWS::Lambda::Permission')) {
    if (permission.Properties?.Principal !== 'apigateway.amazonaws.com') continue;
    const alias = aliasFor(permission.Properties.FunctionName);
    if (alias === undefined) continue;
    changed[id] = {
      ...permission,
      Properties: { ...permission.Properties, FunctionName: { Ref: alias } },
    };
  }
  return changed;
};
