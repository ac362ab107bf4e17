/**
 * The pre-traffic check in the template (docs/operations.md, "Gradual releases"): the function
 * `preTraffic` (functions/pre-traffic.ts, shared/release/pre-traffic.ts) becomes each `live`
 * alias's BeforeAllowTraffic hook, so CodeDeploy runs it before moving any traffic to a new
 * version. osls compiles it like the API's functions; here it gets its own environment (the
 * versions to check, PRE_TRAFFIC_TARGETS), its own role (invoke those versions, report to
 * CodeDeploy, write its logs), no VPC and no layer: it calls AWS's APIs only. Without a gradual
 * release nothing runs it, and it leaves the template.
 */
import { PRE_TRAFFIC_HOOK_TIMEOUT_SECONDS } from '../../shared/release/pre-traffic';
import { assumedBy, refOf, resourcesOfType, type Resource, type Template } from './cloudformation';
import { CODEDEPLOY_APPLICATION_LOGICAL_ID, CODEDEPLOY_ROLE_LOGICAL_ID } from './deployment';
import type { Route } from './throttles';

/** The hook's name among serverless.yml's functions. */
export const PRE_TRAFFIC_FUNCTION = 'preTraffic';
export const PRE_TRAFFIC_LOGICAL_ID = 'PreTrafficLambdaFunction';
export const PRE_TRAFFIC_ROLE_LOGICAL_ID = 'PreTrafficHookRole';

/** The hook as serverless.yml's `functions:` declares it (tools/serverless/functions.cjs). */
export const preTrafficFunction = () => ({
  [PRE_TRAFFIC_FUNCTION]: {
    handler: 'functions/pre-traffic.handler',
    description: "The release's pre-traffic check of every new version (CodeDeploy hook)",
    timeout: PRE_TRAFFIC_HOOK_TIMEOUT_SECONDS,
    memorySize: 256,
  },
});

/** The hook's own resources osls compiled: the function, its versions and its log group. */
const hookResources = (template: Template): string[] =>
  Object.entries(template.Resources)
    .filter(
      ([id, resource]) =>
        id === PRE_TRAFFIC_LOGICAL_ID ||
        id === 'PreTrafficLogGroup' ||
        (resource.Type === 'AWS::Lambda::Version' &&
          refOf(resource.Properties?.FunctionName) === PRE_TRAFFIC_LOGICAL_ID),
    )
    .map(([id]) => id);

/** Whether the template holds the hook. */
export const hasPreTrafficHook = (template: Template): boolean =>
  Object.hasOwn(template.Resources, PRE_TRAFFIC_LOGICAL_ID);

/** The template without the hook and the outputs osls made of it (no gradual release runs it). */
export const withoutPreTrafficHook = (template: Template): Template => {
  const dropped = hookResources(template);
  const names = (value: unknown) => dropped.some((id) => JSON.stringify(value).includes(`"${id}"`));
  return {
    ...template,
    Resources: Object.fromEntries(
      Object.entries(template.Resources).filter(([id]) => !dropped.includes(id)),
    ),
    Outputs: Object.fromEntries(
      Object.entries(template.Outputs ?? {}).filter(([, output]) => !names(output)),
    ),
  };
};

/**
 * The hook's function, patched, and its role; CodeDeploy's role allowed to invoke it; and each
 * alias with the hook in its update policy,
 * whose Ref makes the alias wait for the hook's update: it holds the new versions before
 * CodeDeploy runs it.
 * `routes`: each API function's routes, its first that is not OPTIONS checked.
 */
