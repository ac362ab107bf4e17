/**
 * The preflight of `npm run deploy` (tools/release/preflight.ts): each region's account asked,
 * by the real AWS SDK clients, whether the stage fits, before anything is packaged or created.
 * The checks of what would fail mid-release (the region enabled, the custom domain's
 * certificate, the fixed names) are preflight-resources.test.ts.
 *
 * The clients reach local servers speaking each service's protocol (tests/support/aws-servers.ts)
 * through AWS_ENDPOINT_URL_<SERVICE>, with dummy credentials; the release code has no test hook.
 * serverless is the stand-in of tests/support/release.ts, which records its calls.
 */
import { catalogue } from '../../../tools/catalogue';
import { startAwsServers, type AwsServers } from '../../support/aws-servers';
import { onlyReads, plantStack, preflightDeploy, problemLines } from '../../support/preflight';
import {
  functionNames,
  groupIn,
  healthyAccount,
  packageCall,
  productionName,
  REGIONS,
  removeTemporary,
  secretIn,
  subnetsIn,
  deployWith,
} from '../../support/release';

const KEY = (region: string) =>
  `arn:aws:kms:${region}:123456789012:key/0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0`;
const OTHER_KEY = (region: string) =>
  `arn:aws:kms:${region}:123456789012:key/11111111-2222-3333-4444-555555555555`;
/**
 * What production reserves with RESERVED_CONCURRENCY unset (tools/generators/throttles.ts): each
 * route, at production's API_ROUTE_RATE of 20, bursts ⌈20 / 2⌉ = 10 and adds 20 × 0.1 s
 * (API_ROUTE_DURATION_MS 100) = 2, so 12 containers; each path is two routes (its method and
 * OPTIONS): 24 a path. 4 functions of one path and 3 of two (a /res alias): 4 × 24 + 3 × 48 = 240.
 */
const DEFAULT_RESERVED = catalogue.reduce((sum, { paths }) => sum + paths.length * 2 * 12, 0);

let aws: AwsServers;
beforeAll(async () => {
  aws = await startAwsServers(healthyAccount());
});
afterEach(() => {
  aws.account = healthyAccount();
  aws.calls.length = 0;
});
afterAll(async () => {
  await aws.close();
  removeTemporary();
});

const deploy = preflightDeploy(() => aws);

