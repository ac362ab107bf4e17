/**
 * tools/generators/invariants.ts: a template shaped as osls writes production's (in a VPC, traced,
 * a secret under a customer-managed key, the pre-traffic hook run by the `live` alias's release,
 * alarms that notify a topic) holds every invariant; each invariant, broken on purpose, is one
 * line naming the logical id.
 */
import type { Resource, Template } from '../../../tools/generators/cloudformation';
import {
  alarmsWithoutActions,
  refuseTemplateProblems,
  templateProblems,
} from '../../../tools/generators/invariants';

const SECRET =
  'arn:aws:secretsmanager:eu-west-1:123456789012:secret:portal/production/database-AbC123';
const OTHER_SECRET =
  'arn:aws:secretsmanager:eu-west-1:123456789012:secret:portal/staging/database-XyZ789';
const KEY = 'arn:aws:kms:eu-west-1:123456789012:key/1234abcd-12ab-34cd-56ef-1234567890ab';
const TOPIC = 'arn:aws:sns:eu-west-1:123456789012:portal-alarms';
const FN = 'OrdersPerDayLambdaFunction';
const HOOK = 'PreTrafficLambdaFunction';
const ROLE = 'IamRoleLambdaExecution';
const HOOK_ROLE = 'PreTrafficHookRole';
const VERSION = 'OrdersPerDayLambdaVersionAbC123';
const ALIAS = 'OrdersPerDayLiveLambdaAlias';
/** The deployment group of the alias's release, as the template names it. */
const DEPLOYMENT_GROUP =
  'arn:${AWS::Partition}:codedeploy:${AWS::Region}:${AWS::AccountId}:deploymentgroup:${CodeDeployApplication}/${OrdersPerDayDeploymentGroup}';

/** osls's grant on the stage's log groups: `:*` for CreateLogStream, `:*:*` for PutLogEvents. */
const stageLogs = (suffix: string, prefix = '/aws/lambda/portal-service-api-production') => ({
  'Fn::Sub': `arn:\${AWS::Partition}:logs:\${AWS::Region}:\${AWS::AccountId}:log-group:${prefix}*${suffix}`,
});
const managedPolicy = (name: string) => ({
  'Fn::Join': ['', ['arn:', { Ref: 'AWS::Partition' }, `:iam::aws:policy/service-role/${name}`]],
});
const XRAY = {
  Effect: 'Allow',
  Action: ['xray:PutTraceSegments', 'xray:PutTelemetryRecords'],
  Resource: ['*'],
};
const READ_SECRET = {
  Effect: 'Allow',
  Action: ['secretsmanager:GetSecretValue'],
  Resource: SECRET,
};
/** tools/serverless/database.cjs's statement for a customer-managed key. */
const DECRYPT_SECRET = {
  Effect: 'Allow',
  Action: ['kms:Decrypt'],
  Resource: KEY,
  Condition: {
    StringEquals: {
      'kms:ViaService': 'secretsmanager.eu-west-1.amazonaws.com',
      'kms:EncryptionContext:SecretARN': SECRET,
    },
  },
};
/** The hook's grant: every published version of the function it checks, the same on every deploy. */
const INVOKE_VERSION = {
  Effect: 'Allow',
  Action: ['lambda:InvokeFunction'],
  Resource: [{ 'Fn::Sub': `\${${FN}.Arn}:*` }],
};
/** What the hook's grant reaches beyond published versions, denied: the alias, $LATEST, unqualified. */
const DENY_BEYOND_VERSIONS = {
  Effect: 'Deny',
  Action: ['lambda:InvokeFunction'],
  Resource: [
    { 'Fn::Sub': `\${${FN}.Arn}:live` },
    { 'Fn::Sub': `\${${FN}.Arn}:$LATEST` },
    { 'Fn::GetAtt': [FN, 'Arn'] },
  ],
};
/** The hook's grant: read its deployment and report to it, in the application's groups. */
const DEPLOYMENTS = {
  Effect: 'Allow',
  Action: ['codedeploy:GetDeployment', 'codedeploy:PutLifecycleEventHookExecutionStatus'],
  Resource: {
    'Fn::Sub':
      'arn:${AWS::Partition}:codedeploy:${AWS::Region}:${AWS::AccountId}:deploymentgroup:${CodeDeployApplication}/*',
  },
};
/** The statements of the hook's role, as tools/generators/pre-traffic.ts writes them. */
const HOOK_STATEMENTS: readonly unknown[] = [
  INVOKE_VERSION,
  DENY_BEYOND_VERSIONS,
  DEPLOYMENTS,
  {
    Effect: 'Allow',
    Action: ['logs:CreateLogStream', 'logs:PutLogEvents'],
    Resource: [{ 'Fn::GetAtt': ['PreTrafficLogGroup', 'Arn'] }],
  },
  XRAY,
];
/** The statements of osls's role for the API's functions. */
const FUNCTION_STATEMENTS: readonly unknown[] = [
  {
    Effect: 'Allow',
    Action: ['logs:CreateLogStream', 'logs:CreateLogGroup', 'logs:TagResource'],
    Resource: [stageLogs(':*')],
  },
  { Effect: 'Allow', Action: ['logs:PutLogEvents'], Resource: [stageLogs(':*:*')] },
  READ_SECRET,
  DECRYPT_SECRET,
  XRAY,
];

