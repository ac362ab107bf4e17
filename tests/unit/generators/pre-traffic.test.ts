/**
 * tools/generators/pre-traffic.ts: the hook's bounds derived from the timeouts of the functions
 * it checks, its role invoking published versions of those functions only (never their alias,
 * `$LATEST` or unqualified ARN) by a policy the same on every deploy, and reading and reporting its
 * deployments, its X-Ray writes exactly when its tracing is Active, and what it adds holding the
 * template's invariants (tools/generators/invariants.ts). How it joins the other operations:
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

/**
 * An API function of `timeout` seconds, its version and log group, as osls compiles them, and its
 * `live` alias released through CodeDeploy (tools/generators/deployment.ts).
 */
const apiFunction = (fn: string, timeout: number): Record<string, Resource> => {
  const name = `${fn.charAt(0).toUpperCase()}${fn.slice(1)}`;
  const id = `${name}LambdaFunction`;
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
    [`${name}LambdaVersionAbC123`]: {
      Type: 'AWS::Lambda::Version',
      Properties: { FunctionName: { Ref: id } },
    },
    [`${name}LiveLambdaAlias`]: {
      Type: 'AWS::Lambda::Alias',
      Properties: {
        FunctionName: { Ref: id },
        FunctionVersion: { 'Fn::GetAtt': [`${name}LambdaVersionAbC123`, 'Version'] },
        Name: 'live',
      },
      UpdatePolicy: {
        CodeDeployLambdaAliasUpdate: {
          ApplicationName: { Ref: 'CodeDeployApplication' },
          DeploymentGroupName: { Ref: `${name}DeploymentGroup` },
        },
      },
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

interface Statement {
  readonly Effect: string;
  readonly Action: string[];
  readonly Resource: unknown;
}

/** The statements of the hook's role. */
const hookStatements = (template: Template): Statement[] => {
  const policies = template.Resources[PRE_TRAFFIC_ROLE_LOGICAL_ID]?.Properties?.Policies as {
    PolicyDocument: { Statement: Statement[] };
  }[];
  return policies.flatMap(({ PolicyDocument }) => PolicyDocument.Statement);
};

/** The actions the hook's role allows. */
const hookActions = (template: Template): string[] =>
  hookStatements(template).flatMap(({ Action }) => Action);

/** The resources of the hook's statements that allow `action`. */
const resourcesOf = (template: Template, action: string): unknown[] =>
  hookStatements(template)
    .filter((statement) => statement.Effect === 'Allow' && statement.Action.includes(action))
    .flatMap(({ Resource }) => (Array.isArray(Resource) ? (Resource as unknown[]) : [Resource]));

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

  it('lets its role invoke every published version of the functions it checks, denying `live`, `$LATEST` and the unqualified ARN', () => {
    // Act
    const template = withHook(compiled([20, 20], 'Active'));

    // Assess: `:*` is every qualified ARN of the function; the Deny takes back what is no version.
    const invoke = hookStatements(template).filter(({ Action }) =>
      Action.includes('lambda:InvokeFunction'),
    );
    expect(invoke).toEqual([
      {
        Effect: 'Allow',
        Action: ['lambda:InvokeFunction'],
        Resource: [
          { 'Fn::Sub': '${OrdersPerDayLambdaFunction.Arn}:*' },
          { 'Fn::Sub': '${DishesLambdaFunction.Arn}:*' },
        ],
      },
      {
        Effect: 'Deny',
        Action: ['lambda:InvokeFunction'],
        Resource: [
          { 'Fn::Sub': '${OrdersPerDayLambdaFunction.Arn}:live' },
          { 'Fn::Sub': '${OrdersPerDayLambdaFunction.Arn}:$LATEST' },
          { 'Fn::GetAtt': ['OrdersPerDayLambdaFunction', 'Arn'] },
          { 'Fn::Sub': '${DishesLambdaFunction.Arn}:live' },
          { 'Fn::Sub': '${DishesLambdaFunction.Arn}:$LATEST' },
          { 'Fn::GetAtt': ['DishesLambdaFunction', 'Arn'] },
        ],
      },
    ]);
    expect(hookActions(template)).not.toContain('lambda:*');
    // The template's invariants refuse a role that may invoke more (invariants.test.ts).
    expect(templateProblems(template)).toEqual([]);
  });

  it('writes a role that names no version, the same on every deploy', () => {
    // Prepare: the next deploy, whose versions osls names anew.
    const next = compiled([20, 20], 'Active');
    const renamed: Template = {
      Resources: Object.fromEntries(
        Object.entries(next.Resources).map(([id, resource]) => [
          id.replace('VersionAbC123', 'VersionDeF456'),
          id.endsWith('LiveLambdaAlias')
            ? {
                ...resource,
                Properties: {
                  ...resource.Properties,
                  FunctionVersion: {
                    'Fn::GetAtt': [id.replace('LiveLambdaAlias', 'LambdaVersionDeF456'), 'Version'],
                  },
                },
              }
            : resource,
        ]),
      ),
    };

    // Act
    const first = withHook(compiled([20, 20], 'Active'));
    const second = withHook(renamed);

    // Assess: IAM, eventually consistent, is not asked to change the hook's policy.
    const role = JSON.stringify(first.Resources[PRE_TRAFFIC_ROLE_LOGICAL_ID]);
    expect(role).not.toMatch(/LambdaVersion/);
    expect(JSON.stringify(second.Resources[PRE_TRAFFIC_ROLE_LOGICAL_ID])).toBe(role);
    // The targets, in the hook's environment, do name the new versions.
    expect(JSON.stringify(hookOf(second).Environment.Variables.PRE_TRAFFIC_TARGETS)).toContain(
      '{"Ref":"OrdersPerDayLambdaVersionDeF456"}',
    );
    expect(templateProblems(second)).toEqual([]);
  });

  it('is refused by the template’s invariants once its Deny is taken out', () => {
    // Prepare
    const template = withHook(compiled([20, 20], 'Active'));
    const role = template.Resources[PRE_TRAFFIC_ROLE_LOGICAL_ID]!;
    const policies = role.Properties?.Policies as {
      PolicyDocument: { Statement: Statement[] };
    }[];
    const planted: Template = {
      Resources: {
        ...template.Resources,
        [PRE_TRAFFIC_ROLE_LOGICAL_ID]: {
          ...role,
          Properties: {
            ...role.Properties,
            Policies: policies.map((policy) => ({
              ...policy,
              PolicyDocument: {
                ...policy.PolicyDocument,
                Statement: policy.PolicyDocument.Statement.filter(
                  ({ Effect }) => Effect !== 'Deny',
                ),
              },
            })),
          },
        },
      },
    };

    // Act
    const problems = templateProblems(planted);

    // Assess: `:*` alone reaches each alias and $LATEST.
    expect(problems).toEqual(
      ['OrdersPerDay', 'Dishes'].map(
        (fn) =>
          `${PRE_TRAFFIC_LOGICAL_ID}: its role ${PRE_TRAFFIC_ROLE_LOGICAL_ID} allows lambda:InvokeFunction on \${${fn}LambdaFunction.Arn}:$LATEST, \${${fn}LambdaFunction.Arn}:live and denies it not: it may invoke only published versions of the functions it checks`,
      ),
    );
  });

  it('lets its role read its deployment where it reports to it', () => {
    // Act
    const template = withHook(compiled([20, 20], 'Active'));

    // Assess
    const group = {
      'Fn::Sub':
        'arn:${AWS::Partition}:codedeploy:${AWS::Region}:${AWS::AccountId}:deploymentgroup:${CodeDeployApplication}/*',
    };
    expect(resourcesOf(template, 'codedeploy:GetDeployment')).toEqual([group]);
    expect(resourcesOf(template, 'codedeploy:PutLifecycleEventHookExecutionStatus')).toEqual([
      group,
    ]);
    // Each alias's release runs the hook.
    for (const alias of ['OrdersPerDayLiveLambdaAlias', 'DishesLiveLambdaAlias']) {
      expect(template.Resources[alias]?.UpdatePolicy).toMatchObject({
        CodeDeployLambdaAliasUpdate: { BeforeAllowTrafficHook: { Ref: PRE_TRAFFIC_LOGICAL_ID } },
      });
    }
    expect(templateProblems(template)).toEqual([]);
  });

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
