/**
 * Every setting a brand sets when packaging or deploying, in one table: its type and range, its
 * default, where it goes, whether it is bound to one stage or one region, and whether it is a
 * secret. tools/generators/settings-check.ts reads them all, in the documented precedence
 * (tools/generators/variables.ts), for every resolver of tools/serverless/ and for
 * `npm run package -- --check`; docs/configuration.md's table is generated from it
 * (tools/generators/settings-doc.ts). A stage's own defaults are serverless.yml's
 * `custom.stages.<stage>.settings` (tools/generators/stages.ts), over the defaults here.
 *
 * The functions' own limits (shared/settings.ts) are the ones shared/config.ts enforces in every
 * container: the function settings below take their range and default from there.
 */
import { catalogue } from '../catalogue';
import { FUNCTION_SETTINGS, type FunctionSettingName } from '../../shared/settings';
import { DEPLOYMENT_PREFERENCES } from './deployment';

/** What a setting's value may be. */
export type SettingType =
  | { readonly kind: 'text' }
  | { readonly kind: 'boolean' }
  | {
      readonly kind: 'number';
      readonly min: number;
      readonly max: number;
      /** Whole numbers only. */
      readonly whole: boolean;
    }
  | { readonly kind: 'choice'; readonly choices: readonly string[] };

/**
 * Where a setting goes: `functions`, every function's environment (shared/config.ts checks it
 * again at initialisation); `template`, the CloudFormation packaging writes; `release`,
 * `npm run deploy` only.
 */
export type SettingTarget = 'functions' | 'template' | 'release';

export interface SettingEntry {
  readonly name: string;
  readonly type: SettingType;
  /** The default when neither a variable nor the stage's table sets it; '' for none. */
  readonly default: string;
  readonly target: SettingTarget;
  /**
   * For staging and production, read only from the names carrying the stage: it names one
   * stage's resource, or it can weaken that stage's protection.
   */
  readonly stageBound: boolean;
  /** It names a resource of one AWS region: a release of several regions needs the region's name. */
  readonly regionBound: boolean;
  /** Never repeated in a message or a description. */
  readonly secret: boolean;
  /** One line for docs/configuration.md. */
  readonly summary: string;
}

const text = { kind: 'text' } as const;
const boolean = { kind: 'boolean' } as const;
const whole = (min: number, max: number): SettingType => ({
  kind: 'number',
  min,
  max,
  whole: true,
});
const decimal = (min: number, max: number): SettingType => ({
  kind: 'number',
  min,
  max,
  whole: false,
});
const choice = (...choices: string[]): SettingType => ({ kind: 'choice', choices });
const COUNT = whole(1, 1_000_000);

type Options = Partial<Omit<SettingEntry, 'name' | 'type' | 'summary'>>;
const entry = (name: string, type: SettingType, summary: string, options: Options = {}) => ({
  name,
  type,
  summary,
  default: '',
  target: 'template' as SettingTarget,
  stageBound: false,
  regionBound: false,
  secret: false,
  ...options,
});

/** A function setting, its type and default as shared/config.ts reads it. */
const fn = (name: FunctionSettingName, summary: string, options: Options = {}): SettingEntry => {
  const limits = FUNCTION_SETTINGS[name];
  const type: SettingType =
    'choices' in limits
      ? choice(...limits.choices)
      : 'min' in limits
        ? whole(limits.min, limits.max)
        : 'boolean' in limits
          ? boolean
          : text;
  return entry(name, type, summary, {
    target: 'functions',
    default: 'default' in limits ? String(limits.default) : '',
    ...options,
  });
};

/** `ordersPerDay` → `RESERVED_CONCURRENCY_ORDERS_PER_DAY`. */
export const reservedConcurrencyVariable = (fnName: string): string =>
  `RESERVED_CONCURRENCY_${fnName.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toUpperCase()}`;