const role = (statements: readonly unknown[], managed: readonly unknown[] = []): Resource => ({
  Type: 'AWS::IAM::Role',
  Properties: {
    AssumeRolePolicyDocument: {
      Version: '2012-10-17',
      Statement: [
        {
          Effect: 'Allow',
          Principal: { Service: ['lambda.amazonaws.com'] },
          Action: ['sts:AssumeRole'],
        },
      ],
    },
    Policies: [
      {
        PolicyName: { 'Fn::Join': ['-', ['portal-service-api', 'production', 'lambda']] },
        PolicyDocument: { Version: '2012-10-17', Statement: statements },
      },
    ],
    ...(managed.length === 0 ? {} : { ManagedPolicyArns: managed }),
  },
});

const logGroup = (name: string): Resource => ({
  Type: 'AWS::Logs::LogGroup',
  Properties: { LogGroupName: `/aws/lambda/${name}`, RetentionInDays: 30 },
});

/** Production's template as osls and tools/generators/operations.ts write it, reduced. */
const productionTemplate = (): Template => ({
  AWSTemplateFormatVersion: '2010-09-09',
  Resources: {
    OrdersPerDayLogGroup: logGroup('portal-service-api-production-ordersPerDay'),
    [ROLE]: role(FUNCTION_STATEMENTS, [managedPolicy('AWSLambdaVPCAccessExecutionRole')]),
    [FN]: {
      Type: 'AWS::Lambda::Function',
      Properties: {
        FunctionName: 'portal-service-api-production-ordersPerDay',
        Timeout: 20,
        TracingConfig: { Mode: 'Active' },
        VpcConfig: {
          SecurityGroupIds: ['sg-0a1b2c3d4e5f60718'],
          SubnetIds: ['subnet-0123456789abcdef0'],
        },
        Environment: { Variables: { DATABASE_SECRET_ARN: SECRET, LOG_LEVEL: 'info' } },
        Role: { 'Fn::GetAtt': [ROLE, 'Arn'] },
      },
      DependsOn: ['OrdersPerDayLogGroup'],
    },
    [VERSION]: {
      Type: 'AWS::Lambda::Version',
      Properties: { FunctionName: { Ref: FN } },
    },
    [ALIAS]: {
      Type: 'AWS::Lambda::Alias',
      Properties: {
        FunctionName: { Ref: FN },
        FunctionVersion: { 'Fn::GetAtt': [VERSION, 'Version'] },
        Name: 'live',
      },
      UpdatePolicy: {
        CodeDeployLambdaAliasUpdate: {
          ApplicationName: { Ref: 'CodeDeployApplication' },
          DeploymentGroupName: { Ref: 'OrdersPerDayDeploymentGroup' },
          BeforeAllowTrafficHook: { Ref: HOOK },
        },
      },
    },
    PreTrafficLogGroup: logGroup('portal-service-api-production-preTraffic'),
    [HOOK_ROLE]: role(HOOK_STATEMENTS),
    [HOOK]: {
      Type: 'AWS::Lambda::Function',
      Properties: {
        FunctionName: 'portal-service-api-production-preTraffic',
        Timeout: 60,
        TracingConfig: { Mode: 'Active' },
        Environment: {
          Variables: {
            PRE_TRAFFIC_TARGETS: {
              'Fn::Join': [
                '',
                [
                  '[{"function":"ordersPerDay","version":"',
                  { Ref: VERSION },
                  '","method":"GET","path":"/v1/restaurants/{id}/reports/orders/day"}]',
                ],
              ],
            },
            PRE_TRAFFIC_INVOKE_TIMEOUT_MS: '25000',
          },
        },
        Role: { 'Fn::GetAtt': [HOOK_ROLE, 'Arn'] },
      },
    },
    ApiGateway5xxRateAlarm: {
      Type: 'AWS::CloudWatch::Alarm',
      Properties: { AlarmActions: [TOPIC], OKActions: [TOPIC] },
    },
  },
});

