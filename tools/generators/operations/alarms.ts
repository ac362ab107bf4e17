/**
 * The alarms: the API's 5xx and 4xx rates, 5xx count and p99 latency, the functions' throttles,
 * each release's own failures, the key-set failures and database errors the functions publish,
 * the web ACL's blocks and the heartbeat's. Their descriptions, runbook text with the thresholds
 * filled in, are in runbooks.json beside this file.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { single, type Resource, type Template } from '../cloudformation';
import { HEARTBEAT_MINUTES } from '../heartbeat';
import { RELEASE_MIN_REQUESTS, releaseAlarms } from '../release-alarms';
import { routesOf } from '../throttles';
import { wafBlockedMetric } from '../waf';
import { LIVE_ALIAS } from './aliases';
import type { OperationsSettings, ServiceContext } from './settings';

/**
 * The alarms clients can drive (4xx answers, throttles, the web ACL's blocks), by name after
 * `<service>-<stage>-`: they page, but neither roll a release back nor stop a release's bake.
 */
export const CLIENT_DRIVEN_ALARMS: readonly string[] = ['api-4xx-rate', 'throttles', 'waf-blocked'];

/** Whether the alarm `alarmName` of `<service>-<stage>` (`prefix`) is one clients can drive. */
export const isClientDriven = (alarmName: string, prefix: string): boolean => {
  const rest = alarmName.startsWith(prefix) ? alarmName.slice(prefix.length) : '';
  return CLIENT_DRIVEN_ALARMS.some((name) => rest === name || rest.startsWith(`${name}-`));
};

/** CloudWatch takes at most 10 metrics in one alarm's metric math. */
export const ALARM_METRICS_MAX = 10;

/** An alarm's description in runbooks.json: its text, and its section of docs/operations.md. */
interface Runbook {
  readonly text: string;
  readonly runbook: string;
}
const RUNBOOKS = JSON.parse(
  readFileSync(join(import.meta.dirname, 'runbooks.json'), 'utf8'),
) as Readonly<Record<string, Runbook>>;

/**
 * The description of the alarm `alarm` (a key of runbooks.json): its text with each `{name}`
 * replaced by `values[name]`, then its runbook section. Throws on an unknown alarm or name.
 */
export const description = (
  alarm: string,
  values: Readonly<Record<string, string | number>>,
): string => {
  const entry = RUNBOOKS[alarm];
  if (entry === undefined) throw new TypeError(`runbooks.json has no alarm "${alarm}"`);
  const text = entry.text.replace(/\{(\w+)\}/g, (_whole, name: string) => {
    const value = values[name];
    if (value === undefined)
      throw new TypeError(`runbooks.json's "${alarm}" names no value {${name}}`);
    return String(value);
  });
  return `${text} Runbook: docs/operations.md#${entry.runbook}`;
};

const percent = (rate: number) => Number((rate * 100).toPrecision(6));

/** An alarm's actions: tell `topicArn`, if any, of every change to ALARM and back to OK. */
export const notifyingTopic = (topicArn: string | undefined) =>
  topicArn ? { AlarmActions: [topicArn], OKActions: [topicArn] } : {};

