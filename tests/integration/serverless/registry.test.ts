/**
 * Every setting of tools/generators/registry.ts, in each spelling carrying the stage
 * (`<NAME>_PRODUCTION_EU_WEST_1`, `<NAME>_PRODUCTION`), takes effect: found in the template
 * `serverless package` writes for production in eu-west-1, or, where a value cannot show there
 * beside the others (a switch that removes what other settings shape, a check's limit), in what
 * the resolver of tools/serverless/ gives packaging, or refused naming the variable. A setting
 * added to the registry without a probe here fails the first test.
 */
import { bakeMinutes } from '../../../tools/release/bake';
import { lambdaLogicalId } from '../../../tools/generators/serverless';
import { reservedConcurrencyVariable, SETTINGS } from '../../../tools/generators/registry';
import { stagedNames, unstagedNames } from '../../../tools/generators/variables';
import { catalogue } from '../../../tools/catalogue';
import {
  expectPackaged,
  ofType,
  packageService,
  PACKAGING_ENV,
  removeTemporary,
  type Resource,
  type Template,
} from '../../support/packaging';
import { resolverOf } from '../../support/resolvers';

afterAll(removeTemporary);

const SCOPE = { stage: 'production', region: 'eu-west-1', portal: true };
const SPELLINGS = [
  ['<NAME>_PRODUCTION_EU_WEST_1', (name: string) => `${name}_PRODUCTION_EU_WEST_1`],
  ['<NAME>_PRODUCTION', (name: string) => `${name}_PRODUCTION`],
] as const;

/** Every variable a setting may be read from, unset unless a test sets it. */
const EVERY_NAME = [
  'JWKS_URL',
  'JWT_ISSUER',
  ...SETTINGS.flatMap(({ name }) => [...stagedNames(name, SCOPE), ...unstagedNames(name, SCOPE)]),
];
const UNSET = Object.fromEntries(EVERY_NAME.map((name) => [name, '']));
/** Production's key set and issuer, named per portal region: no registry setting. */
const PORTAL = {
  JWK_URL_EU_PRODUCTION: PACKAGING_ENV.JWK_URL_EU_PRODUCTION ?? '',
  JWT_ISSUER_EU_PRODUCTION: PACKAGING_ENV.JWT_ISSUER_EU_PRODUCTION ?? '',
};

const SECRET = 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:portal/production/db-AbC123';
const KEY = 'arn:aws:kms:eu-west-1:123456789012:key/1234abcd-12ab-34cd-56ef-1234567890ab';
const LAYER =
  'arn:aws:lambda:eu-west-1:123456789012:layer:AWS-Parameters-and-Secrets-Lambda-Extension-Arm64:7';
const TOPIC = 'arn:aws:sns:eu-west-1:123456789012:portal-alarms';
const NOTICES = 'arn:aws:sns:eu-west-1:123456789012:portal-notices';
const CERTIFICATE =
  'arn:aws:acm:eu-west-1:123456789012:certificate/0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0';

const resource = (template: Template, id: string): Resource => {
  const found = template.Resources[id];
  if (!found) throw new Error(`the template holds no ${id}`);
  return found;
};
const dashboard = (template: Template) => resource(template, 'DashboardLambdaFunction').Properties;
const environmentOf = (template: Template) =>
  (dashboard(template).Environment as { Variables: Record<string, unknown> }).Variables;
const threshold = (id: string) => (template: Template) =>
  resource(template, id).Properties.Threshold;