export const SETTINGS: readonly SettingEntry[] = [
  // The functions' environment.
  fn('JWT_AUDIENCE', "a value every token's `aud` must name; unset: any audience", {
    stageBound: true,
  }),
  fn('JWT_CLOCK_TOLERANCE_SECONDS', 'skew allowed on `exp`, `nbf` and `iat`'),
  fn('JWT_MAX_AGE', 'the oldest `iat` accepted, in seconds; unset: any age'),
  fn('LEGACY_PLATFORM_KEYS', '`LEGACY_KEY=PLATFORM_ID,…`, the legacy keys of spec 2.3', {
    stageBound: true,
  }),
  fn('LEGACY_PLATFORM_KEYS_SUNSET', 'their last day, YYYY-MM-DD, UTC, inclusive', {
    stageBound: true,
  }),
  fn('LOG_LEVEL', 'the functions’ log level'),
  fn('DATABASE_URL', 'the connection string; beside a secret, only where to connect', {
    stageBound: true,
    secret: true,
  }),
  fn('DATABASE_SECRET_ARN', 'the Secrets Manager secret holding the user and password', {
    stageBound: true,
    regionBound: true,
  }),
  fn('DB_SECRET_TIMEOUT_MS', 'one read of the secret, retries included'),
  fn('DB_POOL_MAX', 'connections per container'),
  fn('DB_STATEMENT_TIMEOUT_MS', 'plus 0.5 s, a query’s own deadline'),
  fn('DB_STATEMENT_TIMEOUT_VIA', '`role` behind a proxy'),
  fn('DB_PROXY_QUEUE_MS', 'added to that deadline: the wait in a proxy’s queue'),
  fn('DB_CONNECT_TIMEOUT_SECONDS', 'the TCP connect, and again the startup and login'),
  fn('DB_PREPARE', '`false` behind a transaction-pooling proxy'),
  fn('DB_TLS', 'TLS to the database', {
    stageBound: true,
  }),
  fn('DB_CA', 'the CAs trusted: `rds`, `rds-proxy`, `node` or a PEM file', {
    stageBound: true,
  }),
  fn('METRICS_NAMESPACE', 'of the metrics and their alarms; not `AWS/…`'),
  // The template.
  entry('DATABASE_SECRET_KMS_KEY_ARN', text, 'the customer-managed KMS key of the secret, if any', {
    stageBound: true,
    regionBound: true,
  }),
  entry('SECRETS_EXTENSION_LAYER_ARN', text, 'the secrets extension’s layer where none is known', {
    regionBound: true,
  }),
  entry('VPC_SUBNET_IDS', text, 'subnets, comma-separated, with the security groups', {
    stageBound: true,
    regionBound: true,
  }),
  entry('VPC_SECURITY_GROUP_IDS', text, 'security groups, comma-separated', {
    stageBound: true,
    regionBound: true,
  }),
  entry(
    'RESERVED_CONCURRENCY',
    whole(1, 1000),
    'each function’s reserved concurrency; unset: what its routes’ `API_ROUTE_RATE` can fill',
  ),
  ...catalogue.map(({ function: name }) =>
    entry(reservedConcurrencyVariable(name), whole(1, 1000), `${name}’s own`),
  ),
  entry('DB_MAX_CONNECTIONS', COUNT, 'the connection budget; unset: not checked', {
    stageBound: true,
  }),
  entry('ALARMS', boolean, 'the alarms', { stageBound: true, default: 'false' }),
  entry('ALARM_TOPIC_ARN', text, 'the SNS topic the alarms notify, or `none-unsafe`', {
    stageBound: true,
    regionBound: true,
  }),
  entry(
    'ALARM_NOTICE_TOPIC_ARN',
    text,
    'the SNS topic of the client-driven alarms (4xx rate, throttles, WAF blocks); unset: the dashboard only',
    { stageBound: true, regionBound: true },
  ),
  entry('ALARM_5XX_RATE', decimal(0.001, 1), 'share of 5xx answers', {
    stageBound: true,
    default: '0.05',
  }),
  entry('ALARM_5XX_COUNT', COUNT, '5xx answers in 5 minutes, at any traffic', {
    stageBound: true,
    default: '5',
  }),
  entry('ALARM_RELEASE_ERRORS', COUNT, 'a new version’s failures in 3 minutes', {
    stageBound: true,
    default: '3',
  }),
  entry('ALARM_4XX_RATE', decimal(0.01, 1), 'share of 4xx answers', {
    stageBound: true,
    default: '0.5',
  }),
  entry('ALARM_MIN_REQUESTS', COUNT, 'requests in 5 minutes below which rates judge nothing', {
    stageBound: true,
    default: '50',
  }),
  entry('ALARM_P99_LATENCY_MS', whole(1, 29_000), 'the API’s p99 latency', {
    stageBound: true,
    default: '3000',
  }),
  entry('ALARM_THROTTLES', COUNT, 'Lambda throttles in 5 minutes', {
    stageBound: true,
    default: '1',
  }),
  entry('ALARM_KEY_SET_FAILURES', COUNT, 'failed key-set fetches in 5 minutes', {
    stageBound: true,
    default: '3',
  }),
  entry('ALARM_DATABASE_ERRORS', COUNT, 'database errors in 5 minutes', {
    stageBound: true,
    default: '5',
  }),
  entry('ALARM_WAF_BLOCKED', COUNT, 'requests the web ACL blocked in 5 minutes', {
    stageBound: true,
    default: '100',
  }),
  entry('TRACING', boolean, 'X-Ray on the functions and the stage', {
    stageBound: true,
    default: 'true',
  }),
  entry('API_THROTTLE_RATE', decimal(1, 10_000), 'the stage’s requests per second', {
    stageBound: true,
    default: '20',
  }),
  entry('API_THROTTLE_BURST', whole(1, 5000), 'the stage’s burst', {
    stageBound: true,
    default: '40',
  }),
  entry('API_ROUTE_RATE', decimal(0.1, 5000), 'requests per second each route serves', {
    stageBound: true,
    default: '2',
  }),
  entry('API_ROUTE_DURATION_MS', whole(10, 29_000), 'the longest a request holds its container', {
    default: '100',
  }),
  entry('API_GATEWAY_CLOUDWATCH_ROLE', choice('existing', 'create'), 'the account’s role', {
    default: 'existing',
  }),
  entry('WAF', boolean, 'the web ACL’s per-client limit', { stageBound: true, default: 'false' }),
  entry('WAF_RATE_LIMIT', whole(10, 2_000_000_000), 'requests per client in 5 minutes', {
    stageBound: true,
    default: '300',
  }),
  entry(
    'DEPLOYMENT_PREFERENCE',
    choice(...DEPLOYMENT_PREFERENCES),
    "how a new version reaches `live`: `AllAtOnce`, or CodeDeploy's `Canary10Percent<N>Minutes` or `Linear10PercentEvery<N>Minute(s)`",
    { stageBound: true, default: 'AllAtOnce' },
  ),
  entry('DOMAIN_NAME', text, 'a custom domain', { stageBound: true }),
  entry('DOMAIN_CERTIFICATE_ARN', text, 'its ACM certificate, in the region', {
    stageBound: true,
    regionBound: true,
  }),
  entry('STACK_TAGS', text, '`{"key":"value"}` or `key=value,…`'),
  entry('RELEASE_BAKE_MINUTES', decimal(0, 1440), 'the bake between two regions', {
    target: 'release',
    default: '0',
  }),
];

const BY_NAME = new Map(SETTINGS.map((setting) => [setting.name, setting]));

/** The entry of `name`; throws for a name the registry does not hold. */
export const settingEntry = (name: string): SettingEntry => {
  const setting = BY_NAME.get(name);
  if (!setting) throw new TypeError(`${name} is not a setting of tools/generators/registry.ts`);
  return setting;
};

/** The names of the settings that go to every function's environment, in registry order. */
export const FUNCTION_ENVIRONMENT: readonly string[] = SETTINGS.filter(
  ({ target }) => target === 'functions',
).map(({ name }) => name);
