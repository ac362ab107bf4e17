/**
 * One stage's settings never reach another stage's package (tools/generators/variables.ts,
 * docs/deployment.md "Per-stage settings"). Through real `serverless package` runs (offline) in
 * a shell prepared only for production in eu-west-1, each setting under production's own name:
 * production packages and its template carries every one of those values, its pages notifying
 * its alarm topic and its notices (the client-driven alarms) its notice topic; staging is refused,
 * naming each of its own settings it lacks; with those added, staging packages and its template
 * carries no production value anywhere, and no custom domain, VPC or alarm topic of
 * production's: its notices notify its own notice topic, its pages nobody. A name without the
 * stage (left over from another shell) is refused for staging and production, naming it; dev
 * still reads the plain names. The heartbeat, the one function besides the endpoints', holds no
 * database or key-set setting of any stage.
 */
import {
  expectPackaged,
  expectRefused,
  ofType,
  packageService,
  removeTemporary,
  type Template,
} from '../../support/packaging';
import { catalogue } from '../../../tools/catalogue';
import { lambdaLogicalId } from '../../../tools/generators/serverless';
import { unstagedMessage, type Scope } from '../../../tools/generators/variables';

const SUBNETS = ['subnet-0123456789abcdef0', 'subnet-0fedcba9876543210'];
const SECURITY_GROUP = 'sg-0a1b2c3d4e5f60718';
/** Production's settings of eu-west-1, each under production's own name. */
const PRODUCTION = {
  JWK_URL_EU_PRODUCTION: 'https://keys.example/eu-production/v2/jwks.json',
  JWT_ISSUER_EU_PRODUCTION: 'https://portal.example/eu-production',
  DATABASE_URL_PRODUCTION: 'postgres://db-production.example:5432/reports',
  DATABASE_SECRET_ARN_PRODUCTION_EU_WEST_1:
    'arn:aws:secretsmanager:eu-west-1:123456789012:secret:portal/production/database-AbC123',
  VPC_SUBNET_IDS_PRODUCTION_EU_WEST_1: SUBNETS.join(','),
  VPC_SECURITY_GROUP_IDS_PRODUCTION_EU_WEST_1: SECURITY_GROUP,
  DOMAIN_NAME_PRODUCTION: 'api.portal-production.example',
  DOMAIN_CERTIFICATE_ARN_PRODUCTION_EU_WEST_1:
    'arn:aws:acm:eu-west-1:123456789012:certificate/11111111-2222-3333-4444-555555555555',
  ALARM_TOPIC_ARN_PRODUCTION_EU_WEST_1: 'arn:aws:sns:eu-west-1:123456789012:portal-production',
  ALARM_NOTICE_TOPIC_ARN_PRODUCTION_EU_WEST_1:
    'arn:aws:sns:eu-west-1:123456789012:notices-production',
};
/** The shell prepared for production only: nothing of staging's, nothing without the stage. */
const PRODUCTION_SHELL = {
  // The packaging harness's own production defaults, replaced by the names above.
  DATABASE_SECRET_ARN_PRODUCTION: '',
  ALARM_TOPIC_ARN_PRODUCTION: '',
  JWK_URL_EU_STAGING: '',
  JWT_ISSUER_EU_STAGING: '',
  ...PRODUCTION,
};
/** What staging needs of its own in eu-west-1: its key set, its issuer, its database secret. */
const STAGING = {
  JWK_URL_EU_STAGING: 'https://keys.example/eu-staging/v2/jwks.json',
  JWT_ISSUER_EU_STAGING: 'https://portal.example/eu-staging',
  DATABASE_SECRET_ARN_STAGING_EU_WEST_1:
    'arn:aws:secretsmanager:eu-west-1:123456789012:secret:portal/staging/database-XyZ789',
};
/** Staging's notice topic in eu-west-1: where its client-driven alarms go. */
const STAGING_NOTICES = 'arn:aws:sns:eu-west-1:123456789012:notices-staging';
/** Every value of production's, each id of a list on its own. */
const PRODUCTION_VALUES = Object.values(PRODUCTION).flatMap((value) => value.split(','));
const VPC_POLICY = 'AWSLambdaVPCAccessExecutionRole';
const HEARTBEAT = lambdaLogicalId('heartbeat');
/** The settings of the database and the key set, which the heartbeat never holds. */
const DATABASE_OR_KEYS = /^(DATABASE_|DB_|JWKS_URL$|JWT_)/;
/**
 * The client-driven alarms, the notices: they notify ALARM_NOTICE_TOPIC_ARN; every other alarm
 * pages ALARM_TOPIC_ARN.
 */
