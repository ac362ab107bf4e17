/**
 * tools/generators/operations.ts: the packaging settings (defaults per stage, each bad value refused
 * naming its variable) and what they add to a template shaped as osls 4 compiles ours: live
 * aliases, the owned stage, alarms, the web ACL, the gradual release, the domain and tags.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  ACCESS_LOG_FORMAT,
  aliasLogicalId,
  alarms,
  isClientDriven,
  liveAliases,
  OPERATIONS_VARIABLES,
  operationsSettings,
  ownedStage,
  withOperations,
  type OperationsSettings,
  type OperationsVariable,
  type RawOperationsSettings,
  type Resource,
  type Template,
} from '../../../tools/generators/operations';
import { refOf } from '../../../tools/generators/cloudformation';
import { settingEntry } from '../../../tools/generators/registry';
import { stageRulesOf } from '../../../tools/generators/stages';
import { readReleaseConfig } from '../../../tools/release/regions';
import { TAGGABLE_TYPES, withTags } from '../../../tools/generators/tags';
import { parseTargets } from '../../../functions/release/environment';
import { metricsNamespaceProblem } from '../../../shared/metrics';
import { customDomain } from '../../support/custom-domain';

const CONTEXT = { service: 'portal-service-api', logRetentionInDays: 30 };
const TOPIC = 'arn:aws:sns:eu-west-1:123456789012:portal-alarms';
const NOTICES = 'arn:aws:sns:eu-west-1:123456789012:portal-notices';
/** The tags every taggable resource of a production template carries without STACK_TAGS. */
const OWN_TAGS = [
  { Key: 'service', Value: 'portal-service-api' },
  { Key: 'stage', Value: 'production' },
];

const STAGES = readReleaseConfig().stages;

/**
 * The settings as packaging reads them with nothing set but `values` (each from the variable of
 * its name): the stage's defaults of serverless.yml's custom.stages, then the registry's.
 */
const raw = (
  values: Partial<Record<string, string>> = {},
  stage = 'dev',
): RawOperationsSettings => {
  const rules = stageRulesOf(STAGES, stage);
  return Object.fromEntries(
    OPERATIONS_VARIABLES.map((name) => [
      name,
      {
        variable: name,
        value: values[name] ?? rules.settings[name] ?? settingEntry(name).default,
      },
    ]),
  ) as RawOperationsSettings;
};

/** A stage's settings; production's alarms notify TOPIC unless `values` says otherwise. */
const settingsFor = (
  stage: string,
  values: Partial<Record<OperationsVariable, string>> = {},
): OperationsSettings =>
  operationsSettings(
    raw(stage === 'production' ? { ALARM_TOPIC_ARN: TOPIC, ...values } : values, stage),
    { stage, region: 'eu-west-1', guarded: stageRulesOf(STAGES, stage).guarded },
  );

const capitalised = (fn: string) => `${fn.charAt(0).toUpperCase()}${fn.slice(1)}`;
const functionArn = (fn: string) => ({ 'Fn::GetAtt': [`${capitalised(fn)}LambdaFunction`, 'Arn'] });
const uri = (target: unknown) => ({
  'Fn::Join': [
    '',
    [
      'arn:',
      { Ref: 'AWS::Partition' },
      ':apigateway:',
      { Ref: 'AWS::Region' },
      ':lambda:path/2015-03-31/functions/',
      target,
      '/invocations',
    ],
  ],
});
/** The logical id prefixes of compiledTemplate()'s functions. */
const FUNCTION_IDS = ['OrdersPerDay', 'Dishes'];
const GATEWAY_RESPONSES = ['GatewayResponseThrottled', 'GatewayResponseDefault5XX'];

/** A template as osls compiles ours, with serverless.yml's resources merged in. */
const compiledTemplate = (functions: readonly string[] = ['ordersPerDay', 'dishes']): Template => {
  const resources: Record<string, Resource> = {
    ApiGatewayRestApi: {
      Type: 'AWS::ApiGateway::RestApi',
      Properties: {
        Name: 'production-portal-service-api',
        EndpointConfiguration: { Types: ['REGIONAL'] },
      },
    },
    ApiGatewayResourceV1: {
      Type: 'AWS::ApiGateway::Resource',
      Properties: {
        ParentId: { 'Fn::GetAtt': ['ApiGatewayRestApi', 'RootResourceId'] },
        PathPart: 'v1',
        RestApiId: { Ref: 'ApiGatewayRestApi' },
      },
    },
  };
  const methods: string[] = [];
  for (const fn of functions) {
    const id = capitalised(fn);
    resources[`${id}LogGroup`] = {
      Type: 'AWS::Logs::LogGroup',
      Properties: {
        LogGroupName: `/aws/lambda/portal-service-api-production-${fn}`,
        RetentionInDays: 30,
      },
    };
    resources[`${id}LambdaFunction`] = {
      Type: 'AWS::Lambda::Function',
      Properties: {
        FunctionName: `portal-service-api-production-${fn}`,
        Runtime: 'nodejs22.x',
        ReservedConcurrentExecutions: 10,
      },
      DependsOn: [`${id}LogGroup`],
    };
    resources[`${id}LambdaVersionAbC123`] = {
      Type: 'AWS::Lambda::Version',
      DeletionPolicy: 'Retain',
      Properties: { FunctionName: { Ref: `${id}LambdaFunction` }, CodeSha256: 'c2hh' },
    };
    resources[`${id}LambdaPermissionApiGateway`] = {
      Type: 'AWS::Lambda::Permission',
      Properties: {
        FunctionName: functionArn(fn),
        Action: 'lambda:InvokeFunction',
        Principal: 'apigateway.amazonaws.com',
        SourceArn: { 'Fn::Join': ['', ['arn:', { Ref: 'ApiGatewayRestApi' }, '/*/*']] },
      },
    };
    resources[`ApiGatewayResourceV1${id}`] = {
      Type: 'AWS::ApiGateway::Resource',
      Properties: {
        ParentId: { Ref: 'ApiGatewayResourceV1' },
        PathPart: fn,
        RestApiId: { Ref: 'ApiGatewayRestApi' },
      },
    };
    for (const method of ['Get', 'Options']) {
      const methodId = `ApiGatewayMethodV1${id}${method}`;
      methods.push(methodId);
      resources[methodId] = {
        Type: 'AWS::ApiGateway::Method',
        Properties: {
          HttpMethod: method.toUpperCase(),
          ResourceId: { Ref: `ApiGatewayResourceV1${id}` },
          RestApiId: { Ref: 'ApiGatewayRestApi' },
          AuthorizationType: 'NONE',
          Integration: {
            IntegrationHttpMethod: 'POST',
            Type: 'AWS_PROXY',
            Uri: uri(functionArn(fn)),
          },
          MethodResponses: [],
        },
        DependsOn: [`${id}LambdaPermissionApiGateway`],
      };
    }
  }
  resources.ApiGatewayDeployment1795607321162 = {
    Type: 'AWS::ApiGateway::Deployment',
    Properties: { RestApiId: { Ref: 'ApiGatewayRestApi' }, StageName: 'production' },
    DependsOn: methods,
  };
  for (const id of GATEWAY_RESPONSES) {
    resources[id] = {
      Type: 'AWS::ApiGateway::GatewayResponse',
      Properties: { RestApiId: { Ref: 'ApiGatewayRestApi' }, ResponseType: 'THROTTLED' },
    };
  }
  return { AWSTemplateFormatVersion: '2010-09-09', Resources: resources, Outputs: {} };
};

/** The compiled template with what `settings` adds to it. */
const operated = (settings: OperationsSettings) =>
  withOperations(compiledTemplate(), settings, CONTEXT);
const resourcesFor = (settings: OperationsSettings) => operated(settings).Resources;

const ofType = (resources: Record<string, Resource>, type: string) =>
  Object.fromEntries(Object.entries(resources).filter(([, r]) => r.Type === type));