const stageProperties = (template: Template) => resource(template, 'ApiGatewayStage').Properties;
/** `GET /v1/…` → the function each API Gateway method calls, read from the methods themselves. */
const routeFunctions = (template: Template): Map<string, string> => {
  const pathOf = (id: string): string => {
    const { PathPart, ParentId } = resource(template, id).Properties as {
      PathPart: string;
      ParentId: { Ref?: string };
    };
    return `${ParentId.Ref ? pathOf(ParentId.Ref) : ''}/${PathPart}`;
  };
  return new Map(
    ofType(template, 'AWS::ApiGateway::Method').map(([, method]) => {
      const { HttpMethod, ResourceId, Integration } = method.Properties as {
        HttpMethod: string;
        ResourceId: { Ref: string };
        Integration: unknown;
      };
      const fn = /"(\w+)LiveLambdaAlias"/.exec(JSON.stringify(Integration))?.[1] ?? '';
      return [`${HttpMethod} ${pathOf(ResourceId.Ref)}`, `${fn}LambdaFunction`];
    }),
  );
};
/** Each route's rate as the stage writes it, by route. */
const writtenRates = (template: Template) =>
  Object.fromEntries(
    methodSettings(template)
      .slice(1)
      .map((m) => [
        `${String(m.HttpMethod)} ${String(m.ResourcePath).replace(/~1/g, '/').slice(1)}`,
        m.ThrottlingRateLimit,
      ]),
  );
/**
 * Each route's rate for requests of `seconds` and API_ROUTE_RATE `routeRate`, by
 * docs/operations.md's arithmetic for a function of reserved concurrency c serving k routes:
 * `routeRate` where c ≥ ⌈k × (⌈routeRate / 2⌉ + routeRate × seconds)⌉, else what fits, never
 * above it: burst b = max(1, min(⌈routeRate / 2⌉, ⌊c / 2k⌋)), rate (c − k × b) / (k × seconds)
 * to the hundredth.
 */
const ratesFor = (template: Template, seconds: number, routeRate: number) => {
  const routes = [...routeFunctions(template)];
  const burst = Math.max(1, Math.ceil(routeRate / 2));
  return Object.fromEntries(
    routes.map(([route, fn]) => {
      const c = Number(resource(template, fn).Properties.ReservedConcurrentExecutions);
      const k = routes.filter(([, other]) => other === fn).length;
      if (c >= Math.ceil(k * (burst + routeRate * seconds))) return [route, routeRate];
      const b = Math.max(1, Math.min(burst, Math.floor(c / (2 * k))));
      return [route, Math.min(routeRate, Math.floor((100 * (c - k * b)) / (k * seconds)) / 100)];
    }),
  );
};
const methodSettings = (template: Template) =>
  stageProperties(template).MethodSettings as Record<string, unknown>[];

/** A value the template shows, and where. */
interface InTemplate {
  readonly value: string;
  readonly shown: (template: Template) => unknown;
  /** What it shows, or a function working it out from the rest of the template. */
  readonly expected: unknown;
}
/** A value packaging's resolver shows, or refuses. */
interface ByResolver {
  readonly value: string;
  /** Why the template cannot show it beside the other probes. */
  readonly why: string;
  readonly check: (variable: string) => Promise<void>;
}
type Probe = InTemplate | ByResolver;

/** A function setting `name`: the value every function's environment carries. */
const toFunctions = (name: string, value: string, expected: unknown = value): InTemplate => ({
  value,
  shown: (template) => environmentOf(template)[name],
  expected,
});

/** Resolvers called as osls calls them, with production's needs and the probe's variable. */
const resolve = <T>(script: string, variable: string, value: string) =>
  resolverOf<T>(script, EVERY_NAME)(
    { 'sls:stage': 'production', 'self:provider.region': 'eu-west-1', 'self:service': 'svc' },
    {
      ...PORTAL,
      DATABASE_SECRET_ARN_PRODUCTION: SECRET,
      ALARM_TOPIC_ARN_PRODUCTION: TOPIC,
      [variable]: value,
    },
  );

interface OperationsResolved {
  settings: { alarms: { enabled: boolean }; waf: { enabled: boolean } };
}
interface FunctionsResolved {
  reservedConcurrency: Record<string, { Properties: { ReservedConcurrentExecutions: number } }>;
}

const functions = catalogue.map(({ function: fn }) => fn);
const concurrencyOf = (index: number) => String(11 + index);

