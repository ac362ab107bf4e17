/**
 * The pre-traffic check in the template (docs/releases.md, "Gradual releases"): the function
 * `preTraffic` (functions/pre-traffic.ts, functions/release/hook.ts) becomes each `live`
 * alias's BeforeAllowTraffic hook, so CodeDeploy runs it before moving any traffic to a new
 * version. osls compiles it like the API's functions; here it gets its own environment (the
 * versions to check, PRE_TRAFFIC_TARGETS, and how long one invocation may take,
 * PRE_TRAFFIC_INVOKE_TIMEOUT_MS), its own timeout (both derived from the longest timeout of the
 * functions it checks: preTrafficBounds), its own role (invoke the published versions of those
 * functions, `:*`, and never their aliases, `$LATEST` or their unqualified ARN, each denied; read
 * its deployment and report to CodeDeploy; write its logs, and its traces when osls compiled it
 * with Active tracing), no VPC and no layer: it calls AWS's APIs only. Without a gradual release
 * nothing runs it, and it leaves the template.
 *
 * The role names no AWS::Lambda::Version, so its policy is the same on every deploy: a policy
 * rewritten with each release's versions would reach IAM, eventually consistent, only some time
 * after the hook may run, which would then be refused the new version and fail a healthy release.
 */
import {
  CHECKS_PER_TARGET,
  HOOK_OVERHEAD_MS,
  hookTimeoutSecondsFor,
  INVOKE_MARGIN_MS,
  invokeTimeoutMsFor,
  LAMBDA_MAX_TIMEOUT_SECONDS,
  REPORT_RESERVE_MS,
} from '../../functions/release/bounds';
import {
  assumedBy,
  compiledFunctionResources,
  onOwnRole,
  refOf,
  resourcesOfType,
  tracesActively,
  withoutResources,
  xrayStatement,
  type Resource,
  type Template,
} from './cloudformation';
import { CODEDEPLOY_APPLICATION_LOGICAL_ID, CODEDEPLOY_ROLE_LOGICAL_ID } from './deployment';
import type { Route } from './throttles';

/** The hook's name among serverless.yml's functions. */
export const PRE_TRAFFIC_FUNCTION = 'preTraffic';
export const PRE_TRAFFIC_LOGICAL_ID = 'PreTrafficLambdaFunction';
export const PRE_TRAFFIC_ROLE_LOGICAL_ID = 'PreTrafficHookRole';

/** Lambda's timeout of a function whose template sets none. */
const LAMBDA_DEFAULT_TIMEOUT_SECONDS = 3;

/**
 * The hook as serverless.yml's `functions:` declares it (tools/serverless/functions.cjs); its
 * timeout is set in the template, from the functions it checks (preTrafficBounds).
 */
export const preTrafficFunction = () => ({
  [PRE_TRAFFIC_FUNCTION]: {
    handler: 'functions/pre-traffic.handler',
    description: "The release's pre-traffic check of every new version (CodeDeploy hook)",
    memorySize: 256,
  },
});

/** How long the hook waits for one invocation, and its own timeout. */
export interface PreTrafficBounds {
  readonly invokeTimeoutMs: number;
  readonly hookTimeoutSeconds: number;
}

/**
 * The hook's bounds for functions of these timeouts (seconds): each invocation waits
 * INVOKE_MARGIN_MS beyond the longest, and the hook's timeout holds both checks of a target,
 * the report and its own work. Throws an Error of one line when that exceeds Lambda's longest
 * timeout.
 */
