/**
 * tools/generators/pre-traffic.ts: the hook's bounds derived from the timeouts of the functions
 * it checks, its role's X-Ray writes exactly when its tracing is Active, and what it adds holding
 * the template's invariants (tools/generators/invariants.ts). How it joins the other operations:
 * operations.test.ts.
 */
import type { Resource, Template } from '../../../tools/generators/cloudformation';
import { templateProblems } from '../../../tools/generators/invariants';
import {
  PRE_TRAFFIC_LOGICAL_ID,
  PRE_TRAFFIC_ROLE_LOGICAL_ID,
  preTrafficBounds,
  preTrafficHook,
} from '../../../tools/generators/pre-traffic';

const NAME = 'portal-service-api-production';

const logGroup = (fn: string): Resource => ({
  Type: 'AWS::Logs::LogGroup',
  Properties: { LogGroupName: `/aws/lambda/${NAME}-${fn}` },
});

/** The functions' role as osls writes it: their log groups and X-Ray. */
const FUNCTION_ROLE: Resource = {
  Type: 'AWS::IAM::Role',
  Properties: {
    Policies: [
      {
        PolicyDocument: {
          Statement: [
            {
              Effect: 'Allow',
              Action: ['logs:CreateLogStream', 'logs:PutLogEvents'],
              Resource: {
                'Fn::Sub': `arn:\${AWS::Partition}:logs:\${AWS::Region}:\${AWS::AccountId}:log-group:/aws/lambda/${NAME}*:*`,
              },
            },
            {
              Effect: 'Allow',
              Action: ['xray:PutTraceSegments', 'xray:PutTelemetryRecords'],
              Resource: '*',
            },
          ],
        },
      },
    ],
  },
};

/** An API function of `timeout` seconds, its version and log group, as osls compiles them. */
const apiFunction = (fn: string, timeout: number): Record<string, Resource> => {
  const id = `${fn.charAt(0).toUpperCase()}${fn.slice(1)}LambdaFunction`;
  return {
    [`${id}LogGroup`]: logGroup(fn),
    [id]: {
      Type: 'AWS::Lambda::Function',
      Properties: {
        FunctionName: `${NAME}-${fn}`,
        Timeout: timeout,
        TracingConfig: { Mode: 'Active' },
        Role: { 'Fn::GetAtt': ['IamRoleLambdaExecution', 'Arn'] },
      },
    },
    [`${id}VersionAbC123`]: {
      Type: 'AWS::Lambda::Version',
      Properties: { FunctionName: { Ref: id } },
    },
  };
};

/** A template of two API functions of these timeouts and the hook osls compiled, traced `mode`. */
const compiled = (timeouts: readonly [number, number], mode?: string): Template => ({
  Resources: {
    IamRoleLambdaExecution: FUNCTION_ROLE,
    ...apiFunction('ordersPerDay', timeouts[0]),
    ...apiFunction('dishes', timeouts[1]),
    PreTrafficLogGroup: logGroup('preTraffic'),
    [PRE_TRAFFIC_LOGICAL_ID]: {
      Type: 'AWS::Lambda::Function',
      Properties: {
        FunctionName: `${NAME}-preTraffic`,
        Timeout: timeouts[0],
        ...(mode === undefined ? {} : { TracingConfig: { Mode: mode } }),
        Role: { 'Fn::GetAtt': ['IamRoleLambdaExecution', 'Arn'] },
      },
    },
  },
});

const ROUTES = new Map([
  ['OrdersPerDayLambdaFunction', [{ method: 'GET', path: '/v1/restaurants/{id}/orders' }]],
  ['DishesLambdaFunction', [{ method: 'GET', path: '/v1/restaurants/{id}/dishes' }]],
]);

/** `template` with the hook's resources generated into it. */
const withHook = (template: Template): Template => ({
  Resources: { ...template.Resources, ...preTrafficHook(template, ROUTES, { name: NAME }) },
});

const hookOf = (template: Template) =>
  template.Resources[PRE_TRAFFIC_LOGICAL_ID]?.Properties as {
    Timeout: number;
    Environment: { Variables: Record<string, unknown> };
  };

/** The actions the hook's role allows. */
const hookActions = (template: Template): string[] => {
  const policies = template.Resources[PRE_TRAFFIC_ROLE_LOGICAL_ID]?.Properties?.Policies as {
    PolicyDocument: { Statement: { Action: string[] }[] };
  }[];
  return policies.flatMap(({ PolicyDocument }) =>
    PolicyDocument.Statement.flatMap(({ Action }) => Action),
  );
};

describe('preTrafficBounds', () => {
  it.each([
    ['the 20 s functions of serverless.yml', [20, 20], 25_000, 60],
    ['a function raised to 26 s beside one of 20 s', [20, 26], 31_000, 72],
    ['functions without a timeout (Lambda’s 3 s)', [], 8_000, 26],
    ['functions of 440 s, the longest a hook of 900 s can check', [440], 445_000, 900],
  ])('bounds %s', (_name, timeouts, invokeTimeoutMs, hookTimeoutSeconds) => {
    expect(preTrafficBounds(timeouts)).toEqual({ invokeTimeoutMs, hookTimeoutSeconds });
  });

  it('refuses, in one line, functions too slow for a hook within Lambda’s 900 s', () => {
    expect(() => preTrafficBounds([20, 441])).toThrow(
      new Error(
        "the pre-traffic hook cannot check functions with a 441 s timeout: 2 invocations of 441 s + 5 s each, 5 s to report and 5 s of its own need a 902 s hook, above Lambda's 900 s; lower the functions' timeout (provider.timeout in serverless.yml)",
      ),
    );
  });
});

describe('preTrafficHook', () => {
  it.each([
    [[20, 20], '25000', 60],
    [[20, 26], '31000', 72],
  ] as const)(
    'with functions of %j s, waits %s ms for each invocation, in a hook of %i s',
    (timeouts, invokeTimeoutMs, hookTimeoutSeconds) => {
      // Act
      const template = withHook(compiled(timeouts, 'Active'));

      // Assess
      const hook = hookOf(template);
      expect(hook.Timeout).toBe(hookTimeoutSeconds);
      expect(hook.Environment.Variables.PRE_TRAFFIC_INVOKE_TIMEOUT_MS).toBe(invokeTimeoutMs);
      expect(templateProblems(template)).toEqual([]);
    },
  );

  it('grants its role X-Ray writes when osls compiled the hook with Active tracing', () => {
    // Act
    const template = withHook(compiled([20, 20], 'Active'));

    // Assess
    expect(hookActions(template)).toEqual(
      expect.arrayContaining(['xray:PutTraceSegments', 'xray:PutTelemetryRecords']),
    );
    expect(templateProblems(template)).toEqual([]);
  });

  it.each([
    ['PassThrough', 'PassThrough'],
    ['not set', undefined],
  ])('grants no X-Ray writes when its tracing is %s', (_name, mode) => {
    // Act
    const template = withHook(compiled([20, 20], mode));

    // Assess
    expect(hookActions(template).filter((action) => action.startsWith('xray:'))).toEqual([]);
    expect(templateProblems(template)).toEqual([]);
  });
});