describe('operationsSettings', () => {
  it.each([
    ['dev', false, 20, 40, 2],
    ['local', false, 20, 40, 2],
    ['staging', true, 50, 100, 5],
    ['production', true, 200, 400, 20],
  ])(
    '%s: alarms %s, throttled at %d/s with a burst of %d, %d/s a route, tracing on, by default',
    (stage, on, rate, burst, routeRate) => {
      // Act / Assess
      expect(settingsFor(stage)).toEqual({
        stage,
        region: 'eu-west-1',
        alarms: {
          enabled: on,
          ...(stage === 'production' ? { topicArn: TOPIC } : {}),
          fiveXxRate: 0.05,
          fiveXxCount: 5,
          releaseErrors: 3,
          fourXxRate: 0.5,
          minRequests: 50,
          p99LatencyMs: 3000,
          throttles: 1,
          keySetFailures: 3,
          databaseErrors: 5,
          wafBlocked: 100,
        },
        tracing: true,
        throttle: { rate, burst },
        routeDurationMs: 100,
        routeRate,
        guarded: stage === 'production',
        cloudWatchRole: 'existing',
        metricsNamespace: 'PortalServiceApi',
        waf: { enabled: stage === 'production', rateLimit: 300 },
        deploymentPreference: stage === 'production' ? 'Canary10Percent10Minutes' : 'AllAtOnce',
        tags: {},
      });
    },
  );

  it('takes every value that is set', () => {
    // Act
    const settings = settingsFor('dev', {
      ALARMS: 'true',
      ALARM_TOPIC_ARN: TOPIC,
      ALARM_5XX_RATE: '0.02',
      ALARM_5XX_COUNT: '2',
      ALARM_RELEASE_ERRORS: '1',
      ALARM_4XX_RATE: '0.8',
      ALARM_MIN_REQUESTS: '200',
      ALARM_P99_LATENCY_MS: '1500',
      ALARM_THROTTLES: '10',
      ALARM_KEY_SET_FAILURES: '1',
      ALARM_DATABASE_ERRORS: '20',
      ALARM_WAF_BLOCKED: '7',
      WAF: 'true',
      WAF_RATE_LIMIT: '250',
      DEPLOYMENT_PREFERENCE: 'Linear10PercentEvery1Minute',
      STACK_TAGS: 'cost-center=portal 42,owner=team@brand.example',
      TRACING: 'false',
      API_THROTTLE_RATE: '12.5',
      API_THROTTLE_BURST: '25',
      API_ROUTE_DURATION_MS: '250',
      API_ROUTE_RATE: '7.5',
      API_GATEWAY_CLOUDWATCH_ROLE: 'create',
      METRICS_NAMESPACE: 'Brand/Portal',
    });

    // Assess
    expect(settings).toEqual({
      stage: 'dev',
      region: 'eu-west-1',
      alarms: {
        enabled: true,
        topicArn: TOPIC,
        fiveXxRate: 0.02,
        fiveXxCount: 2,
        releaseErrors: 1,
        fourXxRate: 0.8,
        minRequests: 200,
        p99LatencyMs: 1500,
        throttles: 10,
        keySetFailures: 1,
        databaseErrors: 20,
        wafBlocked: 7,
      },
      tracing: false,
      throttle: { rate: 12.5, burst: 25 },
      routeDurationMs: 250,
      routeRate: 7.5,
      guarded: false,
      cloudWatchRole: 'create',
      metricsNamespace: 'Brand/Portal',
      waf: { enabled: true, rateLimit: 250 },
      deploymentPreference: 'Linear10PercentEvery1Minute',
      tags: { 'cost-center': 'portal 42', owner: 'team@brand.example' },
    });
  });

  it('packages production without a topic only for none-unsafe, which no other stage takes', () => {
    // Act / Assess
    const unsafe = settingsFor('production', { ALARM_TOPIC_ARN: 'none-unsafe' });
    expect(unsafe.alarms).toMatchObject({ enabled: true });
    expect(unsafe.alarms.topicArn).toBeUndefined();
    // Staging may page nobody; none-unsafe is production's word only.
    expect(settingsFor('staging').alarms.topicArn).toBeUndefined();
    expect(() => settingsFor('staging', { ALARM_TOPIC_ARN: 'none-unsafe' })).toThrow(
      'ALARM_TOPIC_ARN is "none-unsafe": expected a standard SNS topic ARN',
    );
  });

  it('turns the alarms of a stage that has them off with ALARMS=false', () => {
    expect(settingsFor('production', { ALARMS: 'false' }).alarms.enabled).toBe(false);
  });

  it.each([
    ['ALARMS', 'yes', ': expected true or false'],
    ['TRACING', 'on', ': expected true or false'],
    ['ALARM_5XX_RATE', '5%', ': expected a number from 0.001 to 1'],
    ['ALARM_5XX_RATE', '2', ': expected a number from 0.001 to 1'],
    ['ALARM_4XX_RATE', '0', ': expected a number from 0.01 to 1'],
    ['ALARM_MIN_REQUESTS', '0', ': expected a whole number from 1 to 1000000'],
    ['ALARM_P99_LATENCY_MS', '3s', ': expected a whole number from 1 to 29000'],
    ['ALARM_P99_LATENCY_MS', '30000', ''],
    ['ALARM_THROTTLES', '0', ': expected a whole number from 1 to 1000000'],
    ['ALARM_KEY_SET_FAILURES', '1.5', ''],
    ['ALARM_DATABASE_ERRORS', '-1', ''],
    ['API_THROTTLE_RATE', 'abc', ': expected a number from 1 to 10000'],
    ['API_THROTTLE_RATE', '0', ''],
    ['API_THROTTLE_BURST', '100.5', ': expected a whole number from 1 to 5000'],
    ['API_THROTTLE_BURST', '6000', ''],
    ['API_GATEWAY_CLOUDWATCH_ROLE', 'arn:aws:iam::1:role/x', ': expected existing, create'],
    ['ALARM_TOPIC_ARN', 'nonsense', ': expected a standard SNS topic ARN'],
    ['ALARM_TOPIC_ARN', `${TOPIC}.fifo`, ''],
    ['ALARM_TOPIC_ARN', 'arn:aws:sqs:eu-west-1:123456789012:queue', ''],
    [
      'ALARM_TOPIC_ARN',
      'arn:aws:sns:us-east-1:123456789012:portal-alarms',
      'ALARM_TOPIC_ARN names a topic in us-east-1: an alarm of eu-west-1 can only notify a topic of eu-west-1',
    ],
    [
      'DEPLOYMENT_PREFERENCE',
      'Canary',
      ': expected Canary10Percent5Minutes, Canary10Percent10Minutes',
    ],
    ['DOMAIN_NAME', 'API.Brand.example', ': expected a lower-case domain name'],
    [
      'DOMAIN_CERTIFICATE_ARN',
      'arn:aws:iam::123456789012:server-certificate/x',
      ': expected an ACM certificate ARN',
    ],
    ['WAF', 'off', ': expected true or false'],
    ['WAF_RATE_LIMIT', '5', ': expected a whole number from 10 to 2000000000'],
    ['ALARM_WAF_BLOCKED', '0', ''],
    ['METRICS_NAMESPACE', 'AWS/Lambda', ''],
    ['METRICS_NAMESPACE', 'Portal$Api', ''],
  ] as const)('refuses %s=%s with a TypeError naming it', (name, value, rest) => {
    // Act
    const read = () => settingsFor('production', { [name]: value });

    // Assess: the message is `NAME is "value"` and what follows, unless given whole
    expect(read).toThrow(TypeError);
    expect(read).toThrow(rest.startsWith(name) ? rest : `${name} is "${value}"${rest}`);
  });

  it.each([
    'Portal Reports',
    'Brand/Portal',
    'Portal$Api',
    'Portal\u00e9',
    'AWS/Lambda',
    'N'.repeat(256),
  ])("checks METRICS_NAMESPACE=%j by shared/metrics.ts's rule, as the functions do", (value) => {
    const read = () => settingsFor('production', { METRICS_NAMESPACE: value });
    const problem = metricsNamespaceProblem(value);
    if (problem === undefined) expect(read().metricsNamespace).toBe(value);
    else expect(read).toThrow(`METRICS_NAMESPACE is "${value}": it ${problem}`);
  });

  it('names the variable the value came from: a regional form', () => {
    // Prepare
    const settings = {
      ...raw(),
      API_THROTTLE_RATE: { variable: 'API_THROTTLE_RATE_EU_WEST_1', value: 'fast' },
    };

    // Act / Assess
    expect(() =>
      operationsSettings(settings, { stage: 'production', region: 'eu-west-1', guarded: true }),
    ).toThrow('API_THROTTLE_RATE_EU_WEST_1 is "fast"');
  });
});