/** `template` with `properties` over `id`'s (undefined removes one). */
const patched = (template: Template, id: string, properties: Record<string, unknown>) => {
  const resource = template.Resources[id];
  if (!resource) throw new Error(`no ${id} in the template`);
  const merged = Object.entries({ ...resource.Properties, ...properties }).filter(
    ([, value]) => value !== undefined,
  );
  return {
    ...template,
    Resources: {
      ...template.Resources,
      [id]: { ...resource, Properties: Object.fromEntries(merged) },
    },
  };
};

/** Production's template with the role of the API's functions holding `statements` only. */
const withFunctionRole = (statements: readonly unknown[], managed?: readonly unknown[]) =>
  patched(productionTemplate(), ROLE, {
    ...role(statements).Properties,
    ManagedPolicyArns: managed ?? [managedPolicy('AWSLambdaVPCAccessExecutionRole')],
  });

/** The API functions' statements without `removed`, with `added`. */
const statementsWithout = (removed: unknown, ...added: unknown[]) => [
  ...FUNCTION_STATEMENTS.filter((statement) => statement !== removed),
  ...added,
];

/** Production's template with the hook's role holding `statements` only. */
const withHookRole = (statements: readonly unknown[]) =>
  patched(productionTemplate(), HOOK_ROLE, { ...role(statements).Properties });

/** The hook's statements without `removed`, with `added`. */
const hookStatementsWithout = (removed: unknown, ...added: unknown[]) => [
  ...HOOK_STATEMENTS.filter((statement) => statement !== removed),
  ...added,
];

/** Production's template with `variables` over the hook's (undefined removes one). */
const withHookVariables = (variables: Record<string, unknown>) => {
  const template = productionTemplate();
  const environment = template.Resources[HOOK]?.Properties?.Environment as {
    Variables: Record<string, unknown>;
  };
  const merged = Object.entries({ ...environment.Variables, ...variables }).filter(
    ([, value]) => value !== undefined,
  );
  return patched(template, HOOK, { Environment: { Variables: Object.fromEntries(merged) } });
};