const PROBES: Readonly<Record<string, Probe>> = {
  JWT_AUDIENCE: toFunctions('JWT_AUDIENCE', 'portal-prod'),
  JWT_CLOCK_TOLERANCE_SECONDS: toFunctions('JWT_CLOCK_TOLERANCE_SECONDS', '7'),
  JWT_MAX_AGE: toFunctions('JWT_MAX_AGE', '3600'),
  LEGACY_PLATFORM_KEYS: toFunctions('LEGACY_PLATFORM_KEYS', 'TBLEGACY_KW=TB_KW'),
  LEGACY_PLATFORM_KEYS_SUNSET: toFunctions('LEGACY_PLATFORM_KEYS_SUNSET', '2027-01-31'),
  LOG_LEVEL: toFunctions('LOG_LEVEL', 'warn'),
  DATABASE_URL: toFunctions('DATABASE_URL', 'postgres://db.example:5432/reports'),
  DATABASE_SECRET_ARN: toFunctions('DATABASE_SECRET_ARN', SECRET),
  DB_SECRET_TIMEOUT_MS: toFunctions('DB_SECRET_TIMEOUT_MS', '1500'),
  DB_POOL_MAX: toFunctions('DB_POOL_MAX', '3'),
  DB_STATEMENT_TIMEOUT_MS: toFunctions('DB_STATEMENT_TIMEOUT_MS', '4000'),
  DB_STATEMENT_TIMEOUT_VIA: toFunctions('DB_STATEMENT_TIMEOUT_VIA', 'role'),
  // Small: the other probes leave 0.5 s of the request budget below the function timeout.
  DB_PROXY_QUEUE_MS: toFunctions('DB_PROXY_QUEUE_MS', '400'),
  DB_CONNECT_TIMEOUT_SECONDS: toFunctions('DB_CONNECT_TIMEOUT_SECONDS', '3'),
  DB_PREPARE: toFunctions('DB_PREPARE', 'false'),
  DB_CA: toFunctions('DB_CA', 'rds-proxy', 'database-ca/rds-proxy.pem'),
  METRICS_NAMESPACE: toFunctions('METRICS_NAMESPACE', 'Brand/Portal'),
  DB_TLS: {
    value: 'require',
    why: 'production verifies the database: verify-full, its default, is the only value it packages',
    check: async (variable) => {
      await expect(
        resolve('tools/serverless/settings-check.cjs', variable, 'require'),
      ).rejects.toThrow(
        `${variable} is "require": stage "production" must verify the database's certificate`,
      );
    },
  },
  DATABASE_SECRET_KMS_KEY_ARN: {
    value: KEY,
    shown: (template) =>
      JSON.stringify(resource(template, 'IamRoleLambdaExecution').Properties).includes(KEY),
    expected: true,
  },
  SECRETS_EXTENSION_LAYER_ARN: {
    value: LAYER,
    shown: (template) => dashboard(template).Layers,
    expected: [LAYER],
  },
  VPC_SUBNET_IDS: {
    value: 'subnet-0123456789abcdef0',
    shown: (template) => (dashboard(template).VpcConfig as { SubnetIds: unknown }).SubnetIds,
    expected: ['subnet-0123456789abcdef0'],
  },
  VPC_SECURITY_GROUP_IDS: {
    value: 'sg-0a1b2c3d4e5f60718',
    shown: (template) =>
      (dashboard(template).VpcConfig as { SecurityGroupIds: unknown }).SecurityGroupIds,
    expected: ['sg-0a1b2c3d4e5f60718'],
  },
  RESERVED_CONCURRENCY: {
    value: '5',
    why: "every function's own value below overrides it in the template",
    check: async (variable) => {
      const { reservedConcurrency } = await resolve<FunctionsResolved>(
        'tools/serverless/functions.cjs',
        variable,
        '5',
      );
      expect(
        Object.values(reservedConcurrency).map(
          ({ Properties }) => Properties.ReservedConcurrentExecutions,
        ),
      ).toEqual(functions.map(() => 5));
    },
  },
  ...Object.fromEntries(
    functions.map((fn, index) => [
      reservedConcurrencyVariable(fn),
      {
        value: concurrencyOf(index),
        shown: (template: Template) =>
          resource(template, lambdaLogicalId(fn)).Properties.ReservedConcurrentExecutions,
        expected: 11 + index,
      },
    ]),
  ),
  DB_MAX_CONNECTIONS: {
    value: '1',
    why: 'a limit packaging checks, not a value it writes: a limit too low is refused',
    check: async (variable) => {
      await expect(resolve('tools/serverless/functions.cjs', variable, '1')).rejects.toThrow(
        `${variable} is 1, but`,
      );
    },
  },
  ALARMS: {
    value: 'false',
    why: 'alarms off would remove what the thresholds below shape',
    check: async (variable) => {
      const { settings } = await resolve<OperationsResolved>(
        'tools/serverless/operations-settings.cjs',
        variable,
        'false',
      );
      expect(settings.alarms.enabled).toBe(false);
    },
  },
  ALARM_TOPIC_ARN: {
    value: TOPIC,
    shown: (template) => resource(template, 'DatabaseErrorsAlarm').Properties.AlarmActions,
    expected: [TOPIC],
  },
  ALARM_NOTICE_TOPIC_ARN: {
    value: NOTICES,
    shown: (template) => resource(template, 'ApiGateway4xxRateAlarm').Properties.AlarmActions,
    expected: [NOTICES],
  },
  ALARM_5XX_RATE: { value: '0.02', shown: threshold('ApiGateway5xxRateAlarm'), expected: 0.02 },
  ALARM_5XX_COUNT: { value: '7', shown: threshold('ApiGateway5xxCountAlarm'), expected: 7 },
  ALARM_RELEASE_ERRORS: {
    value: '4',
    shown: (template) =>
      String(resource(template, 'DashboardReleaseAlarm').Properties.AlarmDescription),
    expected: expect.stringContaining('4 or more of its requests failed') as unknown,
  },
  ALARM_4XX_RATE: { value: '0.6', shown: threshold('ApiGateway4xxRateAlarm'), expected: 0.6 },
  ALARM_MIN_REQUESTS: {
    value: '80',
    shown: (template) => JSON.stringify(resource(template, 'ApiGateway5xxRateAlarm').Properties),
    expected: expect.stringContaining('IF(requests >= 80,') as unknown,
  },
  ALARM_P99_LATENCY_MS: {
    value: '2500',
    shown: threshold('ApiGatewayP99LatencyAlarm'),
    expected: 2500,
  },
  ALARM_THROTTLES: { value: '2', shown: threshold('LambdaThrottlesAlarm'), expected: 2 },
  ALARM_KEY_SET_FAILURES: { value: '4', shown: threshold('KeySetFailuresAlarm'), expected: 4 },
  ALARM_DATABASE_ERRORS: { value: '6', shown: threshold('DatabaseErrorsAlarm'), expected: 6 },
  ALARM_WAF_BLOCKED: { value: '150', shown: threshold('WafBlockedRequestsAlarm'), expected: 150 },
  TRACING: {
    value: 'false',
    shown: (template) => stageProperties(template).TracingEnabled,
    expected: false,
  },
  API_THROTTLE_RATE: {
    value: '150',
    shown: (template) => methodSettings(template)[0]?.ThrottlingRateLimit,
    expected: 150,
  },
  API_THROTTLE_BURST: {
    value: '300',
    shown: (template) => methodSettings(template)[0]?.ThrottlingBurstLimit,
    expected: 300,
  },
  API_ROUTE_DURATION_MS: {
    value: '250',
    // Each route's rate, sized from its function's reserved concurrency for 250 ms requests.
    shown: (template) => writtenRates(template),
    expected: (template: Template) => ratesFor(template, 0.25, 12),
  },
  API_ROUTE_RATE: {
    value: '12',
    // 12 requests/s where the function reserves what it fills, else what fits, never above.
    shown: (template) => writtenRates(template),
    expected: (template: Template) => ratesFor(template, 0.25, 12),
  },
  API_GATEWAY_CLOUDWATCH_ROLE: {
    value: 'create',
    shown: (template) => ofType(template, 'AWS::ApiGateway::Account').length,
    expected: 1,
  },
  WAF: {
    value: 'false',
    why: 'the web ACL off would remove what WAF_RATE_LIMIT shapes',
    check: async (variable) => {
      const { settings } = await resolve<OperationsResolved>(
        'tools/serverless/operations-settings.cjs',
        variable,
        'false',
      );
      expect(settings.waf.enabled).toBe(false);
    },
  },
  WAF_RATE_LIMIT: {
    value: '500',
    shown: (template) => JSON.stringify(resource(template, 'ApiGatewayWebAcl').Properties),
    expected: expect.stringContaining('"Limit":500') as unknown,
  },
  DEPLOYMENT_PREFERENCE: {
    value: 'Linear10PercentEvery1Minute',
    shown: (template) =>
      resource(template, 'DashboardDeploymentGroup').Properties.DeploymentConfigName,
    expected: 'CodeDeployDefault.LambdaLinear10PercentEvery1Minute',
  },
  DOMAIN_NAME: {
    value: 'portal-api.brand.example',
    shown: (template) =>
      ofType(template, 'AWS::ApiGateway::DomainName').map(([, r]) => r.Properties.DomainName),
    expected: ['portal-api.brand.example'],
  },
  DOMAIN_CERTIFICATE_ARN: {
    value: CERTIFICATE,
    shown: (template) =>
      ofType(template, 'AWS::ApiGateway::DomainName').map(
        ([, r]) => r.Properties.RegionalCertificateArn,
      ),
    expected: [CERTIFICATE],
  },
  STACK_TAGS: {
    value: 'cost-center=portal-42',
    shown: (template) => dashboard(template).Tags,
    expected: expect.arrayContaining([{ Key: 'cost-center', Value: 'portal-42' }]) as unknown,
  },
  RELEASE_BAKE_MINUTES: {
    value: '3',
    why: '`npm run deploy` reads it, once per stage: no template holds it',
    check: (variable) => {
      if (variable.endsWith('_EU_WEST_1')) {
        expect(() => bakeMinutes('production', undefined, { [variable]: '3' })).toThrow(
          `${variable} is set, but the bake is one per stage`,
        );
      } else {
        expect(bakeMinutes('production', undefined, { [variable]: '3' })).toBe(3);
      }
      return Promise.resolve();
    },
  },
};