describe('liveAliases', () => {
  it('adds a live alias per function, on the version this template publishes', () => {
    // Act
    const changed = liveAliases(compiledTemplate());

    // Assess
    expect(ofType(changed, 'AWS::Lambda::Alias')).toEqual(
      Object.fromEntries(
        FUNCTION_IDS.map((id) => [
          `${id}LiveLambdaAlias`,
          {
            Type: 'AWS::Lambda::Alias',
            Properties: {
              FunctionName: { Ref: `${id}LambdaFunction` },
              FunctionVersion: { 'Fn::GetAtt': [`${id}LambdaVersionAbC123`, 'Version'] },
              Name: 'live',
              Description: expect.any(String) as unknown,
            },
          },
        ]),
      ),
    );
    expect(aliasLogicalId('OrdersPerDayLambdaFunction')).toBe('OrdersPerDayLiveLambdaAlias');
  });

  it('points every proxy integration and every API Gateway permission at the alias, nothing else changed', () => {
    // Prepare
    const template = compiledTemplate();

    // Act
    const changed = liveAliases(template);

    // Assess
    const methods = ofType(changed, 'AWS::ApiGateway::Method');
    expect(Object.keys(methods).sort()).toEqual(
      Object.keys(ofType({ ...template.Resources }, 'AWS::ApiGateway::Method')).sort(),
    );
    expect(methods.ApiGatewayMethodV1OrdersPerDayGet).toEqual({
      ...template.Resources.ApiGatewayMethodV1OrdersPerDayGet,
      Properties: {
        ...template.Resources.ApiGatewayMethodV1OrdersPerDayGet?.Properties,
        Integration: {
          IntegrationHttpMethod: 'POST',
          Type: 'AWS_PROXY',
          Uri: uri({ Ref: 'OrdersPerDayLiveLambdaAlias' }),
        },
      },
    });
    expect(methods.ApiGatewayMethodV1DishesOptions?.Properties?.Integration).toMatchObject({
      Uri: uri({ Ref: 'DishesLiveLambdaAlias' }),
    });
    const permission = (id: string) => template.Resources[`${id}LambdaPermissionApiGateway`];
    expect(ofType(changed, 'AWS::Lambda::Permission')).toEqual(
      Object.fromEntries(
        FUNCTION_IDS.map((id) => [
          `${id}LambdaPermissionApiGateway`,
          {
            ...permission(id),
            Properties: {
              ...permission(id)?.Properties,
              FunctionName: { Ref: `${id}LiveLambdaAlias` },
            },
          },
        ]),
      ),
    );
    // No method or permission calls $LATEST any more.
    const { Resources } = withOperations(template, settingsFor('production'), CONTEXT);
    const result = JSON.stringify(
      Object.values(Resources).filter(({ Type }) =>
        ['AWS::ApiGateway::Method', 'AWS::Lambda::Permission'].includes(Type),
      ),
    );
    expect(result).not.toMatch(/"Fn::GetAtt":\["(OrdersPerDay|Dishes)LambdaFunction","Arn"\]/);
  });

  it('leaves a non-proxy method and another service’s permission alone', () => {
    // Prepare
    const template = compiledTemplate(['dishes']);
    const resources = {
      ...template.Resources,
      ApiGatewayMethodMock: {
        Type: 'AWS::ApiGateway::Method',
        Properties: { Integration: { Type: 'MOCK' } },
      },
      DishesEventsPermission: {
        Type: 'AWS::Lambda::Permission',
        Properties: { FunctionName: functionArn('dishes'), Principal: 'events.amazonaws.com' },
      },
    };

    // Act
    const changed = liveAliases({ ...template, Resources: resources });

    // Assess
    expect(changed).not.toHaveProperty('ApiGatewayMethodMock');
    expect(changed).not.toHaveProperty('DishesEventsPermission');
  });

  it('refuses a function without a version (versionFunctions: false), naming it', () => {
    // Prepare
    const template = compiledTemplate(['dishes']);
    const { DishesLambdaVersionAbC123: _version, ...resources } = template.Resources;

    // Act / Assess
    expect(() => liveAliases({ ...template, Resources: resources })).toThrow(
      'DishesLambdaFunction has no AWS::Lambda::Version',
    );
  });
});

describe('ownedStage', () => {
  it('takes the stage from the Deployment, which then depends on the gateway responses too', () => {
    // Prepare
    const template = compiledTemplate();
    const deployment = template.Resources.ApiGatewayDeployment1795607321162;

    // Act
    const changed = ownedStage(template, settingsFor('production'), CONTEXT);

    // Assess
    expect(changed.ApiGatewayDeployment1795607321162).toEqual({
      Type: 'AWS::ApiGateway::Deployment',
      Properties: { RestApiId: { Ref: 'ApiGatewayRestApi' } },
      DependsOn: [...[deployment?.DependsOn ?? []].flat(), ...GATEWAY_RESPONSES],
    });
  });

  it('owns the stage: throttling, tracing and JSON access logs to a log group kept 30 days', () => {
    // Act
    const changed = ownedStage(compiledTemplate(), settingsFor('production'), CONTEXT);

    // Assess
    expect(changed.ApiGatewayLogGroup).toEqual({
      Type: 'AWS::Logs::LogGroup',
      Properties: {
        LogGroupName: '/aws/api-gateway/portal-service-api-production',
        RetentionInDays: 30,
      },
    });
    expect(changed.ApiGatewayStage).toEqual({
      Type: 'AWS::ApiGateway::Stage',
      Properties: {
        RestApiId: { Ref: 'ApiGatewayRestApi' },
        DeploymentId: { Ref: 'ApiGatewayDeployment1795607321162' },
        StageName: 'production',
        TracingEnabled: true,
        AccessLogSetting: {
          DestinationArn: { 'Fn::GetAtt': ['ApiGatewayLogGroup', 'Arn'] },
          Format: ACCESS_LOG_FORMAT,
        },
        MethodSettings: [
          {
            ResourcePath: '/*',
            HttpMethod: '*',
            ThrottlingRateLimit: 200,
            ThrottlingBurstLimit: 400,
            LoggingLevel: 'OFF',
            DataTraceEnabled: false,
            MetricsEnabled: false,
          },
          // 10 reserved over 2 routes of 100 ms, below the 2 × (⌈20 / 2⌉ + 20 × 0.1) = 24
          // production's API_ROUTE_RATE of 20 fills, so what fits (throttles.ts): bursts of
          // ⌊10 / 4⌋ = 2, and ⌊100 × (10 − 2 × 2) / (2 × 0.1)⌋ / 100 = 30 requests/s capped at
          // API_ROUTE_RATE's 20.
          ...['ordersPerDay', 'dishes'].flatMap((fn) =>
            ['GET', 'OPTIONS'].map((method) => ({
              ResourcePath: `/~1v1~1${fn}`,
              HttpMethod: method,
              ThrottlingRateLimit: 20,
              ThrottlingBurstLimit: 2,
              LoggingLevel: 'OFF',
              DataTraceEnabled: false,
              MetricsEnabled: false,
            })),
          ),
        ],
      },
    });
    expect(changed).not.toHaveProperty('ApiGatewayAccount');
  });

  it('follows TRACING and the throttling settings', () => {
    // Act
    const changed = ownedStage(
      compiledTemplate(),
      settingsFor('staging', {
        TRACING: 'false',
        API_THROTTLE_RATE: '75',
        API_THROTTLE_BURST: '90',
      }),
      CONTEXT,
    );

    // Assess
    expect(changed.ApiGatewayStage?.Properties).toMatchObject({
      StageName: 'staging',
      TracingEnabled: false,
    });
    const [stageWide] = changed.ApiGatewayStage?.Properties?.MethodSettings as unknown[];
    expect(stageWide).toMatchObject({ ThrottlingRateLimit: 75, ThrottlingBurstLimit: 90 });
  });

  it('with API_GATEWAY_CLOUDWATCH_ROLE=create, sets a retained role on the account before the stage', () => {
    // Act
    const changed = ownedStage(
      compiledTemplate(),
      settingsFor('production', { API_GATEWAY_CLOUDWATCH_ROLE: 'create' }),
      CONTEXT,
    );

    // Assess
    expect(changed.ApiGatewayStage?.DependsOn).toEqual(['ApiGatewayAccount']);
    expect(changed.ApiGatewayAccount).toEqual({
      Type: 'AWS::ApiGateway::Account',
      DeletionPolicy: 'Retain',
      UpdateReplacePolicy: 'Retain',
      Properties: { CloudWatchRoleArn: { 'Fn::GetAtt': ['ApiGatewayCloudWatchRole', 'Arn'] } },
    });
    expect(changed.ApiGatewayCloudWatchRole).toMatchObject({
      Type: 'AWS::IAM::Role',
      DeletionPolicy: 'Retain',
      Properties: {
        AssumeRolePolicyDocument: {
          Statement: [{ Principal: { Service: ['apigateway.amazonaws.com'] } }],
        },
      },
    });
    expect(JSON.stringify(changed.ApiGatewayCloudWatchRole)).toContain(
      'policy/service-role/AmazonAPIGatewayPushToCloudWatchLogs',
    );
  });

  it('refuses a template without exactly one Deployment', () => {
    // Prepare
    const template = compiledTemplate();
    const { ApiGatewayDeployment1795607321162: _deployment, ...resources } = template.Resources;

    // Act
    const add = () =>
      ownedStage({ ...template, Resources: resources }, settingsFor('dev'), CONTEXT);

    // Assess
    expect(add).toThrow('the template holds 0 AWS::ApiGateway::Deployment resources');
  });
});