describe('npm run deploy -- --stage production: the preflight', () => {
  it('lists every planted problem, one line per region and problem, and runs serverless not at all', async () => {
    // Arrange: one problem planted in each region
    const account = healthyAccount();
    account['eu-west-1']!.concurrency = { limit: 100, unreserved: 100 };
    delete account['eu-central-1']!.cloudWatchRoleArn;
    account['ap-southeast-1']!.secrets = {};
    aws.account = account;

    // Act: spawned as a user runs it, through npm
    const started = performance.now();
    const { result, calls } = await deploy(
      {
        [productionName('DATABASE_SECRET_ARN', 'me-central-1')]: secretIn('eu-west-1'),
        [productionName('VPC_SUBNET_IDS', 'sa-east-1')]:
          `${subnetsIn(4)[0]!},subnet-0badbadbadbad0000`,
      },
      [],
      { npm: true },
    );
    process.stdout.write(
      `preflight.test: 5 regions checked in ${((performance.now() - started) / 1000).toFixed(1)} s\n`,
    );

    // Assess
    expect(result.code).toBe(1);
    expect(calls).toEqual([]);
    expect(result.stderr).toContain(
      'npm run deploy: preflight of stage "production": 5 problems found in AWS; nothing packaged or created:',
    );
    // eu-west-1: the defaults' 240 leave 100 - 240 = -140, so it needs 240 + 100
    expect(problemLines(result.stderr)).toEqual([
      `eu-west-1 Lambda concurrency: the account's limit is 100, 100 unreserved; the stage reserves ${DEFAULT_RESERVED} (${catalogue.length} functions), leaving ${100 - DEFAULT_RESERVED}, below Lambda's minimum of 100: ask Service Quotas for "Concurrent executions" of at least ${DEFAULT_RESERVED + 100} in eu-west-1, or lower RESERVED_CONCURRENCY`,
      expect.stringMatching(
        /^eu-central-1 API Gateway has no CloudWatch role in this account and region.*API_GATEWAY_CLOUDWATCH_ROLE_PRODUCTION_EU_CENTRAL_1=create$/,
      ) as unknown,
      expect.stringMatching(
        /^me-central-1 DATABASE_SECRET_ARN_PRODUCTION_ME_CENTRAL_1 names a secret in eu-west-1, not me-central-1/,
      ) as unknown,
      expect.stringMatching(
        /^ap-southeast-1 DATABASE_SECRET_ARN_PRODUCTION_AP_SOUTHEAST_1: no such secret in ap-southeast-1 \(arn:aws:secretsmanager:ap-southeast-1:/,
      ) as unknown,
      'sa-east-1 VPC_SUBNET_IDS_PRODUCTION_SA_EAST_1: no such subnet in sa-east-1: subnet-0badbadbadbad0000',
    ]);
    expect(onlyReads(aws)).toBe(true);
  }, 60_000);

  it('with nothing planted, passes and proceeds to packaging every region', async () => {
    // Act
    const { result, out, calls } = await deploy({}, [], { npm: true });

    // Assess: every region's checks asked of its own region's endpoints; whether each region
    // is enabled, and IAM (global), of us-east-1; CloudFormation not, as no fixed name exists
    expect({ code: result.code, stderr: result.stderr }).toEqual({ code: 0, stderr: '' });
    expect(calls.filter((call) => call.startsWith('package'))).toEqual(
      REGIONS.map((region) => packageCall(out, region)),
    );
    expect(result.stdout).toContain('npm run deploy: preflight of stage "production" passed:');
    const asked = (region: string) => [
      ...new Set(aws.calls.filter((call) => call.region === region).map(({ service }) => service)),
    ];
    for (const region of REGIONS) {
      expect({ region, asked: asked(region).sort() }).toEqual({
        region,
        asked: [
          'apigateway',
          'codedeploy',
          'ec2',
          'lambda',
          'logs',
          'monitoring',
          'secretsmanager',
          'wafv2',
        ],
      });
    }
    expect(asked('us-east-1').sort()).toEqual(['ec2', 'iam']);
    expect(aws.calls.filter(({ operation }) => operation === 'DescribeRegions')).toEqual([
      { service: 'ec2', region: 'us-east-1', operation: 'DescribeRegions' },
    ]);
    expect(onlyReads(aws)).toBe(true);
  }, 60_000);

  it('counts the reservations the stack holds already once: a re-deploy fits where a new stack would not', async () => {
    // Arrange: 150 unreserved; this stack's functions hold 10 each already, and RESERVED_CONCURRENCY
    // 10 asks the same: 7 × 10 = 70, leaving 150 + 70 - 70 = 150 on a re-deploy, 150 - 70 = 80 new
    const held = healthyAccount();
    plantStack(
      held,
      'eu-west-1',
      functionNames().map((name) => ({ type: 'AWS::Lambda::Function', name })),
    );
    held['eu-west-1']!.concurrency = { limit: 1000, unreserved: 150 };
    held['eu-west-1']!.functions = Object.fromEntries(functionNames().map((name) => [name, 10]));
    const fresh = healthyAccount();
    fresh['eu-west-1']!.concurrency = { limit: 1000, unreserved: 150 };

    // Act
    const reserved = { RESERVED_CONCURRENCY: '10' };
    aws.account = held;
    const redeploy = await deploy(reserved, ['--region', 'eu-west-1', '--preflight-only']);
    aws.account = fresh;
    const create = await deploy(reserved, ['--region', 'eu-west-1', '--preflight-only']);

    // Assess
    expect({ code: redeploy.result.code, stderr: redeploy.result.stderr }).toEqual({
      code: 0,
      stderr: '',
    });
    expect(redeploy.result.stdout).toMatch(/eu-west-1 +reserves 70 of 220 unreserved/);
    expect(redeploy.calls).toEqual([]);
    expect(create.result.code).toBe(1);
    expect(problemLines(create.result.stderr)).toEqual([
      expect.stringContaining(
        '150 unreserved; the stage reserves 70 (7 functions), leaving 80',
      ) as unknown,
    ]);
  });

  it('reads the reserved sum as packaging does (RESERVED_CONCURRENCY_<FUNCTION>)', async () => {
    // Arrange
    aws.account['eu-west-1']!.concurrency = { limit: 1000, unreserved: 400 };

    // Act: RESERVED_CONCURRENCY 10 but ordersPerDay's 250: 6 × 10 + 250 = 310 > 400 - 100
    const { result } = await deploy(
      { RESERVED_CONCURRENCY: '10', RESERVED_CONCURRENCY_ORDERS_PER_DAY: '250' },
      ['--region', 'eu-west-1', '--preflight-only'],
    );

    // Assess
    expect(problemLines(result.stderr)).toEqual([
      expect.stringContaining('the stage reserves 310 (7 functions), leaving 90') as unknown,
    ]);
  });

  it('accepts an unset CloudWatch role this stack creates, and refuses to replace one set by another', async () => {
    // Arrange
    delete aws.account['eu-west-1']!.cloudWatchRoleArn;
    aws.account['eu-central-1']!.cloudWatchRoleArn =
      'arn:aws:iam::123456789012:role/portal-service-api-production-ApiGatewayCloudWatc-AbC123';

    // Act: both regions create it
    const { result } = await deploy({ API_GATEWAY_CLOUDWATCH_ROLE: 'create' }, [
      '--region',
      'eu-west-1,eu-central-1,me-central-1',
      '--preflight-only',
    ]);

    // Assess: eu-west-1 creates it, eu-central-1 has this stack's, me-central-1 another's
    expect(problemLines(result.stderr)).toEqual([
      "me-central-1 API Gateway's CloudWatch role is already set (arn:aws:iam::123456789012:role/apigateway-cloudwatch) and API_GATEWAY_CLOUDWATCH_ROLE=create would replace it: only one stack per account and region may own it; set API_GATEWAY_CLOUDWATCH_ROLE=existing",
    ]);
  });

  it('checks the KMS key: missing, disabled, or not the key the secret is encrypted with; aws/secretsmanager needs none', async () => {
    // Arrange
    const account = healthyAccount();
    account['eu-west-1']!.secrets = { [secretIn('eu-west-1')]: { kmsKeyId: KEY('eu-west-1') } };
    account['eu-central-1']!.secrets = {
      [secretIn('eu-central-1')]: { kmsKeyId: KEY('eu-central-1') },
    };
    account['eu-central-1']!.keys = { [KEY('eu-central-1')]: { state: 'Disabled' } };
    account['me-central-1']!.secrets = {
      [secretIn('me-central-1')]: { kmsKeyId: OTHER_KEY('me-central-1') },
    };
    account['me-central-1']!.keys = {
      [KEY('me-central-1')]: { state: 'Enabled' },
      [OTHER_KEY('me-central-1')]: { state: 'Enabled' },
    };
    account['ap-southeast-1']!.secrets = {
      [secretIn('ap-southeast-1')]: { kmsKeyId: KEY('ap-southeast-1') },
    };
    account['ap-southeast-1']!.keys = { [KEY('ap-southeast-1')]: { state: 'Enabled' } };
    account['sa-east-1']!.secrets = { [secretIn('sa-east-1')]: { deleted: true } };
    aws.account = account;
    const managed = healthyAccount();
    managed['eu-west-1']!.secrets = {
      [secretIn('eu-west-1')]: { kmsKeyId: 'alias/aws/secretsmanager' },
    };
    managed['eu-west-1']!.keys = {
      [OTHER_KEY('eu-west-1')]: {
        state: 'Enabled',
        manager: 'AWS',
        alias: 'alias/aws/secretsmanager',
      },
    };

    // Act: ap-southeast-1's key given but not the secret's encryption key
    const { result } = await deploy(
      Object.fromEntries(
        ['eu-west-1', 'eu-central-1', 'me-central-1'].map((region) => [
          productionName('DATABASE_SECRET_KMS_KEY_ARN', region),
          KEY(region),
        ]),
      ),
      ['--preflight-only'],
    );

    // Assess
    expect(problemLines(result.stderr)).toEqual([
      `eu-west-1 DATABASE_SECRET_KMS_KEY_ARN_PRODUCTION_EU_WEST_1: no such KMS key in eu-west-1 (${KEY('eu-west-1')})`,
      expect.stringMatching(
        /^eu-central-1 DATABASE_SECRET_KMS_KEY_ARN_PRODUCTION_EU_CENTRAL_1: the KMS key is Disabled: enable it/,
      ) as unknown,
      `me-central-1 DATABASE_SECRET_KMS_KEY_ARN_PRODUCTION_ME_CENTRAL_1 is ${KEY('me-central-1')}, but the secret is encrypted with ${OTHER_KEY('me-central-1')}: give that key`,
      expect.stringMatching(
        /^ap-southeast-1 DATABASE_SECRET_ARN_PRODUCTION_AP_SOUTHEAST_1: the secret is encrypted with the customer-managed KMS key arn:aws:kms:ap-southeast-1:.*: give it in DATABASE_SECRET_KMS_KEY_ARN_PRODUCTION_AP_SOUTHEAST_1/,
      ) as unknown,
      expect.stringMatching(
        /^sa-east-1 DATABASE_SECRET_ARN_PRODUCTION_SA_EAST_1: the secret is scheduled for deletion/,
      ) as unknown,
    ]);

    // Act: a secret naming the AWS-managed key, no key configured
    aws.account = managed;
    const awsManaged = await deploy({}, ['--region', 'eu-west-1', '--preflight-only']);

    // Assess
    expect({ code: awsManaged.result.code, stderr: awsManaged.result.stderr }).toEqual({
      code: 0,
      stderr: '',
    });
  }, 60_000);

  it('checks the VPC: unknown security groups, one availability zone, several VPCs', async () => {
    // Arrange
    const account = healthyAccount();
    const [a = '', b = ''] = subnetsIn(1);
    account['eu-central-1']!.subnets = {
      [a]: { zone: 'eu-central-1a', vpc: 'vpc-0123456789abcdef0' },
      [b]: { zone: 'eu-central-1a', vpc: 'vpc-0123456789abcdef0' },
    };
    account['me-central-1']!.securityGroups = { [groupIn(2)]: { vpc: 'vpc-0fedcba987654321f' } };
    aws.account = account;

    // Act
    const { result } = await deploy(
      {
        [productionName('VPC_SECURITY_GROUP_IDS', 'eu-west-1')]:
          `${groupIn(0)},sg-0badbadbadbad0000,sg-0badbadbadbad0001`,
      },
      ['--preflight-only'],
    );

    // Assess
    expect(problemLines(result.stderr)).toEqual([
      'eu-west-1 VPC_SECURITY_GROUP_IDS_PRODUCTION_EU_WEST_1: no such security group in eu-west-1: sg-0badbadbadbad0000, sg-0badbadbadbad0001',
      'eu-central-1 VPC_SUBNET_IDS_PRODUCTION_EU_CENTRAL_1: every subnet is in eu-central-1a: give subnets in at least two availability zones',
      expect.stringMatching(
        /^me-central-1 VPC_SUBNET_IDS_PRODUCTION_ME_CENTRAL_1 and VPC_SECURITY_GROUP_IDS_PRODUCTION_ME_CENTRAL_1 span several VPCs/,
      ) as unknown,
    ]);
  }, 60_000);

  it('reports a region it cannot ask as a problem, naming the error', async () => {
    // Act: Lambda's endpoint a closed port
    const { result, calls } = await deploy({ AWS_ENDPOINT_URL_LAMBDA: 'http://127.0.0.1:9' }, [
      '--region',
      'eu-west-1',
    ]);

    // Assess: both checks asking Lambda say so, in one line each
    expect(result.code).toBe(1);
    expect(calls).toEqual([]);
    expect(problemLines(result.stderr)).toEqual([
      expect.stringMatching(/^eu-west-1 Lambda concurrency not checked: \w+/) as unknown,
      expect.stringMatching(/^eu-west-1 Lambda functions not checked: \w+/) as unknown,
    ]);
  });

  it('--skip-preflight asks AWS nothing and packages; npm run package never asks', async () => {
    // Arrange: an account the preflight would refuse
    delete aws.account['eu-west-1']!.cloudWatchRoleArn;

    // Act
    const skipped = await deploy({}, ['--region', 'eu-west-1', '--skip-preflight']);

    // Assess
    expect(skipped.result.code).toBe(0);
    expect(skipped.result.stdout).toContain('npm run deploy: preflight skipped (--skip-preflight)');
    expect(skipped.calls.map((call) => call.split(' ')[0])).toEqual(['package', 'deploy']);
    expect(aws.calls).toEqual([]);

    // Act
    const packaged = await deployWith({ ...aws.env }, ['--region', 'eu-west-1'], {
      command: 'package',
    });

    // Assess
    expect(packaged.result.code).toBe(0);
    expect(packaged.calls.map((call) => call.split(' ')[0])).toEqual(['package']);
    expect(aws.calls).toEqual([]);
  }, 60_000);
});