describe('templateProblems', () => {
  it('finds nothing in production’s template: traced, in a VPC, a secret under its own key, the hook', () => {
    // Act
    const problems = templateProblems(productionTemplate());

    // Assess
    expect(problems).toEqual([]);
  });

  it.each([
    [
      'a role without X-Ray on an Active function',
      () => withFunctionRole(statementsWithout(XRAY)),
      `${FN}: TracingConfig is Active, but its role ${ROLE} grants no xray:PutTraceSegments, xray:PutTelemetryRecords: Lambda refuses to create it`,
    ],
    [
      'a role with one of the two X-Ray writes',
      () =>
        withFunctionRole(statementsWithout(XRAY, { ...XRAY, Action: ['xray:PutTraceSegments'] })),
      `${FN}: TracingConfig is Active, but its role ${ROLE} grants no xray:PutTelemetryRecords: Lambda refuses to create it`,
    ],
    [
      'the pre-traffic hook traced actively by a role without X-Ray',
      () => withHookRole(hookStatementsWithout(XRAY)),
      `${HOOK}: TracingConfig is Active, but its role ${HOOK_ROLE} grants no xray:PutTraceSegments, xray:PutTelemetryRecords: Lambda refuses to create it`,
    ],
    [
      'X-Ray allowed, and denied',
      () =>
        withFunctionRole(
          statementsWithout(undefined, { Effect: 'Deny', Action: 'xray:*', Resource: '*' }),
        ),
      `${FN}: TracingConfig is Active, but its role ${ROLE} grants no xray:PutTraceSegments, xray:PutTelemetryRecords: Lambda refuses to create it`,
    ],
    [
      'X-Ray allowed only under a condition',
      () =>
        withFunctionRole(
          statementsWithout(XRAY, {
            ...XRAY,
            Condition: { Bool: { 'aws:SecureTransport': 'true' } },
          }),
        ),
      `${FN}: TracingConfig is Active, but its role ${ROLE} grants no xray:PutTraceSegments, xray:PutTelemetryRecords: Lambda refuses to create it`,
    ],
    [
      'a VPC function without the network-interface permissions',
      () => withFunctionRole(FUNCTION_STATEMENTS, []),
      `${FN}: VpcConfig is set, but its role ${ROLE} grants no ec2:CreateNetworkInterface, ec2:DescribeNetworkInterfaces, ec2:DeleteNetworkInterface (or AWSLambdaVPCAccessExecutionRole): Lambda refuses to create it`,
    ],
    [
      'a VPC function whose role may create network interfaces but not delete them',
      () =>
        withFunctionRole(
          statementsWithout(undefined, {
            Effect: 'Allow',
            Action: ['ec2:CreateNetworkInterface', 'ec2:Describe*'],
            Resource: '*',
          }),
          [],
        ),
      `${FN}: VpcConfig is set, but its role ${ROLE} grants no ec2:DeleteNetworkInterface (or AWSLambdaVPCAccessExecutionRole): Lambda refuses to create it`,
    ],
    [
      'a role that writes another service’s log groups',
      () =>
        withFunctionRole(
          [
            {
              Effect: 'Allow',
              Action: ['logs:CreateLogStream'],
              Resource: [stageLogs(':*', '/aws/lambda/other-service-production')],
            },
            {
              Effect: 'Allow',
              Action: ['logs:PutLogEvents'],
              Resource: [stageLogs(':*:*', '/aws/lambda/other-service-production')],
            },
            READ_SECRET,
            DECRYPT_SECRET,
            XRAY,
          ],
          [managedPolicy('AWSLambdaENIManagementAccess')],
        ),
      `${FN}: its role ${ROLE} grants no logs:CreateLogStream, logs:PutLogEvents on its log group /aws/lambda/portal-service-api-production-ordersPerDay: it would run without logs`,
    ],
    [
      'a function logging to a group of its own its role cannot write',
      () =>
        patched(
          withFunctionRole(FUNCTION_STATEMENTS, [managedPolicy('AWSLambdaENIManagementAccess')]),
          FN,
          { LoggingConfig: { LogGroup: '/portal/orders' } },
        ),
      `${FN}: its role ${ROLE} grants no logs:CreateLogStream, logs:PutLogEvents on its log group /portal/orders: it would run without logs`,
    ],
    [
      'a secret the role may not read',
      () =>
        withFunctionRole(
          statementsWithout(READ_SECRET, { ...READ_SECRET, Resource: OTHER_SECRET }),
        ),
      `${FN}: its role ${ROLE} grants no secretsmanager:GetSecretValue on its DATABASE_SECRET_ARN ${SECRET}: every query would fail`,
    ],
    [
      'kms:Decrypt on the key for any use',
      () =>
        withFunctionRole(
          statementsWithout(DECRYPT_SECRET, {
            Effect: 'Allow',
            Action: 'kms:Decrypt',
            Resource: KEY,
          }),
        ),
      `${FN}: its role ${ROLE} allows kms:Decrypt beyond its secret: each such statement needs StringEquals kms:ViaService secretsmanager.eu-west-1.amazonaws.com and kms:EncryptionContext:SecretARN ${SECRET}`,
    ],
    [
      'kms:Decrypt for another secret',
      () =>
        withFunctionRole(
          statementsWithout(DECRYPT_SECRET, {
            ...DECRYPT_SECRET,
            Condition: {
              StringEquals: {
                'kms:ViaService': 'secretsmanager.eu-west-1.amazonaws.com',
                'kms:EncryptionContext:SecretARN': OTHER_SECRET,
              },
            },
          }),
        ),
      `${FN}: its role ${ROLE} allows kms:Decrypt beyond its secret: each such statement needs StringEquals kms:ViaService secretsmanager.eu-west-1.amazonaws.com and kms:EncryptionContext:SecretARN ${SECRET}`,
    ],
    [
      'kms:Decrypt for a function that reads no secret',
      () =>
        patched(productionTemplate(), FN, {
          Environment: { Variables: { DATABASE_SECRET_ARN: '' } },
        }),
      `${FN}: its role ${ROLE} allows kms:Decrypt, but it reads no DATABASE_SECRET_ARN: the key decrypts only the database secret`,
    ],
    [
      'a role that is not in the template',
      () =>
        patched(productionTemplate(), FN, {
          Role: 'arn:aws:iam::123456789012:role/portal-functions',
        }),
      `${FN}: its Role is not the Arn of an AWS::IAM::Role of the template, so what it may do cannot be checked`,
    ],
    [
      'a function without a name or log group',
      () => patched(productionTemplate(), FN, { FunctionName: undefined }),
      `${FN}: neither LoggingConfig.LogGroup nor FunctionName names its log group, so its role's log permissions cannot be checked`,
    ],
    [
      'a hook bound below a function timeout',
      () => patched(productionTemplate(), FN, { Timeout: 26 }),
      `${FN}: its Timeout of 26 s is not below the 25000 ms ${HOOK} waits for each invocation (PRE_TRAFFIC_INVOKE_TIMEOUT_MS): a version that times out would be taken for one that never answers`,
    ],
    [
      'a hook bound equal to a function timeout',
      () => withHookVariables({ PRE_TRAFFIC_INVOKE_TIMEOUT_MS: '20000' }),
      `${FN}: its Timeout of 20 s is not below the 20000 ms ${HOOK} waits for each invocation (PRE_TRAFFIC_INVOKE_TIMEOUT_MS): a version that times out would be taken for one that never answers`,
    ],
    [
      'a hook whose own timeout cannot hold its invocations',
      () => patched(productionTemplate(), HOOK, { Timeout: 55 }),
      `${HOOK}: its Timeout of 55 s leaves no room for two invocations of 25000 ms, the report and its own work: it needs 60 s`,
    ],
    [
      'a hook without its bound',
      () => withHookVariables({ PRE_TRAFFIC_INVOKE_TIMEOUT_MS: undefined }),
      `${HOOK}: PRE_TRAFFIC_INVOKE_TIMEOUT_MS is not set`,
    ],
    [
      'a hook whose role cannot invoke the version it checks',
      () => withHookRole(hookStatementsWithout(INVOKE_VERSION)),
      `${HOOK}: its role ${HOOK_ROLE} grants no lambda:InvokeFunction on ${VERSION}, a version it checks: its release would fail`,
    ],
    [
      'a hook whose role cannot read its deployment',
      () =>
        withHookRole(
          hookStatementsWithout(DEPLOYMENTS, {
            ...DEPLOYMENTS,
            Action: ['codedeploy:PutLifecycleEventHookExecutionStatus'],
          }),
        ),
      `${ALIAS}: its release runs ${HOOK}, whose role ${HOOK_ROLE} grants no codedeploy:GetDeployment on its deployment group ${DEPLOYMENT_GROUP}: every release of it would fail`,
    ],
    [
      'a hook whose role reports to another application’s deployments',
      () =>
        withHookRole(
          hookStatementsWithout(DEPLOYMENTS, {
            ...DEPLOYMENTS,
            Resource:
              'arn:${AWS::Partition}:codedeploy:${AWS::Region}:${AWS::AccountId}:deploymentgroup:other-service/*',
          }),
        ),
      `${ALIAS}: its release runs ${HOOK}, whose role ${HOOK_ROLE} grants no codedeploy:GetDeployment, codedeploy:PutLifecycleEventHookExecutionStatus on its deployment group ${DEPLOYMENT_GROUP}: every release of it would fail`,
    ],
  ])('finds %s', (_name, plant, problem) => {
    // Prepare
    const template = plant();

    // Act
    const problems = templateProblems(template);

    // Assess
    expect(problems).toEqual([problem]);
  });

  it.each([
    [
      'X-Ray through AWSXRayDaemonWriteAccess',
      () =>
        withFunctionRole(statementsWithout(XRAY), [
          managedPolicy('AWSLambdaVPCAccessExecutionRole'),
          'arn:aws:iam::aws:policy/AWSXRayDaemonWriteAccess',
        ]),
    ],
    [
      'X-Ray through a wildcard action, in another case',
      () =>
        withFunctionRole(
          statementsWithout(XRAY, { Effect: 'Allow', Action: 'XRay:Put*', Resource: '*' }),
        ),
    ],
    [
      'tracing passed through, without X-Ray',
      () =>
        patched(withFunctionRole(statementsWithout(XRAY)), FN, {
          TracingConfig: { Mode: 'PassThrough' },
        }),
    ],
    [
      'no VPC, without the network-interface permissions',
      () => patched(withFunctionRole(FUNCTION_STATEMENTS, []), FN, { VpcConfig: undefined }),
    ],
    [
      'the logs through AWSLambdaBasicExecutionRole',
      () =>
        withFunctionRole(
          [READ_SECRET, DECRYPT_SECRET, XRAY],
          [
            managedPolicy('AWSLambdaBasicExecutionRole'),
            managedPolicy('AWSLambdaENIManagementAccess'),
          ],
        ),
    ],
    [
      'a log group of its own, granted by its Arn',
      () =>
        patched(
          withFunctionRole(
            statementsWithout(undefined, {
              Effect: 'Allow',
              Action: ['logs:CreateLogStream', 'logs:PutLogEvents'],
              Resource: { 'Fn::GetAtt': ['PortalLogGroup', 'Arn'] },
            }),
            [managedPolicy('AWSLambdaENIManagementAccess')],
          ),
          FN,
          { LoggingConfig: { LogGroup: { Ref: 'PortalLogGroup' } } },
        ),
      { PortalLogGroup: { Type: 'AWS::Logs::LogGroup', Properties: { LogGroupName: '/portal' } } },
    ],
    [
      'a secret under AWS’s own key: no kms:Decrypt',
      () => withFunctionRole(statementsWithout(DECRYPT_SECRET)),
    ],
    [
      'a secret named by Fn::Join, granted through Fn::Sub and wildcards',
      () =>
        patched(
          withFunctionRole(
            statementsWithout(READ_SECRET, {
              ...READ_SECRET,
              Resource: {
                'Fn::Sub': [
                  'arn:aws:secretsmanager:eu-west-1:${Account}:secret:portal/production/database-??????',
                  { Account: '123456789012' },
                ],
              },
            }),
          ),
          FN,
          {
            Environment: {
              Variables: {
                DATABASE_SECRET_ARN: {
                  'Fn::Join': [
                    ':',
                    [
                      'arn:aws:secretsmanager:eu-west-1:123456789012:secret',
                      'portal/production/database-AbC123',
                    ],
                  ],
                },
              },
            },
          },
        ),
    ],
    [
      'a function without a secret or a key',
      () =>
        patched(withFunctionRole(statementsWithout(DECRYPT_SECRET)), FN, {
          Environment: { Variables: { DATABASE_SECRET_ARN: '' } },
        }),
    ],
    [
      'a stage without the hook',
      () => {
        const { [HOOK]: _hook, [HOOK_ROLE]: _role, ...resources } = productionTemplate().Resources;
        return { Resources: resources };
      },
    ],
  ])('accepts %s', (_name, build, extra: Record<string, Resource> = {}) => {
    // Prepare
    const template = build();

    // Act
    const problems = templateProblems({
      ...template,
      Resources: { ...template.Resources, ...extra },
    });

    // Assess
    expect(problems).toEqual([]);
  });
});

