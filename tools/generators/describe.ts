/**
 * What a packaged template deploys, in words (`npm run package -- --describe`): its functions
 * with timeout, memory and reserved concurrency, its routes with their limits, its alarms with
 * metric, threshold, window and action, and the settings that changed any of these from their
 * default, with where each was set. A secret setting is said to be set, never shown.
 */
import { resourcesOfType, type Resource, type Template } from './cloudformation';
import { settingEntry } from './registry';
import type { ReadSetting } from './variables';

type Fields = Readonly<Record<string, unknown>>;

const fieldsOf = (resource: Resource): Fields => resource.Properties ?? {};

/** `/~1v1~1restaurants~1{id}` → `/v1/restaurants/{id}`. */
const routePath = (resourcePath: unknown): string =>
  String(resourcePath).replace(/~1/g, '/').replace(/^\/\//, '/');

const functions = (template: Template): string[] =>
  resourcesOfType(template, 'AWS::Lambda::Function').map(([id, fn]) => {
    const { Timeout, MemorySize, ReservedConcurrentExecutions } = fieldsOf(fn);
    const reserved =
      typeof ReservedConcurrentExecutions === 'number'
        ? `reserved concurrency ${ReservedConcurrentExecutions}`
        : 'no reserved concurrency';
    return `${id.replace(/LambdaFunction$/, '')}: timeout ${String(Timeout)} s, memory ${String(MemorySize)} MB, ${reserved}`;
  });

const routes = (template: Template): string[] =>
  resourcesOfType(template, 'AWS::ApiGateway::Stage').flatMap(([, stage]) =>
    ((fieldsOf(stage).MethodSettings ?? []) as Fields[]).map((setting) => {
      const where =
        setting.ResourcePath === '/*'
          ? 'the stage, every route together'
          : `${String(setting.HttpMethod)} ${routePath(setting.ResourcePath)}`;
      return `${where}: ${String(setting.ThrottlingRateLimit)} requests/s, burst ${String(setting.ThrottlingBurstLimit)}`;
    }),
  );

/** The metric an alarm watches: its own, or its metric math's expression over its metrics. */
const metricOf = (alarm: Fields): string => {
  if (typeof alarm.MetricName === 'string') {
    return `${String(alarm.Namespace)} ${alarm.MetricName} (${String(alarm.Statistic)})`;
  }
  const metrics = (alarm.Metrics ?? []) as Fields[];
  const returned = metrics.find((metric) => metric.ReturnData === true);
  const names = metrics
    .map((metric) => (metric.MetricStat as { Metric?: Fields } | undefined)?.Metric)
    .filter((metric): metric is Fields => metric !== undefined)
    .map((metric) => `${String(metric.Namespace)} ${String(metric.MetricName)}`);
  return `${String(returned?.Label ?? returned?.Expression)} (${[...new Set(names)].join(', ')})`;
};

const periodOf = (alarm: Fields): number => {
  if (typeof alarm.Period === 'number') return alarm.Period;
  const metrics = (alarm.Metrics ?? []) as Fields[];
  const stat = metrics.find((metric) => metric.MetricStat !== undefined)?.MetricStat as
    { Period?: number } | undefined;
  return stat?.Period ?? 0;
};

const alarms = (template: Template): string[] =>
  resourcesOfType(template, 'AWS::CloudWatch::Alarm').map(([, resource]) => {
    const alarm = fieldsOf(resource);
    const periods = Number(alarm.EvaluationPeriods ?? 1);
    const needed = Number(alarm.DatapointsToAlarm ?? periods);
    const window = `${needed} of ${periods} × ${periodOf(alarm)} s`;
    const actions = (alarm.AlarmActions ?? []) as unknown[];
    const action =
      actions.length > 0 ? `notifies ${actions.map(String).join(', ')}` : 'notifies nobody';
    return `${String(alarm.AlarmName)}: ${metricOf(alarm)} ${String(alarm.ComparisonOperator)} ${String(alarm.Threshold)}, ${window}; ${action}`;
  });

/** The settings a variable or the stage's table set, each with where: the rest are the registry's. */
const changedSettings = (values: Readonly<Record<string, ReadSetting>>): string[] =>
  Object.entries(values)
    .filter(([, setting]) => setting.source !== 'registry')
    .map(([name, setting]) => {
      const secret = (() => {
        try {
          return settingEntry(name).secret;
        } catch {
          return false;
        }
      })();
      const value = secret ? '(set, a secret)' : setting.value;
      return `${name} = ${value} (${setting.variable})`;
    });

/** What `template` deploys, as indented lines, with the settings packaging read for it. */
export const describeTemplate = (
  template: Template,
  values: Readonly<Record<string, ReadSetting>>,
): string[] => {
  const section = (title: string, lines: readonly string[]) => [
    `  ${title}:`,
    ...(lines.length > 0 ? lines.map((line) => `    ${line}`) : ['    none']),
  ];
  return [
    ...section('functions', functions(template)),
    ...section('routes', routes(template)),
    ...section('alarms', alarms(template)),
    ...section('settings set by a variable or the stage (custom.stages)', changedSettings(values)),
  ];
};
