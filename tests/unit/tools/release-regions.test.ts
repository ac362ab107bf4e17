/**
 * tools/release/regions.ts: the regions a stage is released to, read from serverless.yml's
 * maps, and the check of every region's settings before anything is packaged.
 */
import { stagedNames } from '../../../tools/generators/variables';
import {
  checkSettings,
  parseReleaseConfig,
  readReleaseConfig,
  regionsOf,
  releaseNames,
  ReleaseUsageError,
  vpcVariables,
  type ReleaseConfig,
} from '../../../tools/release/regions';

const ALL = ['eu-west-1', 'eu-central-1', 'me-central-1', 'ap-southeast-1', 'sa-east-1'];
const config = readReleaseConfig();

/** Production's own name of a setting in `region`: DATABASE_SECRET_ARN_PRODUCTION_EU_WEST_1. */
const productionName = (name: string, region: string): string =>
  stagedNames(name, { stage: 'production', region, portal: true })[0] ?? name;

/** Every setting of production in every region, each region with its own VPC. */
const productionEnv = (): Record<string, string> => ({
  JWK_URL_EU_PRODUCTION: 'https://keys.example/eu/jwks.json',
  JWK_URL_APAC_PRODUCTION: 'https://keys.example/apac/jwks.json',
  JWK_URL_LATAM_PRODUCTION: 'https://keys.example/latam/jwks.json',
  JWT_ISSUER_EU_PRODUCTION: 'https://portal.example/eu',
  JWT_ISSUER_APAC_PRODUCTION: 'https://portal.example/apac',
  JWT_ISSUER_LATAM_PRODUCTION: 'https://portal.example/latam',
  ...Object.fromEntries(
    ALL.flatMap((region) => [
      [
        productionName('DATABASE_SECRET_ARN', region),
        `arn:aws:secretsmanager:${region}:123456789012:secret:portal-db-AbCdEf`,
      ],
      [productionName('VPC_SUBNET_IDS', region), 'subnet-0123456789abcdef0'],
      [productionName('VPC_SECURITY_GROUP_IDS', region), 'sg-0a1b2c3d4e5f60718'],
      [productionName('ALARM_TOPIC_ARN', region), `arn:aws:sns:${region}:123456789012:alarms`],
    ]),
  ),
});

describe('readReleaseConfig', () => {
  it("reads serverless.yml's portal regions, key-set and issuer variables and default region", () => {
    // Assess
    expect(Object.keys(config.portalRegions)).toEqual(ALL);
    expect(config.portalRegions['me-central-1']).toBe('MENA');
    expect(config.keySetVariables.staging).toEqual({ EU: 'JWK_URL_EU_STAGING' });
    expect(config.issuerVariables.production?.APAC).toBe('JWT_ISSUER_APAC_PRODUCTION');
    expect(config.defaultRegion).toBe('eu-west-1');
  });

  it('refuses a serverless.yml without a default region or with a malformed map', () => {
    expect(() => parseReleaseConfig('provider:\n  region: ${opt:region}\n')).toThrow(
      'names no default AWS region',
    );
    expect(() =>
      parseReleaseConfig('provider:\n  region: eu-west-1\ncustom:\n  portalRegions: [a, b]\n'),
    ).toThrow('custom.portalRegions must map names to names');
  });
});

describe('regionsOf', () => {
  it('releases production to every region of custom.portalRegions, in its order', () => {
    expect(regionsOf(config, 'production')).toEqual(ALL);
  });

  it('releases staging only where its portal region has a key set: the EU regions', () => {
    expect(regionsOf(config, 'staging')).toEqual(['eu-west-1', 'eu-central-1']);
  });

  it('releases another stage (dev) to the default region, or to the regions asked for', () => {
    expect(regionsOf(config, 'dev')).toEqual(['eu-west-1']);
    expect(regionsOf(config, 'dev', ['us-east-1', 'us-east-1'])).toEqual(['us-east-1']);
  });

  it("narrows to --region, in serverless.yml's order", () => {
    expect(regionsOf(config, 'production', ['sa-east-1', 'eu-west-1'])).toEqual([
      'eu-west-1',
      'sa-east-1',
    ]);
  });

  it('refuses a region the stage is not released to, and malformed names', () => {
    expect(() => regionsOf(config, 'staging', ['ap-southeast-1'])).toThrow(
      new ReleaseUsageError(
        '--region ap-southeast-1: not a region of stage "staging", whose regions are eu-west-1, eu-central-1 (custom.portalRegions, with a key set in custom.keySetVariables.staging)',
      ),
    );
    expect(() => regionsOf(config, 'production', ['EU-WEST-1'])).toThrow(ReleaseUsageError);
    expect(() => regionsOf(config, 'prod/uction')).toThrow(ReleaseUsageError);
  });
});

