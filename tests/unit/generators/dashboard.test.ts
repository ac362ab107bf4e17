/**
 * The stage's dashboard (tools/generators/dashboard.ts): its body is the JSON CloudWatch reads
 * once CloudFormation has substituted the account and partition, with a graph of each signal the
 * runbook names and every alarm's state; a stage without alarms has no alarm widget.
 */
import {
  DASHBOARD_LOGICAL_ID,
  dashboardUrl,
  operationsDashboard,
  type DashboardSettings,
} from '../../../tools/generators/dashboard';

const SETTINGS: DashboardSettings = {
  name: 'portal-service-api-production',
  region: 'eu-west-1',
  apiName: 'production-portal-service-api',
  stage: 'production',
  namespace: 'PortalServiceApi',
  functionNames: ['portal-service-api-production-ordersPerDay'],
  waf: { name: 'portal-service-api-production', rule: 'per-client-rate' },
  alarmNames: ['portal-service-api-production-api-5xx-rate'],
};

interface Widget {
  type: string;
  properties: { title: string; metrics?: unknown[][]; alarms?: string[]; region?: string };
}

/** The body as CloudWatch reads it, once CloudFormation's Fn::Sub has run. */
const bodyOf = (settings: DashboardSettings): { widgets: Widget[] } => {
  const dashboard = operationsDashboard(settings)[DASHBOARD_LOGICAL_ID];
  expect(dashboard?.Properties?.DashboardName).toBe('portal-service-api-production-eu-west-1');
  const sub = (dashboard?.Properties?.DashboardBody as { 'Fn::Sub': string })['Fn::Sub'];
  const substituted = sub
    .replaceAll('${AWS::Partition}', 'aws')
    .replaceAll('${AWS::AccountId}', '123456789012');
  expect(substituted).not.toContain('${');
  return JSON.parse(substituted) as { widgets: Widget[] };
};

describe('the dashboard', () => {
  it('graphs requests, 4xx/5xx, p50/p99, database and key-set errors, throttles and the heartbeat', () => {
    const { widgets } = bodyOf(SETTINGS);
    const metrics = widgets.flatMap((w) => w.properties.metrics ?? []).map((m) => m[1]);

    expect(metrics).toEqual([
      'Count',
      '4XXError',
      '5XXError',
      'Latency',
      'Latency',
      'DatabaseErrors',
      'KeySetFailures',
      'Throttles',
      'BlockedRequests',
      'Heartbeat',
    ]);
    expect(new Set(widgets.map((w) => w.properties.region))).toEqual(
      new Set(['eu-west-1', undefined]),
    );
  });

  it('shows every alarm’s state, and has no alarm widget without alarms', () => {
    const alarms = bodyOf(SETTINGS).widgets.find((w) => w.type === 'alarm');
    expect(alarms?.properties.alarms).toEqual([
      'arn:aws:cloudwatch:eu-west-1:123456789012:alarm:portal-service-api-production-api-5xx-rate',
    ]);
    expect(
      bodyOf({ ...SETTINGS, alarmNames: [] }).widgets.filter((w) => w.type === 'alarm'),
    ).toEqual([]);
  });

  it('is linked by its console address', () => {
    expect(dashboardUrl(SETTINGS.name, SETTINGS.region)).toBe(
      'https://console.aws.amazon.com/cloudwatch/home?region=eu-west-1#dashboards/dashboard/portal-service-api-production-eu-west-1',
    );
  });
});