describe('the pre-traffic hook’s role', () => {
  const invoke = (resource: Record<string, unknown>) => ({
    Effect: 'Allow',
    Action: ['lambda:InvokeFunction'],
    ...resource,
  });
  const ANY_VERSION = { 'Fn::Sub': `\${${FN}.Arn}:*` };
  /** What the hook may invoke of the function it checks, as the problem names it. */
  const beyond = (...resources: string[]) =>
    `${HOOK}: its role ${HOOK_ROLE} allows lambda:InvokeFunction on ${resources.join(', ')} and denies it not: it may invoke only published versions of the functions it checks`;
  /** What the hook may invoke of functions it does not check, as the problem names it. */
  const unchecked = (...resources: string[]) =>
    `${HOOK}: its role ${HOOK_ROLE} allows lambda:InvokeFunction on ${resources.join(', ')}, which it does not check: it may invoke only published versions of the functions it checks`;
  const noGrant = `${HOOK}: its role ${HOOK_ROLE} grants no lambda:InvokeFunction on ${VERSION}, a version it checks: its release would fail`;
  const UNQUALIFIED = `\${${FN}.Arn}`;
  const LATEST = `\${${FN}.Arn}:$LATEST`;
  const LIVE = `\${${FN}.Arn}:live`;
  const OTHERS = [`\${${HOOK}.Arn}`, 'functions outside the template'];
  /** The deny without the statement denying `resource`. */
  const denyingAllBut = (...kept: number[]) => ({
    ...DENY_BEYOND_VERSIONS,
    Resource: DENY_BEYOND_VERSIONS.Resource.filter((_resource, index) => kept.includes(index)),
  });

  it('accepts its grant of every published version with the alias, $LATEST and the unqualified ARN denied', () => {
    expect(templateProblems(withHookRole(HOOK_STATEMENTS))).toEqual([]);
  });

  it('accepts the alias denied by its Ref', () => {
    const statements = hookStatementsWithout(DENY_BEYOND_VERSIONS, denyingAllBut(1, 2), {
      ...DENY_BEYOND_VERSIONS,
      Resource: [{ Ref: ALIAS }],
    });

    expect(templateProblems(withHookRole(statements))).toEqual([]);
  });

  it.each([
    [
      'the live alias, $LATEST and the unqualified function: an Allow of `:*` without its Deny',
      hookStatementsWithout(DENY_BEYOND_VERSIONS),
      // `:*` does not reach the unqualified ARN.
      [beyond(LATEST, LIVE)],
    ],
    [
      'the live alias, its Deny missing',
      hookStatementsWithout(DENY_BEYOND_VERSIONS, denyingAllBut(1, 2)),
      [beyond(LIVE)],
    ],
    [
      '$LATEST, its Deny missing',
      hookStatementsWithout(DENY_BEYOND_VERSIONS, denyingAllBut(0, 2)),
      [beyond(LATEST)],
    ],
    [
      'the unqualified function, allowed and its Deny missing',
      hookStatementsWithout(
        DENY_BEYOND_VERSIONS,
        denyingAllBut(0, 1),
        invoke({ Resource: { 'Fn::GetAtt': [FN, 'Arn'] } }),
      ),
      [beyond(UNQUALIFIED)],
    ],
    [
      'the live alias by its Ref, denied only under a condition',
      hookStatementsWithout(
        DENY_BEYOND_VERSIONS,
        {
          ...DENY_BEYOND_VERSIONS,
          Condition: { Bool: { 'aws:SecureTransport': 'true' } },
        },
        invoke({ Resource: { Ref: ALIAS } }),
      ),
      [beyond(LATEST, LIVE)],
    ],
    [
      'only $LATEST, denied: not the version it checks',
      hookStatementsWithout(INVOKE_VERSION, invoke({ Resource: `\${${FN}.Arn}:$LATEST` })),
      [noGrant],
    ],
    [
      'no version: every one denied',
      hookStatementsWithout(undefined, {
        Effect: 'Deny',
        Action: ['lambda:InvokeFunction'],
        Resource: ANY_VERSION,
      }),
      [noGrant],
    ],
    [
      'the version it checks by its Ref, which changes on every deploy',
      hookStatementsWithout(INVOKE_VERSION, invoke({ Resource: [{ Ref: VERSION }] })),
      [
        `${HOOK}: its role ${HOOK_ROLE} names ${VERSION}, changed on every deploy: IAM, eventually consistent, may refuse the hook the new version; allow \${<function>.Arn}:* instead`,
      ],
    ],
    [
      'everything',
      hookStatementsWithout(undefined, { Effect: 'Allow', Action: 'lambda:*', Resource: '*' }),
      [unchecked(...OTHERS)],
    ],
    [
      'everything, without the Deny',
      hookStatementsWithout(DENY_BEYOND_VERSIONS, {
        Effect: 'Allow',
        Action: 'lambda:*',
        Resource: '*',
      }),
      [beyond(UNQUALIFIED, LATEST, LIVE), unchecked(...OTHERS)],
    ],
    [
      'everything, under a condition',
      hookStatementsWithout(
        DENY_BEYOND_VERSIONS,
        invoke({ Resource: '*', Condition: { Bool: { 'aws:SecureTransport': 'true' } } }),
      ),
      [beyond(UNQUALIFIED, LATEST, LIVE), unchecked(...OTHERS)],
    ],
    [
      'everything but the versions it checks',
      hookStatementsWithout(DENY_BEYOND_VERSIONS, invoke({ NotResource: [ANY_VERSION] })),
      [beyond(UNQUALIFIED, LATEST, LIVE), unchecked(...OTHERS)],
    ],
    [
      'everything but the versions it checks, the alias, $LATEST and the unqualified ARN denied',
      hookStatementsWithout(undefined, invoke({ NotResource: [ANY_VERSION] })),
      [unchecked(...OTHERS)],
    ],
    [
      'another function of the template',
      hookStatementsWithout(undefined, invoke({ Resource: { 'Fn::Sub': `\${${HOOK}.Arn}:*` } })),
      [unchecked(`\${${HOOK}.Arn}`)],
    ],
  ])('refuses a role that may invoke %s', (_name, statements, problems) => {
    // Act
    const found = templateProblems(withHookRole(statements));

    // Assess
    expect(found).toEqual(problems);
  });
});

