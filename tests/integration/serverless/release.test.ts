/**
 * `npm run package` and `npm run deploy` (scripts/release/): a stage to every AWS region.
 *
 * Packaging is real: production packaged for all five regions by osls into <out>/<region>, each
 * template carrying its region's key-set URL, issuer, secret and VPC, and passing cfn-lint (when
 * on PATH); a missing setting fails before any package is written. Deploying needs AWS, so the
 * deploy tests give the command a stand-in serverless (PORTAL_SERVERLESS_BIN), a separate
 * process that records its arguments, writes a template for `package` and fails on a chosen
 * region: the order, the stop at the first failure and the nothing-deployed-when-packaging-fails
 * are the command's own behaviour across that process boundary.
 */
import { spawnSync } from 'node:child_process';
import {
  chmodSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { REGION_BOUND, regionalName } from '../../../scripts/release/regions';
import { CFN_LINT_AVAILABLE, lintTemplate } from '../../support/cfn-lint';
import { ROOT, run } from '../../support/processes';

const REGIONS = ['eu-west-1', 'eu-central-1', 'me-central-1', 'ap-southeast-1', 'sa-east-1'];
const KEY_SETS: Record<string, string> = {
  JWK_URL_EU_PRODUCTION: 'https://keys.example/eu-production/v2/jwks.json',
  JWK_URL_APAC_PRODUCTION: 'https://keys.example/apac-production/v2/jwks.json',
  JWK_URL_LATAM_PRODUCTION: 'https://keys.example/latam-production/v2/jwks.json',
};
const ISSUERS: Record<string, string> = {
  JWT_ISSUER_EU_PRODUCTION: 'https://portal.example/eu-production',
  JWT_ISSUER_APAC_PRODUCTION: 'https://portal.example/apac-production',
  JWT_ISSUER_LATAM_PRODUCTION: 'https://portal.example/latam-production',
};
/** Each region's key-set and issuer variables (custom.keySetVariables, custom.issuerVariables). */
const PORTAL: Record<string, { keySet: string; issuer: string }> = {
  'eu-west-1': { keySet: 'JWK_URL_EU_PRODUCTION', issuer: 'JWT_ISSUER_EU_PRODUCTION' },
  'eu-central-1': { keySet: 'JWK_URL_EU_PRODUCTION', issuer: 'JWT_ISSUER_EU_PRODUCTION' },
  'me-central-1': { keySet: 'JWK_URL_EU_PRODUCTION', issuer: 'JWT_ISSUER_EU_PRODUCTION' },
  'ap-southeast-1': { keySet: 'JWK_URL_APAC_PRODUCTION', issuer: 'JWT_ISSUER_APAC_PRODUCTION' },
  'sa-east-1': { keySet: 'JWK_URL_LATAM_PRODUCTION', issuer: 'JWT_ISSUER_LATAM_PRODUCTION' },
};
const secretIn = (region: string) =>
  `arn:aws:secretsmanager:${region}:123456789012:secret:portal-db-AbCdEf`;
/** A subnet and security group of each region's own (ids of the vpc test's shape). */
const subnetIn = (index: number) => `subnet-0123456789abcdef${index}`;
const groupIn = (index: number) => `sg-0a1b2c3d4e5f6071${index}`;

/**
 * Every setting of production in every region, and nothing leaking in from the caller's
 * environment: the plain names, the staging ones, the dev ones.
 */
const ENV: Record<string, string> = {
  ...Object.fromEntries(REGION_BOUND.map((name) => [name, ''])),
  JWT_ISSUER: '',
  JWKS_URL: '',
  DATABASE_URL: 'postgres://db.example:5432/reports',
  ...KEY_SETS,
  ...ISSUERS,
  ...Object.fromEntries(
    REGIONS.flatMap((region, index) => [
      [regionalName('DATABASE_SECRET_ARN', region), secretIn(region)],
      [regionalName('DATABASE_SECRET_KMS_KEY_ARN', region), ''],
      [regionalName('DATABASE_URL', region), ''],
      [regionalName('SECRETS_EXTENSION_LAYER_ARN', region), ''],
      [regionalName('VPC_SUBNET_IDS', region), subnetIn(index)],
      [regionalName('VPC_SECURITY_GROUP_IDS', region), groupIn(index)],
    ]),
  ),
  PORTAL_SERVERLESS_BIN: '',
};

const TEMPLATE = 'cloudformation-template-update-stack.json';
type Resource = { Type: string; Properties: Record<string, unknown> };
type Template = { Resources: Record<string, Resource> };

const workFolder = `.esbuild-test-release-${process.pid}`;
const temporary: string[] = [];
const tempDir = (prefix: string) => {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  temporary.push(dir);
  return dir;
};
afterAll(() => {
  for (const path of [join(ROOT, workFolder), ...temporary]) {
    rmSync(path, { recursive: true, force: true });
  }
});

/** `npm run <command> -- <args>`, as npm runs it (tsx scripts/release/main.ts <command>). */
const release = (
  command: 'package' | 'deploy',
  args: readonly string[],
  env: Record<string, string>,
) =>
  run(['--import', 'tsx', 'scripts/release/main.ts', command, ...args], {
    ...ENV,
    ESBUILD_WORK_FOLDER: workFolder,
    ...env,
  });

describe('npm run package -- --stage production (real packaging)', () => {
  it(
    'packages all five regions into <out>/<region>, each with its own settings, and each passes cfn-lint',
    async () => {
      // Arrange
      const out = tempDir('portal-release-');

      // Act
      const started = performance.now();
      const result = await release('package', ['--stage', 'production', '--out', out], {});
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
      process.stdout.write(`release.test: 5 regions packaged in ${seconds.toFixed(1)} s\n`);

      for (const [index, region] of REGIONS.entries()) {
        const path = join(out, region, TEMPLATE);
        expect({ region, exists: existsSync(path) }).toEqual({ region, exists: true });
        const template = JSON.parse(readFileSync(path, 'utf8')) as Template;
        const functions = Object.values(template.Resources).filter(
          ({ Type }) => Type === 'AWS::Lambda::Function',
        );
        expect(functions.length).toBeGreaterThan(0);
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
            vpc: { SubnetIds: [subnetIn(index)], SecurityGroupIds: [groupIn(index)] },
          });
        }
        // The role reads that region's secret only.
        expect(JSON.stringify(template.Resources.IamRoleLambdaExecution)).toContain(
          secretIn(region),
        );

        if (CFN_LINT_AVAILABLE) {
          const lint = lintTemplate(path, region);
          expect({ region, ok: lint.ok, output: lint.output }).toEqual({
            region,
            ok: true,
            output: expect.any(String) as unknown,
          });
        }
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
      DATABASE_SECRET_ARN_SA_EAST_1: '',
      JWT_ISSUER_APAC_PRODUCTION: '',
    });

    // Assess: both reported at once, one line each
    expect(result.code).toBe(1);
    expect(result.stderr.split('\n').filter((line) => line.startsWith('  '))).toEqual([
      expect.stringMatching(
        /^ {2}ap-southeast-1 +JWT_ISSUER_APAC_PRODUCTION is not set: /,
      ) as unknown,
      expect.stringMatching(
        /^ {2}sa-east-1 +DATABASE_SECRET_ARN_SA_EAST_1 is not set: /,
      ) as unknown,
    ]);
    expect(result.stderr).toContain('nothing packaged');
    expect(existsSync(out)).toBe(false);
  });
});

