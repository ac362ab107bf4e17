/**
 * The packaged template is operable (tools/generators/operations.ts, tools/serverless/operations.js,
 * docs/operations.md). Through a real `serverless package --stage production --region
 * eu-west-1` (offline): the alarms with their thresholds (a changed one from the environment,
 * a regional form), the paging topic the alarms that need someone notify and no one told of the
 * client-driven ones without ALARM_NOTICE_TOPIC_ARN, each description linking the stage's
 * dashboard; the stage the template owns (throttling, each route's limits within its function's
 * reserved concurrency, tracing, JSON access logs that hold no header, token or query), the
 * Deployment without a StageName and depending on the gateway responses (429 and 503 with
 * Retry-After), one `live` alias per API function and every integration and permission on it,
 * X-Ray on the functions with the role allowed to write traces; the heartbeat on its schedule with
 * its own role; the web ACL on the stage, CodeDeploy's canary on each alias with the alarms as
 * rollback triggers and the pre-traffic hook's role, the custom domain and its outputs; cfn-lint
 * passes when it is on PATH. A bad setting fails packaging naming the variable, and the plugin
 * refuses the osls settings that would make osls patch the stage after deploy.
 */
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { catalogue } from '../../../tools/catalogue';
import { expectLintPasses, withCfnLint } from '../../support/cfn-lint';
import { customDomain } from '../../support/custom-domain';
import {
  expectPackaged,
  expectRefused,
  ofType,
  packageService,
  PACKAGING_ENV,
  removeTemporary,
  type Template,
} from '../../support/packaging';
import { run, SERVERLESS } from '../../support/processes';
import { aliasLogicalId, OPERATIONS_VARIABLES } from '../../../tools/generators/operations';
import { settingEntry } from '../../../tools/generators/registry';
import { lambdaLogicalId } from '../../../tools/generators/serverless';
import { invokeTimeoutMsFor } from '../../../functions/release/bounds';
import { stagedNames, unstagedNames } from '../../../tools/generators/variables';

const TOPIC = 'arn:aws:sns:eu-west-1:123456789012:portal-production-alarms';
/** The link every alarm's description ends with: the stage's dashboard in its region. */
const DASHBOARD_LINK =
  ' Dashboard: https://console.aws.amazon.com/cloudwatch/home?region=eu-west-1#dashboards/dashboard/portal-service-api-production-eu-west-1';
/** The API's functions, from the catalogue: the release's hook and the heartbeat serve no request. */
const API_FUNCTIONS = catalogue.map(({ function: fn }) => lambdaLogicalId(fn));
/** The alarms clients can drive: a notice for ALARM_NOTICE_TOPIC_ARN, never a page. */
const isNotice = (id: string) =>
  ['ApiGateway4xxRateAlarm', 'WafBlockedRequestsAlarm'].includes(id) ||
  id.startsWith('LambdaThrottlesAlarm');
const CERTIFICATE =
  'arn:aws:acm:eu-west-1:123456789012:certificate/0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0';
const OPERATIONS_NAMES = OPERATIONS_VARIABLES.flatMap((name) => {
  const scope = { stage: 'production', region: 'eu-west-1', portal: false };
  return [...stagedNames(name, scope), ...unstagedNames(name, scope)];
});
/**
 * The issuer of EU production and its alarm topic, and no other operations setting from the
 * caller's environment.
 */
const ENV = {
  JWT_ISSUER_EU_PRODUCTION: 'https://portal.example/eu-production',
  ...Object.fromEntries(OPERATIONS_NAMES.map((name) => [name, ''])),
  ALARM_TOPIC_ARN_PRODUCTION: TOPIC,
};

afterAll(removeTemporary);

const packageWith = (env: Record<string, string>, params: readonly string[] = []) =>
  packageService({ env: { ...ENV, ...env }, params });

/** The production package of the first test, read by the others. */
let packaged: Promise<{ templatePath: string; template: Template }> | undefined;
const productionPackage = () => {
  packaged ??= packageWith(
    {
      ALARM_TOPIC_ARN_PRODUCTION: TOPIC,
      ALARM_P99_LATENCY_MS_PRODUCTION: '1500',
      API_THROTTLE_BURST_PRODUCTION: '999',
      API_THROTTLE_BURST_PRODUCTION_EU_WEST_1: '300',
      DOMAIN_NAME_PRODUCTION: 'portal-api.brand.example',
      DOMAIN_CERTIFICATE_ARN_PRODUCTION_EU_WEST_1: CERTIFICATE,
      STACK_TAGS: '{"cost-center":"portal-42"}',
    },
    ['ALARM_DATABASE_ERRORS_PRODUCTION=8'],
  ).then((production) => {
    expectPackaged(production);
    return { templatePath: production.templatePath, template: production.template() };
  });
  return packaged;
};