describe('releaseNames', () => {
  const production = (region: string) => ({ stage: 'production', region, portal: true });
  const dev = { stage: 'dev', region: 'eu-west-1', portal: false };

  it('reads a portal stage’s own resource from its names only, the region’s alone for several regions', () => {
    expect(releaseNames('DATABASE_SECRET_ARN', production('sa-east-1'), true)).toEqual([
      'DATABASE_SECRET_ARN_PRODUCTION_SA_EAST_1',
      'DATABASE_SECRET_ARN_PRODUCTION',
    ]);
    expect(releaseNames('DATABASE_SECRET_ARN', production('sa-east-1'), false)).toEqual([
      'DATABASE_SECRET_ARN_PRODUCTION_SA_EAST_1',
    ]);
    // A host may serve several regions: DATABASE_URL keeps the stage's name without the region.
    expect(releaseNames('DATABASE_URL', production('sa-east-1'), false)).toEqual([
      'DATABASE_URL_PRODUCTION_SA_EAST_1',
      'DATABASE_URL_PRODUCTION',
    ]);
  });

  it('reads dev from every name, most specific first', () => {
    expect(releaseNames('VPC_SUBNET_IDS', dev, true).join(' ')).toBe(
      'VPC_SUBNET_IDS_DEV_EU_WEST_1 VPC_SUBNET_IDS_DEV VPC_SUBNET_IDS_EU_WEST_1 VPC_SUBNET_IDS',
    );
    expect(releaseNames('VPC_SUBNET_IDS', dev, false)).toEqual([
      'VPC_SUBNET_IDS_DEV_EU_WEST_1',
      'VPC_SUBNET_IDS_EU_WEST_1',
    ]);
  });
});

describe('vpcVariables', () => {
  const dev = { stage: 'dev', region: 'eu-west-1', portal: false };

  it.each([
    [{ VPC_SUBNET_IDS: 's', VPC_SECURITY_GROUP_IDS: 'g' }, 'VPC_SUBNET_IDS'],
    [{ VPC_SUBNET_IDS: 's', VPC_SECURITY_GROUP_IDS_EU_WEST_1: 'g' }, 'VPC_SUBNET_IDS_EU_WEST_1'],
    [{ VPC_SUBNET_IDS_EU_WEST_1: 's', VPC_SUBNET_IDS_DEV: 's' }, 'VPC_SUBNET_IDS_DEV'],
    [
      { VPC_SUBNET_IDS_DEV: 's', VPC_SECURITY_GROUP_IDS_DEV_EU_WEST_1: 'g' },
      'VPC_SUBNET_IDS_DEV_EU_WEST_1',
    ],
  ])('takes the most specific pair with either set, as a pair: %j → %s', (env, subnets) => {
    expect(vpcVariables(env, dev, true)).toEqual([
      subnets,
      subnets.replace('SUBNET_IDS', 'SECURITY_GROUP_IDS'),
    ]);
  });

  it('reads no name without the stage for a portal stage, and none without the region for several', () => {
    const production = { stage: 'production', region: 'eu-west-1', portal: true };
    const env = { VPC_SUBNET_IDS: 's', VPC_SECURITY_GROUP_IDS_EU_WEST_1: 'g' };
    expect(vpcVariables(env, production, true)).toEqual([]);
    expect(vpcVariables({ VPC_SUBNET_IDS_PRODUCTION: 's' }, production, false)).toEqual([]);
    expect(vpcVariables({ VPC_SUBNET_IDS_PRODUCTION: 's' }, production, true)).toEqual([
      'VPC_SUBNET_IDS_PRODUCTION',
      'VPC_SECURITY_GROUP_IDS_PRODUCTION',
    ]);
  });
});