export const preTrafficBounds = (functionTimeoutsSeconds: readonly number[]): PreTrafficBounds => {
  const longest = Math.max(LAMBDA_DEFAULT_TIMEOUT_SECONDS, ...functionTimeoutsSeconds);
  const invokeTimeoutMs = invokeTimeoutMsFor(longest);
  const hookTimeoutSeconds = hookTimeoutSecondsFor(invokeTimeoutMs);
  if (hookTimeoutSeconds > LAMBDA_MAX_TIMEOUT_SECONDS) {
    throw new Error(
      `the pre-traffic hook cannot check functions with a ${longest} s timeout: ${CHECKS_PER_TARGET} invocations of ${longest} s + ${INVOKE_MARGIN_MS / 1000} s each, ${REPORT_RESERVE_MS / 1000} s to report and ${HOOK_OVERHEAD_MS / 1000} s of its own need a ${hookTimeoutSeconds} s hook, above Lambda's ${LAMBDA_MAX_TIMEOUT_SECONDS} s; lower the functions' timeout (provider.timeout in serverless.yml)`,
    );
  }
  return { invokeTimeoutMs, hookTimeoutSeconds };
};

/** A function's Timeout in the template, in seconds. */
export const timeoutOf = (fn: Resource | undefined): number => {
  const timeout = fn?.Properties?.Timeout;
  return typeof timeout === 'number' ? timeout : LAMBDA_DEFAULT_TIMEOUT_SECONDS;
};

/** The names of the aliases of the function `fn` in the template (its `live` alias). */
const aliasNamesOf = (template: Template, fn: string): string[] =>
  resourcesOfType(template, 'AWS::Lambda::Alias').flatMap(([, alias]) => {
    const name = alias.Properties?.Name;
    return refOf(alias.Properties?.FunctionName) === fn && typeof name === 'string' ? [name] : [];
  });

/**
 * The hook's invocations of the functions `functionIds`: every published version of each
 * (`<ARN>:*`, which also matches its aliases and `$LATEST`), and explicitly none of its aliases,
 * `$LATEST` or its unqualified ARN. Names no version, so it is the same on every deploy. The alias
 * names are the template's (tools/generators/operations.ts's LIVE_ALIAS), read here as operations
 * imports this module.
 */
const invokeStatements = (template: Template, functionIds: readonly string[]) =>
  functionIds.length === 0
    ? []
    : [
        {
          Effect: 'Allow',
          Action: ['lambda:InvokeFunction'],
          Resource: functionIds.map((fn) => ({ 'Fn::Sub': `\${${fn}.Arn}:*` })),
        },
        {
          Effect: 'Deny',
          Action: ['lambda:InvokeFunction'],
          Resource: functionIds.flatMap((fn) => [
            ...aliasNamesOf(template, fn).map((alias) => ({ 'Fn::Sub': `\${${fn}.Arn}:${alias}` })),
            { 'Fn::Sub': `\${${fn}.Arn}:$LATEST` },
            { 'Fn::GetAtt': [fn, 'Arn'] },
          ]),
        },
      ];

/** Whether the template holds the hook. */
export const hasPreTrafficHook = (template: Template): boolean =>
  Object.hasOwn(template.Resources, PRE_TRAFFIC_LOGICAL_ID);

/** The template without the hook and the outputs osls made of it (no gradual release runs it). */
export const withoutPreTrafficHook = (template: Template): Template =>
  withoutResources(template, compiledFunctionResources(template, PRE_TRAFFIC_LOGICAL_ID));

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
  const bounds = preTrafficBounds(functionIds.map((fn) => timeoutOf(template.Resources[fn])));
  const changed: Record<string, Resource> = {
    [PRE_TRAFFIC_LOGICAL_ID]: onOwnRole(hook, {
      roleId: PRE_TRAFFIC_ROLE_LOGICAL_ID,
      timeout: bounds.hookTimeoutSeconds,
      variables: {
        PRE_TRAFFIC_TARGETS: { 'Fn::Join': ['', ['[', ...targets, ']']] },
        PRE_TRAFFIC_INVOKE_TIMEOUT_MS: String(bounds.invokeTimeoutMs),
      },
    }),
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
                ...invokeStatements(template, functionIds),
                {
                  Effect: 'Allow',
                  Action: [
                    'codedeploy:GetDeployment',
                    'codedeploy:PutLifecycleEventHookExecutionStatus',
                  ],
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
                ...(tracesActively(hook) ? [xrayStatement()] : []),
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