const inTemplate = (probe: Probe): probe is InTemplate => 'shown' in probe;

describe('every setting of the registry', () => {
  it('has a probe here', () => {
    expect(SETTINGS.map(({ name }) => name).filter((name) => !PROBES[name])).toEqual([]);
  });

  describe.each(SPELLINGS)('spelt %s', (_, spell) => {
    let packaged: Promise<Template> | undefined;
    /** Production packaged with every template probe under this spelling, and nothing else. */
    const template = () => {
      packaged ??= packageService({
        env: {
          ...UNSET,
          ...PORTAL,
          ...Object.fromEntries(
            Object.entries(PROBES)
              .filter(([, probe]) => inTemplate(probe))
              .map(([name, probe]) => [spell(name), probe.value]),
          ),
        },
      }).then((result) => {
        expectPackaged(result);
        return result.template();
      });
      return packaged;
    };

    it.each(
      SETTINGS.filter(({ name }) => PROBES[name] && inTemplate(PROBES[name])).map(({ name }) => [
        name,
      ]),
    )(
      '%s reaches the template',
      async (name) => {
        const probe = PROBES[name] as InTemplate;
        const packagedTemplate = await template();
        const shown = probe.shown(packagedTemplate);
        const expected: unknown =
          typeof probe.expected === 'function'
            ? (probe.expected as (template: Template) => unknown)(packagedTemplate)
            : probe.expected;
        expect({ variable: spell(name), shown }).toEqual({
          variable: spell(name),
          shown: expected,
        });
      },
      180_000,
    );

    it.each(
      SETTINGS.filter(({ name }) => PROBES[name] && !inTemplate(PROBES[name])).map(({ name }) => [
        name,
        (PROBES[name] as ByResolver).why,
      ]),
    )(
      '%s takes effect where packaging reads it (%s)',
      async (name) => {
        await (PROBES[name] as ByResolver).check(spell(name));
      },
      60_000,
    );
  });
});