/** The stand-in serverless: records each call; `package` writes a template; fails where told. */
const FAKE = `#!${process.execPath}
import { appendFileSync, existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
const args = process.argv.slice(2);
const option = (name) => args[args.indexOf(name) + 1];
const [command] = args;
const region = option('--region');
const folder = option('--package');
appendFileSync(process.env.FAKE_SERVERLESS_LOG, JSON.stringify(args) + '\\n');
if (process.env.FAKE_SERVERLESS_FAIL === command + ' ' + region) {
  console.error('fake serverless: ' + command + ' failed in ' + region);
  process.exit(1);
}
if (command === 'package') {
  mkdirSync(folder, { recursive: true });
  writeFileSync(join(folder, 'serverless-state.json'), '{}');
  writeFileSync(join(folder, '${TEMPLATE}'), JSON.stringify({ region }));
} else if (!existsSync(join(folder, '${TEMPLATE}'))) {
  console.error('fake serverless: no package in ' + folder);
  process.exit(3);
} else {
  console.log('fake serverless: deployed ' + region);
}
`;

describe('npm run deploy -- --stage production (a stand-in serverless)', () => {
  const deployWith = async (env: Record<string, string>, args: readonly string[] = []) => {
    const dir = tempDir('portal-release-deploy-');
    const bin = join(dir, 'serverless.mjs');
    writeFileSync(bin, FAKE);
    chmodSync(bin, 0o755);
    const log = join(dir, 'calls.log');
    const out = join(dir, 'packages');
    const result = await release('deploy', ['--stage', 'production', '--out', out, ...args], {
      PORTAL_SERVERLESS_BIN: bin,
      FAKE_SERVERLESS_LOG: log,
      FAKE_SERVERLESS_FAIL: '',
      ...env,
    });
    const calls = existsSync(log)
      ? readFileSync(log, 'utf8')
          .trim()
          .split('\n')
          .map((line) => JSON.parse(line) as string[])
      : [];
    return { result, out, calls: calls.map((call) => `${call[0]} ${call[4]} ${call[6]}`) };
  };
  const packageCall = (out: string, region: string) => `package ${region} ${join(out, region)}`;
  const deployCall = (out: string, region: string) => `deploy ${region} ${join(out, region)}`;

  it('packages every region first, then deploys each from its package, in order', async () => {
    // Act
    const { result, out, calls } = await deployWith({});

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
    const { result, out, calls } = await deployWith({
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
    const { result, out, calls } = await deployWith({
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
    const { result, calls } = await deployWith({ DATABASE_SECRET_ARN_SA_EAST_1: '' });

    // Assess
    expect(result.code).toBe(1);
    expect(calls).toEqual([]);
    expect(result.stderr).toContain('DATABASE_SECRET_ARN_SA_EAST_1 is not set');
    expect(result.stderr).toContain('nothing packaged or deployed');
  });

  it('deploys only the regions of --region, in serverless.yml’s order', async () => {
    // Act
    const { result, out, calls } = await deployWith({}, ['--region', 'sa-east-1,eu-central-1']);

    // Assess
    expect(result.code).toBe(0);
    expect(calls).toEqual([
      packageCall(out, 'eu-central-1'),
      packageCall(out, 'sa-east-1'),
      deployCall(out, 'eu-central-1'),
      deployCall(out, 'sa-east-1'),
    ]);
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