describe('refuseTemplateProblems', () => {
  it('passes a template without problems', () => {
    expect(() => {
      refuseTemplateProblems(productionTemplate());
    }).not.toThrow();
  });

  it('throws one line per problem after what they are, with no stack trace', () => {
    // Prepare: the functions' role without X-Ray, the hook's bound below their timeout.
    const template = patched(withFunctionRole(statementsWithout(XRAY)), FN, { Timeout: 26 });

    // Act
    let thrown: unknown;
    try {
      refuseTemplateProblems(template);
    } catch (error) {
      thrown = error;
    }

    // Assess
    const lines = [
      'the template breaks what AWS enforces at deploy time (docs/operations.md, "Template checks"):',
      ...templateProblems(template),
    ];
    expect(lines).toHaveLength(3);
    expect(thrown).toBeInstanceOf(Error);
    expect({ message: (thrown as Error).message, stack: (thrown as Error).stack }).toEqual({
      message: lines.join('\n'),
      stack: lines.join('\n'),
    });
  });
});

describe('alarmsWithoutActions', () => {
  /** Production's template with three more alarms: no actions, an empty list, OK actions only. */
  const withSilentAlarms = (): Template => {
    const template = productionTemplate();
    const alarm = (properties: Record<string, unknown>): Resource => ({
      Type: 'AWS::CloudWatch::Alarm',
      Properties: { AlarmName: 'portal-service-api-production-made-up', ...properties },
    });
    return {
      ...template,
      Resources: {
        ...template.Resources,
        KeySetFailuresAlarm: alarm({}),
        DatabaseErrorsAlarm: alarm({ AlarmActions: [] }),
        LambdaThrottlesAlarm: alarm({ OKActions: [TOPIC] }),
      },
    };
  };

  it('names each alarm that notifies nobody', () => {
    // Act
    const alarms = alarmsWithoutActions(withSilentAlarms());

    // Assess
    expect(alarms).toEqual(
      ['KeySetFailuresAlarm', 'DatabaseErrorsAlarm', 'LambdaThrottlesAlarm'].map(
        (id) => `${id}: an alarm without AlarmActions notifies nobody`,
      ),
    );
  });

  it('names none where every alarm notifies its topic', () => {
    expect(alarmsWithoutActions(productionTemplate())).toEqual([]);
  });

  it('is not a problem that fails packaging', () => {
    expect(templateProblems(withSilentAlarms())).toEqual([]);
  });
});