const NOTICE = /^(ApiGateway4xxRateAlarm|LambdaThrottlesAlarm\d*|WafBlockedRequestsAlarm)$/;

afterAll(removeTemporary);

const ENDPOINT_FUNCTIONS = catalogue.map((endpoint) => lambdaLogicalId(endpoint.function));

const templateText = (template: Template) => JSON.stringify(template);
/**
 * Every function of the template: its environment (a value CloudFormation computes, such as the
 * heartbeat's targets, as its JSON) and VPC, and whether it serves an endpoint.
 */
const functionsOf = (template: Template) =>
  ofType(template, 'AWS::Lambda::Function').map(([logicalId, fn]) => ({
    logicalId,
    endpoint: ENDPOINT_FUNCTIONS.includes(logicalId),
    variables: Object.fromEntries(
      Object.entries(
        (fn.Properties.Environment as { Variables?: Record<string, unknown> } | undefined)
          ?.Variables ?? {},
      ).map(([name, value]) => [name, typeof value === 'string' ? value : JSON.stringify(value)]),
    ),
    vpc: fn.Properties.VpcConfig,
  }));

/**
 * The functions of the template besides the endpoints' (the heartbeat only, of a stage with
 * alarms): each with the database and key-set settings it holds, and its VPC.
 */
const otherFunctions = (template: Template) =>
  functionsOf(template)
    .filter(({ endpoint }) => !endpoint)
    .map(({ logicalId, variables, vpc }) => ({
      logicalId,
      settings: Object.keys(variables).filter((name) => DATABASE_OR_KEYS.test(name)),
      vpc,
    }));

/**
 * Expects the template's pages to notify `page` and its notices `notice` (none: nobody), in
 * ALARM and OK alike; among the pages the heartbeat's, among the notices each of `notices`.
 */
const expectAlarmsNotify = (
  template: Template,
  { page, notice, notices }: { page?: string; notice?: string; notices: string[] },
) => {
  const alarms = ofType(template, 'AWS::CloudWatch::Alarm').map(([id, { Properties }]) => ({
    id,
    AlarmActions: Properties.AlarmActions,
    OKActions: Properties.OKActions,
  }));
  const ids = alarms.map(({ id }) => id);
  expect(ids).toContain('HeartbeatAlarm');
  expect(ids.filter((id) => NOTICE.test(id)).sort()).toEqual(notices);
  const actions = (topic?: string) =>
    topic === undefined ? {} : { AlarmActions: [topic], OKActions: [topic] };
  expect(alarms).toEqual(
    alarms.map(({ id }) => ({ id, ...actions(NOTICE.test(id) ? notice : page) })),
  );
};

