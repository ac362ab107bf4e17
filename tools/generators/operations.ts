/**
 * What makes the packaged CloudFormation operable (docs/operations.md), added to the template
 * osls compiles by the local plugin tools/serverless/operations.js:
 *
 * - **Alarms** on the API's 5xx rate and p99 latency, the functions' throttles, and the key-set
 *   failures and database errors the functions publish as Embedded Metric Format metrics.
 * - **The stage**, owned by this template (`AWS::ApiGateway::Stage`) rather than made implicitly
 *   by the Deployment: per-stage throttling, X-Ray tracing, and JSON access logs to a log group
 *   of this stack.
 * - **Releases** through a `live` alias per function: API Gateway calls the alias, which points
 *   at the version this deployment published, so a release is rolled back by moving the alias;
 *   with DEPLOYMENT_PREFERENCE, CodeDeploy shifts it gradually (tools/generators/deployment.ts).
 * - **Tags** (`service`, `stage` and STACK_TAGS) on every taggable resource (tools/generators/tags.ts).
 * - **A per-client limit**, a regional WAF web ACL on the stage (tools/generators/waf.ts), and an optional
 *   **custom domain** (tools/generators/domain.ts).
 *
 * The settings are read when packaging (tools/serverless/operations-settings.cjs) and checked
 * here: a bad value fails packaging with a message naming the variable it came from.
 */
import {
  assumedBy,
  isArnOf,
  refOf,
  resourcesOfType,
  single,
  type Resource,
  type Template,
} from './cloudformation';
import { choiceSetting, fail, type RawSetting } from './settings';
import { booleanOf, NO_TOPIC, numberOf } from './settings-check';
import { settingEntry } from './registry';
import {
  hasPreTrafficHook,
  PRE_TRAFFIC_LOGICAL_ID,
  preTrafficHook,
  withoutPreTrafficHook,
} from './pre-traffic';
import { RELEASE_MIN_REQUESTS, releaseAlarmLogicalId, releaseAlarms } from './release-alarms';
import { methodSettingsPath, routesOf, routeThrottles } from './throttles';

import { DEPLOYMENT_PREFERENCES, gradualDeployment, type DeploymentPreference } from './deployment';
import { customDomain, domainSettings, type DomainSettings } from './domain';
import { serviceTags, stackTagsSetting, withTags } from './tags';
import { WAF_RATE_RULE, wafBlockedMetric, webAcl, type WafSettings } from './waf';
import { dashboardUrl, operationsDashboard } from './dashboard';
import {
  HEARTBEAT_ALARM_LOGICAL_ID,
  HEARTBEAT_LOGICAL_ID,
  HEARTBEAT_MINUTES,
  hasHeartbeat,
  heartbeatChecks,
  withoutHeartbeat,
} from './heartbeat';

export type { Resource, Template } from './cloudformation';
export type { RawSetting } from './settings';

/** The settings packaging reads, each an environment variable or serverless param. */
export const OPERATIONS_VARIABLES = [
  'ALARMS',
  'ALARM_TOPIC_ARN',
  'ALARM_NOTICE_TOPIC_ARN',
  'ALARM_5XX_RATE',
  'ALARM_5XX_COUNT',
  'ALARM_RELEASE_ERRORS',
  'ALARM_4XX_RATE',
  'ALARM_MIN_REQUESTS',
  'ALARM_P99_LATENCY_MS',
  'ALARM_THROTTLES',
  'ALARM_KEY_SET_FAILURES',
  'ALARM_DATABASE_ERRORS',
  'ALARM_WAF_BLOCKED',
  'TRACING',
  'API_THROTTLE_RATE',
  'API_THROTTLE_BURST',
  'API_ROUTE_DURATION_MS',
  'API_ROUTE_RATE',
  'API_GATEWAY_CLOUDWATCH_ROLE',
  'METRICS_NAMESPACE',
  'WAF',
  'WAF_RATE_LIMIT',
  'DEPLOYMENT_PREFERENCE',
  'DOMAIN_NAME',
  'DOMAIN_CERTIFICATE_ARN',
  'STACK_TAGS',
] as const;
export type OperationsVariable = (typeof OPERATIONS_VARIABLES)[number];

export type RawOperationsSettings = Readonly<Record<OperationsVariable, RawSetting>>;

/** A stage's throttling: the steady rate (requests per second) and the burst (requests). */
export interface Throttle {
  readonly rate: number;
  readonly burst: number;
}
/**
 * The alarms clients can drive (4xx answers, throttles, the web ACL's blocks), by name after
 * `<service>-<stage>-`: they page, but neither roll a release back nor stop a release's bake.
 */
export const CLIENT_DRIVEN_ALARMS: readonly string[] = ['api-4xx-rate', 'throttles', 'waf-blocked'];

