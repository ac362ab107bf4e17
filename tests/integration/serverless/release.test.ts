/**
 * `npm run package` and `npm run deploy` (tools/release/): a stage to every AWS region.
 *
 * Packaging is real: production packaged for all five regions by osls into <out>/<region>, each
 * template carrying its region's key-set URL, issuer, secret and VPC, holding what AWS enforces at
 * deploy time (every alarm that pages notifying its region's topic, and only the client-driven ones,
 * without ALARM_NOTICE_TOPIC_ARN, notifying nobody) and passing cfn-lint (when on PATH); a missing
 * setting fails before any package is written. Deploying needs AWS, so the
 * deploy tests give the command a stand-in serverless (PORTAL_SERVERLESS_BIN), a separate
 * process that records its arguments, writes a template for `package` and fails on a chosen
 * region: the order, the stop at the first failure and the nothing-deployed-when-packaging-fails
 * are the command's own behaviour across that process boundary. The preflight and the bake ask
 * local servers speaking the AWS services' protocols (tests/support/aws-servers.ts); the
 * preflight's own cases are tests/integration/serverless/preflight.test.ts.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { startAwsServers, type AwsServers } from '../../support/aws-servers';
import { CFN_LINT_AVAILABLE, expectLintPasses } from '../../support/cfn-lint';
import { expectInvariantsHold } from '../../support/invariants';
import { ofType, readTemplate } from '../../support/packaging';
import { catalogue } from '../../../tools/catalogue';
import { lambdaLogicalId } from '../../../tools/generators/serverless';
import { ROOT } from '../../support/processes';
import {
  deployCall,
  deployWith,
  groupIn,
  healthyAccount,
  ISSUERS,
  KEY_SETS,
  packageCall,
  REGIONS,
  release,
  removeTemporary,
  secretIn,
  subnetsIn,
  tempDir,
  TEMPLATE,
  topicIn,
} from '../../support/release';

/** Each region's key-set and issuer variables (custom.keySetVariables, custom.issuerVariables). */
const PORTAL: Record<string, { keySet: string; issuer: string }> = {
  'eu-west-1': { keySet: 'JWK_URL_EU_PRODUCTION', issuer: 'JWT_ISSUER_EU_PRODUCTION' },
  'eu-central-1': { keySet: 'JWK_URL_EU_PRODUCTION', issuer: 'JWT_ISSUER_EU_PRODUCTION' },
  'me-central-1': { keySet: 'JWK_URL_EU_PRODUCTION', issuer: 'JWT_ISSUER_EU_PRODUCTION' },
  'ap-southeast-1': { keySet: 'JWK_URL_APAC_PRODUCTION', issuer: 'JWT_ISSUER_APAC_PRODUCTION' },
  'sa-east-1': { keySet: 'JWK_URL_LATAM_PRODUCTION', issuer: 'JWT_ISSUER_LATAM_PRODUCTION' },
};

afterAll(removeTemporary);

