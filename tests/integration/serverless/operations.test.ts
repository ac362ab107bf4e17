/**
 * The packaged template is operable (tools/generators/operations.ts, tools/serverless/operations.js,
 * docs/operations.md). Through a real `serverless package --stage production --region
 * eu-west-1` (offline): the alarms with their thresholds (a changed one from the environment,
 * a regional form, and the topic they notify), the stage the template owns (throttling,
 * tracing, JSON access logs that hold no header, token or query), the Deployment without a
 * StageName and depending on the gateway responses, one `live` alias per function and every
 * integration and permission on it, X-Ray on the functions with the role allowed to write
 * traces; the web ACL on the stage, CodeDeploy's canary on each alias with the alarms as
 * rollback triggers, the custom domain and its outputs; cfn-lint passes when it is on PATH. A bad setting fails packaging naming the variable,
 * and the plugin refuses the osls settings that would make osls patch the stage after deploy.
 */
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { catalogue } from '../../../shared/catalogue';
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
import { OPERATIONS_VARIABLES } from '../../../tools/generators/operations';
import { lambdaLogicalId } from '../../../tools/generators/serverless';
import { stagedNames, unstagedNames } from '../../../tools/generators/variables';

const TOPIC = 'arn:aws:sns:eu-west-1:123456789012:portal-production-alarms';
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
  it('alarms on the 5xx rate and count, p99 latency, throttles, key-set failures, database errors and each new version, notifying the topic', async () => {
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
    });
    for (const alarm of Object.values(alarms)) {
      expect(alarm).toMatchObject({ AlarmActions: [TOPIC], OKActions: [TOPIC] });
      expect(alarm.AlarmDescription).toMatch(/docs\/operations\.md#/);
    }
    // Every function's throttles, and the functions publish the metrics the alarms read.
    const throttled = JSON.stringify(alarms.LambdaThrottlesAlarm?.Metrics);
    // The API's functions; the release's hook serves no request.
    const functions = ofType(template, 'AWS::Lambda::Function').filter(
      ([id]) => id !== 'PreTrafficLambdaFunction',
    );
    expect(functions).toHaveLength(catalogue.length);
    for (const [id, fn] of functions) {
      expect(throttled).toContain(JSON.stringify({ Ref: id }));
      expect(fn.Properties.Environment).toMatchObject({
        Variables: {
          METRICS_NAMESPACE: 'PortalServiceApi',
          METRICS_SERVICE: 'portal-service-api-production',
        },
      });
    }
    // Packaging, for every test of the suite.
  }, 120_000);

  it('owns the stage: throttling, tracing and a JSON access log with no header, token or query', async () => {
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
    // Every route of every function, within its reserved concurrency for 500 ms requests.
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
    for (const endpoint of catalogue) {
      const own = routes.filter((route) =>
        endpoint.paths.some((path) => route.ResourcePath === `/${path.replace(/\//g, '~1')}`),
      );
      const needed = own.reduce(
        (sum, route) =>
          sum + Number(route.ThrottlingBurstLimit) + Number(route.ThrottlingRateLimit) * 0.5,
        0,
      );
      expect(needed).toBeLessThanOrEqual(10);
      expect(needed).toBeGreaterThan(5);
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
    const responses = ofType(template, 'AWS::ApiGateway::GatewayResponse').map(([id]) => id);
    expect(responses).toHaveLength(5);
    expect(deployment.DependsOn).toEqual(expect.arrayContaining(responses));

    // X-Ray on every function, and the role may write the traces.
    for (const [, fn] of ofType(template, 'AWS::Lambda::Function')) {
      expect(fn.Properties.TracingConfig).toEqual({ Mode: 'Active' });
    }
    expect(JSON.stringify(template.Resources.IamRoleLambdaExecution)).toContain(
      '"xray:PutTraceSegments","xray:PutTelemetryRecords"',
    );
  });

  it('has API Gateway call a live alias of each function, on the version it publishes', async () => {
    const { template } = await productionPackage();

    const functions = ofType(template, 'AWS::Lambda::Function')
      .map(([id]) => id)
      .filter((id) => id !== 'PreTrafficLambdaFunction');
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
    const permissions = ofType(template, 'AWS::Lambda::Permission');
    expect(permissions).toHaveLength(functions.length);
    for (const [, permission] of permissions) {
      expect(aliasIds).toContain((permission.Properties.FunctionName as { Ref?: string }).Ref);
    }
  });

  it('puts a regional web ACL with the per-client rate rule on the stage', async () => {
    const { template } = await productionPackage();

    const [[aclId, acl] = ['', { Type: '', Properties: {} }]] = ofType(
      template,
      'AWS::WAFv2::WebACL',
    );
    expect(acl.Properties).toMatchObject({
      Scope: 'REGIONAL',
      Rules: [
        {
          Statement: {
            RateBasedStatement: { Limit: 1000, AggregateKeyType: 'IP', EvaluationWindowSec: 300 },
          },
        },
      ],
    });
    const associations = ofType(template, 'AWS::WAFv2::WebACLAssociation');
    expect(associations).toHaveLength(1);
    const association = JSON.stringify(associations[0]?.[1].Properties);
    expect(association).toContain(JSON.stringify({ 'Fn::GetAtt': [aclId, 'Arn'] }));
    expect(association).toContain('/stages/${ApiGatewayStage}');
  });

  it('shifts each live alias by CodeDeploy’s canary after the pre-traffic check, rolled back by its new version’s alarm', async () => {
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
          Events: ['DEPLOYMENT_FAILURE', 'DEPLOYMENT_STOP_ON_ALARM'],
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
