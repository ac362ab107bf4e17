/**
 * One alarm per function on the version this template publishes (docs/releases.md, "Releases
 * and rollback"): the signal CodeDeploy rolls that function's release back on, judged on the new
 * version's own requests rather than the stage's, so that a canary at 10 % of the traffic is
 * judged on its 10 %. A failed request is a Lambda error of that version (a crash or a timeout:
 * AWS/Lambda Errors by ExecutedVersion through the `live` alias) or a 5xx it answered (the
 * service's `Requests` by FunctionName, Version and StatusClass, shared/metrics.ts). Evaluated
 * every minute over the last three, the alarm fires with ALARM_RELEASE_ERRORS failed requests in
 * them, whatever the traffic, or from RELEASE_MIN_REQUESTS requests when more than
 * ALARM_5XX_RATE of them failed. Once the release is
 * done it keeps watching that version, and pages like the others.
 */
import { refOf, resourcesOfType, type Resource, type Template } from './cloudformation';

/** Requests of the new version in the window from which its failure rate counts too. */
export const RELEASE_MIN_REQUESTS = 20;

/**
 * The window each evaluation sums, in seconds: CloudWatch's default sliding window moves every
 * minute, so failures spread over any three minutes add up, whichever minutes they fall in.
 */
export const RELEASE_WINDOW_SECONDS = 180;

export interface ReleaseAlarmSettings {
  /** `<service>-<stage>`: the alarms' names and the `Service` dimension. */
  readonly name: string;
  readonly namespace: string;
  readonly releaseErrors: number;
  readonly fiveXxRate: number;
  readonly alias: string;
  /** The alarm's properties every alarm of the stage shares (its actions). */
  readonly common: Readonly<Record<string, unknown>>;
  readonly description: (fn: string) => string;
}

/** `OrdersPerDayLambdaFunction` → `OrdersPerDayReleaseAlarm`. */
export const releaseAlarmLogicalId = (functionLogicalId: string): string =>
  `${functionLogicalId.replace(/LambdaFunction$/, '')}ReleaseAlarm`;

/**
 * The release alarm of each function in `functionIds`, by the function's logical id. Throws a
 * TypeError for a function without a version or a name.
 */
export const releaseAlarms = (
  template: Template,
  functionIds: readonly string[],
  settings: ReleaseAlarmSettings,
): Record<string, [string, Resource]> => {
  const versions = resourcesOfType(template, 'AWS::Lambda::Version');
  const result: Record<string, [string, Resource]> = {};
  for (const fn of functionIds) {
    const version = versions.find(([, v]) => refOf(v.Properties?.FunctionName) === fn)?.[0];
    const functionName = template.Resources[fn]?.Properties?.FunctionName;
    if (version === undefined || typeof functionName !== 'string') {
      throw new TypeError(`${fn} has no version or no FunctionName: its release alarm needs both`);
    }
    const versionNumber = { 'Fn::GetAtt': [version, 'Version'] };
    const lambda = (id: string, metricName: string) => ({
      Id: id,
      MetricStat: {
        Metric: {
          Namespace: 'AWS/Lambda',
          MetricName: metricName,
          Dimensions: [
            { Name: 'FunctionName', Value: { Ref: fn } },
            { Name: 'Resource', Value: { 'Fn::Sub': `\${${fn}}:${settings.alias}` } },
            { Name: 'ExecutedVersion', Value: versionNumber },
          ],
        },
        Period: RELEASE_WINDOW_SECONDS,
        Stat: 'Sum',
      },
      ReturnData: false,
    });
    const short = functionName.slice(settings.name.length + 1) || functionName;
    result[fn] = [
      releaseAlarmLogicalId(fn),
      {
        Type: 'AWS::CloudWatch::Alarm',
        Properties: {
          ActionsEnabled: true,
          ...settings.common,
          AlarmName: `${settings.name}-release-${short}`,
          AlarmDescription: settings.description(short),
          Metrics: [
            {
              Id: 'signal',
              // No division: a minute without requests has no rate to judge.
              Expression: `IF(failed >= ${settings.releaseErrors}, 1, 0) + IF(FILL(invocations, 0) >= ${RELEASE_MIN_REQUESTS}, IF(failed > ${settings.fiveXxRate} * invocations, 1, 0), 0)`,
              Label: 'The new version failing (1 or more)',
              ReturnData: true,
            },
            {
              Id: 'failed',
              Expression: 'FILL(errors, 0) + FILL(answers5xx, 0)',
              ReturnData: false,
            },
            lambda('invocations', 'Invocations'),
            lambda('errors', 'Errors'),
            {
              Id: 'answers5xx',
              MetricStat: {
                Metric: {
                  Namespace: settings.namespace,
                  MetricName: 'Requests',
                  Dimensions: [
                    { Name: 'Service', Value: settings.name },
                    { Name: 'FunctionName', Value: { Ref: fn } },
                    { Name: 'Version', Value: versionNumber },
                    { Name: 'StatusClass', Value: '5xx' },
                  ],
                },
                Period: RELEASE_WINDOW_SECONDS,
                Stat: 'Sum',
              },
              ReturnData: false,
            },
          ],
          EvaluationPeriods: 1,
          Threshold: 1,
          ComparisonOperator: 'GreaterThanOrEqualToThreshold',
          // A version with no requests has not failed.
          TreatMissingData: 'notBreaching',
        },
      },
    ];
  }
  return result;
};