describe('npm run package -- --stage production (real packaging)', () => {
  it(
    'packages all five regions into <out>/<region>, each with its own settings, holding what AWS enforces and passing cfn-lint',
    async () => {
      // Arrange
      const out = tempDir('portal-release-');

      // Act
      const started = performance.now();
      const result = await release(
        'package',
        ['--stage', 'production', '--out', out, '--describe'],
        {},
      );
      const seconds = (performance.now() - started) / 1000;

      // Assess
      expect({ code: result.code, stderr: result.stderr }).toEqual({ code: 0, stderr: '' });
      expect(readdirSync(out).sort()).toEqual([...REGIONS].sort());
      const lines = result.stdout.split('\n');
      for (const region of REGIONS) {
        expect(lines.filter((line) => line.trimStart().startsWith(`${region} `))).toEqual([
          expect.stringContaining(`packaged in `) as unknown,
        ]);
      }
      expect(result.stdout).toContain('npm run package: 5 regions packaged');
      // --describe: what each region deploys, its alarms notifying its own topic
      for (const region of REGIONS) {
        const described = result.stdout.split(`production in ${region}:\n`)[1] ?? '';
        expect(described).toMatch(/^ {2}functions:\n {4}OrdersPerDay: timeout 20 s, memory 512 MB/);
        expect(described).toMatch(
          /\n {2}routes:\n {4}the stage, every route together: 200 requests\/s/,
        );
        expect(described).toMatch(
          new RegExp(
            `\\n {4}portal-service-api-production-api-5xx-count: .+; notifies arn:aws:sns:${region}:`,
          ),
        );
        expect(described).toContain('    WAF = true (custom.stages.production.settings.WAF)');
      }
      process.stdout.write(`release.test: 5 regions packaged in ${seconds.toFixed(1)} s\n`);

      for (const [index, region] of REGIONS.entries()) {
        const path = join(out, region, TEMPLATE);
        expect({ region, exists: existsSync(path) }).toEqual({ region, exists: true });
        const template = readTemplate(path);
        // The API's functions, from the catalogue: the release's hook and the heartbeat have
        // their own environment, outside the VPC, and the heartbeat pages the region's topic.
        expect(
          ofType(template, 'AWS::Lambda::Function')
            .map(([id]) => id)
            .sort(),
        ).toEqual(
          [
            ...catalogue.map(({ function: fn }) => lambdaLogicalId(fn)),
            'HeartbeatLambdaFunction',
            'PreTrafficLambdaFunction',
          ].sort(),
        );
        const functions = catalogue.map(
          ({ function: fn }) => template.Resources[lambdaLogicalId(fn)]!,
        );
        for (const id of ['HeartbeatLambdaFunction', 'PreTrafficLambdaFunction']) {
          const own = template.Resources[id]!.Properties;
          expect({ region, id, vpc: own.VpcConfig }).toEqual({ region, id });
          expect(JSON.stringify(own.Environment)).not.toContain('DATABASE_SECRET_ARN');
        }
        expect(template.Resources.HeartbeatAlarm?.Properties).toMatchObject({
          AlarmActions: [topicIn(region)],
          OKActions: [topicIn(region)],
        });
        const { keySet, issuer } = PORTAL[region]!;
        for (const fn of functions) {
          const variables = (fn.Properties.Environment as { Variables: Record<string, string> })
            .Variables;
          expect({ region, ...variables }).toMatchObject({
            region,
            JWKS_URL: KEY_SETS[keySet],
            JWT_ISSUER: ISSUERS[issuer],
            DATABASE_SECRET_ARN: secretIn(region),
          });
          expect(variables.DATABASE_SECRET_ARN?.split(':')[3]).toBe(region);
          expect({ region, vpc: fn.Properties.VpcConfig }).toEqual({
            region,
            vpc: { SubnetIds: subnetsIn(index), SecurityGroupIds: [groupIn(index)] },
          });
        }
        // The role reads that region's secret only.
        expect(JSON.stringify(template.Resources.IamRoleLambdaExecution)).toContain(
          secretIn(region),
        );

        // Only the client-driven alarms notify nobody: ALARM_NOTICE_TOPIC_ARN is unset.
        expect({ region, silent: expectInvariantsHold(path).sort() }).toEqual({
          region,
          silent: ['ApiGateway4xxRateAlarm', 'LambdaThrottlesAlarm', 'WafBlockedRequestsAlarm'].map(
            (id) => `${id}: an alarm without AlarmActions notifies nobody`,
          ),
        });
        if (CFN_LINT_AVAILABLE) expectLintPasses(path, region);
      }
    },
    // Five real packages (10-15 s each on a busy machine) and five cfn-lint runs (~4 s each).
    420_000,
  );

  it('fails before any package is written when a region lacks a setting, naming the region and variable', async () => {
    // Arrange
    const out = join(tempDir('portal-release-missing-'), 'packages');

    // Act
    const result = await release('package', ['--stage', 'production', '--out', out], {
      DATABASE_SECRET_ARN_PRODUCTION_SA_EAST_1: '',
      JWT_ISSUER_APAC_PRODUCTION: '',
    });

    // Assess: both reported at once, one line each
    expect(result.code).toBe(1);
    expect(result.stderr.split('\n').filter((line) => line.startsWith('  '))).toEqual([
      expect.stringMatching(
        /^ {2}ap-southeast-1 +JWT_ISSUER_APAC_PRODUCTION is not set: /,
      ) as unknown,
      expect.stringMatching(
        /^ {2}sa-east-1 +DATABASE_SECRET_ARN_PRODUCTION_SA_EAST_1 is not set: /,
      ) as unknown,
    ]);
    expect(result.stderr).toContain('nothing packaged');
    expect(existsSync(out)).toBe(false);
  });
});

