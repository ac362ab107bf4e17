/**
 * The stage's CloudWatch dashboard in its region (docs/operations.md, "Dashboard"): requests,
 * 4xx and 5xx, latency p50 and p99, the database's and the key set's errors, throttles (Lambda's
 * and the web ACL's) and the heartbeat, with every alarm's state; each alarm's description links
 * to it.
 */
import type { Resource } from './cloudformation';

export const DASHBOARD_LOGICAL_ID = 'OperationsDashboard';

export interface DashboardSettings {
  /** `<service>-<stage>`: the metrics' Service dimension and the dashboard's name. */
  readonly name: string;
  readonly region: string;
  readonly apiName: string;
  readonly stage: string;
  readonly namespace: string;
  /** The functions' names (FunctionName), for their throttles. */
  readonly functionNames: readonly string[];
  /** The web ACL's name and rule, when the stage has one. */
  readonly waf?: { readonly name: string; readonly rule: string };
  /** The stage's alarm names. */
  readonly alarmNames: readonly string[];
}

/** `portal-service-api-production` in eu-west-1 → `portal-service-api-production-eu-west-1`. */
export const dashboardName = (name: string, region: string): string => `${name}-${region}`;

/** The console address of the dashboard, which the alarms' descriptions give. */
export const dashboardUrl = (name: string, region: string): string =>
  `https://console.aws.amazon.com/cloudwatch/home?region=${region}#dashboards/dashboard/${dashboardName(name, region)}`;

type MetricLine = readonly (string | Readonly<Record<string, string | number>>)[];

const WIDTH = 12;
const HEIGHT = 6;

/** The dashboard of the stage in its region. */
export const operationsDashboard = (settings: DashboardSettings): Record<string, Resource> => {
  const api = ['ApiName', settings.apiName, 'Stage', settings.stage];
  const service = ['Service', settings.name];
  const graphs: { title: string; metrics: MetricLine[]; stat?: string }[] = [
    { title: 'Requests', metrics: [['AWS/ApiGateway', 'Count', ...api]] },
    {
      title: '4xx and 5xx answers',
      metrics: [
        ['AWS/ApiGateway', '4XXError', ...api],
        ['AWS/ApiGateway', '5XXError', ...api],
      ],
    },
    {
      title: 'Latency p50 and p99 (ms)',
      stat: 'p99',
      metrics: [
        ['AWS/ApiGateway', 'Latency', ...api, { stat: 'p50', label: 'p50' }],
        ['AWS/ApiGateway', 'Latency', ...api, { stat: 'p99', label: 'p99' }],
      ],
    },
    {
      title: 'Database and key-set errors',
      metrics: [
        [settings.namespace, 'DatabaseErrors', ...service],
        [settings.namespace, 'KeySetFailures', ...service],
      ],
    },
    {
      title: 'Throttles: Lambda and the web ACL',
      metrics: [
        ...settings.functionNames.map((fn) => ['AWS/Lambda', 'Throttles', 'FunctionName', fn]),
        ...(settings.waf
          ? [
              [
                'AWS/WAFV2',
                'BlockedRequests',
                'WebACL',
                settings.waf.name,
                'Region',
                settings.region,
                'Rule',
                settings.waf.rule,
              ],
            ]
          : []),
      ],
    },
    {
      title: 'Heartbeat: the live versions answering (1) or not (0)',
      stat: 'Minimum',
      metrics: [[settings.namespace, 'Heartbeat', ...service]],
    },
  ];
  const alarms = settings.alarmNames.map(
    (alarm) =>
      `arn:\${AWS::Partition}:cloudwatch:${settings.region}:\${AWS::AccountId}:alarm:${alarm}`,
  );
  const widgets = [
    ...graphs.map(({ title, metrics, stat = 'Sum' }, index) => ({
      type: 'metric',
      x: (index % 2) * WIDTH,
      y: Math.floor(index / 2) * HEIGHT,
      width: WIDTH,
      height: HEIGHT,
      properties: { title, region: settings.region, stat, period: 60, view: 'timeSeries', metrics },
    })),
    // A stage without alarms has no alarm widget: CloudWatch refuses an empty one.
    ...(alarms.length === 0
      ? []
      : [
          {
            type: 'alarm',
            x: 0,
            y: Math.ceil(graphs.length / 2) * HEIGHT,
            width: 2 * WIDTH,
            height: HEIGHT,
            properties: { title: 'Alarms', alarms },
          },
        ]),
  ];
  return {
    [DASHBOARD_LOGICAL_ID]: {
      Type: 'AWS::CloudWatch::Dashboard',
      Properties: {
        DashboardName: dashboardName(settings.name, settings.region),
        DashboardBody: { 'Fn::Sub': JSON.stringify({ widgets }) },
      },
    },
  };
};