describe('checkSettings', () => {
  it('finds nothing missing when every region has its settings, and names where each comes from', () => {
    // Act
    const { problems, settings } = checkSettings(config, 'production', ALL, productionEnv());

    // Assess
    expect(problems).toEqual([]);
    expect(settings.find(({ region }) => region === 'me-central-1')).toMatchObject({
      region: 'me-central-1',
      portalRegion: 'MENA',
      variables: {
        keySet: 'JWK_URL_EU_PRODUCTION',
        issuer: 'JWT_ISSUER_EU_PRODUCTION',
        secret: 'DATABASE_SECRET_ARN_PRODUCTION_ME_CENTRAL_1',
        vpc: 'VPC_SUBNET_IDS_PRODUCTION_ME_CENTRAL_1, VPC_SECURITY_GROUP_IDS_PRODUCTION_ME_CENTRAL_1',
      },
    });
  });

  it('reports every missing setting of every region at once, one per region and variable', () => {
    // Arrange
    const env = {
      ...productionEnv(),
      JWK_URL_EU_PRODUCTION: ' ',
      DATABASE_SECRET_ARN_PRODUCTION_SA_EAST_1: '',
      VPC_SECURITY_GROUP_IDS_PRODUCTION_AP_SOUTHEAST_1: '',
    };

    // Act
    const { problems } = checkSettings(config, 'production', ALL, env);

    // Assess
    expect(problems.map(({ region, variable }) => [region, variable])).toEqual([
      ['eu-west-1', 'JWK_URL_EU_PRODUCTION'],
      ['eu-central-1', 'JWK_URL_EU_PRODUCTION'],
      ['me-central-1', 'JWK_URL_EU_PRODUCTION'],
      ['ap-southeast-1', 'VPC_SECURITY_GROUP_IDS_PRODUCTION_AP_SOUTHEAST_1'],
      ['sa-east-1', 'DATABASE_SECRET_ARN_PRODUCTION_SA_EAST_1'],
    ]);
    expect(problems[4]?.message).toBe(
      'DATABASE_SECRET_ARN_PRODUCTION_SA_EAST_1 is not set: the ARN of the database secret in sa-east-1, from which stage "production" reads the database credential (or DATABASE_SECRET_ARN_PRODUCTION)',
    );
    expect(problems[3]?.message).toBe(
      'VPC_SECURITY_GROUP_IDS_PRODUCTION_AP_SOUTHEAST_1 is not set: VPC_SUBNET_IDS_PRODUCTION_AP_SOUTHEAST_1 puts the functions in ap-southeast-1 in a VPC, which needs both subnets and security groups',
    );
  });

  it('refuses the stage’s names without the region of region-bound settings, and JWT_ISSUER, when several regions are packaged', () => {
    // Arrange
    const env = {
      ...productionEnv(),
      DATABASE_SECRET_ARN_PRODUCTION:
        'arn:aws:secretsmanager:eu-west-1:123456789012:secret:portal-db-AbCdEf',
      VPC_SUBNET_IDS_PRODUCTION: 'subnet-0123456789abcdef0',
      JWT_ISSUER: 'https://portal.example/eu',
      DATABASE_SECRET_ARN_PRODUCTION_SA_EAST_1: '',
    };

    // Act
    const { problems } = checkSettings(config, 'production', ALL, env);

    // Assess: the secret without the region stands in for no region either
    expect(problems.map(({ region, variable }) => [region, variable])).toEqual([
      ['every region', 'DATABASE_SECRET_ARN_PRODUCTION'],
      ['every region', 'VPC_SUBNET_IDS_PRODUCTION'],
      ['every region', 'JWT_ISSUER'],
    ]);
    expect(problems[0]?.message).toBe(
      'DATABASE_SECRET_ARN_PRODUCTION is set: it applies only to a single-region package, and this one packages 5 regions (eu-west-1, eu-central-1, me-central-1, ap-southeast-1, sa-east-1); give DATABASE_SECRET_ARN_PRODUCTION_EU_WEST_1 (…) for each region instead, and unset DATABASE_SECRET_ARN_PRODUCTION',
    );
    expect(problems[2]?.message).toBe(
      'JWT_ISSUER is set, but stage "production" reads the issuer of each portal region from custom.issuerVariables.production: JWT_ISSUER may hold another stage\'s issuer; unset it',
    );
  });

  it('accepts the stage’s names without the region for a single region, as the resolvers do', () => {
    // Arrange
    const env = {
      JWK_URL_LATAM_PRODUCTION: 'https://keys.example/latam/jwks.json',
      JWT_ISSUER_LATAM_PRODUCTION: 'https://portal.example/latam',
      DATABASE_SECRET_ARN_PRODUCTION:
        'arn:aws:secretsmanager:sa-east-1:123456789012:secret:portal-db-AbCdEf',
      VPC_SUBNET_IDS_PRODUCTION: 'subnet-0123456789abcdef0',
      ALARM_TOPIC_ARN_PRODUCTION: 'arn:aws:sns:sa-east-1:123456789012:alarms',
    };

    // Act
    const { problems, settings } = checkSettings(config, 'production', ['sa-east-1'], env);

    // Assess: only the half VPC pair is missing
    expect(problems).toEqual([
      {
        region: 'sa-east-1',
        variable: 'VPC_SECURITY_GROUP_IDS_PRODUCTION',
        message:
          'VPC_SECURITY_GROUP_IDS_PRODUCTION is not set: VPC_SUBNET_IDS_PRODUCTION puts the functions in sa-east-1 in a VPC, which needs both subnets and security groups',
      },
    ]);
    expect(settings[0]?.variables).toMatchObject({
      issuer: 'JWT_ISSUER_LATAM_PRODUCTION',
      secret: 'DATABASE_SECRET_ARN_PRODUCTION',
    });
  });

  it('refuses a portal stage’s settings under names without the stage, even for a single region, as the resolvers do', () => {
    // Arrange: what a shell prepared for another stage may hold
    const env = {
      JWK_URL_LATAM_PRODUCTION: 'https://keys.example/latam/jwks.json',
      JWT_ISSUER: 'https://portal.example/latam',
      DATABASE_SECRET_ARN: 'arn:aws:secretsmanager:sa-east-1:123456789012:secret:portal-db-AbCdEf',
      VPC_SUBNET_IDS_SA_EAST_1: 'subnet-0123456789abcdef0',
      ALARM_TOPIC_ARN: 'arn:aws:sns:sa-east-1:123456789012:alarms',
    };

    // Act
    const { problems } = checkSettings(config, 'production', ['sa-east-1'], env);

    // Assess: each refused, naming it; none stands in for the stage's own
    expect(problems.map(({ region, variable }) => [region, variable])).toEqual([
      ['every region', 'JWT_ISSUER'],
      ['sa-east-1', 'DATABASE_SECRET_ARN'],
      ['sa-east-1', 'VPC_SUBNET_IDS_SA_EAST_1'],
      ['sa-east-1', 'ALARM_TOPIC_ARN'],
      ['sa-east-1', 'JWT_ISSUER_LATAM_PRODUCTION'],
      ['sa-east-1', 'DATABASE_SECRET_ARN_PRODUCTION_SA_EAST_1'],
      ['sa-east-1', 'ALARM_TOPIC_ARN'],
    ]);
    expect(problems[2]?.message).toBe(
      'VPC_SUBNET_IDS_SA_EAST_1 is set, but stage "production" reads VPC_SUBNET_IDS only from VPC_SUBNET_IDS_PRODUCTION_SA_EAST_1 or VPC_SUBNET_IDS_PRODUCTION: a name without the stage may hold another stage\'s value; give this stage its own, and unset VPC_SUBNET_IDS_SA_EAST_1',
    );
    expect(problems[5]?.message).toBe(
      'DATABASE_SECRET_ARN_PRODUCTION_SA_EAST_1 is not set: the ARN of the database secret in sa-east-1, from which stage "production" reads the database credential (or DATABASE_SECRET_ARN_PRODUCTION)',
    );
  });

  it('requires a key-set URL and issuer of the stage and a secret in staging, nothing else', () => {
    // Act: production's settings are no staging's
    const { problems } = checkSettings(config, 'staging', ['eu-west-1', 'eu-central-1'], {
      ...productionEnv(),
      JWK_URL_EU_STAGING: 'https://keys.example/eu-staging/jwks.json',
      DATABASE_SECRET_ARN_STAGING_EU_WEST_1:
        'arn:aws:secretsmanager:eu-west-1:123456789012:secret:portal-db-AbCdEf',
    });

    // Assess: outside a VPC is allowed
    expect(problems.map(({ region, variable }) => [region, variable])).toEqual([
      ['every region', 'JWT_ISSUER_EU_STAGING'],
      ['eu-central-1', 'DATABASE_SECRET_ARN_STAGING_EU_CENTRAL_1'],
    ]);
  });

  it('requires only JWKS_URL for dev, whose secret and VPC are optional', () => {
    expect(checkSettings(config, 'dev', ['eu-west-1'], {}).problems).toEqual([
      {
        region: 'eu-west-1',
        variable: 'JWKS_URL',
        message:
          'JWKS_URL is not set: stage "dev" has no portal environment, so its key-set URL comes from JWKS_URL',
      },
    ]);
    expect(
      checkSettings(config, 'dev', ['eu-west-1'], { JWKS_URL: 'https://keys.example/jwks.json' })
        .problems,
    ).toEqual([]);
  });

  it('reads dev’s settings from the plain names', () => {
    // Act
    const { problems, settings } = checkSettings(config, 'dev', ['eu-west-1'], {
      JWKS_URL: 'https://keys.example/jwks.json',
      JWT_ISSUER: 'https://portal.example/dev',
      DATABASE_SECRET_ARN: 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:portal-db-AbCdEf',
      VPC_SUBNET_IDS: 'subnet-0123456789abcdef0',
      VPC_SECURITY_GROUP_IDS: 'sg-0a1b2c3d4e5f60718',
    });

    // Assess
    expect(problems).toEqual([]);
    expect(settings[0]?.variables).toEqual({
      keySet: 'JWKS_URL',
      issuer: 'JWT_ISSUER',
      secret: 'DATABASE_SECRET_ARN',
      vpc: 'VPC_SUBNET_IDS, VPC_SECURITY_GROUP_IDS',
    });
  });

  it('names a portal region without an issuer variable, and an AWS region without a portal region', () => {
    // Arrange
    const partial: ReleaseConfig = {
      ...config,
      issuerVariables: { production: { EU: 'JWT_ISSUER_EU_PRODUCTION' } },
    };
    const env = productionEnv();

    // Act
    const { problems } = checkSettings(partial, 'production', ['sa-east-1', 'us-east-1'], env);

    // Assess
    expect(problems.map(({ region, variable }) => [region, variable])).toEqual([
      ['sa-east-1', 'custom.issuerVariables.production'],
      ['us-east-1', 'custom.portalRegions'],
    ]);
  });

  it('refuses a plain stage-bound name once for a release of several regions, and a topic or certificate without the region', () => {
    // Act
    const { problems } = checkSettings(config, 'production', ALL, {
      ...productionEnv(),
      DATABASE_URL: 'postgres://db.example:5432/reports',
      ALARM_TOPIC_ARN_PRODUCTION: 'arn:aws:sns:eu-west-1:123456789012:alarms',
      DOMAIN_CERTIFICATE_ARN_PRODUCTION:
        'arn:aws:acm:eu-west-1:123456789012:certificate/0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0',
    });

    // Assess
    expect(problems.map(({ region, variable }) => [region, variable])).toEqual([
      ['every region', 'ALARM_TOPIC_ARN_PRODUCTION'],
      ['every region', 'DOMAIN_CERTIFICATE_ARN_PRODUCTION'],
      ['every region', 'DATABASE_URL'],
    ]);
  });
});