describe('npm run deploy -- --stage production (a stand-in serverless)', () => {
  // The preflight's account, in which production fits; no bake unless a test asks for one.
  let aws: AwsServers;
  beforeAll(async () => {
    aws = await startAwsServers(healthyAccount());
  });
  afterAll(() => aws.close());
  const deploy = (env: Record<string, string>, args: readonly string[] = []) =>
    deployWith({ ...aws.env, RELEASE_BAKE_MINUTES: '0', ...env }, args);

  it('packages every region first, then deploys each from its package, in order', async () => {
    // Act
    const { result, out, calls } = await deploy({});

    // Assess
    expect({ code: result.code, stderr: result.stderr }).toEqual({ code: 0, stderr: '' });
    expect(calls).toEqual([
      ...REGIONS.map((region) => packageCall(out, region)),
      ...REGIONS.map((region) => deployCall(out, region)),
    ]);
    expect(result.stdout).toContain(
      `npm run deploy: stage "production" deployed to ${REGIONS.join(', ')}`,
    );
  });

  it('stops at the first region that fails to deploy, and says which were deployed and which not', async () => {
    // Act
    const { result, out, calls } = await deploy({
      FAKE_SERVERLESS_FAIL: 'deploy me-central-1',
    });

    // Assess
    expect(result.code).toBe(1);
    expect(calls).toEqual([
      ...REGIONS.map((region) => packageCall(out, region)),
      deployCall(out, 'eu-west-1'),
      deployCall(out, 'eu-central-1'),
      deployCall(out, 'me-central-1'),
    ]);
    expect(result.stderr).toContain('fake serverless: deploy failed in me-central-1');
    expect(result.stderr).toContain(
      'npm run deploy: stopped at me-central-1; deployed: eu-west-1, eu-central-1; not deployed: me-central-1, ap-southeast-1, sa-east-1',
    );
  });

  it('deploys nothing when packaging any region fails', async () => {
    // Act
    const { result, out, calls } = await deploy({
      FAKE_SERVERLESS_FAIL: 'package ap-southeast-1',
    });

    // Assess
    expect(result.code).toBe(1);
    expect(calls).toEqual(REGIONS.slice(0, 4).map((region) => packageCall(out, region)));
    expect(result.stderr).toContain('fake serverless: package failed in ap-southeast-1');
    expect(result.stderr).toContain(
      'npm run deploy: stopped at ap-southeast-1; packaged: eu-west-1, eu-central-1, me-central-1; not packaged: ap-southeast-1, sa-east-1; nothing deployed',
    );
  });

  it('runs serverless not at all when a region lacks a setting', async () => {
    // Act
    const { result, calls } = await deploy({ DATABASE_SECRET_ARN_PRODUCTION_SA_EAST_1: '' });

    // Assess
    expect(result.code).toBe(1);
    expect(calls).toEqual([]);
    expect(result.stderr).toContain('DATABASE_SECRET_ARN_PRODUCTION_SA_EAST_1 is not set');
    expect(result.stderr).toContain('nothing packaged or deployed');
  });

  it('deploys only the regions of --region, in serverless.yml’s order', async () => {
    // Act
    const { result, out, calls } = await deploy({}, ['--region', 'sa-east-1,eu-central-1']);

    // Assess
    expect(result.code).toBe(0);
    expect(calls).toEqual([
      packageCall(out, 'eu-central-1'),
      packageCall(out, 'sa-east-1'),
      deployCall(out, 'eu-central-1'),
      deployCall(out, 'sa-east-1'),
    ]);
  });

  describe('the bake between regions', () => {
    const FIRING = 'portal-service-api-production-api-5xx-rate';
    const TWO = ['--region', 'eu-west-1,eu-central-1', '--bake-minutes', '0.05'];
    afterEach(() => {
      aws.account = healthyAccount();
    });
    // CloudWatch's alarm reads (the preflight also lists dashboards by name: not alarms).
    const alarmReads = () =>
      aws.calls
        .filter(
          ({ service, operation }) => service === 'monitoring' && operation !== 'ListDashboards',
        )
        .map(({ region, operation }) => `${region} ${operation}`);

    it('watches the region just deployed for the bake time, then deploys the next', async () => {
      // Arrange: the stage's alarms OK; another stage's alarm firing, which is not ours
      aws.account['eu-west-1']!.alarms = {
        [FIRING]: { state: 'OK' },
        'portal-service-api-production-database-errors': { state: 'INSUFFICIENT_DATA' },
        'portal-service-api-staging-api-5xx-rate': { state: 'ALARM' },
      };
      // Each stack's own, as the preflight's fixed names require.
      aws.account['eu-west-1']!.stacks = {
        'portal-service-api-production': [FIRING, 'portal-service-api-production-database-errors'],
        'portal-service-api-staging': ['portal-service-api-staging-api-5xx-rate'],
      };
      aws.calls.length = 0;

      // Act
      const started = performance.now();
      const { result, out, calls } = await deploy({}, TWO);
      const seconds = (performance.now() - started) / 1000;

      // Assess: a bake of 3 s, alarms read at its start and end, none after the last region
      expect({ code: result.code, stderr: result.stderr }).toEqual({ code: 0, stderr: '' });
      expect(calls.filter((call) => call.startsWith('deploy'))).toEqual([
        deployCall(out, 'eu-west-1'),
        deployCall(out, 'eu-central-1'),
      ]);
      expect(seconds).toBeGreaterThanOrEqual(3);
      // The preflight's look for the stage's alarm names in each region, then the bake's reads
      const reads = alarmReads();
      expect(reads.slice(0, 2).sort()).toEqual([
        'eu-central-1 DescribeAlarms',
        'eu-west-1 DescribeAlarms',
      ]);
      expect(reads.slice(2)).toEqual(['eu-west-1 DescribeAlarms', 'eu-west-1 DescribeAlarms']);
      expect(
        aws.calls
          .filter(({ operation }) => operation === 'ListDashboards')
          .map(({ region }) => region)
          .sort(),
      ).toEqual(['eu-central-1', 'eu-west-1']);
      expect(result.stdout).toMatch(/eu-west-1 +baked [\d.]+ s: 2 alarms watched, none in ALARM/);
    });

    it('stops when an alarm of the stage fires in the region just deployed, and says what to do', async () => {
      // Arrange
      aws.account['eu-west-1']!.alarms = {
        [FIRING]: { state: 'ALARM', reason: 'Threshold Crossed: 1 datapoint [0.2] > 0.05' },
      };
      aws.account['eu-west-1']!.stacks = { 'portal-service-api-production': [FIRING] };

      // Act
      const { result, out, calls } = await deploy({}, TWO);

      // Assess: eu-central-1 packaged, never deployed
      expect(result.code).toBe(1);
      expect(calls).toEqual([
        packageCall(out, 'eu-west-1'),
        packageCall(out, 'eu-central-1'),
        deployCall(out, 'eu-west-1'),
      ]);
      expect(result.stderr).toContain(`${FIRING}: Threshold Crossed: 1 datapoint [0.2] > 0.05`);
      expect(result.stderr).toContain(
        'npm run deploy: stopped after eu-west-1; deployed: eu-west-1; not deployed: eu-central-1',
      );
      expect(result.stderr).toContain(
        'deploy the rest: npm run deploy -- --stage production --region eu-central-1',
      );
    });

    it('stops when the alarms cannot be read: a bake that cannot see is none', async () => {
      // Act: CloudWatch's endpoint a closed port (the preflight, which reads it too, skipped)
      const { result, out, calls } = await deploy(
        { AWS_ENDPOINT_URL_CLOUDWATCH: 'http://127.0.0.1:9' },
        [...TWO, '--skip-preflight'],
      );

      // Assess
      expect(result.code).toBe(1);
      expect(calls.filter((call) => call.startsWith('deploy'))).toEqual([
        deployCall(out, 'eu-west-1'),
      ]);
      expect(result.stderr).toContain('its alarms could not be read during the bake');
    });

    it('bakes production 10 minutes by default, other stages not at all, and refuses a bad value', async () => {
      // Act
      const bad = await deploy({}, ['--bake-minutes', 'ten']);
      const badEnv = await deploy({ RELEASE_BAKE_MINUTES: '-1' });

      // Assess
      expect(bad.calls).toEqual([]);
      expect({ code: bad.result.code, stderr: bad.result.stderr }).toEqual({
        code: 2,
        stderr: expect.stringContaining('--bake-minutes is "ten": expected minutes') as unknown,
      });
      expect(badEnv.result.code).toBe(2);
      expect(badEnv.result.stderr).toContain('RELEASE_BAKE_MINUTES is "-1"');
      const { bakeMinutes } = await import('../../../tools/release/bake');
      expect([
        bakeMinutes('production', undefined, {}),
        bakeMinutes('staging', undefined, {}),
        bakeMinutes('dev', undefined, {}),
        bakeMinutes('production', '0', { RELEASE_BAKE_MINUTES: '5' }),
        bakeMinutes('dev', undefined, { RELEASE_BAKE_MINUTES: '2.5' }),
      ]).toEqual([10, 0, 0, 0, 2.5]);
    });
  });

  it('is what npm run deploy runs', () => {
    // Act
    const help = spawnSync('npm', ['run', '-s', 'deploy', '--', '--help'], {
      cwd: ROOT,
      encoding: 'utf8',
    });

    // Assess
    expect({ status: help.status, stdout: help.stdout }).toEqual({
      status: 0,
      stdout: expect.stringMatching(/^usage: npm run deploy -- --stage <stage>/) as unknown,
    });
  });
});