describe('serverless package: each stage reads its own settings only', () => {
  it('packages production from its own names, every value of them in its template', async () => {
    // Act
    const packaged = await packageService({ stage: 'production', env: PRODUCTION_SHELL });

    // Assess: each value the staging tests search for is one a template shows
    expectPackaged(packaged);
    const template = packaged.template();
    const text = templateText(template);
    expect(PRODUCTION_VALUES.filter((value) => !text.includes(value))).toEqual([]);
    expectAlarmsNotify(template, {
      page: PRODUCTION.ALARM_TOPIC_ARN_PRODUCTION_EU_WEST_1,
      notice: PRODUCTION.ALARM_NOTICE_TOPIC_ARN_PRODUCTION_EU_WEST_1,
      notices: ['ApiGateway4xxRateAlarm', 'LambdaThrottlesAlarm', 'WafBlockedRequestsAlarm'],
    });
  }, 120_000);

  it('refuses staging in the production shell, naming each setting of its own it lacks', async () => {
    // Act
    const refused = await packageService({ stage: 'staging', env: PRODUCTION_SHELL });

    // Assess
    expectRefused(
      refused,
      'JWK_URL_EU_STAGING is not set: the key-set URL of stage "staging" in eu-west-1',
    );
    expectRefused(
      refused,
      'JWT_ISSUER_EU_STAGING is not set: the token issuer (the iss claim) of stage "staging" in eu-west-1',
    );
    expectRefused(
      refused,
      'DATABASE_SECRET_ARN_STAGING_EU_WEST_1 is not set: the ARN of the database secret in eu-west-1, from which stage "staging" reads the database credential (or DATABASE_SECRET_ARN_STAGING)',
    );
  });

  it('packages staging with its own settings added, carrying nothing of production’s', async () => {
    // Act: with its own notice topic too
    const packaged = await packageService({
      stage: 'staging',
      env: {
        ...PRODUCTION_SHELL,
        ...STAGING,
        ALARM_NOTICE_TOPIC_ARN_STAGING_EU_WEST_1: STAGING_NOTICES,
      },
    });

    // Assess: no production value anywhere in the template
    expectPackaged(packaged);
    const template = packaged.template();
    const text = templateText(template);
    expect(PRODUCTION_VALUES.filter((value) => text.includes(value))).toEqual([]);

    // Assess: no function holds a production value or runs in a VPC; every endpoint's function
    // has staging's key set, issuer and secret; the heartbeat, no database or key-set setting
    const functions = functionsOf(template);
    expect(functions.filter(({ endpoint }) => endpoint)).toHaveLength(catalogue.length);
    for (const { logicalId, variables, vpc } of functions) {
      const leaked = Object.entries(variables).filter(([, value]) =>
        PRODUCTION_VALUES.some((production) => value.includes(production)),
      );
      expect({ logicalId, leaked, vpc }).toEqual({ logicalId, leaked: [], vpc: undefined });
    }
    for (const { variables } of functions.filter(({ endpoint }) => endpoint)) {
      expect(variables).toMatchObject({
        JWKS_URL: STAGING.JWK_URL_EU_STAGING,
        JWT_ISSUER: STAGING.JWT_ISSUER_EU_STAGING,
        DATABASE_URL: '',
        DATABASE_SECRET_ARN: STAGING.DATABASE_SECRET_ARN_STAGING_EU_WEST_1,
      });
    }
    expect(otherFunctions(template)).toEqual([
      { logicalId: HEARTBEAT, settings: [], vpc: undefined },
    ]);

    // Assess: no custom domain, no VPC permissions; no alarm paging a topic (staging has none),
    // the notices notifying staging's own
    expect(ofType(template, 'AWS::ApiGateway::DomainName')).toEqual([]);
    expect(ofType(template, 'AWS::ApiGateway::BasePathMapping')).toEqual([]);
    expect(text).not.toContain(VPC_POLICY);
    expectAlarmsNotify(template, {
      notice: STAGING_NOTICES,
      notices: ['ApiGateway4xxRateAlarm', 'LambdaThrottlesAlarm'],
    });
  }, 120_000);

  const STAGING_SCOPE: Scope = { stage: 'staging', region: 'eu-west-1', portal: true };
  const PRODUCTION_SCOPE: Scope = { stage: 'production', region: 'eu-west-1', portal: true };
  /** The refusal of `variable`, a name of `name` without the stage. */
  const refusal = (name: string, variable: string, scope: Scope) =>
    unstagedMessage(name, variable, scope);

  // Each resolver stops at its first refusal: names read by different resolvers together.
  const UNSTAGED: [string, Record<string, string>, string[]][] = [
    [
      'staging',
      {
        DATABASE_SECRET_ARN_EU_WEST_1: PRODUCTION.DATABASE_SECRET_ARN_PRODUCTION_EU_WEST_1,
        VPC_SUBNET_IDS: SUBNETS.join(','),
        ALARM_TOPIC_ARN_EU_WEST_1: PRODUCTION.ALARM_TOPIC_ARN_PRODUCTION_EU_WEST_1,
        ALARM_NOTICE_TOPIC_ARN_EU_WEST_1: PRODUCTION.ALARM_NOTICE_TOPIC_ARN_PRODUCTION_EU_WEST_1,
        JWT_ISSUER: PRODUCTION.JWT_ISSUER_EU_PRODUCTION,
      },
      [
        refusal('DATABASE_SECRET_ARN', 'DATABASE_SECRET_ARN_EU_WEST_1', STAGING_SCOPE),
        refusal('VPC_SUBNET_IDS', 'VPC_SUBNET_IDS', STAGING_SCOPE),
        refusal('ALARM_TOPIC_ARN', 'ALARM_TOPIC_ARN_EU_WEST_1', STAGING_SCOPE),
        refusal('ALARM_NOTICE_TOPIC_ARN', 'ALARM_NOTICE_TOPIC_ARN_EU_WEST_1', STAGING_SCOPE),
        'JWT_ISSUER is set, but stage "staging" reads the issuer of each portal region from custom.issuerVariables.staging',
      ],
    ],
    [
      'staging',
      {
        DATABASE_URL: PRODUCTION.DATABASE_URL_PRODUCTION,
        VPC_SECURITY_GROUP_IDS_EU_WEST_1: SECURITY_GROUP,
        DOMAIN_NAME: PRODUCTION.DOMAIN_NAME_PRODUCTION,
      },
      [
        refusal('DATABASE_URL', 'DATABASE_URL', STAGING_SCOPE),
        refusal('VPC_SECURITY_GROUP_IDS', 'VPC_SECURITY_GROUP_IDS_EU_WEST_1', STAGING_SCOPE),
        refusal('DOMAIN_NAME', 'DOMAIN_NAME', STAGING_SCOPE),
      ],
    ],
    [
      'staging',
      {
        DATABASE_SECRET_KMS_KEY_ARN_EU_WEST_1:
          'arn:aws:kms:eu-west-1:123456789012:key/1234abcd-12ab-34cd-56ef-1234567890ab',
        DOMAIN_CERTIFICATE_ARN: PRODUCTION.DOMAIN_CERTIFICATE_ARN_PRODUCTION_EU_WEST_1,
      },
      [
        refusal(
          'DATABASE_SECRET_KMS_KEY_ARN',
          'DATABASE_SECRET_KMS_KEY_ARN_EU_WEST_1',
          STAGING_SCOPE,
        ),
        refusal('DOMAIN_CERTIFICATE_ARN', 'DOMAIN_CERTIFICATE_ARN', STAGING_SCOPE),
      ],
    ],
    [
      'production',
      {
        DATABASE_SECRET_ARN: PRODUCTION.DATABASE_SECRET_ARN_PRODUCTION_EU_WEST_1,
        JWT_ISSUER: PRODUCTION.JWT_ISSUER_EU_PRODUCTION,
      },
      [
        refusal('DATABASE_SECRET_ARN', 'DATABASE_SECRET_ARN', PRODUCTION_SCOPE),
        'JWT_ISSUER is set, but stage "production" reads the issuer of each portal region from custom.issuerVariables.production',
      ],
    ],
  ];
  it.each(
    UNSTAGED.map(([stage, env, messages]) => [stage, Object.keys(env).join(', '), env, messages]),
  )(
    'refuses %s beside its own settings with %s set, naming each',
    async (stage, _names, unstaged, messages) => {
      // Act
      const refused = await packageService({
        stage,
        env: { ...PRODUCTION_SHELL, ...STAGING, ...unstaged },
      });

      // Assess
      for (const message of messages) expectRefused(refused, message);
    },
  );

  it('packages dev from the plain names', async () => {
    // Arrange
    const secret =
      'arn:aws:secretsmanager:eu-west-1:123456789012:secret:portal/dev/database-DeV456';
    const topic = 'arn:aws:sns:eu-west-1:123456789012:portal-dev';
    const notices = 'arn:aws:sns:eu-west-1:123456789012:notices-dev';
    const certificate =
      'arn:aws:acm:eu-west-1:123456789012:certificate/66666666-7777-8888-9999-000000000000';

    // Act
    const packaged = await packageService({
      stage: 'dev',
      env: {
        ...PRODUCTION_SHELL,
        JWKS_URL: 'https://keys.example/dev/v2/jwks.json',
        JWT_ISSUER: 'https://portal.example/dev',
        DATABASE_URL: 'postgres://db-dev.example:5432/reports',
        DATABASE_SECRET_ARN: secret,
        VPC_SUBNET_IDS: 'subnet-0aaaaaaaaaaaaaaa1',
        VPC_SECURITY_GROUP_IDS: 'sg-0aaaaaaaaaaaaaaa2',
        ALARMS: 'true',
        ALARM_TOPIC_ARN: topic,
        ALARM_NOTICE_TOPIC_ARN: notices,
        DOMAIN_NAME: 'api.portal-dev.example',
        DOMAIN_CERTIFICATE_ARN: certificate,
      },
    });

    // Assess: dev's values throughout, none of production's; the heartbeat without the
    // database, the key set or the VPC
    expectPackaged(packaged);
    const template = packaged.template();
    const functions = functionsOf(template).filter(({ endpoint }) => endpoint);
    expect(functions).toHaveLength(catalogue.length);
    expect(otherFunctions(template)).toEqual([
      { logicalId: HEARTBEAT, settings: [], vpc: undefined },
    ]);
    for (const { variables, vpc } of functions) {
      expect(variables).toMatchObject({
        JWKS_URL: 'https://keys.example/dev/v2/jwks.json',
        JWT_ISSUER: 'https://portal.example/dev',
        DATABASE_URL: 'postgres://db-dev.example:5432/reports',
        DATABASE_SECRET_ARN: secret,
      });
      expect(vpc).toEqual({
        SubnetIds: ['subnet-0aaaaaaaaaaaaaaa1'],
        SecurityGroupIds: ['sg-0aaaaaaaaaaaaaaa2'],
      });
    }
    expect(ofType(template, 'AWS::ApiGateway::DomainName').map(([, d]) => d.Properties)).toEqual([
      expect.objectContaining({
        DomainName: 'api.portal-dev.example',
        RegionalCertificateArn: certificate,
      }),
    ]);
    expectAlarmsNotify(template, {
      page: topic,
      notice: notices,
      notices: ['ApiGateway4xxRateAlarm', 'LambdaThrottlesAlarm'],
    });
    const text = templateText(template);
    expect(PRODUCTION_VALUES.filter((value) => text.includes(value))).toEqual([]);
  }, 120_000);

  it('refuses staging in a shell holding production’s plain JWT_AUDIENCE and LEGACY_PLATFORM_KEYS, naming both', async () => {
    // Act
    const packaged = await packageService({
      stage: 'staging',
      env: {
        ...PRODUCTION_SHELL,
        ...STAGING,
        JWT_AUDIENCE: 'portal-prod',
        LEGACY_PLATFORM_KEYS: 'TBLEGACY_KW=TB_KW',
      },
    });

    // Assess: one line each, and nothing else refused
    for (const name of ['JWT_AUDIENCE', 'LEGACY_PLATFORM_KEYS']) {
      expectRefused(
        packaged,
        `\n    ${name} is set, but stage "staging" reads ${name} only from ${name}_STAGING_EU_WEST_1 or ${name}_STAGING:`,
      );
    }
    const output = packaged.result.stdout + packaged.result.stderr;
    expect(output.split('\n').filter((line) => line.startsWith('    '))).toHaveLength(2);
  }, 120_000);

  it('keeps production’s alarms on through a plain ALARMS=false, and turns them off only by its own name, saying so', async () => {
    // Act
    const plain = await packageService({ env: { ...PRODUCTION_SHELL, ALARMS_EU_WEST_1: 'false' } });
    const own = await packageService({ env: { ...PRODUCTION_SHELL, ALARMS_PRODUCTION: 'false' } });

    // Assess
    expectRefused(
      plain,
      'ALARMS_EU_WEST_1 is set, but stage "production" reads ALARMS only from ALARMS_PRODUCTION_EU_WEST_1 or ALARMS_PRODUCTION',
    );
    expect(own.result.code).toBe(0);
    expect(own.result.stderr).toContain(
      'Warning: stage "production" in eu-west-1 is packaged without alarms (ALARMS_PRODUCTION=false)',
    );
    expect(ofType(own.template(), 'AWS::CloudWatch::Alarm')).toEqual([]);
  }, 180_000);
});
