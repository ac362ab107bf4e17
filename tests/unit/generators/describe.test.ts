/**
 * tools/generators/describe.ts: what a packaged template deploys, in words, and the settings that
 * set it, a secret's value never shown.
 */
import type { Template } from '../../../tools/generators/cloudformation';
import { describeTemplate } from '../../../tools/generators/describe';

const TOPIC = 'arn:aws:sns:eu-west-1:123456789012:portal-alarms';

/** A function, the stage with one route's limits, and two alarms as operations.ts writes them. */
const TEMPLATE: Template = {
  Resources: {
    DashboardLambdaFunction: {
      Type: 'AWS::Lambda::Function',
      Properties: { Timeout: 20, MemorySize: 512, ReservedConcurrentExecutions: 12 },
    },
    PreTrafficLambdaFunction: {
      Type: 'AWS::Lambda::Function',
      Properties: { Timeout: 60, MemorySize: 256 },
    },
    ApiGatewayStage: {
      Type: 'AWS::ApiGateway::Stage',
      Properties: {
        MethodSettings: [
          {
            ResourcePath: '/*',
            HttpMethod: '*',
            ThrottlingRateLimit: 200,
            ThrottlingBurstLimit: 400,
          },
          {
            ResourcePath: '/~1v1~1restaurants~1{id}~1dashboard',
            HttpMethod: 'GET',
            ThrottlingRateLimit: 3,
            ThrottlingBurstLimit: 1,
          },
        ],
      },
    },
    ApiGateway5xxCountAlarm: {
      Type: 'AWS::CloudWatch::Alarm',
      Properties: {
        AlarmName: 'svc-production-api-5xx-count',
        Namespace: 'AWS/ApiGateway',
        MetricName: '5XXError',
        Statistic: 'Sum',
        Period: 300,
        EvaluationPeriods: 1,
        Threshold: 5,
        ComparisonOperator: 'GreaterThanOrEqualToThreshold',
        AlarmActions: [TOPIC],
      },
    },
    ApiGateway5xxRateAlarm: {
      Type: 'AWS::CloudWatch::Alarm',
      Properties: {
        AlarmName: 'svc-production-api-5xx-rate',
        Metrics: [
          { Id: 'rate', Expression: 'answers / requests', Label: '5xx share', ReturnData: true },
          {
            Id: 'answers',
            MetricStat: {
              Metric: { Namespace: 'AWS/ApiGateway', MetricName: '5XXError' },
              Period: 300,
              Stat: 'Sum',
            },
            ReturnData: false,
          },
        ],
        EvaluationPeriods: 3,
        DatapointsToAlarm: 2,
        Threshold: 0.05,
        ComparisonOperator: 'GreaterThanThreshold',
      },
    },
  },
};

describe('describeTemplate', () => {
  it('says each function, route limit and alarm, with where each setting was set', () => {
    // Act
    const lines = describeTemplate(TEMPLATE, {
      RESERVED_CONCURRENCY_DASHBOARD: {
        variable: 'RESERVED_CONCURRENCY_DASHBOARD_PRODUCTION',
        value: '12',
        source: 'variable',
      },
      API_THROTTLE_RATE: {
        variable: 'custom.stages.production.settings.API_THROTTLE_RATE',
        value: '200',
        source: 'stage',
      },
      LOG_LEVEL: { variable: 'LOG_LEVEL', value: 'info', source: 'registry' },
      DATABASE_URL: {
        variable: 'DATABASE_URL_PRODUCTION',
        value: 'postgres://reports:planted-password@db.example/reports',
        source: 'variable',
      },
    });

    // Assess
    expect(lines).toEqual([
      '  functions:',
      '    Dashboard: timeout 20 s, memory 512 MB, reserved concurrency 12',
      '    PreTraffic: timeout 60 s, memory 256 MB, no reserved concurrency',
      '  routes:',
      '    the stage, every route together: 200 requests/s, burst 400',
      '    GET /v1/restaurants/{id}/dashboard: 3 requests/s, burst 1',
      '  alarms:',
      `    svc-production-api-5xx-count: AWS/ApiGateway 5XXError (Sum) GreaterThanOrEqualToThreshold 5, 1 of 1 × 300 s; notifies ${TOPIC}`,
      '    svc-production-api-5xx-rate: 5xx share (AWS/ApiGateway 5XXError) GreaterThanThreshold 0.05, 2 of 3 × 300 s; notifies nobody',
      '  settings set by a variable or the stage (custom.stages):',
      '    RESERVED_CONCURRENCY_DASHBOARD = 12 (RESERVED_CONCURRENCY_DASHBOARD_PRODUCTION)',
      '    API_THROTTLE_RATE = 200 (custom.stages.production.settings.API_THROTTLE_RATE)',
      '    DATABASE_URL = (set, a secret) (DATABASE_URL_PRODUCTION)',
    ]);
  });

  it('says none of a section the template lacks', () => {
    expect(describeTemplate({ Resources: {} }, {})).toEqual([
      '  functions:',
      '    none',
      '  routes:',
      '    none',
      '  alarms:',
      '    none',
      '  settings set by a variable or the stage (custom.stages):',
      '    none',
    ]);
  });
});
