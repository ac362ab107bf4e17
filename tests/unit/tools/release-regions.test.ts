/**
 * tools/release/regions.ts: the regions a stage is released to, read from serverless.yml's
 * maps, and the check of every region's settings before anything is packaged.
 */
import {
  checkSettings,
  parseReleaseConfig,
  readReleaseConfig,
  regionalName,
  regionsOf,
  ReleaseUsageError,
  type ReleaseConfig,
} from '../../../tools/release/regions';

const ALL = ['eu-west-1', 'eu-central-1', 'me-central-1', 'ap-southeast-1', 'sa-east-1'];
const config = readReleaseConfig();

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
        regionalName('DATABASE_SECRET_ARN', region),
        `arn:aws:secretsmanager:${region}:123456789012:secret:portal-db-AbCdEf`,
      ],
      [regionalName('VPC_SUBNET_IDS', region), 'subnet-0123456789abcdef0'],
      [regionalName('VPC_SECURITY_GROUP_IDS', region), 'sg-0a1b2c3d4e5f60718'],
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

describe('checkSettings', () => {
  it('finds nothing missing when every region has its settings, and names where each comes from', () => {
    // Act
    const { problems, settings } = checkSettings(config, 'production', ALL, productionEnv());

    // Assess
    expect(problems).toEqual([]);
    expect(settings.find(({ region }) => region === 'me-central-1')).toEqual({
      region: 'me-central-1',
      portalRegion: 'MENA',
      variables: {
        keySet: 'JWK_URL_EU_PRODUCTION',
        issuer: 'JWT_ISSUER_EU_PRODUCTION',
        secret: 'DATABASE_SECRET_ARN_ME_CENTRAL_1',
        vpc: 'VPC_SUBNET_IDS_ME_CENTRAL_1, VPC_SECURITY_GROUP_IDS_ME_CENTRAL_1',
      },
    });
  });

  it('reports every missing setting of every region at once, one per region and variable', () => {
    // Arrange
    const env = {
      ...productionEnv(),
      JWK_URL_EU_PRODUCTION: ' ',
      DATABASE_SECRET_ARN_SA_EAST_1: '',
      VPC_SECURITY_GROUP_IDS_AP_SOUTHEAST_1: '',
    };

    // Act
    const { problems } = checkSettings(config, 'production', ALL, env);

    // Assess
    expect(problems.map(({ region, variable }) => [region, variable])).toEqual([
      ['eu-west-1', 'JWK_URL_EU_PRODUCTION'],
      ['eu-central-1', 'JWK_URL_EU_PRODUCTION'],
      ['me-central-1', 'JWK_URL_EU_PRODUCTION'],
      ['ap-southeast-1', 'VPC_SECURITY_GROUP_IDS_AP_SOUTHEAST_1'],
      ['sa-east-1', 'DATABASE_SECRET_ARN_SA_EAST_1'],
    ]);
    expect(problems[4]?.message).toBe(
      'DATABASE_SECRET_ARN_SA_EAST_1 is not set: the ARN of the database secret in sa-east-1, from which stage "production" reads the database credential',
    );
    expect(problems[3]?.message).toBe(
      'VPC_SECURITY_GROUP_IDS_AP_SOUTHEAST_1 is not set: VPC_SUBNET_IDS_AP_SOUTHEAST_1 puts the functions in ap-southeast-1 in a VPC, which needs both subnets and security groups',
    );
  });

  it('refuses the plain names of region-bound settings, and JWT_ISSUER, when several regions are packaged', () => {
    // Arrange
    const env = {
      ...productionEnv(),
      DATABASE_SECRET_ARN: 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:portal-db-AbCdEf',
      VPC_SUBNET_IDS: 'subnet-0123456789abcdef0',
      JWT_ISSUER: 'https://portal.example/eu',
      DATABASE_SECRET_ARN_SA_EAST_1: '',
    };

    // Act
    const { problems } = checkSettings(config, 'production', ALL, env);

    // Assess: the plain secret stands in for no region either
    expect(problems.map(({ region, variable }) => [region, variable])).toEqual([
      ['every region', 'DATABASE_SECRET_ARN'],
      ['every region', 'VPC_SUBNET_IDS'],
      ['every region', 'JWT_ISSUER'],
      ['sa-east-1', 'DATABASE_SECRET_ARN_SA_EAST_1'],
    ]);
    expect(problems[0]?.message).toBe(
      'DATABASE_SECRET_ARN is set: it applies only to a single-region package, and this one packages 5 regions (eu-west-1, eu-central-1, me-central-1, ap-southeast-1, sa-east-1); give DATABASE_SECRET_ARN_<REGION> (DATABASE_SECRET_ARN_EU_WEST_1, …) for each region instead, and unset DATABASE_SECRET_ARN',
    );
  });

  it('accepts the plain names for a single region, as the resolvers do', () => {
    // Arrange
    const env = {
      JWK_URL_LATAM_PRODUCTION: 'https://keys.example/latam/jwks.json',
      JWT_ISSUER: 'https://portal.example/latam',
      DATABASE_SECRET_ARN: 'arn:aws:secretsmanager:sa-east-1:123456789012:secret:portal-db-AbCdEf',
      VPC_SUBNET_IDS: 'subnet-0123456789abcdef0',
    };

    // Act
    const { problems, settings } = checkSettings(config, 'production', ['sa-east-1'], env);

    // Assess: only the half VPC pair is missing
    expect(problems).toEqual([
      {
        region: 'sa-east-1',
        variable: 'VPC_SECURITY_GROUP_IDS',
        message:
          'VPC_SECURITY_GROUP_IDS is not set: VPC_SUBNET_IDS puts the functions in sa-east-1 in a VPC, which needs both subnets and security groups',
      },
    ]);
    expect(settings[0]?.variables).toMatchObject({
      issuer: 'JWT_ISSUER',
      secret: 'DATABASE_SECRET_ARN',
    });
  });

  it('requires a key-set URL and issuer of the stage and a secret in staging, nothing else', () => {
    // Act
    const { problems } = checkSettings(config, 'staging', ['eu-west-1', 'eu-central-1'], {
      JWK_URL_EU_STAGING: 'https://keys.example/eu-staging/jwks.json',
      DATABASE_SECRET_ARN_EU_WEST_1:
        'arn:aws:secretsmanager:eu-west-1:123456789012:secret:portal-db-AbCdEf',
    });

    // Assess: outside a VPC is allowed
    expect(problems.map(({ region, variable }) => [region, variable])).toEqual([
      ['eu-west-1', 'JWT_ISSUER_EU_STAGING'],
      ['eu-central-1', 'JWT_ISSUER_EU_STAGING'],
      ['eu-central-1', 'DATABASE_SECRET_ARN_EU_CENTRAL_1'],
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
      ['us-east-1', 'DATABASE_SECRET_ARN_US_EAST_1'],
    ]);
  });
});