describe('ACCESS_LOG_FORMAT', () => {
  it('is one JSON object per request once API Gateway fills it in', () => {
    // Prepare: what API Gateway writes for a throttled request (no integration: "-")
    const line = ACCESS_LOG_FORMAT.replace(/\$context\.status/, '429')
      .replace(/\$context\.responseLatency/, '3')
      .replace(/\$context\.[A-Za-z.]+/g, '-');

    // Act
    const parsed = JSON.parse(line) as Record<string, unknown>;

    // Assess
    expect(Object.keys(parsed).join(' ')).toBe(
      'requestId time ip route status responseLatency integrationLatency integrationStatus errorType responseLength xrayTraceId',
    );
    expect(parsed).toMatchObject({ status: 429, responseLatency: 3 });
  });

  it('holds the request id, route, status, latencies and caller IP, and never a header, token or query', () => {
    for (const variable of [
      '$context.requestId',
      '$context.httpMethod $context.resourcePath',
      '$context.status',
      '$context.responseLatency',
      '$context.integrationLatency',
      '$context.identity.sourceIp',
    ]) {
      expect(ACCESS_LOG_FORMAT).toContain(variable);
    }
    expect(ACCESS_LOG_FORMAT).not.toMatch(
      /authorizer|header|querystring|userAgent|\$context\.path|apiKey|identity\.(user|caller|accessKey)/i,
    );
  });
});