describe('serverless package: operations', () => {
  it('alarms on the 5xx rate and count, p99 latency, throttles, key-set failures, database errors, each new version and the heartbeat, paging the topic, telling no one of what clients drive, and linking the dashboard', async () => {
    const { template } = await productionPackage();

    const alarms = Object.fromEntries(
      ofType(template, 'AWS::CloudWatch::Alarm').map(([id, alarm]) => [id, alarm.Properties]),
    );
    expect(Object.keys(alarms).sort()).toEqual(
      [
        'ApiGateway4xxRateAlarm',
        'ApiGateway5xxCountAlarm',
        'ApiGateway5xxRateAlarm',
        'ApiGatewayP99LatencyAlarm',
        'DatabaseErrorsAlarm',
        'HeartbeatAlarm',
        'KeySetFailuresAlarm',
        'LambdaThrottlesAlarm',
        'WafBlockedRequestsAlarm',
        ...catalogue.map(({ function: fn }) =>
          lambdaLogicalId(fn).replace(/LambdaFunction$/, 'ReleaseAlarm'),
        ),
      ].sort(),
    );
    const api = [
      { Name: 'ApiName', Value: 'production-portal-service-api' },
      { Name: 'Stage', Value: 'production' },
    ];
    const service = [{ Name: 'Service', Value: 'portal-service-api-production' }];
    const apiMetric = (name: string) => ({
      MetricStat: { Metric: { Namespace: 'AWS/ApiGateway', MetricName: name, Dimensions: api } },
    });
    expect(alarms).toMatchObject({
      ApiGateway5xxRateAlarm: {
        Metrics: [{ ReturnData: true }, apiMetric('Count'), apiMetric('5XXError')],
        Threshold: 0.05,
        TreatMissingData: 'notBreaching',
      },
      ApiGateway4xxRateAlarm: {
        Metrics: [{ ReturnData: true }, apiMetric('Count'), apiMetric('4XXError')],
        Threshold: 0.5,
        TreatMissingData: 'notBreaching',
      },
      // Changed from the environment.
      ApiGatewayP99LatencyAlarm: {
        Metrics: [{ ReturnData: true }, apiMetric('Count'), apiMetric('Latency')],
        Threshold: 1500,
      },
      ApiGateway5xxCountAlarm: { MetricName: '5XXError', Dimensions: api, Threshold: 5 },
      LambdaThrottlesAlarm: { Threshold: 1, TreatMissingData: 'notBreaching' },
      KeySetFailuresAlarm: {
        Namespace: 'PortalServiceApi',
        MetricName: 'KeySetFailures',
        Dimensions: service,
        Threshold: 3,
        TreatMissingData: 'notBreaching',
      },
      // Changed by a serverless param.
      DatabaseErrorsAlarm: {
        Namespace: 'PortalServiceApi',
        MetricName: 'DatabaseErrors',
        Dimensions: service,
        Threshold: 8,
        TreatMissingData: 'notBreaching',
      },
      // A minute's heartbeat 0 or missing, three minutes running, pages.
      HeartbeatAlarm: {
        Namespace: 'PortalServiceApi',
        MetricName: 'Heartbeat',
        Dimensions: service,
        Statistic: 'Minimum',
        Period: 60,
        EvaluationPeriods: 3,
        DatapointsToAlarm: 3,
        Threshold: 1,
        ComparisonOperator: 'LessThanThreshold',
        TreatMissingData: 'breaching',
      },
    });
    // Each new version judged on its requests of the last 3 minutes, every minute.
    for (const { function: fn } of catalogue) {
      const release = alarms[lambdaLogicalId(fn).replace(/LambdaFunction$/, 'ReleaseAlarm')];
      const stats = (release?.Metrics as { MetricStat?: { Period: number } }[]).flatMap(
        ({ MetricStat }) => (MetricStat ? [MetricStat.Period] : []),
      );
      expect({ fn, stats }).toEqual({ fn, stats: [180, 180, 180] });
      expect(release).toMatchObject({ EvaluationPeriods: 1 });
    }
    // What needs someone pages the topic; what clients drive tells ALARM_NOTICE_TOPIC_ARN, unset
    // here: nobody, never the paging topic.
    const notices = Object.keys(alarms).filter(isNotice).sort();
    expect(notices).toEqual([
      'ApiGateway4xxRateAlarm',
      'LambdaThrottlesAlarm',
      'WafBlockedRequestsAlarm',
    ]);
    for (const [id, alarm] of Object.entries(alarms)) {
      if (isNotice(id)) {
        const actions = Object.keys(alarm).filter((key) => key.endsWith('Actions'));
        expect({ id, actions }).toEqual({ id, actions: [] });
      } else {
        expect({ id, ...alarm }).toMatchObject({ id, AlarmActions: [TOPIC], OKActions: [TOPIC] });
      }
      expect(alarm.AlarmDescription).toMatch(/docs\/operations\.md#/);
      expect({ id, end: String(alarm.AlarmDescription).endsWith(DASHBOARD_LINK) }).toEqual({
        id,
        end: true,
      });
    }
    // The dashboard the descriptions link: its alarm widget shows every alarm of the stage.
    const dashboards = ofType(template, 'AWS::CloudWatch::Dashboard');
    expect(dashboards.map(([id]) => id)).toEqual(['OperationsDashboard']);
    const dashboard = dashboards[0]![1].Properties;
    expect(dashboard.DashboardName).toBe('portal-service-api-production-eu-west-1');
    const widgets = (
      JSON.parse((dashboard.DashboardBody as { 'Fn::Sub': string })['Fn::Sub']) as {
        widgets: { type: string; properties: { alarms?: string[] } }[];
      }
    ).widgets;
    const shown = widgets.filter(({ type }) => type === 'alarm');
    expect(shown).toHaveLength(1);
    expect([...(shown[0]?.properties.alarms ?? [])].sort()).toEqual(
      Object.values(alarms)
        .map(
          (alarm) =>
            `arn:\${AWS::Partition}:cloudwatch:eu-west-1:\${AWS::AccountId}:alarm:${String(alarm.AlarmName)}`,
        )
        .sort(),
    );
    // Every API function's throttles, and the functions publish the metrics the alarms read:
    // the heartbeat its Heartbeat, under the same namespace and service.
    const throttled = JSON.stringify(alarms.LambdaThrottlesAlarm?.Metrics);
    expect(
      ofType(template, 'AWS::Lambda::Function')
        .map(([id]) => id)
        .sort(),
    ).toEqual([...API_FUNCTIONS, 'HeartbeatLambdaFunction', 'PreTrafficLambdaFunction'].sort());
    for (const id of API_FUNCTIONS) {
      expect(throttled).toContain(JSON.stringify({ Ref: id }));
    }
    for (const id of [...API_FUNCTIONS, 'HeartbeatLambdaFunction']) {
      expect({ id, environment: template.Resources[id]?.Properties.Environment }).toMatchObject({
        id,
        environment: {
          Variables: {
            METRICS_NAMESPACE: 'PortalServiceApi',
            METRICS_SERVICE: 'portal-service-api-production',
          },
        },
      });
    }
    // Packaging, for every test of the suite.
  }, 120_000);

  it('owns the stage: throttling each route within its function’s reserved concurrency, tracing, a JSON access log with no header, token or query, and retryable 429 and 503', async () => {
    const { template } = await productionPackage();

    const stages = ofType(template, 'AWS::ApiGateway::Stage');
    expect(stages.map(([id]) => id)).toEqual(['ApiGatewayStage']);
    const [[, stage] = ['', { Type: '', Properties: {} }]] = stages;
    const [[deploymentId, deployment] = ['', { Type: '', Properties: {} }]] = ofType(
      template,
      'AWS::ApiGateway::Deployment',
    );
    expect(stage.Properties).toMatchObject({
      StageName: 'production',
      DeploymentId: { Ref: deploymentId },
      TracingEnabled: true,
      AccessLogSetting: { DestinationArn: { 'Fn::GetAtt': ['ApiGatewayLogGroup', 'Arn'] } },
    });
    // The regional form wins over API_THROTTLE_BURST_PRODUCTION; the rate is production's default.
    const [stageWide, ...routes] = stage.Properties.MethodSettings as Record<string, unknown>[];
    expect(stageWide).toMatchObject({
      ResourcePath: '/*',
      HttpMethod: '*',
      ThrottlingRateLimit: 200,
      ThrottlingBurstLimit: 300,
      LoggingLevel: 'OFF',
      DataTraceEnabled: false,
    });
    // Every route of every function: its method and OPTIONS on each of its paths.
    const paths = catalogue.flatMap((endpoint) =>
      endpoint.paths.flatMap((path) =>
        [endpoint.method, 'OPTIONS'].map((method) => `${path.replace(/\//g, '~1')} ${method}`),
      ),
    );
    expect(
      routes
        .map((route) => `${String(route.ResourcePath).slice(1)} ${String(route.HttpMethod)}`)
        .sort(),
    ).toEqual(paths.map((path) => `~1${path.replace(/^~1/, '')}`).sort());
    // d: the longest a request holds its container, API_ROUTE_DURATION_MS, unset here.
    const d = Number(settingEntry('API_ROUTE_DURATION_MS').default) / 1000;
    const limitsOf = (route: Record<string, unknown>) => ({
      rate: Number(route.ThrottlingRateLimit),
      burst: Number(route.ThrottlingBurstLimit),
    });
    for (const endpoint of catalogue) {
      const fn = lambdaLogicalId(endpoint.function);
      const own = routes.filter((route) =>
        endpoint.paths.some((path) => route.ResourcePath === `/${path.replace(/\//g, '~1')}`),
      );
      expect(own).toHaveLength(2 * endpoint.paths.length);
      // Production's API_ROUTE_RATE of 20 requests/s on every route, with a burst of ⌈20 / 2⌉:
      // RESERVED_CONCURRENCY unset, each function reserves what its routes can fill.
      for (const route of own) {
        expect({
          fn,
          route: route.ResourcePath,
          method: route.HttpMethod,
          ...limitsOf(route),
        }).toEqual({
          fn,
          route: route.ResourcePath,
          method: route.HttpMethod,
          rate: 20,
          burst: 10,
        });
      }
      // What the routes let through in any window of d never needs more containers than the
      // function reserves, and it reserves no more than that, rounded up: ⌈k × (b + r × d)⌉.
      const reserved = Number(template.Resources[fn]?.Properties.ReservedConcurrentExecutions);
      const needed = own.reduce((sum, route) => {
        const { rate, burst } = limitsOf(route);
        return sum + burst + rate * d;
      }, 0);
      expect({ fn, within: needed <= reserved }).toEqual({ fn, within: true });
      expect({ fn, reserved }).toEqual({ fn, reserved: Math.ceil(needed - 1e-9) });
      // A preflight is never throttled before the request it announces.
      for (const path of endpoint.paths) {
        const at = (method: string) =>
          limitsOf(
            own.find(
              (route) =>
                route.ResourcePath === `/${path.replace(/\//g, '~1')}` &&
                route.HttpMethod === method,
            ) ?? {},
          );
        const [options, method] = [at('OPTIONS'), at(endpoint.method)];
        expect({
          path,
          rate: options.rate >= method.rate,
          burst: options.burst >= method.burst,
        }).toEqual({ path, rate: true, burst: true });
      }
    }
    const format = String(
      (stage.Properties.AccessLogSetting as { Format: string } | undefined)?.Format,
    );
    for (const field of [
      '$context.requestId',
      '$context.resourcePath',
      '$context.httpMethod',
      '$context.status',
      '$context.responseLatency',
      '$context.integrationLatency',
      '$context.identity.sourceIp',
    ]) {
      expect(format).toContain(field);
    }
    expect(format).not.toMatch(/\$context\.authorizer|header|querystring|\$context\.path/i);
    expect(template.Resources.ApiGatewayLogGroup?.Properties).toMatchObject({
      LogGroupName: '/aws/api-gateway/portal-service-api-production',
      RetentionInDays: 30,
    });

    // The Deployment makes no stage of its own, and publishes the gateway responses too.
    expect(deployment.Properties).not.toHaveProperty('StageName');
    const gatewayResponses = ofType(template, 'AWS::ApiGateway::GatewayResponse');
    const responses = gatewayResponses.map(([id]) => id);
    expect(responses).toHaveLength(6);
    expect(deployment.DependsOn).toEqual(expect.arrayContaining(responses));
    // The gateway's own limits and Lambda's refusals: a status a caller may retry in a second,
    // with CORS and the spec's body, never a bare 500.
    const byType: Record<string, Record<string, unknown>> = Object.fromEntries(
      gatewayResponses.map(([, response]) => [
        String(response.Properties.ResponseType),
        response.Properties,
      ]),
    );
    const retry = {
      'gatewayresponse.header.Access-Control-Allow-Origin': "'*'",
      'gatewayresponse.header.Retry-After': "'1'",
    };
    expect(byType.THROTTLED).toMatchObject({
      StatusCode: '429',
      ResponseParameters: retry,
      ResponseTemplates: {
        'application/json':
          '{"state":"ERROR","code":"TOO_MANY_REQUESTS","message":"Too many requests"}',
      },
    });
    expect(byType.INTEGRATION_FAILURE).toMatchObject({
      StatusCode: '503',
      ResponseParameters: retry,
      ResponseTemplates: {
        'application/json': '{"state":"ERROR","code":"INTERNAL_ERROR","message":"Unknown error"}',
      },
    });

    // X-Ray on every function, and the role may write the traces.
    for (const [, fn] of ofType(template, 'AWS::Lambda::Function')) {
      expect(fn.Properties.TracingConfig).toEqual({ Mode: 'Active' });
    }
    expect(JSON.stringify(template.Resources.IamRoleLambdaExecution)).toContain(
      '"xray:PutTraceSegments","xray:PutTelemetryRecords"',
    );
  });

  it('has API Gateway call a live alias of each API function, on the version it publishes', async () => {
    const { template } = await productionPackage();

    // The release's hook (invoked by CodeDeploy) and the heartbeat (by its schedule) have none.
    const functions = API_FUNCTIONS;
    const aliases = ofType(template, 'AWS::Lambda::Alias');
    expect(aliases).toHaveLength(functions.length);
    const aliasOf = new Map<string, string>();
    for (const [id, alias] of aliases) {
      const fn = (alias.Properties.FunctionName as { Ref: string }).Ref;
      const version = (alias.Properties.FunctionVersion as { 'Fn::GetAtt': [string, string] })[
        'Fn::GetAtt'
      ];
      expect(alias.Properties.Name).toBe('live');
      expect(template.Resources[version[0]]).toMatchObject({
        Type: 'AWS::Lambda::Version',
        Properties: { FunctionName: { Ref: fn } },
      });
      aliasOf.set(fn, id);
    }
    expect([...aliasOf.keys()].sort()).toEqual([...functions].sort());

    const aliasIds = [...aliasOf.values()];
    const methods = ofType(template, 'AWS::ApiGateway::Method');
    expect(methods.length).toBeGreaterThanOrEqual(2 * catalogue.length);
    for (const [id, method] of methods) {
      const uri = JSON.stringify(
        (method.Properties.Integration as { Uri: unknown } | undefined)?.Uri,
      );
      const target = aliasIds.find((alias) => uri.includes(JSON.stringify({ Ref: alias })));
      expect({ id, target: target !== undefined }).toEqual({ id, target: true });
      expect(uri).not.toContain('LambdaFunction');
    }
    // API Gateway may invoke each alias; the only other permission is the heartbeat's schedule's.
    const permissions = ofType(template, 'AWS::Lambda::Permission');
    const gateway = permissions.filter(
      ([, permission]) => permission.Properties.Principal === 'apigateway.amazonaws.com',
    );
    expect(gateway).toHaveLength(functions.length);
    for (const [, permission] of gateway) {
      expect(aliasIds).toContain((permission.Properties.FunctionName as { Ref?: string }).Ref);
    }
    expect(
      permissions.filter(([id]) => !gateway.some(([other]) => other === id)).map(([, p]) => p),
    ).toEqual([
      {
        Type: 'AWS::Lambda::Permission',
        Properties: {
          FunctionName: { 'Fn::GetAtt': ['HeartbeatLambdaFunction', 'Arn'] },
          Action: 'lambda:InvokeFunction',
          Principal: 'events.amazonaws.com',
          SourceArn: {
            'Fn::GetAtt': [expect.stringMatching(/^HeartbeatEventsRuleSchedule/), 'Arn'],
          },
        },
      },
    ]);
  });

  it('runs the heartbeat every minute on each live alias, under a role that may invoke those aliases only', async () => {
    const { template } = await productionPackage();

    // Its schedule, tagged like the rest.
    const rules = ofType(template, 'AWS::Events::Rule');
    expect(rules).toHaveLength(1);
    expect(rules[0]?.[1].Properties).toMatchObject({
      ScheduleExpression: 'rate(1 minute)',
      State: 'ENABLED',
      Targets: [{ Arn: { 'Fn::GetAtt': ['HeartbeatLambdaFunction', 'Arn'] } }],
      Tags: expect.arrayContaining([
        { Key: 'service', Value: 'portal-service-api' },
        { Key: 'stage', Value: 'production' },
      ]) as unknown,
    });

    // Its own role and environment: Lambda's API only, no VPC, no layer, no database secret.
    const heartbeat = template.Resources.HeartbeatLambdaFunction?.Properties ?? {};
    expect(heartbeat.Role).toEqual({ 'Fn::GetAtt': ['HeartbeatRole', 'Arn'] });
    expect(heartbeat).not.toHaveProperty('VpcConfig');
    expect(heartbeat).not.toHaveProperty('Layers');
    expect(heartbeat.TracingConfig).toEqual({ Mode: 'Active' });
    const variables = (heartbeat.Environment as { Variables: Record<string, unknown> }).Variables;
    expect(Object.keys(variables).sort()).toEqual(
      [
        'HEARTBEAT_INVOKE_TIMEOUT_MS',
        'HEARTBEAT_TARGETS',
        'LOG_LEVEL',
        'METRICS_NAMESPACE',
        'METRICS_SERVICE',
      ].sort(),
    );
    // Each API function's live alias, by its name; never its own.
    const [separator, parts] = (variables.HEARTBEAT_TARGETS as { 'Fn::Join': [string, unknown[]] })[
      'Fn::Join'
    ];
    const targets = JSON.parse(
      parts
        .map((part) => (typeof part === 'string' ? part : (part as { Ref: string }).Ref))
        .join(separator),
    ) as unknown;
    expect(targets).toEqual(
      catalogue.map(({ function: fn }) => ({
        function: fn,
        alias: aliasLogicalId(lambdaLogicalId(fn)),
      })),
    );
    for (const { function: fn } of catalogue) {
      expect(template.Resources[aliasLogicalId(lambdaLogicalId(fn))]?.Type).toBe(
        'AWS::Lambda::Alias',
      );
    }
    // One invocation may take the longest function's timeout and a margin; the heartbeat lasts
    // longer than that.
    const longest = Math.max(
      ...API_FUNCTIONS.map((id) => Number(template.Resources[id]?.Properties.Timeout)),
    );
    const invokeTimeoutMs = Number(variables.HEARTBEAT_INVOKE_TIMEOUT_MS);
    expect(invokeTimeoutMs).toBe(invokeTimeoutMsFor(longest));
    expect(Number(heartbeat.Timeout) * 1000).toBeGreaterThan(invokeTimeoutMs);

    // The role: invoke the live aliases, write its own logs and traces; nothing else.
    const role = template.Resources.HeartbeatRole;
    expect(role?.Type).toBe('AWS::IAM::Role');
    expect(JSON.stringify(role?.Properties.AssumeRolePolicyDocument)).toContain(
      '"Service":["lambda.amazonaws.com"]',
    );
    const policies = role?.Properties.Policies as {
      PolicyDocument: { Statement: Record<string, unknown>[] };
    }[];
    expect(policies.flatMap(({ PolicyDocument }) => PolicyDocument.Statement)).toEqual([
      {
        Effect: 'Allow',
        Action: ['lambda:InvokeFunction'],
        Resource: API_FUNCTIONS.map((id) => ({ Ref: aliasLogicalId(id) })),
      },
      {
        Effect: 'Allow',
        Action: ['logs:CreateLogStream', 'logs:PutLogEvents'],
        Resource: [{ 'Fn::GetAtt': ['HeartbeatLogGroup', 'Arn'] }],
      },
      {
        Effect: 'Allow',
        Action: ['xray:PutTraceSegments', 'xray:PutTelemetryRecords'],
        Resource: ['*'],
      },
    ]);

    // Invoked by its schedule: no alias, no CodeDeploy deployment group, no release alarm.
    const references = (type: string) =>
      ofType(template, type).filter(([, resource]) =>
        JSON.stringify(resource).includes('"HeartbeatLambdaFunction"'),
      );
    expect(references('AWS::Lambda::Alias')).toEqual([]);
    expect(references('AWS::CodeDeploy::DeploymentGroup')).toEqual([]);
    expect(template.Resources).not.toHaveProperty('HeartbeatReleaseAlarm');
  });

  it('puts a regional web ACL on the stage whose per-client rule answers 429 past 300 requests in 5 minutes, with CORS and Retry-After', async () => {
    const { template } = await productionPackage();

    const [[aclId, acl] = ['', { Type: '', Properties: {} }]] = ofType(
      template,
      'AWS::WAFv2::WebACL',
    );
    // WAF_RATE_LIMIT unset: its default, 300 requests per client in 5 minutes.
    expect(acl.Properties).toMatchObject({
      Scope: 'REGIONAL',
      Rules: [
        {
          Statement: {
            RateBasedStatement: { Limit: 300, AggregateKeyType: 'IP', EvaluationWindowSec: 300 },
          },
          Action: {
            Block: {
              CustomResponse: {
                ResponseCode: 429,
                CustomResponseBodyKey: 'too-many-requests',
                // As the gateway's own 429; the rule looks back 5 minutes: try again in one.
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
    expect(acl.Properties.CustomResponseBodies).toEqual({
      'too-many-requests': {
        ContentType: 'APPLICATION_JSON',
        Content: '{"state":"ERROR","code":"TOO_MANY_REQUESTS","message":"Too many requests"}',
      },
    });
    const associations = ofType(template, 'AWS::WAFv2::WebACLAssociation');
    expect(associations).toHaveLength(1);
    const association = JSON.stringify(associations[0]?.[1].Properties);
    expect(association).toContain(JSON.stringify({ 'Fn::GetAtt': [aclId, 'Arn'] }));
    expect(association).toContain('/stages/${ApiGatewayStage}');
  });

  it('shifts each live alias by CodeDeploy’s canary after the pre-traffic check, rolled back by its new version’s alarm or a stop', async () => {
    const { template } = await productionPackage();

    const [[applicationId, application] = ['', { Type: '', Properties: {} }]] = ofType(
      template,
      'AWS::CodeDeploy::Application',
    );
    expect(application.Properties).toMatchObject({ ComputePlatform: 'Lambda' });
    const groups = new Map(ofType(template, 'AWS::CodeDeploy::DeploymentGroup'));
    const aliases = ofType(template, 'AWS::Lambda::Alias');
    expect(groups.size).toBe(aliases.length);
    for (const [, alias] of aliases) {
      const update = alias.UpdatePolicy?.CodeDeployLambdaAliasUpdate as
        { ApplicationName: unknown; DeploymentGroupName: { Ref: string } } | undefined;
      expect(update?.ApplicationName).toEqual({ Ref: applicationId });
      const group = groups.get(update?.DeploymentGroupName.Ref ?? '');
      expect(group?.Properties).toMatchObject({
        DeploymentConfigName: 'CodeDeployDefault.LambdaCanary10Percent10Minutes',
        AutoRollbackConfiguration: {
          Enabled: true,
          Events: ['DEPLOYMENT_FAILURE', 'DEPLOYMENT_STOP_ON_REQUEST', 'DEPLOYMENT_STOP_ON_ALARM'],
        },
        AlarmConfiguration: { Enabled: true },
      });
      const alarms = (
        group?.Properties.AlarmConfiguration as { Alarms: { Name: { Ref: string } }[] }
      ).Alarms;
      // CodeDeploy runs the pre-traffic check before it moves any traffic.
      expect(update).toMatchObject({ BeforeAllowTrafficHook: { Ref: 'PreTrafficLambdaFunction' } });
      const fn = (alias.Properties.FunctionName as { Ref: string }).Ref;
      expect(alarms).toEqual([{ Name: { Ref: fn.replace(/LambdaFunction$/, 'ReleaseAlarm') } }]);
    }

    // The hook may invoke each function's published versions, and explicitly none of its live
    // alias, $LATEST or unqualified ARN; it reads its deployment and reports to CodeDeploy.
    const hook = template.Resources.PreTrafficLambdaFunction?.Properties;
    const role = (hook?.Role as { 'Fn::GetAtt': [string, string] })['Fn::GetAtt'][0];
    const statements = (
      template.Resources[role]?.Properties.Policies as {
        PolicyDocument: { Statement: Record<string, unknown>[] };
      }[]
    ).flatMap(({ PolicyDocument }) => PolicyDocument.Statement);
    const invoking = statements.filter(({ Action }) =>
      JSON.stringify(Action).includes('lambda:InvokeFunction'),
    );
    expect(invoking).toEqual([
      {
        Effect: 'Allow',
        Action: ['lambda:InvokeFunction'],
        Resource: API_FUNCTIONS.map((fn) => ({ 'Fn::Sub': `\${${fn}.Arn}:*` })),
      },
      {
        Effect: 'Deny',
        Action: ['lambda:InvokeFunction'],
        Resource: API_FUNCTIONS.flatMap((fn) => [
          { 'Fn::Sub': `\${${fn}.Arn}:live` },
          { 'Fn::Sub': `\${${fn}.Arn}:$LATEST` },
          { 'Fn::GetAtt': [fn, 'Arn'] },
        ]),
      },
    ]);
    expect(statements).toContainEqual({
      Effect: 'Allow',
      Action: ['codedeploy:GetDeployment', 'codedeploy:PutLifecycleEventHookExecutionStatus'],
      Resource: {
        'Fn::Sub': `arn:\${AWS::Partition}:codedeploy:\${AWS::Region}:\${AWS::AccountId}:deploymentgroup:\${${applicationId}}/*`,
      },
    });
  });

  it('maps the custom domain to the stage, with the outputs for the brand’s DNS record', async () => {
    const { template } = await productionPackage();

    const { domain, mapping, outputs } = customDomain('portal-api.brand.example', CERTIFICATE);
    expect(template.Resources.ApiGatewayDomainName).toMatchObject(domain);
    expect(template.Resources.ApiGatewayBasePathMapping?.Properties).toEqual(mapping.Properties);
    expect(template.Outputs).toMatchObject(outputs);
  });

  it('guards production: every log group outlives the stack, and osls protects the stack from deletion', async () => {
    const { template } = await productionPackage();

    const groups = ofType(template, 'AWS::Logs::LogGroup');
    expect(groups.length).toBeGreaterThan(catalogue.length);
    for (const [, group] of groups) {
      expect(group).toMatchObject({ DeletionPolicy: 'Retain', UpdateReplacePolicy: 'Retain' });
    }
    const printed = async (stage: string) => {
      const result = await run(
        [
          SERVERLESS,
          'print',
          '--stage',
          stage,
          '--region',
          'eu-west-1',
          '--path',
          'provider.deletionProtection',
          '--format',
          'json',
        ],
        { ...PACKAGING_ENV, ...ENV },
      );
      expect({ code: result.code, stderr: result.stderr }).toMatchObject({ code: 0 });
      return JSON.parse(result.stdout) as unknown;
    };
    // osls turns termination protection on after each deploy of a listed stage.
    expect(await printed('production')).toEqual({ stages: ['production'] });
  }, 60_000);

  withCfnLint(
    'tags every resource whose type takes Tags (by cfn-lint’s schemas for the region) with service, stage and STACK_TAGS',
    async () => {
      const { template } = await productionPackage();

      const types = [...new Set(Object.values(template.Resources).map(({ Type }) => Type))];
      const taggable = taggableTypes('eu-west-1', types);
      expect(Object.keys(taggable).sort()).toEqual([...types].sort());
      const tagged = Object.entries(template.Resources).filter(([, r]) => taggable[r.Type]);
      expect(tagged.length).toBeGreaterThan(20);
      for (const [id, resource] of tagged) {
        expect({ id, tags: resource.Properties.Tags }).toEqual({
          id,
          tags: expect.arrayContaining([
            { Key: 'service', Value: 'portal-service-api' },
            { Key: 'stage', Value: 'production' },
            { Key: 'cost-center', Value: 'portal-42' },
          ]) as unknown,
        });
      }
    },
    120_000,
  );

  withCfnLint(
    'passes cfn-lint',
    async () => {
      const { templatePath } = await productionPackage();

      expectLintPasses(templatePath, 'eu-west-1');
    },
    120_000,
  );

  it.each([
    ['API_THROTTLE_RATE_PRODUCTION', 'abc', 'API_THROTTLE_RATE_PRODUCTION is "abc"'],
    [
      'ALARM_TOPIC_ARN_PRODUCTION_EU_WEST_1',
      'nonsense',
      'ALARM_TOPIC_ARN_PRODUCTION_EU_WEST_1 is "nonsense"',
    ],
    [
      'DOMAIN_NAME_PRODUCTION',
      'portal-api.brand.example',
      'DOMAIN_CERTIFICATE_ARN is unset: DOMAIN_NAME_PRODUCTION needs its ACM certificate',
    ],
    [
      'ALARM_TOPIC_ARN',
      TOPIC,
      'ALARM_TOPIC_ARN is set, but stage "production" reads ALARM_TOPIC_ARN only from ALARM_TOPIC_ARN_PRODUCTION_EU_WEST_1 or ALARM_TOPIC_ARN_PRODUCTION',
    ],
  ])('fails packaging, naming %s, on %s', async (name, value, message) => {
    expectRefused(await packageWith({ [name]: value }), message);
  });
});

/**
 * Whether each resource type's CloudFormation schema in `region` has a `Tags` property, read
 * from the schemas cfn-lint ships.
 */
const taggableTypes = (region: string, types: readonly string[]): Record<string, boolean> => {
  const script = [
    'import cfnlint, importlib, json, os, sys',
    'base = os.path.join(os.path.dirname(cfnlint.__file__), "data", "schemas")',
    'provider = importlib.import_module("cfnlint.data.schemas.providers." + sys.argv[1].replace("-", "_"))',
    'def tags(t):',
    '    with open(os.path.join(base, "resources", provider.types[t] + ".json")) as f:',
    '        return "Tags" in json.load(f).get("properties", {})',
    'print(json.dumps({t: tags(t) for t in sys.argv[2:]}))',
  ].join('\n');
  const result = spawnSync('python3', ['-c', script, region, ...types], { encoding: 'utf8' });
  expect({ status: result.status, stderr: result.stderr }).toEqual({ status: 0, stderr: '' });
  return JSON.parse(result.stdout) as Record<string, boolean>;
};

/** The plugin, plain JavaScript that osls loads: typed here by what the test uses of it. */
type PluginClass = new (
  serverless: unknown,
  options: unknown,
  utils: unknown,
) => {
  addOperations: () => Promise<void>;
  hooks: Record<string, () => Promise<void> | void>;
};
const PLUGIN = '../../../tools/serverless/operations.js';

describe('tools/serverless/operations.js', () => {
  it.each([
    [{ logs: { restApi: true } }, 'provider.logs.restApi'],
    [{ tracing: { lambda: true, apiGateway: true } }, 'provider.tracing.apiGateway'],
    [{ apiGateway: { metrics: true } }, 'provider.apiGateway.metrics'],
    [{ tags: { team: 'portal' } }, 'provider.tags'],
  ])('refuses %j, which would have osls patch the stage after deploy', async (provider, name) => {
    // Prepare
    const { default: OperationsPlugin } = (await import(PLUGIN)) as { default: PluginClass };
    const plugin = new OperationsPlugin(
      { service: { service: 'portal-service-api', provider, custom: {} } },
      {},
      { log: { verbose: () => undefined } },
    );

    // Act
    const added = plugin.addOperations();

    // Assess
    await expect(added).rejects.toThrow(`${name}: the stage is ApiGatewayStage in the template`);
  });
});

describe('tools/serverless/operations.js: stack tags', () => {
  it('resolves the stack tags from STACK_TAGS for custom.operations', async () => {
    const result = await run(
      [
        SERVERLESS,
        'print',
        '--stage',
        'production',
        '--region',
        'eu-west-1',
        '--path',
        'custom.operations.stackTags',
        '--format',
        'json',
      ],
      { ...PACKAGING_ENV, ...ENV, STACK_TAGS: 'cost-center=portal-42,owner=team@brand.example' },
    );

    expect({ code: result.code, stderr: result.stderr }).toMatchObject({ code: 0 });
    expect(JSON.parse(result.stdout)).toEqual({
      service: 'portal-service-api',
      stage: 'production',
      'cost-center': 'portal-42',
      owner: 'team@brand.example',
    });
  }, 60_000);

  const require = createRequire(import.meta.url);
  const { getSharedStackActionParams } =
    require('osls/lib/plugins/aws/lib/get-shared-stack-action-params.js') as {
      getSharedStackActionParams: (this: unknown, options: unknown) => { Tags: unknown[] };
    };
  const { updateStage } =
    require('osls/lib/plugins/aws/package/compile/events/api-gateway/lib/hack/update-stage.js') as {
      updateStage: (this: unknown) => Promise<unknown>;
    };

  it('hands CloudFormation the tags while osls creates and updates the stack, and leaves osls nothing to patch after', async () => {
    // Prepare
    const { default: OperationsPlugin } = (await import(PLUGIN)) as { default: PluginClass };
    const provider: Record<string, unknown> = {};
    const service = {
      service: 'portal-service-api',
      provider,
      custom: {
        operations: {
          stackTags: { service: 'portal-service-api', stage: 'production', 'cost-center': 'x' },
        },
      },
    };
    const plugin = new OperationsPlugin({ service }, {}, { log: { verbose: () => undefined } });
    // What osls's deploy calls for the stack's parameters.
    const stackParameters = () =>
      getSharedStackActionParams.call(
        {
          serverless: { service },
          provider: {
            getStage: () => 'production',
            naming: { getStackName: () => 'portal-service-api-production' },
            getCustomDeploymentRole: () => undefined,
          },
        },
        { templateUrl: 'https://bucket.example/template.json' },
      );

    // Act
    await plugin.hooks['before:aws:deploy:deploy:createStack']?.();
    const during = stackParameters();
    await plugin.hooks['after:aws:deploy:deploy:updateStack']?.();
    // osls's step after the deploy: it returns at once unless tags, logs, tracing or metrics
    // are set, and otherwise reaches for the SDK, which this context lacks.
    const afterDeploy = updateStage.call({ state: { service: { ...service, provider } } });

    // Assess
    expect(during.Tags).toEqual([
      { Key: 'service', Value: 'portal-service-api' },
      { Key: 'stage', Value: 'production' },
      { Key: 'cost-center', Value: 'x' },
    ]);
    expect(provider).not.toHaveProperty('stackTags');
    await expect(afterDeploy).resolves.toBeNull();
  });
});