/** The alarms of the stage, or none when ALARMS is off. */
export const alarms = (
  template: Template,
  settings: OperationsSettings,
  context: ServiceContext,
): Record<string, Resource> => {
  const { alarms: thresholds } = settings;
  if (!thresholds.enabled) return {};
  const [, restApi] = single(template, 'AWS::ApiGateway::RestApi');
  const apiName = restApi.Properties?.Name;
  if (typeof apiName !== 'string') {
    throw new TypeError('the RestApi has no Name: the API Gateway alarms need it (ApiName)');
  }
  const name = `${context.service}-${settings.stage}`;
  // What needs someone now pages; what clients drive is a notice (docs/operations.md, "Alarms").
  const actions = notifyingTopic(thresholds.topicArn);
  const noticeActions = notifyingTopic(thresholds.noticeTopicArn);
  const api = [
    { Name: 'ApiName', Value: apiName },
    { Name: 'Stage', Value: settings.stage },
  ];
  const service = [{ Name: 'Service', Value: name }];
  const apiMetric = (id: string, metricName: string, stat: string) => ({
    Id: id,
    MetricStat: {
      Metric: { Namespace: 'AWS/ApiGateway', MetricName: metricName, Dimensions: api },
      Period: 300,
      Stat: stat,
    },
    ReturnData: false,
  });
  // The share of `metricName` among the requests, 0 below the minimum request count.
  const rateOf = (metricName: string, label: string) => [
    {
      Id: 'rate',
      Expression: `IF(requests >= ${thresholds.minRequests}, FILL(answers, 0) / requests, 0)`,
      Label: label,
      ReturnData: true,
    },
    apiMetric('requests', 'Count', 'Sum'),
    apiMetric('answers', metricName, 'Sum'),
  ];
  const rateEvaluation = { EvaluationPeriods: 3, DatapointsToAlarm: 2 };
  const alarm = (properties: Record<string, unknown>, notify = actions): Resource => ({
    Type: 'AWS::CloudWatch::Alarm',
    Properties: { ActionsEnabled: true, ...notify, ...properties },
  });
  const notice = (properties: Record<string, unknown>): Resource =>
    alarm(properties, noticeActions);

  const result: Record<string, Resource> = {
    ApiGateway5xxRateAlarm: alarm({
      AlarmName: `${name}-api-5xx-rate`,
      AlarmDescription: description('api-5xx-rate', {
        fiveXxRate: percent(thresholds.fiveXxRate),
        minRequests: thresholds.minRequests,
      }),
      Metrics: rateOf('5XXError', '5xx answers over all requests'),
      ...rateEvaluation,
      Threshold: thresholds.fiveXxRate,
      ComparisonOperator: 'GreaterThanThreshold',
      // No requests, or too few, are no failure: the gate above yields 0 or nothing.
      TreatMissingData: 'notBreaching',
    }),
    ApiGateway5xxCountAlarm: alarm({
      AlarmName: `${name}-api-5xx-count`,
      AlarmDescription: description('api-5xx-count', {
        fiveXxCount: thresholds.fiveXxCount,
        minRequests: thresholds.minRequests,
      }),
      Namespace: 'AWS/ApiGateway',
      MetricName: '5XXError',
      Dimensions: api,
      Statistic: 'Sum',
      Period: 300,
      EvaluationPeriods: 1,
      Threshold: thresholds.fiveXxCount,
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
      TreatMissingData: 'notBreaching',
    }),
    ApiGateway4xxRateAlarm: notice({
      AlarmName: `${name}-api-4xx-rate`,
      AlarmDescription: description('api-4xx-rate', {
        fourXxRate: percent(thresholds.fourXxRate),
        minRequests: thresholds.minRequests,
      }),
      Metrics: rateOf('4XXError', '4xx answers over all requests'),
      ...rateEvaluation,
      Threshold: thresholds.fourXxRate,
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
      TreatMissingData: 'notBreaching',
    }),
    ApiGatewayP99LatencyAlarm: alarm({
      AlarmName: `${name}-api-p99-latency`,
      AlarmDescription: description('api-p99-latency', {
        p99LatencyMs: thresholds.p99LatencyMs,
        minRequests: thresholds.minRequests,
      }),
      Metrics: [
        {
          Id: 'latency',
          Expression: `IF(requests >= ${thresholds.minRequests}, p99, 0)`,
          Label: 'p99 latency (ms)',
          ReturnData: true,
        },
        apiMetric('requests', 'Count', 'Sum'),
        apiMetric('p99', 'Latency', 'p99'),
      ],
      ...rateEvaluation,
      Threshold: thresholds.p99LatencyMs,
      ComparisonOperator: 'GreaterThanThreshold',
      TreatMissingData: 'notBreaching',
    }),
    KeySetFailuresAlarm: alarm({
      AlarmName: `${name}-key-set-failures`,
      AlarmDescription: description('key-set-failures', {
        keySetFailures: thresholds.keySetFailures,
        namespace: settings.metricsNamespace,
      }),
      Namespace: settings.metricsNamespace,
      MetricName: 'KeySetFailures',
      Dimensions: service,
      Statistic: 'Sum',
      Period: 300,
      EvaluationPeriods: 1,
      Threshold: thresholds.keySetFailures,
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
      // The metric is published when a failure happens: no data is no failure.
      TreatMissingData: 'notBreaching',
    }),
    DatabaseErrorsAlarm: alarm({
      AlarmName: `${name}-database-errors`,
      AlarmDescription: description('database-errors', {
        databaseErrors: thresholds.databaseErrors,
        namespace: settings.metricsNamespace,
      }),
      Namespace: settings.metricsNamespace,
      MetricName: 'DatabaseErrors',
      Dimensions: service,
      Statistic: 'Sum',
      Period: 300,
      EvaluationPeriods: 1,
      Threshold: thresholds.databaseErrors,
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
      TreatMissingData: 'notBreaching',
    }),
  };

  if (settings.waf.enabled) {
    result.WafBlockedRequestsAlarm = notice({
      AlarmName: `${name}-waf-blocked`,
      AlarmDescription: description('waf-blocked', {
        wafBlocked: thresholds.wafBlocked,
        rateLimit: settings.waf.rateLimit,
      }),
      ...wafBlockedMetric(name),
      Statistic: 'Sum',
      Period: 300,
      EvaluationPeriods: 1,
      Threshold: thresholds.wafBlocked,
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
      // WAF publishes BlockedRequests only when it blocks.
      TreatMissingData: 'notBreaching',
    });
  }

  const functions = [...routesOf(template).keys()];
  const release = releaseAlarms(template, functions, {
    name,
    namespace: settings.metricsNamespace,
    releaseErrors: thresholds.releaseErrors,
    fiveXxRate: thresholds.fiveXxRate,
    alias: LIVE_ALIAS,
    common: actions,
    description: (fn) =>
      description('release-rollback', {
        function: fn,
        releaseErrors: thresholds.releaseErrors,
        fiveXxRate: percent(thresholds.fiveXxRate),
        releaseMinRequests: RELEASE_MIN_REQUESTS,
        alias: LIVE_ALIAS,
        namespace: settings.metricsNamespace,
      }),
  });
  for (const [id, resource] of Object.values(release)) result[id] = resource;

  // Every function's throttles summed, 10 functions (CloudWatch's limit) to an alarm.
  for (let start = 0; start < functions.length; start += ALARM_METRICS_MAX) {
    const group = functions.slice(start, start + ALARM_METRICS_MAX);
    const suffix = start === 0 ? '' : String(start / ALARM_METRICS_MAX + 1);
    result[`LambdaThrottlesAlarm${suffix}`] = notice({
      AlarmName: `${name}-throttles${suffix ? `-${suffix}` : ''}`,
      AlarmDescription: description('throttles', { throttles: thresholds.throttles }),
      Metrics: [
        {
          Id: 'throttles',
          Expression: 'SUM(METRICS())',
          Label: 'Throttles of every function',
          ReturnData: true,
        },
        ...group.map((fn, index) => ({
          Id: `f${index}`,
          MetricStat: {
            Metric: {
              Namespace: 'AWS/Lambda',
              MetricName: 'Throttles',
              Dimensions: [{ Name: 'FunctionName', Value: { Ref: fn } }],
            },
            Period: 300,
            Stat: 'Sum',
          },
          ReturnData: false,
        })),
      ],
      EvaluationPeriods: 1,
      Threshold: thresholds.throttles,
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
      // Lambda publishes Throttles only when it throttles: no data is none.
      TreatMissingData: 'notBreaching',
    });
  }
  return result;
};

/** The heartbeat alarm's description (tools/generators/heartbeat.ts makes the alarm). */
export const heartbeatDescription = (settings: OperationsSettings): string =>
  description('heartbeat', { minutes: HEARTBEAT_MINUTES, namespace: settings.metricsNamespace });