describe('alarms', () => {
  /** The dimensions of the production API stage's own metrics. */
  const API_DIMENSIONS = [
    { Name: 'ApiName', Value: 'production-portal-service-api' },
    { Name: 'Stage', Value: 'production' },
  ];
  const alarmsOf = (settings: OperationsSettings, functions?: readonly string[]) =>
    alarms(compiledTemplate(functions), settings, CONTEXT) as Record<
      string,
      { Type: string; Properties: Record<string, unknown> }
    >;

  it('adds none where alarms are off (dev, by default)', () => {
    expect(alarmsOf(settingsFor('dev'))).toEqual({});
    expect(alarmsOf(settingsFor('production', { ALARMS: 'false' }))).toEqual({});
  });

  it('alarms on the 5xx and 4xx rates and the p99 latency of the API’s stage, from a minimum request count', () => {
    // Act
    const result = alarmsOf(settingsFor('production', { ALARM_MIN_REQUESTS: '80' }));

    // Assess
    const metric = (id: string, name: string, stat: string) => ({
      Id: id,
      MetricStat: {
        Metric: { Namespace: 'AWS/ApiGateway', MetricName: name, Dimensions: API_DIMENSIONS },
        Period: 300,
        Stat: stat,
      },
      ReturnData: false,
    });
    const rate = (name: string) => [
      {
        Id: 'rate',
        Expression: 'IF(requests >= 80, FILL(answers, 0) / requests, 0)',
        Label: expect.any(String) as unknown,
        ReturnData: true,
      },
      metric('requests', 'Count', 'Sum'),
      metric('answers', name, 'Sum'),
    ];
    const evaluation = {
      EvaluationPeriods: 3,
      DatapointsToAlarm: 2,
      TreatMissingData: 'notBreaching',
    };
    expect(result.ApiGateway5xxRateAlarm?.Properties).toMatchObject({
      AlarmName: 'portal-service-api-production-api-5xx-rate',
      Metrics: rate('5XXError'),
      Threshold: 0.05,
      ComparisonOperator: 'GreaterThanThreshold',
      ...evaluation,
    });
    expect(result.ApiGateway4xxRateAlarm?.Properties).toMatchObject({
      AlarmName: 'portal-service-api-production-api-4xx-rate',
      Metrics: rate('4XXError'),
      Threshold: 0.5,
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
      ...evaluation,
    });
    expect(result.ApiGatewayP99LatencyAlarm?.Properties).toMatchObject({
      AlarmName: 'portal-service-api-production-api-p99-latency',
      Metrics: [
        { Id: 'latency', Expression: 'IF(requests >= 80, p99, 0)', ReturnData: true },
        metric('requests', 'Count', 'Sum'),
        metric('p99', 'Latency', 'p99'),
      ],
      Threshold: 3000,
      ComparisonOperator: 'GreaterThanThreshold',
      ...evaluation,
    });
    // Metric math alarms name no metric of their own.
    for (const id of [
      'ApiGateway5xxRateAlarm',
      'ApiGateway4xxRateAlarm',
      'ApiGatewayP99LatencyAlarm',
    ]) {
      expect(result[id]?.Properties).not.toHaveProperty('MetricName');
    }
  });

  it('alarms on the service’s own key-set failures and database errors, by its Service dimension', () => {
    // Act
    const result = alarmsOf(
      settingsFor('staging', { METRICS_NAMESPACE: 'Brand/Portal', ALARM_DATABASE_ERRORS: '9' }),
    );

    // Assess
    const service = [{ Name: 'Service', Value: 'portal-service-api-staging' }];
    expect(result.KeySetFailuresAlarm?.Properties).toMatchObject({
      Namespace: 'Brand/Portal',
      MetricName: 'KeySetFailures',
      Dimensions: service,
      Statistic: 'Sum',
      Threshold: 3,
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
      TreatMissingData: 'notBreaching',
    });
    expect(result.DatabaseErrorsAlarm?.Properties).toMatchObject({
      Namespace: 'Brand/Portal',
      MetricName: 'DatabaseErrors',
      Dimensions: service,
      Threshold: 9,
      TreatMissingData: 'notBreaching',
    });
  });

  it('sums every function’s Lambda throttles, 10 metrics to an alarm at most', () => {
    // Prepare
    const functions = Array.from({ length: 12 }, (_, i) => `fn${String.fromCharCode(97 + i)}`);

    // Act
    const result = alarmsOf(settingsFor('production', { ALARM_THROTTLES: '4' }), functions);

    // Assess
    const throttles = [result.LambdaThrottlesAlarm, result.LambdaThrottlesAlarm2];
    const metricsOf = (alarm: (typeof throttles)[number]) =>
      alarm?.Properties.Metrics as { Id: string; Expression?: string; MetricStat?: unknown }[];
    expect(throttles.map((alarm) => metricsOf(alarm).length)).toEqual([11, 3]);
    expect(result.LambdaThrottlesAlarm2?.Properties.AlarmName).toBe(
      'portal-service-api-production-throttles-2',
    );
    const dimensions = throttles.flatMap((alarm) =>
      metricsOf(alarm)
        .filter(({ MetricStat }) => MetricStat)
        .map(({ MetricStat }) => JSON.stringify(MetricStat)),
    );
    expect(dimensions).toHaveLength(12);
    expect(dimensions[0]).toBe(
      JSON.stringify({
        Metric: {
          Namespace: 'AWS/Lambda',
          MetricName: 'Throttles',
          Dimensions: [{ Name: 'FunctionName', Value: { Ref: 'FnaLambdaFunction' } }],
        },
        Period: 300,
        Stat: 'Sum',
      }),
    );
    expect(metricsOf(result.LambdaThrottlesAlarm)[0]).toMatchObject({
      Expression: 'SUM(METRICS())',
      ReturnData: true,
    });
    expect(result.LambdaThrottlesAlarm?.Properties).toMatchObject({
      Threshold: 4,
      TreatMissingData: 'notBreaching',
    });
  });

  it('pages ALARM_TOPIC_ARN on what needs action, tells ALARM_NOTICE_TOPIC_ARN what clients drive, and nobody with none-unsafe', () => {
    // Act
    const withTopics = alarmsOf(
      settingsFor('production', { ALARM_TOPIC_ARN: TOPIC, ALARM_NOTICE_TOPIC_ARN: NOTICES }),
    );
    const pagesOnly = alarmsOf(settingsFor('production', { ALARM_TOPIC_ARN: TOPIC }));
    const without = alarmsOf(settingsFor('production', { ALARM_TOPIC_ARN: 'none-unsafe' }));

    // Assess
    const notices = ['ApiGateway4xxRateAlarm', 'LambdaThrottlesAlarm', 'WafBlockedRequestsAlarm'];
    expect(Object.keys(withTopics)).toHaveLength(10);
    expect(Object.keys(without)).toHaveLength(10);
    for (const [id, alarm] of Object.entries(withTopics)) {
      const topic = notices.includes(id) ? NOTICES : TOPIC;
      expect(alarm.Properties).toMatchObject({ AlarmActions: [topic], OKActions: [topic] });
    }
    for (const [id, alarm] of Object.entries(pagesOnly)) {
      if (notices.includes(id)) expect(alarm.Properties).not.toHaveProperty('AlarmActions');
      else expect(alarm.Properties).toMatchObject({ AlarmActions: [TOPIC] });
    }
    for (const alarm of Object.values(without)) {
      expect(alarm.Properties).not.toHaveProperty('AlarmActions');
      expect(alarm.Properties).not.toHaveProperty('OKActions');
    }
  });

  it('alarms on a few 5xx answers in 5 minutes at any traffic, where the rate judges nothing', () => {
    // Act
    const alarm = alarmsOf(
      settingsFor('production', { ALARM_5XX_COUNT: '4' }),
    ).ApiGateway5xxCountAlarm;

    // Assess
    expect(alarm?.Properties).toMatchObject({
      AlarmName: 'portal-service-api-production-api-5xx-count',
      Namespace: 'AWS/ApiGateway',
      MetricName: '5XXError',
      Dimensions: API_DIMENSIONS,
      Statistic: 'Sum',
      Period: 300,
      EvaluationPeriods: 1,
      Threshold: 4,
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
      TreatMissingData: 'notBreaching',
    });
  });

  it('alarms on each API function’s new version by its own requests: Lambda errors by ExecutedVersion and its 5xx answers by Version', () => {
    // Act
    const found = alarmsOf(settingsFor('production', { ALARM_RELEASE_ERRORS: '2' }));

    // Assess
    const alarm = found.OrdersPerDayReleaseAlarm?.Properties as {
      AlarmName: string;
      Metrics: { Id: string; Expression?: string; MetricStat?: { Metric: unknown } }[];
    };
    expect(alarm).toMatchObject({
      AlarmName: 'portal-service-api-production-release-ordersPerDay',
      AlarmActions: [TOPIC],
      EvaluationPeriods: 1,
      Threshold: 1,
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
      TreatMissingData: 'notBreaching',
    });
    const byId = Object.fromEntries(alarm.Metrics.map((metric) => [metric.Id, metric]));
    expect(byId.signal?.Expression).toBe(
      'IF(failed >= 2, 1, 0) + IF(FILL(invocations, 0) >= 20, IF(failed > 0.05 * invocations, 1, 0), 0)',
    );
    expect(byId.failed?.Expression).toBe('FILL(errors, 0) + FILL(answers5xx, 0)');
    const version = { 'Fn::GetAtt': ['OrdersPerDayLambdaVersionAbC123', 'Version'] };
    for (const [id, metricName] of [
      ['invocations', 'Invocations'],
      ['errors', 'Errors'],
    ] as const) {
      expect(byId[id]?.MetricStat?.Metric).toEqual({
        Namespace: 'AWS/Lambda',
        MetricName: metricName,
        Dimensions: [
          { Name: 'FunctionName', Value: { Ref: 'OrdersPerDayLambdaFunction' } },
          { Name: 'Resource', Value: { 'Fn::Sub': '${OrdersPerDayLambdaFunction}:live' } },
          { Name: 'ExecutedVersion', Value: version },
        ],
      });
    }
    expect(byId.answers5xx?.MetricStat?.Metric).toEqual({
      Namespace: 'PortalServiceApi',
      MetricName: 'Requests',
      Dimensions: [
        { Name: 'Service', Value: 'portal-service-api-production' },
        { Name: 'FunctionName', Value: { Ref: 'OrdersPerDayLambdaFunction' } },
        { Name: 'Version', Value: version },
        { Name: 'StatusClass', Value: '5xx' },
      ],
    });
    expect(found).toHaveProperty('DishesReleaseAlarm');
  });

  it('links each alarm to a section of docs/operations.md that exists', () => {
    // Prepare: GitHub's anchors of the document's headings
    const headings = readFileSync(join(import.meta.dirname, '../../../docs/operations.md'), 'utf8')
      .split('\n')
      .filter((line) => line.startsWith('#'))
      .map((line) =>
        line
          .replace(/^#+\s*/, '')
          .toLowerCase()
          .replace(/[^a-z0-9 -]/g, '')
          .replace(/ /g, '-'),
      );

    // Act
    const anchors = Object.values(alarmsOf(settingsFor('production'))).map(
      (alarm) => /#([a-z0-9-]+)$/.exec(String(alarm.Properties.AlarmDescription))?.[1],
    );

    // Assess
    expect(anchors).toHaveLength(10);
    for (const anchor of anchors) expect(headings).toContain(anchor);
  });

  it('describes each alarm within CloudWatch’s 1024 characters, with its runbook section', () => {
    for (const alarm of Object.values(alarmsOf(settingsFor('production')))) {
      const description = String(alarm.Properties.AlarmDescription);
      expect(description.length).toBeLessThanOrEqual(1024);
      expect(description).toMatch(/First: .+ Runbook: docs\/operations\.md#[a-z0-9-]+$/);
    }
  });
});

describe('withOperations', () => {
  it('returns a new template and leaves the one it was given as it was', () => {
    // Prepare
    const template = compiledTemplate();
    const before = JSON.stringify(template);

    // Act
    const result = withOperations(template, settingsFor('production'), CONTEXT);

    // Assess
    expect(JSON.stringify(template)).toBe(before);
    expect(Object.keys(result.Resources)).toEqual(
      expect.arrayContaining([
        ...Object.keys(template.Resources),
        'ApiGatewayStage',
        'ApiGatewayLogGroup',
        'OrdersPerDayLiveLambdaAlias',
        'LambdaThrottlesAlarm',
      ]),
    );
  });
});

describe('the web ACL', () => {
  it('production: a regional web ACL on the stage, blocking a client IP over the limit in 5 minutes with the 429 body', () => {
    // Act
    const resources = resourcesFor(settingsFor('production', { WAF_RATE_LIMIT: '600' }));

    // Assess
    const acl = resources.ApiGatewayWebAcl;
    expect(acl?.Type).toBe('AWS::WAFv2::WebACL');
    expect(acl?.Properties).toMatchObject({
      Name: 'portal-service-api-production',
      Scope: 'REGIONAL',
      DefaultAction: { Allow: {} },
      Rules: [
        {
          Name: 'per-client-rate',
          Statement: {
            RateBasedStatement: { Limit: 600, AggregateKeyType: 'IP', EvaluationWindowSec: 300 },
          },
          Action: {
            Block: {
              CustomResponse: {
                ResponseCode: 429,
                CustomResponseBodyKey: 'too-many-requests',
                ResponseHeaders: [
                  { Name: 'Access-Control-Allow-Origin', Value: '*' },
                  { Name: 'Retry-After', Value: '60' },
                ],
              },
            },
          },
        },
      ],
    });
    const bodies = acl?.Properties?.CustomResponseBodies as Record<string, { Content: string }>;
    expect(JSON.parse(bodies['too-many-requests']?.Content ?? '')).toEqual({
      state: 'ERROR',
      code: 'TOO_MANY_REQUESTS',
      message: 'Too many requests',
    });
    expect(resources.ApiGatewayWebAclAssociation).toEqual({
      Type: 'AWS::WAFv2::WebACLAssociation',
      Properties: {
        ResourceArn: {
          'Fn::Sub':
            'arn:${AWS::Partition}:apigateway:${AWS::Region}::/restapis/${ApiGatewayRestApi}/stages/${ApiGatewayStage}',
        },
        WebACLArn: { 'Fn::GetAtt': ['ApiGatewayWebAcl', 'Arn'] },
      },
    });
    expect(resources.WafBlockedRequestsAlarm?.Properties).toMatchObject({
      AlarmName: 'portal-service-api-production-waf-blocked',
      Namespace: 'AWS/WAFV2',
      MetricName: 'BlockedRequests',
      Dimensions: [
        { Name: 'WebACL', Value: 'portal-service-api-production' },
        { Name: 'Region', Value: { Ref: 'AWS::Region' } },
        { Name: 'Rule', Value: 'per-client-rate' },
      ],
      Threshold: 100,
      TreatMissingData: 'notBreaching',
    });
  });

  it.each([
    ['production with WAF=false', settingsFor('production', { WAF: 'false' })],
    ['staging, by default', settingsFor('staging')],
  ])('%s: no web ACL and no blocked-requests alarm', (_, settings) => {
    const types = Object.values(resourcesFor(settings)).map(({ Type }) => Type);
    expect(types.filter((type) => type.startsWith('AWS::WAFv2::'))).toEqual([]);
    expect(resourcesFor(settings)).not.toHaveProperty('WafBlockedRequestsAlarm');
  });

  it('staging with WAF=true has one', () => {
    expect(resourcesFor(settingsFor('staging', { WAF: 'true' }))).toHaveProperty(
      'ApiGatewayWebAcl',
    );
  });
});

describe('guarded stages', () => {
  it('production keeps every log group when the stack goes; staging does not', () => {
    // Act
    const production = operated(settingsFor('production'));
    const staging = operated(settingsFor('staging'));

    // Assess
    const groups = (template: Template) =>
      Object.values(ofType({ ...template.Resources }, 'AWS::Logs::LogGroup'));
    expect(groups(production)).toHaveLength(3);
    for (const group of groups(production)) {
      expect(group).toMatchObject({ DeletionPolicy: 'Retain', UpdateReplacePolicy: 'Retain' });
    }
    for (const group of groups(staging)) expect(group).not.toHaveProperty('DeletionPolicy');
  });
});

describe('the gradual release', () => {
  it('production: a CodeDeploy deployment group per function shifts its live alias by the canary, rolled back by its new version’s alarm only', () => {
    // Act
    const resources = resourcesFor(settingsFor('production'));

    // Assess
    expect(resources.CodeDeployApplication).toEqual({
      Type: 'AWS::CodeDeploy::Application',
      Properties: {
        ApplicationName: 'portal-service-api-production',
        ComputePlatform: 'Lambda',
        Tags: OWN_TAGS,
      },
    });
    for (const fn of FUNCTION_IDS) {
      expect(resources[`${fn}LiveLambdaAlias`]?.UpdatePolicy).toEqual({
        CodeDeployLambdaAliasUpdate: {
          ApplicationName: { Ref: 'CodeDeployApplication' },
          DeploymentGroupName: { Ref: `${fn}DeploymentGroup` },
        },
      });
      expect(resources[`${fn}DeploymentGroup`]).toEqual({
        Type: 'AWS::CodeDeploy::DeploymentGroup',
        Properties: {
          ApplicationName: { Ref: 'CodeDeployApplication' },
          ServiceRoleArn: { 'Fn::GetAtt': ['CodeDeployServiceRole', 'Arn'] },
          DeploymentConfigName: 'CodeDeployDefault.LambdaCanary10Percent10Minutes',
          DeploymentStyle: {
            DeploymentType: 'BLUE_GREEN',
            DeploymentOption: 'WITH_TRAFFIC_CONTROL',
          },
          AutoRollbackConfiguration: {
            Enabled: true,
            Events: [
              'DEPLOYMENT_FAILURE',
              'DEPLOYMENT_STOP_ON_REQUEST',
              'DEPLOYMENT_STOP_ON_ALARM',
            ],
          },
          Tags: OWN_TAGS,
          AlarmConfiguration: { Enabled: true, Alarms: [{ Name: { Ref: `${fn}ReleaseAlarm` } }] },
        },
      });
    }
  });

  it('gives CodeDeploy a role that may move these functions’ aliases and read the alarms, nothing more', () => {
    // Act
    const role = resourcesFor(settingsFor('production')).CodeDeployServiceRole;

    // Assess
    expect(role?.Type).toBe('AWS::IAM::Role');
    expect(role?.Properties?.AssumeRolePolicyDocument).toMatchObject({
      Statement: [
        { Principal: { Service: ['codedeploy.amazonaws.com'] }, Action: ['sts:AssumeRole'] },
      ],
    });
    const [policy] = role?.Properties?.Policies as { PolicyDocument: { Statement: unknown[] } }[];
    expect(policy?.PolicyDocument.Statement).toEqual([
      {
        Effect: 'Allow',
        Action: ['lambda:GetAlias', 'lambda:UpdateAlias', 'lambda:GetProvisionedConcurrencyConfig'],
        Resource: [
          { 'Fn::GetAtt': ['OrdersPerDayLambdaFunction', 'Arn'] },
          { 'Fn::Sub': '${OrdersPerDayLambdaFunction.Arn}:*' },
          { 'Fn::GetAtt': ['DishesLambdaFunction', 'Arn'] },
          { 'Fn::Sub': '${DishesLambdaFunction.Arn}:*' },
        ],
      },
      { Effect: 'Allow', Action: ['cloudwatch:DescribeAlarms'], Resource: '*' },
    ]);
  });

  it('follows DEPLOYMENT_PREFERENCE, and without alarms rolls back on a failed or stopped deployment only', () => {
    // Act
    const resources = resourcesFor(
      settingsFor('production', {
        DEPLOYMENT_PREFERENCE: 'Linear10PercentEvery1Minute',
        ALARMS: 'false',
      }),
    );

    // Assess
    expect(resources.DishesDeploymentGroup?.Properties).toMatchObject({
      DeploymentConfigName: 'CodeDeployDefault.LambdaLinear10PercentEvery1Minute',
      AutoRollbackConfiguration: {
        Enabled: true,
        Events: ['DEPLOYMENT_FAILURE', 'DEPLOYMENT_STOP_ON_REQUEST'],
      },
    });
    expect(resources.DishesDeploymentGroup?.Properties).not.toHaveProperty('AlarmConfiguration');
  });

  it.each([
    [
      'production with AllAtOnce',
      settingsFor('production', { DEPLOYMENT_PREFERENCE: 'AllAtOnce' }),
    ],
    ['staging, by default', settingsFor('staging')],
  ])('%s: the alias moves at once, without CodeDeploy', (_, settings) => {
    // Act
    const resources = resourcesFor(settings);

    // Assess
    const types = Object.values(resources).map(({ Type }) => Type);
    expect(types.filter((type) => type.startsWith('AWS::CodeDeploy::'))).toEqual([]);
    expect(resources).not.toHaveProperty('CodeDeployServiceRole');
    expect(resources.DishesLiveLambdaAlias).not.toHaveProperty('UpdatePolicy');
  });
});

describe('the custom domain', () => {
  const CERTIFICATE =
    'arn:aws:acm:eu-west-1:123456789012:certificate/0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0';

  it('maps a regional TLS 1.2 domain on the brand’s certificate to the stage, with the outputs for its DNS record', () => {
    // Act
    const result = operated(
      settingsFor('production', {
        DOMAIN_NAME: 'portal-api.brand.example',
        DOMAIN_CERTIFICATE_ARN: CERTIFICATE,
      }),
    );

    // Assess
    const { domain, mapping, outputs } = customDomain('portal-api.brand.example', CERTIFICATE);
    expect(result.Resources.ApiGatewayDomainName).toEqual({
      ...domain,
      Properties: { ...domain.Properties, Tags: OWN_TAGS },
    });
    expect(result.Resources.ApiGatewayBasePathMapping).toEqual(mapping);
    expect(result.Outputs).toMatchObject(outputs);
  });

  it('adds nothing without the settings', () => {
    const result = operated(settingsFor('production'));
    expect(result.Resources).not.toHaveProperty('ApiGatewayDomainName');
    expect(result.Resources).not.toHaveProperty('ApiGatewayBasePathMapping');
    expect(result.Outputs).toEqual({});
  });

  it.each([
    [
      { DOMAIN_NAME: 'api.brand.example' },
      'DOMAIN_CERTIFICATE_ARN is unset: DOMAIN_NAME needs its ACM certificate',
    ],
    [{ DOMAIN_CERTIFICATE_ARN: CERTIFICATE }, 'DOMAIN_NAME is unset'],
    [
      {
        DOMAIN_NAME: 'api.brand.example',
        DOMAIN_CERTIFICATE_ARN: CERTIFICATE.replace('eu-west-1', 'us-east-1'),
      },
      'DOMAIN_CERTIFICATE_ARN names a certificate in us-east-1: a regional domain of eu-west-1 needs a certificate of eu-west-1',
    ],
  ])('refuses %j', (values, message) => {
    // Act
    const read = () => settingsFor('production', values);

    // Assess
    expect(read).toThrow(TypeError);
    expect(read).toThrow(message);
  });
});

describe('tags', () => {
  it.each([
    ['{"cost-center":"x","env":"prod"}', { 'cost-center': 'x', env: 'prod' }],
    ['cost-center=x, env=prod', { 'cost-center': 'x', env: 'prod' }],
    ['team=', { team: '' }],
  ])('reads STACK_TAGS=%s', (value, tags) => {
    expect(settingsFor('production', { STACK_TAGS: value }).tags).toEqual(tags);
  });

  it.each([
    ['aws:createdBy=me', 'STACK_TAGS holds "aws:createdBy": the aws: prefix is reserved for AWS'],
    ['{"AWS:x":"y"}', 'STACK_TAGS holds "AWS:x": the aws: prefix is reserved'],
    ['stage=prod', 'STACK_TAGS holds "stage": the service sets service and stage itself'],
    ['{"n":1}', 'STACK_TAGS gives "n" a number: tag values are strings'],
    ['{"n":', 'STACK_TAGS is not valid JSON'],
    ['{"a":"b"', 'STACK_TAGS is not valid JSON'],
    ['team', 'STACK_TAGS holds "team": expected key=value'],
    ['a=b,A=c', 'STACK_TAGS holds "A" twice'],
    ['bad*key=1', 'STACK_TAGS holds "bad*key"="1"'],
    [`k=${'v'.repeat(257)}`, 'STACK_TAGS holds "k"'],
    [
      Array.from({ length: 49 }, (_, i) => `k${i}=v`).join(','),
      'STACK_TAGS holds 49 tags: at most 48',
    ],
  ])('refuses STACK_TAGS=%s', (value, message) => {
    // Act
    const read = () => settingsFor('production', { STACK_TAGS: value });

    // Assess
    expect(read).toThrow(TypeError);
    expect(read).toThrow(message);
  });

  it('tags every resource of a taggable type with service, stage and STACK_TAGS, and nothing else', () => {
    // Prepare
    const template = compiledTemplate();
    const resources = {
      ...template.Resources,
      DishesEventsRuleSchedule1: {
        Type: 'AWS::Events::Rule',
        Properties: { ScheduleExpression: 'rate(1 minute)' },
      },
      DishesLogGroup: {
        Type: 'AWS::Logs::LogGroup',
        Properties: {
          LogGroupName: '/aws/lambda/portal-service-api-production-dishes',
          Tags: [
            { Key: 'kept', Value: 'yes' },
            { Key: 'stage', Value: 'old' },
          ],
        },
      },
    };

    // Act
    const result = withOperations(
      { ...template, Resources: resources },
      settingsFor('production', {
        STACK_TAGS: 'cost-center=x',
        DOMAIN_NAME: 'api.brand.example',
        DOMAIN_CERTIFICATE_ARN:
          'arn:aws:acm:eu-west-1:123456789012:certificate/0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0',
        API_GATEWAY_CLOUDWATCH_ROLE: 'create',
      }),
      CONTEXT,
    ).Resources;

    // Assess
    const ours = [
      { Key: 'service', Value: 'portal-service-api' },
      { Key: 'stage', Value: 'production' },
      { Key: 'cost-center', Value: 'x' },
    ];
    const tagged = Object.entries(result).filter(([, r]) => TAGGABLE_TYPES.includes(r.Type));
    expect(new Set(tagged.map(([, r]) => r.Type)).size).toBe(TAGGABLE_TYPES.length - 1);
    for (const [id, resource] of tagged) {
      const expected = id === 'DishesLogGroup' ? [{ Key: 'kept', Value: 'yes' }, ...ours] : ours;
      expect({ id, tags: resource.Properties?.Tags }).toEqual({ id, tags: expected });
    }
    for (const [id, resource] of Object.entries(result)) {
      if (TAGGABLE_TYPES.includes(resource.Type)) continue;
      expect({ id, tags: resource.Properties?.Tags }).toEqual({ id, tags: undefined });
    }
  });
});

describe('withTags', () => {
  it('leaves a type untagged in a region whose schema of it has no Tags (a dashboard in me-central-1)', () => {
    const resources = {
      OperationsDashboard: { Type: 'AWS::CloudWatch::Dashboard', Properties: {} },
      AnAlarm: { Type: 'AWS::CloudWatch::Alarm', Properties: {} },
    };

    const inMeCentral = withTags(resources, { service: 'svc' }, 'me-central-1');
    const inEuWest = withTags(resources, { service: 'svc' }, 'eu-west-1');

    expect(Object.keys(inMeCentral)).toEqual(['AnAlarm']);
    expect(Object.keys(inEuWest)).toEqual(['OperationsDashboard', 'AnAlarm']);
    expect(inEuWest.OperationsDashboard?.Properties?.Tags).toEqual([
      { Key: 'service', Value: 'svc' },
    ]);
  });
});

describe('isClientDriven', () => {
  it('names the alarms clients can drive, which page but neither roll back nor stop a bake', () => {
    const prefix = 'portal-service-api-production-';
    const names = ['api-4xx-rate', 'throttles', 'throttles-2', 'waf-blocked'];
    for (const name of names) expect(isClientDriven(`${prefix}${name}`, prefix)).toBe(true);
    for (const name of ['api-5xx-rate', 'api-5xx-count', 'release-dishes', 'database-errors']) {
      expect(isClientDriven(`${prefix}${name}`, prefix)).toBe(false);
    }
    expect(isClientDriven('portal-service-api-staging-throttles', prefix)).toBe(false);
  });
});

describe('the pre-traffic check', () => {
  /** The compiled template with the hook as osls compiles it: in the VPC, the layer, the env. */
  const withHook = (): Template => {
    const template = compiledTemplate();
    return {
      ...template,
      Resources: {
        ...template.Resources,
        PreTrafficLogGroup: {
          Type: 'AWS::Logs::LogGroup',
          Properties: { LogGroupName: '/aws/lambda/portal-service-api-production-preTraffic' },
        },
        PreTrafficLambdaFunction: {
          Type: 'AWS::Lambda::Function',
          Properties: {
            FunctionName: 'portal-service-api-production-preTraffic',
            Role: { 'Fn::GetAtt': ['IamRoleLambdaExecution', 'Arn'] },
            VpcConfig: { SubnetIds: ['subnet-0123456789abcdef0'] },
            Layers: ['arn:aws:lambda:eu-west-1:015030872274:layer:Extension:1'],
            Environment: { Variables: { DATABASE_URL: 'postgres://db.example/reports' } },
          },
          DependsOn: ['PreTrafficLogGroup', 'IamRoleLambdaExecution'],
        },
        PreTrafficLambdaVersionXyZ: {
          Type: 'AWS::Lambda::Version',
          Properties: { FunctionName: { Ref: 'PreTrafficLambdaFunction' } },
        },
      },
      Outputs: {
        PreTrafficLambdaFunctionQualifiedArn: { Value: { Ref: 'PreTrafficLambdaVersionXyZ' } },
      },
    };
  };

  it('makes the hook check every API function’s new version before CodeDeploy moves its alias', () => {
    // Act
    const { Resources: resources } = withOperations(withHook(), settingsFor('production'), CONTEXT);

    // Assess: the targets, as the hook reads them, once CloudFormation has put the versions in
    const hook = resources.PreTrafficLambdaFunction?.Properties as {
      Environment: { Variables: { PRE_TRAFFIC_TARGETS: { 'Fn::Join': [string, unknown[]] } } };
    };
    const [, parts] = hook.Environment.Variables.PRE_TRAFFIC_TARGETS['Fn::Join'];
    const rendered = parts
      .map((part) =>
        typeof part === 'string'
          ? part
          : `arn:aws:lambda:eu-west-1:123456789012:function:${String(refOf(part))}:7`,
      )
      .join('');
    expect(parseTargets(rendered)).toEqual(
      ['ordersPerDay', 'dishes'].map((fn) => ({
        function: fn,
        version: `arn:aws:lambda:eu-west-1:123456789012:function:${capitalised(fn)}LambdaVersionAbC123:7`,
        method: 'GET',
        path: `/v1/${fn}`,
      })),
    );
    // Its own role, outside the VPC, no layer, none of the functions' settings.
    expect(hook).not.toHaveProperty('VpcConfig');
    expect(hook).not.toHaveProperty('Layers');
    // Its bounds: the functions here set no Timeout, Lambda's 3 s (pre-traffic.test.ts derives them).
    expect(hook).toMatchObject({
      Role: { 'Fn::GetAtt': ['PreTrafficHookRole', 'Arn'] },
      Timeout: 26,
      Environment: { Variables: { PRE_TRAFFIC_INVOKE_TIMEOUT_MS: '8000' } },
    });
    expect(Object.keys(hook.Environment.Variables)).toEqual([
      'PRE_TRAFFIC_TARGETS',
      'PRE_TRAFFIC_INVOKE_TIMEOUT_MS',
    ]);
    const statements = JSON.stringify(resources.PreTrafficHookRole?.Properties);
    // Every published version of each function (:*), never its live alias, $LATEST or unqualified
    // ARN; naming no version, the policy is the same on every deploy.
    for (const fn of FUNCTION_IDS) {
      expect(statements).toContain(`{"Fn::Sub":"\${${fn}LambdaFunction.Arn}:*"}`);
    }
    const denied = (
      resources.PreTrafficHookRole?.Properties?.Policies as {
        PolicyDocument: { Statement: { Effect: string; Action: string[]; Resource: unknown[] }[] };
      }[]
    )
      .flatMap(({ PolicyDocument }) => PolicyDocument.Statement)
      .filter(({ Effect }) => Effect === 'Deny');
    expect(denied).toEqual([
      {
        Effect: 'Deny',
        Action: ['lambda:InvokeFunction'],
        Resource: FUNCTION_IDS.flatMap((fn) => [
          { 'Fn::Sub': `\${${fn}LambdaFunction.Arn}:live` },
          { 'Fn::Sub': `\${${fn}LambdaFunction.Arn}:$LATEST` },
          { 'Fn::GetAtt': [`${fn}LambdaFunction`, 'Arn'] },
        ]),
      },
    ]);
    expect(statements).not.toMatch(/LambdaVersion/);
    expect(statements).toContain('"codedeploy:GetDeployment"');
    expect(statements).toContain('"codedeploy:PutLifecycleEventHookExecutionStatus"');
    expect(statements).toContain('deploymentgroup:${CodeDeployApplication}/*');
    // CodeDeploy may invoke the hook, and only it beyond what moves the aliases.
    expect(JSON.stringify(resources.CodeDeployServiceRole?.Properties)).toContain(
      '{"Effect":"Allow","Action":["lambda:InvokeFunction"],"Resource":[{"Fn::GetAtt":["PreTrafficLambdaFunction","Arn"]}]}',
    );
    // Every alias names the hook; the hook itself has no alias.
    for (const fn of FUNCTION_IDS) {
      expect(resources[`${fn}LiveLambdaAlias`]?.UpdatePolicy).toMatchObject({
        CodeDeployLambdaAliasUpdate: {
          BeforeAllowTrafficHook: { Ref: 'PreTrafficLambdaFunction' },
        },
      });
    }
    expect(resources).not.toHaveProperty('PreTrafficLiveLambdaAlias');
    expect(resources).not.toHaveProperty('PreTrafficReleaseAlarm');
  });

  it('drops the hook, its version, log group and outputs where nothing gradual runs it', () => {
    // Act
    const template = withOperations(withHook(), settingsFor('staging'), CONTEXT);

    // Assess
    expect(Object.keys(template.Resources).filter((id) => id.startsWith('PreTraffic'))).toEqual([]);
    expect(template.Outputs).toEqual({});
  });
});