/** Whether the alarm `alarmName` of `<service>-<stage>` (`prefix`) is one clients can drive. */
export const isClientDriven = (alarmName: string, prefix: string): boolean => {
  const rest = alarmName.startsWith(prefix) ? alarmName.slice(prefix.length) : '';
  return CLIENT_DRIVEN_ALARMS.some((name) => rest === name || rest.startsWith(`${name}-`));
};

export { NO_TOPIC } from './settings-check';
export const METRICS_NAMESPACE_DEFAULT = settingEntry('METRICS_NAMESPACE').default;
/** The alias API Gateway calls. */
export const LIVE_ALIAS = 'live';

export interface AlarmSettings {
  readonly enabled: boolean;
  /** The SNS topic the paging alarms tell of every change to ALARM and back to OK, if any. */
  readonly topicArn?: string;
  /** ALARM_NOTICE_TOPIC_ARN: what the client-driven alarms notify; unset: nobody. */
  readonly noticeTopicArn?: string;
  readonly fiveXxRate: number;
  /** 5xx answers in five minutes that page at any traffic. */
  readonly fiveXxCount: number;
  /** A new version’s failed requests in three minutes that roll its release back. */
  readonly releaseErrors: number;
  /** The share of 4xx answers (every request a 401: a wrong issuer or key-set URL). */
  readonly fourXxRate: number;
  /** Requests in five minutes below which the rate and latency alarms judge nothing. */
  readonly minRequests: number;
  readonly p99LatencyMs: number;
  readonly throttles: number;
  readonly keySetFailures: number;
  readonly databaseErrors: number;
  /** Requests the web ACL's per-client rule blocked in five minutes. */
  readonly wafBlocked: number;
}

export interface OperationsSettings {
  readonly stage: string;
  readonly region: string;
  readonly alarms: AlarmSettings;
  /** X-Ray on the functions (provider.tracing.lambda) and on the stage. */
  readonly tracing: boolean;
  readonly throttle: Throttle;
  /** The longest a request holds its container (a cold start's answer): throttles.ts. */
  readonly routeDurationMs: number;
  /** Requests per second each route serves (API_ROUTE_RATE): throttles.ts. */
  readonly routeRate: number;
  /** A guarded stage (custom.stages): retained log groups, a topic required. */
  readonly guarded: boolean;
  /**
   * `existing`: the account's API Gateway CloudWatch role is set already (once per account and
   * region); `create`: this stack creates a role and sets it on the account.
   */
  readonly cloudWatchRole: 'existing' | 'create';
  readonly metricsNamespace: string;
  /** The regional web ACL with its per-client rate rule (tools/generators/waf.ts). */
  readonly waf: WafSettings;
  /** How a new version reaches the `live` alias (tools/generators/deployment.ts). */
  readonly deploymentPreference: DeploymentPreference;
  /** The stage's custom domain, if any (tools/generators/domain.ts). */
  readonly domain?: DomainSettings;
  /** The brand's tags, beside `service` and `stage` (tools/generators/tags.ts). */
  readonly tags: Readonly<Record<string, string>>;
}

const TOPIC_ARN = /^arn:aws(-[a-z]+)*:sns:([a-z0-9-]+):(\d{12}):([A-Za-z0-9_-]{1,256})$/;

/**
 * The topic the alarms notify: none when unset, or when a guarded stage says NO_TOPIC
 * (settings-check.ts refuses or warns of both).
 */
const topicSetting = (
  { variable, value }: RawSetting,
  region: string,
  guarded: boolean,
): string | undefined => {
  if (value === NO_TOPIC && guarded) return undefined;
  if (value === '') return undefined;
  const match = TOPIC_ARN.exec(value);
  if (!match) {
    return fail(
      variable,
      `is "${value}": expected a standard SNS topic ARN, arn:aws:sns:${region}:<account>:<topic>`,
    );
  }
  if (match[2] !== region) {
    return fail(
      variable,
      `names a topic in ${String(match[2])}: an alarm of ${region} can only notify a topic of ${region}`,
    );
  }
  return value;
};

