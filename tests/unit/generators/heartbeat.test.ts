/**
 * The heartbeat in the template (tools/generators/heartbeat.ts): its function checks each `live`
 * alias, its role may invoke those aliases only, and its alarm's own arithmetic over synthetic
 * minutes (tests/support/alarm-math.ts) pages a region without traffic whose key set broke within
 * five minutes, and when the heartbeat stops, but not on one bad minute.
 */
import type { Resource, Template } from '../../../tools/generators/cloudformation';
import {
  HEARTBEAT_ALARM_LOGICAL_ID,
  HEARTBEAT_LOGICAL_ID,
  HEARTBEAT_ROLE_LOGICAL_ID,
  hasHeartbeat,
  heartbeatChecks,
  withoutHeartbeat,
} from '../../../tools/generators/heartbeat';
import { alarmStates, type AlarmProperties } from '../../support/alarm-math';

const NAME = 'portal-service-api-production';

const template = (): Template => ({
  Resources: {
    OrdersPerDayLambdaFunction: {
      Type: 'AWS::Lambda::Function',
      Properties: { FunctionName: `${NAME}-ordersPerDay`, Timeout: 20 },
    },
    OrdersPerDayLiveLambdaAlias: {
      Type: 'AWS::Lambda::Alias',
      Properties: { FunctionName: { Ref: 'OrdersPerDayLambdaFunction' }, Name: 'live' },
    },
    [HEARTBEAT_LOGICAL_ID]: {
      Type: 'AWS::Lambda::Function',
      Properties: {
        FunctionName: `${NAME}-heartbeat`,
        Timeout: 6,
        VpcConfig: { SubnetIds: ['subnet-1'] },
        Environment: {
          Variables: {
            METRICS_NAMESPACE: 'PortalServiceApi',
            METRICS_SERVICE: NAME,
            DATABASE_URL: 'postgres://db.example/reports',
          },
        },
      },
      DependsOn: ['HeartbeatLogGroup', 'IamRoleLambdaExecution'],
    },
    HeartbeatLogGroup: { Type: 'AWS::Logs::LogGroup', Properties: {} },
    HeartbeatEventsRuleSchedule1: { Type: 'AWS::Events::Rule', Properties: {} },
    HeartbeatLambdaPermissionEventsRuleSchedule1: {
      Type: 'AWS::Lambda::Permission',
      Properties: {},
    },
  },
});

const checks = () =>
  heartbeatChecks(template(), {
    name: NAME,
    namespace: 'PortalServiceApi',
    actions: { AlarmActions: ['arn:aws:sns:eu-west-1:123456789012:pages'] },
    description: 'the heartbeat',
  });

const propertiesOf = (resource: Resource | undefined) => resource?.Properties ?? {};

describe('the heartbeat', () => {
  it('checks each live alias, with the metric names and a bound above the functions’ timeout', () => {
    const fn = propertiesOf(checks()[HEARTBEAT_LOGICAL_ID]);

    expect(fn).not.toHaveProperty('VpcConfig');
    expect(fn.Role).toEqual({ 'Fn::GetAtt': [HEARTBEAT_ROLE_LOGICAL_ID, 'Arn'] });
    // 20 s + 5 s per invocation, 1 s for the metric line and 5 s of its own.
    expect(fn.Timeout).toBe(31);
    expect(fn.Environment).toEqual({
      Variables: {
        METRICS_NAMESPACE: 'PortalServiceApi',
        METRICS_SERVICE: NAME,
        HEARTBEAT_TARGETS: {
          'Fn::Join': [
            '',
            [
              '[',
              '{"function":"ordersPerDay","alias":"',
              { Ref: 'OrdersPerDayLiveLambdaAlias' },
              '"}',
              ']',
            ],
          ],
        },
        HEARTBEAT_INVOKE_TIMEOUT_MS: '25000',
      },
    });
  });

  it('may invoke the live aliases only', () => {
    const role = propertiesOf(checks()[HEARTBEAT_ROLE_LOGICAL_ID]) as {
      Policies: { PolicyDocument: { Statement: { Action: string[]; Resource: unknown }[] } }[];
    };
    const statements = role.Policies.flatMap(({ PolicyDocument }) => PolicyDocument.Statement);

    const invoking = statements.filter(({ Action }) => Action.includes('lambda:InvokeFunction'));
    expect(invoking).toEqual([
      {
        Effect: 'Allow',
        Action: ['lambda:InvokeFunction'],
        Resource: [{ Ref: 'OrdersPerDayLiveLambdaAlias' }],
      },
    ]);
  });

  it('leaves a stage without alarms with nothing of it', () => {
    expect(hasHeartbeat(template())).toBe(true);
    const without = withoutHeartbeat(template());
    expect(Object.keys(without.Resources)).toEqual([
      'OrdersPerDayLambdaFunction',
      'OrdersPerDayLiveLambdaAlias',
    ]);
  });

  describe('its alarm', () => {
    const alarm = () =>
      propertiesOf(checks()[HEARTBEAT_ALARM_LOGICAL_ID]) as unknown as AlarmProperties;
    const healthy = { value: 1 };
    const failing = { value: 0 };

    it('pages within 5 minutes of a broken key set, with no traffic at all', () => {
      // Minute 2 the key set breaks: each heartbeat after it reads 0.
      const states = alarmStates(alarm(), [healthy, healthy, failing, failing, failing, failing]);

      expect(states.indexOf(true)).toBe(4);
      // Within 5 minutes of the break, CloudWatch's minute of delay included.
      expect(states.indexOf(true) - 2 + 1).toBeLessThanOrEqual(5);
    });

    it('pages when the heartbeat stops: missing minutes are breaching', () => {
      expect(alarmStates(alarm(), [healthy, {}, {}, {}]).at(-1)).toBe(true);
    });

    it('stays quiet on one or two bad minutes', () => {
      expect(alarmStates(alarm(), [healthy, failing, healthy, failing, failing, healthy])).toEqual([
        false,
        false,
        false,
        false,
        false,
        false,
      ]);
    });
  });
});
