/**
 * The operations settings of a stage: what packaging reads (tools/serverless/operations-settings.cjs)
 * and checks here, a bad value failing packaging with a message naming the variable it came from.
 */
import { metricsNamespaceProblem } from '../../../shared/metrics';
import { DEPLOYMENT_PREFERENCES, type DeploymentPreference } from '../deployment';
import { domainSettings, type DomainSettings } from '../domain';
import { settingEntry } from '../registry';
import { choiceSetting, fail, type RawSetting } from '../settings';
import { booleanOf, NO_TOPIC, numberOf } from '../settings-check';
import { stackTagsSetting } from '../tags';
import { type WafSettings } from '../waf';

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

export const METRICS_NAMESPACE_DEFAULT = settingEntry('METRICS_NAMESPACE').default;

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
  const problem = metricsNamespaceProblem(value);
  return problem === undefined ? value : fail(variable, `is "${value}": it ${problem}`);
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

/** What the template does not say: the service, and how long its logs are kept. */
export interface ServiceContext {
  /** serverless.yml's `service`. */
  readonly service: string;
  /** provider.logRetentionInDays: the access logs are kept as long as the functions'. */
  readonly logRetentionInDays: number;
}
