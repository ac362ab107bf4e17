/**
 * The heartbeat in the template (docs/operations.md, "Heartbeat"): the function `heartbeat`
 * (functions/heartbeat.ts, functions/release/heartbeat.ts), run every minute by an EventBridge
 * schedule, invokes each function's `live` alias with the pre-traffic event and writes the
 * `Heartbeat` metric; its alarm pages when a minute's heartbeat is 0 or missing, three minutes
 * running. osls compiles the function and its schedule; here it gets its environment (the aliases,
 * HEARTBEAT_TARGETS, and how long one invocation may take), its timeout, and its own role (invoke
 * those aliases, write its logs, and its traces when osls compiled it with Active tracing), no VPC
 * and no layer: it calls Lambda's API only. A stage without alarms has no heartbeat.
 */
import { HEARTBEAT_METRIC, HEARTBEAT_RESERVE_MS } from '../../functions/release/heartbeat';
import { invokeTimeoutMsFor } from '../../functions/release/bounds';
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
import { timeoutOf } from './pre-traffic';

/** The heartbeat's name among serverless.yml's functions. */
export const HEARTBEAT_FUNCTION = 'heartbeat';
export const HEARTBEAT_LOGICAL_ID = 'HeartbeatLambdaFunction';
export const HEARTBEAT_ROLE_LOGICAL_ID = 'HeartbeatRole';
export const HEARTBEAT_ALARM_LOGICAL_ID = 'HeartbeatAlarm';
/** Minutes in a row with a failed or missing heartbeat before the alarm pages. */
export const HEARTBEAT_MINUTES = 3;
/** The heartbeat's own work beside its invocations: reading its environment, logging. */
const HEARTBEAT_OVERHEAD_MS = 5_000;
/** What the functions' environment gives the heartbeat: its metric's names and its log level. */
const KEPT_VARIABLES = ['METRICS_NAMESPACE', 'METRICS_SERVICE', 'LOG_LEVEL'];

/** The heartbeat as serverless.yml's `functions:` declares it (tools/serverless/functions.cjs). */
export const heartbeatFunction = () => ({
  [HEARTBEAT_FUNCTION]: {
    handler: 'functions/heartbeat.handler',
    description: "Every minute, each function's live version checked (database, key set)",
    memorySize: 256,
    events: [{ schedule: 'rate(1 minute)' }],
  },
});

/** Whether the template holds the heartbeat. */
export const hasHeartbeat = (template: Template): boolean =>
  Object.hasOwn(template.Resources, HEARTBEAT_LOGICAL_ID);

/** The template without the heartbeat and the outputs osls made of it (a stage without alarms). */
export const withoutHeartbeat = (template: Template): Template =>
  withoutResources(template, compiledFunctionResources(template, HEARTBEAT_LOGICAL_ID));

export interface HeartbeatSettings {
  /** `<service>-<stage>`: the function names' prefix and the metric's Service dimension. */
  readonly name: string;
  readonly namespace: string;
  /** What the alarm notifies (a paging topic), if anything. */
  readonly actions: Readonly<Record<string, unknown>>;
  readonly description: string;
}

/**
 * The heartbeat's function, patched, its role and its alarm, for the `live` aliases of
 * `template` (liveAliases, already in it). Throws a TypeError when the template has no heartbeat.
 */
export const heartbeatChecks = (
  template: Template,
  settings: HeartbeatSettings,
): Record<string, Resource> => {
  const fn = template.Resources[HEARTBEAT_LOGICAL_ID];
  if (!fn) throw new TypeError(`the template has no ${HEARTBEAT_LOGICAL_ID}`);
  const aliases = resourcesOfType(template, 'AWS::Lambda::Alias');
  const targets: unknown[] = [];
  const checked: string[] = [];
  for (const [aliasId, alias] of aliases) {
    const functionId = refOf(alias.Properties?.FunctionName);
    const functionName = functionId && template.Resources[functionId]?.Properties?.FunctionName;
    if (typeof functionName !== 'string') continue;
    targets.push(
      `${targets.length === 0 ? '' : ','}{"function":${JSON.stringify(functionName.slice(settings.name.length + 1))},"alias":"`,
      { Ref: aliasId },
      '"}',
    );
    checked.push(functionId ?? '');
  }
  const invokeTimeoutMs = invokeTimeoutMsFor(
    Math.max(...checked.map((id) => timeoutOf(template.Resources[id]))),
  );
  const timeoutSeconds = Math.ceil(
    (invokeTimeoutMs + HEARTBEAT_RESERVE_MS + HEARTBEAT_OVERHEAD_MS) / 1000,
  );
  const variables =
    (fn.Properties?.Environment as { Variables?: Record<string, unknown> } | undefined)
      ?.Variables ?? {};
  return {
    [HEARTBEAT_LOGICAL_ID]: onOwnRole(fn, {
      roleId: HEARTBEAT_ROLE_LOGICAL_ID,
      timeout: timeoutSeconds,
      variables: {
        ...Object.fromEntries(
          KEPT_VARIABLES.flatMap((key) => (key in variables ? [[key, variables[key]]] : [])),
        ),
        HEARTBEAT_TARGETS: { 'Fn::Join': ['', ['[', ...targets, ']']] },
        HEARTBEAT_INVOKE_TIMEOUT_MS: String(invokeTimeoutMs),
      },
    }),
    [HEARTBEAT_ROLE_LOGICAL_ID]: {
      Type: 'AWS::IAM::Role',
      Properties: {
        AssumeRolePolicyDocument: assumedBy('lambda.amazonaws.com'),
        Policies: [
          {
            PolicyName: 'heartbeat',
            PolicyDocument: {
              Version: '2012-10-17',
              Statement: [
                {
                  Effect: 'Allow',
                  Action: ['lambda:InvokeFunction'],
                  // The live aliases only: never a version nor $LATEST.
                  Resource: aliases.map(([aliasId]) => ({ Ref: aliasId })),
                },
                {
                  Effect: 'Allow',
                  Action: ['logs:CreateLogStream', 'logs:PutLogEvents'],
                  Resource: [{ 'Fn::GetAtt': ['HeartbeatLogGroup', 'Arn'] }],
                },
                ...(tracesActively(fn) ? [xrayStatement()] : []),
              ],
            },
          },
        ],
      },
    },
    [HEARTBEAT_ALARM_LOGICAL_ID]: {
      Type: 'AWS::CloudWatch::Alarm',
      Properties: {
        ActionsEnabled: true,
        ...settings.actions,
        AlarmName: `${settings.name}-heartbeat`,
        AlarmDescription: settings.description,
        Namespace: settings.namespace,
        MetricName: HEARTBEAT_METRIC,
        Dimensions: [{ Name: 'Service', Value: settings.name }],
        Statistic: 'Minimum',
        Period: 60,
        EvaluationPeriods: HEARTBEAT_MINUTES,
        DatapointsToAlarm: HEARTBEAT_MINUTES,
        Threshold: 1,
        ComparisonOperator: 'LessThanThreshold',
        // No heartbeat is no news: it pages too.
        TreatMissingData: 'breaching',
      },
    },
  };
};