export const preTrafficHook = (
  template: Template,
  routes: ReadonlyMap<string, readonly Route[]>,
  { name }: { name: string },
): Record<string, Resource> => {
  const hook = template.Resources[PRE_TRAFFIC_LOGICAL_ID];
  if (!hook) throw new TypeError(`the template has no ${PRE_TRAFFIC_LOGICAL_ID}`);
  const versions = resourcesOfType(template, 'AWS::Lambda::Version');
  const targets: unknown[] = [];
  const functionIds: string[] = [];
  for (const [fn, fnRoutes] of routes) {
    const route = fnRoutes.find(({ method }) => method !== 'OPTIONS');
    const version = versions.find(([, v]) => refOf(v.Properties?.FunctionName) === fn)?.[0];
    const functionName = template.Resources[fn]?.Properties?.FunctionName;
    if (!route || version === undefined || typeof functionName !== 'string') continue;
    functionIds.push(fn);
    const entry = (versionArn: unknown) => [
      `${targets.length === 0 ? '' : ','}{"function":${JSON.stringify(functionName.slice(name.length + 1))},"version":"`,
      versionArn,
      `","method":${JSON.stringify(route.method)},"path":${JSON.stringify(route.path)}}`,
    ];
    targets.push(...entry({ Ref: version }));
  }
  const {
    Layers: _layers,
    VpcConfig: _vpc,
    Environment: _environment,
    ...properties
  } = hook.Properties ?? {};
  const changed: Record<string, Resource> = {
    [PRE_TRAFFIC_LOGICAL_ID]: {
      ...hook,
      Properties: {
        ...properties,
        Role: { 'Fn::GetAtt': [PRE_TRAFFIC_ROLE_LOGICAL_ID, 'Arn'] },
        Timeout: PRE_TRAFFIC_HOOK_TIMEOUT_SECONDS,
        Environment: {
          Variables: { PRE_TRAFFIC_TARGETS: { 'Fn::Join': ['', ['[', ...targets, ']']] } },
        },
      },
      DependsOn: [hook.DependsOn ?? []].flat().filter((id) => id !== 'IamRoleLambdaExecution'),
    },
    [PRE_TRAFFIC_ROLE_LOGICAL_ID]: {
      Type: 'AWS::IAM::Role',
      Properties: {
        AssumeRolePolicyDocument: assumedBy('lambda.amazonaws.com'),
        Policies: [
          {
            PolicyName: 'pre-traffic-check',
            PolicyDocument: {
              Version: '2012-10-17',
              Statement: [
                {
                  Effect: 'Allow',
                  Action: ['lambda:InvokeFunction'],
                  Resource: functionIds.map((fn) => ({ 'Fn::Sub': `\${${fn}.Arn}:*` })),
                },
                {
                  Effect: 'Allow',
                  Action: ['codedeploy:PutLifecycleEventHookExecutionStatus'],
                  Resource: {
                    'Fn::Sub': `arn:\${AWS::Partition}:codedeploy:\${AWS::Region}:\${AWS::AccountId}:deploymentgroup:\${${CODEDEPLOY_APPLICATION_LOGICAL_ID}}/*`,
                  },
                },
                {
                  Effect: 'Allow',
                  Action: ['logs:CreateLogStream', 'logs:PutLogEvents'],
                  // The log group's ARN ends with :*, its streams.
                  Resource: [{ 'Fn::GetAtt': ['PreTrafficLogGroup', 'Arn'] }],
                },
              ],
            },
          },
        ],
      },
    },
  };
  // CodeDeploy invokes the hook itself.
  const codeDeployRole = template.Resources[CODEDEPLOY_ROLE_LOGICAL_ID];
  if (codeDeployRole) {
    const policies = (codeDeployRole.Properties?.Policies ?? []) as unknown[];
    changed[CODEDEPLOY_ROLE_LOGICAL_ID] = {
      ...codeDeployRole,
      Properties: {
        ...codeDeployRole.Properties,
        Policies: [
          ...policies,
          {
            PolicyName: 'run-pre-traffic-check',
            PolicyDocument: {
              Version: '2012-10-17',
              Statement: [
                {
                  Effect: 'Allow',
                  Action: ['lambda:InvokeFunction'],
                  Resource: [{ 'Fn::GetAtt': [PRE_TRAFFIC_LOGICAL_ID, 'Arn'] }],
                },
              ],
            },
          },
        ],
      },
    };
  }
  for (const [aliasId, alias] of resourcesOfType(template, 'AWS::Lambda::Alias')) {
    const update = alias.UpdatePolicy?.CodeDeployLambdaAliasUpdate as
      Record<string, unknown> | undefined;
    if (!update) continue;
    changed[aliasId] = {
      ...alias,
      UpdatePolicy: {
        CodeDeployLambdaAliasUpdate: {
          ...update,
          BeforeAllowTrafficHook: { Ref: PRE_TRAFFIC_LOGICAL_ID },
        },
      },
    };
  }
  return changed;
};