const namespaceSetting = ({ variable, value }: RawSetting): string => {
  if (value === '') return METRICS_NAMESPACE_DEFAULT;
  if (!/^[A-Za-z0-9.\-_/#:]{1,255}$/.test(value) || value.startsWith('AWS/')) {
    return fail(
      variable,
      `is "${value}": expected a CloudWatch namespace (letters, digits, . - _ / # :), not AWS/…`,
    );
  }
  return value;
};

/**
 * The operations settings of `stage` in `region`, from `raw` as tools/generators/settings-check.ts
 * read them (each with its stage's or the registry's default folded in), checked: throws a
 * TypeError naming the variable of the first bad value.
 */
export const operationsSettings = (
  raw: RawOperationsSettings,
  { stage, region, guarded }: { stage: string; region: string; guarded: boolean },
): OperationsSettings => {
  const number = (name: OperationsVariable) => numberOf({ ...raw[name], source: 'variable' }, name);
  const on = (name: OperationsVariable) => booleanOf({ ...raw[name], source: 'variable' }, name);
  const role = choiceSetting(raw.API_GATEWAY_CLOUDWATCH_ROLE, ['existing', 'create'], 'existing');
  const alarmsOn = on('ALARMS');
  const topicArn = alarmsOn ? topicSetting(raw.ALARM_TOPIC_ARN, region, guarded) : undefined;
  const noticeTopicArn = alarmsOn
    ? topicSetting(raw.ALARM_NOTICE_TOPIC_ARN, region, false)
    : undefined;
  const domain = domainSettings(raw, region);
  return {
    stage,
    region,
    alarms: {
      enabled: alarmsOn,
      ...(topicArn === undefined ? {} : { topicArn }),
      ...(noticeTopicArn === undefined ? {} : { noticeTopicArn }),
      fiveXxRate: number('ALARM_5XX_RATE'),
      fiveXxCount: number('ALARM_5XX_COUNT'),
      releaseErrors: number('ALARM_RELEASE_ERRORS'),
      fourXxRate: number('ALARM_4XX_RATE'),
      minRequests: number('ALARM_MIN_REQUESTS'),
      p99LatencyMs: number('ALARM_P99_LATENCY_MS'),
      throttles: number('ALARM_THROTTLES'),
      keySetFailures: number('ALARM_KEY_SET_FAILURES'),
      databaseErrors: number('ALARM_DATABASE_ERRORS'),
      wafBlocked: number('ALARM_WAF_BLOCKED'),
    },
    tracing: on('TRACING'),
    throttle: { rate: number('API_THROTTLE_RATE'), burst: number('API_THROTTLE_BURST') },
    routeDurationMs: number('API_ROUTE_DURATION_MS'),
    routeRate: number('API_ROUTE_RATE'),
    guarded,
    cloudWatchRole: role,
    metricsNamespace: namespaceSetting(raw.METRICS_NAMESPACE),
    waf: { enabled: on('WAF'), rateLimit: number('WAF_RATE_LIMIT') },
    deploymentPreference: choiceSetting(
      raw.DEPLOYMENT_PREFERENCE,
      DEPLOYMENT_PREFERENCES,
      'AllAtOnce',
    ),
    ...(domain === undefined ? {} : { domain }),
    tags: stackTagsSetting(raw.STACK_TAGS),
  };
};

/* ----------------------------------------------------------------------------------------- */
/* The template                                                                               */
/* ----------------------------------------------------------------------------------------- */

/** What the template does not say: the service, and how long its logs are kept. */
export interface ServiceContext {
  /** serverless.yml's `service`. */
  readonly service: string;
  /** provider.logRetentionInDays: the access logs are kept as long as the functions'. */
  readonly logRetentionInDays: number;
}

export const STAGE_LOGICAL_ID = 'ApiGatewayStage';
export const ACCESS_LOG_GROUP_LOGICAL_ID = 'ApiGatewayLogGroup';
export const CLOUDWATCH_ROLE_LOGICAL_ID = 'ApiGatewayCloudWatchRole';
export const ACCOUNT_LOGICAL_ID = 'ApiGatewayAccount';
/** CloudWatch takes at most 10 metrics in one alarm's metric math. */
export const ALARM_METRICS_MAX = 10;

/**
 * The access log line, one JSON object per request: the request id (the functions' `request`
 * lines carry the same `requestId`), the caller's IP, the route as the functions log it (method
 * and resource template: no path id, no query string), the status, the latencies and the
 * gateway's own error type. Never a header, a token, a query string or an authorizer value.
 * `status` and `responseLatency` are numbers (always set); the others may be `-` and are strings.
 */
export const ACCESS_LOG_FORMAT = JSON.stringify({
  requestId: '$context.requestId',
  time: '$context.requestTime',
  ip: '$context.identity.sourceIp',
  route: '$context.httpMethod $context.resourcePath',
  status: '@status@',
  responseLatency: '@responseLatency@',
  integrationLatency: '$context.integrationLatency',
  integrationStatus: '$context.integration.status',
  errorType: '$context.error.responseType',
  responseLength: '$context.responseLength',
  xrayTraceId: '$context.xrayTraceId',
})
  .replace('"@status@"', '$context.status')
  .replace('"@responseLatency@"', '$context.responseLatency');

/** `OrdersPerDayLambdaFunction` → `OrdersPerDayLiveLambdaAlias`. */
export const aliasLogicalId = (functionLogicalId: string): string =>
  `${functionLogicalId.replace(/LambdaFunction$/, '')}LiveLambdaAlias`;

/**
 * One `live` alias per function, on the version this template publishes; every API Gateway
 * integration and invoke permission of the function pointed at the alias instead of $LATEST.
 * Returns the resources to add and replace.
 */
export const liveAliases = (template: Template): Record<string, Resource> => {
  const functions = resourcesOfType(template, 'AWS::Lambda::Function');
  const versions = resourcesOfType(template, 'AWS::Lambda::Version');
  const changed: Record<string, Resource> = {};
  const aliasOf = new Map<string, string>();
  for (const [fn] of functions) {
    // The release's hook is invoked by CodeDeploy, the heartbeat by its schedule: no alias.
    if (fn === PRE_TRAFFIC_LOGICAL_ID || fn === HEARTBEAT_LOGICAL_ID) continue;
    const version = versions.find(([, v]) => refOf(v.Properties?.FunctionName) === fn);
    if (!version) {
      throw new TypeError(
        `${fn} has no AWS::Lambda::Version: the live alias needs provider.versionFunctions (osls's default, true)`,
      );
    }
    const alias = aliasLogicalId(fn);
    aliasOf.set(fn, alias);
    changed[alias] = {
      Type: 'AWS::Lambda::Alias',
      Properties: {
        FunctionName: { Ref: fn },
        FunctionVersion: { 'Fn::GetAtt': [version[0], 'Version'] },
        Name: LIVE_ALIAS,
        Description:
          'What API Gateway calls: the version of the last deployment (docs/operations.md)',
      },
    };
  }
  const aliasFor = (value: unknown): string | undefined =>
    [...aliasOf].find(([fn]) => isArnOf(value, fn))?.[1];

  for (const [id, method] of resourcesOfType(template, 'AWS::ApiGateway::Method')) {
    const integration = method.Properties?.Integration as
      { Type?: string; Uri?: { 'Fn::Join'?: [string, unknown[]] } } | undefined;
    const join = integration?.Uri?.['Fn::Join'];
    if (integration?.Type !== 'AWS_PROXY' || !join) continue;
    const parts = join[1];
    const index = parts.findIndex((part) => aliasFor(part) !== undefined);
    const alias = index === -1 ? undefined : aliasFor(parts[index]);
    if (alias === undefined) continue;
    const uriParts = parts.map((part, i) => (i === index ? { Ref: alias } : part));
    changed[id] = {
      ...method,
      Properties: {
        ...method.Properties,
        Integration: { ...integration, Uri: { 'Fn::Join': [join[0], uriParts] } },
      },
    };
  }
  for (const [id, permission] of resourcesOfType(template, 'AWS::Lambda::Permission')) {
    if (permission.Properties?.Principal !== 'apigateway.amazonaws.com') continue;
    const alias = aliasFor(permission.Properties.FunctionName);
    if (alias === undefined) continue;
    changed[id] = {
      ...permission,
      Properties: { ...permission.Properties, FunctionName: { Ref: alias } },
    };
  }
  return changed;
};

// Execution logs would hold headers and tokens: off, the access log suffices.
const QUIET_METHODS = { LoggingLevel: 'OFF', DataTraceEnabled: false, MetricsEnabled: false };

/**
 * The stage, owned by this template: the Deployment loses its StageName (and depends on the
 * gateway responses, so the first deployment publishes them too); the stage carries the
 * throttling, the tracing and the access logs, to a log group of this stack; with
 * API_GATEWAY_CLOUDWATCH_ROLE=create, the account's CloudWatch role too.
 */
export const ownedStage = (
  template: Template,
  settings: OperationsSettings,
  context: ServiceContext,
): Record<string, Resource> => {
  const [restApiId] = single(template, 'AWS::ApiGateway::RestApi');
  const [deploymentId, deployment] = single(template, 'AWS::ApiGateway::Deployment');
  const gatewayResponses = resourcesOfType(template, 'AWS::ApiGateway::GatewayResponse')
    .filter(([, response]) => refOf(response.Properties?.RestApiId) === restApiId)
    .map(([id]) => id);
  const dependsOn = [deployment.DependsOn ?? []].flat();
  const { StageName: _stageName, ...deploymentProperties } = deployment.Properties ?? {};
  const changed: Record<string, Resource> = {
    [deploymentId]: {
      ...deployment,
      Properties: deploymentProperties,
      DependsOn: [...dependsOn, ...gatewayResponses.filter((id) => !dependsOn.includes(id))],
    },
    [ACCESS_LOG_GROUP_LOGICAL_ID]: {
      Type: 'AWS::Logs::LogGroup',
      Properties: {
        LogGroupName: `/aws/api-gateway/${context.service}-${settings.stage}`,
        RetentionInDays: context.logRetentionInDays,
      },
    },
    [STAGE_LOGICAL_ID]: {
      Type: 'AWS::ApiGateway::Stage',
      Properties: {
        RestApiId: { Ref: restApiId },
        DeploymentId: { Ref: deploymentId },
        StageName: settings.stage,
        TracingEnabled: settings.tracing,
        AccessLogSetting: {
          DestinationArn: { 'Fn::GetAtt': [ACCESS_LOG_GROUP_LOGICAL_ID, 'Arn'] },
          Format: ACCESS_LOG_FORMAT,
        },
        MethodSettings: [
          {
            ResourcePath: '/*',
            HttpMethod: '*',
            ThrottlingRateLimit: settings.throttle.rate,
            ThrottlingBurstLimit: settings.throttle.burst,
            ...QUIET_METHODS,
          },
          // Each route within its function's reserved concurrency (throttles.ts).
          ...routeThrottles(template, settings.routeDurationMs, settings.routeRate).map(
            (route) => ({
              ResourcePath: methodSettingsPath(route.path),
              HttpMethod: route.method,
              ThrottlingRateLimit: route.rate,
              ThrottlingBurstLimit: route.burst,
              ...QUIET_METHODS,
            }),
          ),
        ],
      },
      ...(settings.cloudWatchRole === 'create' ? { DependsOn: [ACCOUNT_LOGICAL_ID] } : {}),
    },
  };
  if (settings.cloudWatchRole === 'create') {
    // Kept when the stack goes: the account setting serves every stage of the region.
    changed[CLOUDWATCH_ROLE_LOGICAL_ID] = {
      Type: 'AWS::IAM::Role',
      DeletionPolicy: 'Retain',
      UpdateReplacePolicy: 'Retain',
      Properties: {
        AssumeRolePolicyDocument: assumedBy('apigateway.amazonaws.com'),
        ManagedPolicyArns: [
          {
            'Fn::Sub':
              'arn:${AWS::Partition}:iam::aws:policy/service-role/AmazonAPIGatewayPushToCloudWatchLogs',
          },
        ],
      },
    };
    changed[ACCOUNT_LOGICAL_ID] = {
      Type: 'AWS::ApiGateway::Account',
      DeletionPolicy: 'Retain',
      UpdateReplacePolicy: 'Retain',
      Properties: { CloudWatchRoleArn: { 'Fn::GetAtt': [CLOUDWATCH_ROLE_LOGICAL_ID, 'Arn'] } },
    };
  }
  return changed;
};

const runbook = (anchor: string) => `Runbook: docs/operations.md#${anchor}`;
const percent = (rate: number) => Number((rate * 100).toPrecision(6));

/** An alarm's actions: tell `topicArn`, if any, of every change to ALARM and back to OK. */
const notifyingTopic = (topicArn: string | undefined) =>
  topicArn ? { AlarmActions: [topicArn], OKActions: [topicArn] } : {};

/** The alarms of the stage, or none when ALARMS is off. */
export const alarms = (
  template: Template,
  settings: OperationsSettings,
  context: ServiceContext,
): Record<string, Resource> => {
  const { alarms: thresholds } = settings;
  if (!thresholds.enabled) return {};
  const [, restApi] = single(template, 'AWS::ApiGateway::RestApi');
  const apiName = restApi.Properties?.Name;
  if (typeof apiName !== 'string') {
    throw new TypeError('the RestApi has no Name: the API Gateway alarms need it (ApiName)');
  }
  const name = `${context.service}-${settings.stage}`;
  // What needs someone now pages; what clients drive is a notice (docs/operations.md, "Alarms").
  const actions = notifyingTopic(thresholds.topicArn);
  const noticeActions = notifyingTopic(thresholds.noticeTopicArn);
  const api = [
    { Name: 'ApiName', Value: apiName },
    { Name: 'Stage', Value: settings.stage },
  ];
  const service = [{ Name: 'Service', Value: name }];
  const apiMetric = (id: string, metricName: string, stat: string) => ({
    Id: id,
    MetricStat: {
      Metric: { Namespace: 'AWS/ApiGateway', MetricName: metricName, Dimensions: api },
      Period: 300,
      Stat: stat,
    },
    ReturnData: false,
  });
  // The share of `metricName` among the requests, 0 below the minimum request count.
  const rateOf = (metricName: string, label: string) => [
    {
      Id: 'rate',
      Expression: `IF(requests >= ${thresholds.minRequests}, FILL(answers, 0) / requests, 0)`,
      Label: label,
      ReturnData: true,
    },
    apiMetric('requests', 'Count', 'Sum'),
    apiMetric('answers', metricName, 'Sum'),
  ];
  const rateEvaluation = { EvaluationPeriods: 3, DatapointsToAlarm: 2 };
  const alarm = (properties: Record<string, unknown>, notify = actions): Resource => ({
    Type: 'AWS::CloudWatch::Alarm',
    Properties: { ActionsEnabled: true, ...notify, ...properties },
  });
  const notice = (properties: Record<string, unknown>): Resource =>
    alarm(properties, noticeActions);

  const result: Record<string, Resource> = {
    ApiGateway5xxRateAlarm: alarm({
      AlarmName: `${name}-api-5xx-rate`,
      AlarmDescription: `More than ${percent(thresholds.fiveXxRate)}% of the API's requests answered 5xx (API Gateway 5XXError over Count, 5 minutes, 2 of 3 periods, judged from ${thresholds.minRequests} requests): callers get INTERNAL_ERROR. First: the access log's 5xx lines (integrationStatus: Lambda's own status, 429 a throttled function; errorType: the gateway response used), then the functions' request failed lines (errorName, errorCode). ${runbook('api-5xx-rate')}`,
      Metrics: rateOf('5XXError', '5xx answers over all requests'),
      ...rateEvaluation,
      Threshold: thresholds.fiveXxRate,
      ComparisonOperator: 'GreaterThanThreshold',
      // No requests, or too few, are no failure: the gate above yields 0 or nothing.
      TreatMissingData: 'notBreaching',
    }),
    ApiGateway5xxCountAlarm: alarm({
      AlarmName: `${name}-api-5xx-count`,
      AlarmDescription: `${thresholds.fiveXxCount} or more of the API's requests answered 5xx in 5 minutes (API Gateway 5XXError), at any traffic: the alarm of a quiet region, where the rate alarm judges nothing below ${thresholds.minRequests} requests. First: as for the 5xx rate. ${runbook('api-5xx-rate')}`,
      Namespace: 'AWS/ApiGateway',
      MetricName: '5XXError',
      Dimensions: api,
      Statistic: 'Sum',
      Period: 300,
      EvaluationPeriods: 1,
      Threshold: thresholds.fiveXxCount,
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
      TreatMissingData: 'notBreaching',
    }),
    ApiGateway4xxRateAlarm: notice({
      AlarmName: `${name}-api-4xx-rate`,
      AlarmDescription: `${percent(thresholds.fourXxRate)}% or more of the API's requests answered 4xx (API Gateway 4XXError over Count, 5 minutes, 2 of 3 periods, judged from ${thresholds.minRequests} requests): most often every token refused with 401, a wrong issuer or key-set URL for the stage and region. First: the functions' request lines by status and code (TOKEN_INVALID, TOKEN_EXPIRED), then JWT_ISSUER_… and JWK_URL_… of this region against the portal's; 429s are the gateway's or the web ACL's limits. ${runbook('api-4xx-rate')}`,
      Metrics: rateOf('4XXError', '4xx answers over all requests'),
      ...rateEvaluation,
      Threshold: thresholds.fourXxRate,
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
      TreatMissingData: 'notBreaching',
    }),
    ApiGatewayP99LatencyAlarm: alarm({
      AlarmName: `${name}-api-p99-latency`,
      AlarmDescription: `The API's p99 latency is over ${thresholds.p99LatencyMs} ms (API Gateway Latency p99 over 5 minutes, 2 of 3 periods, judged from ${thresholds.minRequests} requests). First: the access log's integrationLatency against responseLatency (function or gateway?), then the functions' request lines for the slow route and coldStart, then the database. ${runbook('api-p99-latency')}`,
      Metrics: [
        {
          Id: 'latency',
          Expression: `IF(requests >= ${thresholds.minRequests}, p99, 0)`,
          Label: 'p99 latency (ms)',
          ReturnData: true,
        },
        apiMetric('requests', 'Count', 'Sum'),
        apiMetric('p99', 'Latency', 'p99'),
      ],
      ...rateEvaluation,
      Threshold: thresholds.p99LatencyMs,
      ComparisonOperator: 'GreaterThanThreshold',
      TreatMissingData: 'notBreaching',
    }),
    KeySetFailuresAlarm: alarm({
      AlarmName: `${name}-key-set-failures`,
      AlarmDescription: `${thresholds.keySetFailures} or more key-set fetches failed in 5 minutes (${settings.metricsNamespace} KeySetFailures): new containers cannot verify tokens and answer 401 or 500. First: the key set fetch failed lines, then the key-set URL (JWK_URL_…) from a machine in the functions' network, and the NAT gateway. ${runbook('key-set-failures')}`,
      Namespace: settings.metricsNamespace,
      MetricName: 'KeySetFailures',
      Dimensions: service,
      Statistic: 'Sum',
      Period: 300,
      EvaluationPeriods: 1,
      Threshold: thresholds.keySetFailures,
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
      // The metric is published when a failure happens: no data is no failure.
      TreatMissingData: 'notBreaching',
    }),
    DatabaseErrorsAlarm: alarm({
      AlarmName: `${name}-database-errors`,
      AlarmDescription: `${thresholds.databaseErrors} or more database errors in 5 minutes (${settings.metricsNamespace} DatabaseErrors): requests answer 500. First: the functions' request failed lines (errorName, errorCode: 28P01 a refused password, 53300 too many connections, a timeout), then the database's and the secret's health. ${runbook('database-errors')}`,
      Namespace: settings.metricsNamespace,
      MetricName: 'DatabaseErrors',
      Dimensions: service,
      Statistic: 'Sum',
      Period: 300,
      EvaluationPeriods: 1,
      Threshold: thresholds.databaseErrors,
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
      TreatMissingData: 'notBreaching',
    }),
  };

  if (settings.waf.enabled) {
    result.WafBlockedRequestsAlarm = notice({
      AlarmName: `${name}-waf-blocked`,
      AlarmDescription: `The web ACL's per-client rule blocked ${thresholds.wafBlocked} or more requests in 5 minutes (AWS/WAFV2 BlockedRequests): clients over ${settings.waf.rateLimit} requests in 5 minutes got 429. First: the web ACL's sampled requests (which IPs, which routes); a brand's own office or proxy behind one IP: raise WAF_RATE_LIMIT; a scraper or attack: nothing to do, the rule holds it. ${runbook('waf-blocked')}`,
      ...wafBlockedMetric(name),
      Statistic: 'Sum',
      Period: 300,
      EvaluationPeriods: 1,
      Threshold: thresholds.wafBlocked,
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
      // WAF publishes BlockedRequests only when it blocks.
      TreatMissingData: 'notBreaching',
    });
  }

  const functions = [...routesOf(template).keys()];
  const release = releaseAlarms(template, functions, {
    name,
    namespace: settings.metricsNamespace,
    releaseErrors: thresholds.releaseErrors,
    fiveXxRate: thresholds.fiveXxRate,
    alias: LIVE_ALIAS,
    common: actions,
    description: (fn) =>
      `The version of ${fn} this deployment published is failing: ${thresholds.releaseErrors} or more of its requests failed in 3 minutes, or more than ${percent(thresholds.fiveXxRate)}% of them from ${RELEASE_MIN_REQUESTS} requests (AWS/Lambda Errors by ExecutedVersion through the ${LIVE_ALIAS} alias, and its 5xx answers: ${settings.metricsNamespace} Requests by FunctionName, Version and StatusClass). During a gradual release CodeDeploy moves the alias back on it. First: the function's request failed lines of that version (errorName, errorCode), then what the release changed. ${runbook('release-rollback')}`,
  });
  for (const [id, resource] of Object.values(release)) result[id] = resource;

  // Every function's throttles summed, 10 functions (CloudWatch's limit) to an alarm.
  for (let start = 0; start < functions.length; start += ALARM_METRICS_MAX) {
    const group = functions.slice(start, start + ALARM_METRICS_MAX);
    const suffix = start === 0 ? '' : String(start / ALARM_METRICS_MAX + 1);
    result[`LambdaThrottlesAlarm${suffix}`] = notice({
      AlarmName: `${name}-throttles${suffix ? `-${suffix}` : ''}`,
      AlarmDescription: `${thresholds.throttles} or more invocations refused by Lambda in 5 minutes (AWS/Lambda Throttles, summed over the functions): those requests got the gateway's 503, so its requests lasted longer than API_ROUTE_DURATION_MS, from which its routes' limits are sized. First: which function (Lambda console, Throttles by function), then its p99 duration; set API_ROUTE_DURATION_MS to it, or raise its reserved concurrency within the connection budget. ${runbook('throttles')}`,
      Metrics: [
        {
          Id: 'throttles',
          Expression: 'SUM(METRICS())',
          Label: 'Throttles of every function',
          ReturnData: true,
        },
        ...group.map((fn, index) => ({
          Id: `f${index}`,
          MetricStat: {
            Metric: {
              Namespace: 'AWS/Lambda',
              MetricName: 'Throttles',
              Dimensions: [{ Name: 'FunctionName', Value: { Ref: fn } }],
            },
            Period: 300,
            Stat: 'Sum',
          },
          ReturnData: false,
        })),
      ],
      EvaluationPeriods: 1,
      Threshold: thresholds.throttles,
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
      // Lambda publishes Throttles only when it throttles: no data is none.
      TreatMissingData: 'notBreaching',
    });
  }
  return result;
};

/**
 * `template` with everything above: a new template, `template` itself left as it was.
 * Throws a TypeError when the template lacks what the additions need (one REST API, one
 * Deployment, a version per function).
 */
export const withOperations = (
  compiled: Template,
  settings: OperationsSettings,
  context: ServiceContext,
): Template => {
  const name = `${context.service}-${settings.stage}`;
  const gradual = settings.deploymentPreference !== 'AllAtOnce';
  const released =
    gradual || !hasPreTrafficHook(compiled) ? compiled : withoutPreTrafficHook(compiled);
  const beating = settings.alarms.enabled && hasHeartbeat(released);
  const template = beating || !hasHeartbeat(released) ? released : withoutHeartbeat(released);
  const added = {
    ...liveAliases(template),
    ...ownedStage(template, settings, context),
  };
  const heartbeat = beating
    ? heartbeatChecks(
        { ...template, Resources: { ...template.Resources, ...added } },
        {
          name,
          namespace: settings.metricsNamespace,
          actions: notifyingTopic(settings.alarms.topicArn),
          description: `The heartbeat found a live version failing, or did not run, ${HEARTBEAT_MINUTES} minutes running (${settings.metricsNamespace} Heartbeat, Minimum below 1, missing data breaching): with no traffic at all, a function cannot reach its database or its key set, and would answer 500 or 401 to everyone. First: the heartbeat's heartbeat check failed lines (function, cause), then the function's pre-traffic check lines. ${runbook('heartbeat')}`,
        },
      )
    : {};
  const dashboardLink = ` Dashboard: ${dashboardUrl(name, settings.region)}`;
  const { [HEARTBEAT_ALARM_LOGICAL_ID]: heartbeatAlarm, ...heartbeatFunction } = heartbeat;
  const alarmResources: Record<string, Resource> = Object.fromEntries(
    Object.entries({
      ...alarms(template, settings, context),
      ...(heartbeatAlarm ? { [HEARTBEAT_ALARM_LOGICAL_ID]: heartbeatAlarm } : {}),
    }).map(([id, alarm]) => [
      id,
      {
        ...alarm,
        Properties: {
          ...alarm.Properties,
          AlarmDescription: `${String(alarm.Properties?.AlarmDescription)}${dashboardLink}`,
        },
      },
    ]),
  );
  const withAliases = { ...template, Resources: { ...template.Resources, ...added } };
  const restApiId = single(template, 'AWS::ApiGateway::RestApi')[0];
  const domain = customDomain(settings.domain, { restApiId, stageId: STAGE_LOGICAL_ID });
  const resources: Record<string, Resource> = {
    ...withAliases.Resources,
    ...heartbeatFunction,
    ...alarmResources,
    ...webAcl(settings.waf, {
      name,
      restApiId,
      stageId: STAGE_LOGICAL_ID,
    }),
    ...domain.resources,
    ...operationsDashboard({
      name,
      region: settings.region,
      apiName: String(template.Resources[restApiId]?.Properties?.Name),
      stage: settings.stage,
      namespace: settings.metricsNamespace,
      functionNames: [...routesOf(template).keys()].map((fn) =>
        String(template.Resources[fn]?.Properties?.FunctionName),
      ),
      ...(settings.waf.enabled ? { waf: { name, rule: WAF_RATE_RULE } } : {}),
      alarmNames: Object.values(alarmResources).map((alarm) => String(alarm.Properties?.AlarmName)),
    }),
    ...gradualDeployment(withAliases, settings.deploymentPreference, {
      name,
      // Each release on its own version's signal only: never on what clients can drive.
      rollbackAlarmOf: (fn) => {
        const id = releaseAlarmLogicalId(fn);
        return Object.hasOwn(alarmResources, id) ? id : undefined;
      },
    }),
  };
  if (gradual && hasPreTrafficHook(template)) {
    Object.assign(
      resources,
      preTrafficHook({ Resources: resources }, routesOf(template), { name }),
    );
  }
  if (settings.guarded) {
    // The logs outlive the stack: deleting production keeps what it recorded.
    for (const [id, group] of resourcesOfType({ Resources: resources }, 'AWS::Logs::LogGroup')) {
      resources[id] = { ...group, DeletionPolicy: 'Retain', UpdateReplacePolicy: 'Retain' };
    }
  }
  const tags = serviceTags(context.service, settings.stage, settings.tags);
  return {
    ...template,
    Outputs: { ...template.Outputs, ...domain.outputs },
    Resources: { ...resources, ...withTags(resources, tags, settings.region) },
  };
};
