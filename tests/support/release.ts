/**
 * What the release suites share: production's settings for its five regions, the command as npm
 * runs it, a stand-in serverless (PORTAL_SERVERLESS_BIN) that records its calls, and an AWS
 * account (tests/support/aws-servers.ts) in which that production fits.
 */
import { chmodSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { serverlessFunctions } from '../../tools/generators/serverless';
import { STAGE_BOUND, stagedNames } from '../../tools/generators/variables';
import { REGION_BOUND, regionalName } from '../../tools/release/regions';
import type { Account, RegionAccount } from './aws-servers';
import { tempDir, TEMPLATE, WORK_FOLDER } from './packaging';
import { run } from './processes';

export { removeTemporary, tempDir, TEMPLATE } from './packaging';

export const REGIONS = ['eu-west-1', 'eu-central-1', 'me-central-1', 'ap-southeast-1', 'sa-east-1'];
export const KEY_SETS: Record<string, string> = {
  JWK_URL_EU_PRODUCTION: 'https://keys.example/eu-production/v2/jwks.json',
  JWK_URL_APAC_PRODUCTION: 'https://keys.example/apac-production/v2/jwks.json',
  JWK_URL_LATAM_PRODUCTION: 'https://keys.example/latam-production/v2/jwks.json',
};
export const ISSUERS: Record<string, string> = {
  JWT_ISSUER_EU_PRODUCTION: 'https://portal.example/eu-production',
  JWT_ISSUER_APAC_PRODUCTION: 'https://portal.example/apac-production',
  JWT_ISSUER_LATAM_PRODUCTION: 'https://portal.example/latam-production',
};
export const secretIn = (region: string) =>
  `arn:aws:secretsmanager:${region}:123456789012:secret:portal-db-AbCdEf`;
/** Each region's two subnets (two availability zones) and security group. */
export const subnetsIn = (index: number) => [
  `subnet-0123456789abcdef${index}`,
  `subnet-0123456789abcde${index}f`,
];
export const groupIn = (index: number) => `sg-0a1b2c3d4e5f6071${index}`;
/** Each region's SNS topic for production's alarms, which production requires. */
export const topicIn = (region: string) => `arn:aws:sns:${region}:123456789012:portal-alarms`;

/** Production's own name of a setting in `region`: DATABASE_SECRET_ARN_PRODUCTION_EU_WEST_1. */
export const productionName = (name: string, region: string): string =>
  stagedNames(name, { stage: 'production', region, portal: true })[0] ?? name;

/**
 * Every setting of production in every region, and nothing leaking in from the caller's
 * environment: the plain names, the staging ones, the dev ones, the release's own.
 */
export const ENV: Record<string, string> = {
  ...Object.fromEntries(REGION_BOUND.map((name) => [name, ''])),
  ...Object.fromEntries(STAGE_BOUND.map((name) => [name, ''])),
  JWT_ISSUER: '',
  JWKS_URL: '',
  DATABASE_URL_PRODUCTION: 'postgres://db.example:5432/reports',
  RESERVED_CONCURRENCY: '',
  API_GATEWAY_CLOUDWATCH_ROLE: '',
  RELEASE_BAKE_MINUTES: '',
  ...KEY_SETS,
  ...ISSUERS,
  ...Object.fromEntries(
    REGIONS.flatMap((region, index) => [
      [productionName('DATABASE_SECRET_ARN', region), secretIn(region)],
      [productionName('DATABASE_SECRET_KMS_KEY_ARN', region), ''],
      [productionName('VPC_SUBNET_IDS', region), subnetsIn(index).join(',')],
      [productionName('VPC_SECURITY_GROUP_IDS', region), groupIn(index)],
      [productionName('ALARM_TOPIC_ARN', region), topicIn(region)],
      ...STAGE_BOUND.map((name): [string, string] => [regionalName(name, region), '']),
      [regionalName('SECRETS_EXTENSION_LAYER_ARN', region), ''],
      [regionalName('API_GATEWAY_CLOUDWATCH_ROLE', region), ''],
    ]),
  ),
  PORTAL_SERVERLESS_BIN: '',
};

/** The functions of the stage, as Lambda names them (`<service>-<stage>-<function>`). */
export const functionNames = (stage = 'production') =>
  Object.keys(serverlessFunctions()).map((fn) => `portal-service-api-${stage}-${fn}`);

/** An account in which production fits in every region: the preflight finds nothing. */
export const healthyAccount = (): Account =>
  Object.fromEntries(
    REGIONS.map((region, index): [string, RegionAccount] => {
      const [first = '', second = ''] = subnetsIn(index);
      return [
        region,
        {
          concurrency: { limit: 1000, unreserved: 1000 },
          cloudWatchRoleArn: 'arn:aws:iam::123456789012:role/apigateway-cloudwatch',
          secrets: { [secretIn(region)]: {} },
          subnets: {
            [first]: { zone: `${region}a`, vpc: 'vpc-0123456789abcdef0' },
            [second]: { zone: `${region}b`, vpc: 'vpc-0123456789abcdef0' },
          },
          securityGroups: { [groupIn(index)]: { vpc: 'vpc-0123456789abcdef0' } },
        },
      ];
    }),
  );

/** npm's own CLI, run with this Node. */
const NPM_CLI =
  process.env.npm_execpath ??
  join(dirname(process.execPath), '../lib/node_modules/npm/bin/npm-cli.js');

/**
 * `npm run <command> -- <args>`: as npm runs it (tsx tools/release/main.ts <command>), or
 * through npm itself with `npm: true`.
 */
export const release = (
  command: 'package' | 'deploy',
  args: readonly string[],
  env: Record<string, string>,
  { npm = false }: { npm?: boolean } = {},
) =>
  run(
    npm
      ? [NPM_CLI, 'run', '-s', command, '--', ...args]
      : ['--import', 'tsx', 'tools/release/main.ts', command, ...args],
    { ...ENV, ESBUILD_WORK_FOLDER: WORK_FOLDER, ...env },
  );

/** The stand-in serverless: records each call; `package` writes a template; fails where told. */
const FAKE = `#!${process.execPath}
import { appendFileSync, existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
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

/**
 * `npm run deploy -- --stage production --out <temp> <args>` (or `package`) with the stand-in
 * serverless: the result, the out folder, and serverless's calls as `<command> <region> <package>`.
 */
export const deployWith = async (
  env: Record<string, string>,
  args: readonly string[] = [],
  { command = 'deploy', ...options }: { npm?: boolean; command?: 'package' | 'deploy' } = {},
) => {
  const dir = tempDir('portal-release-deploy-');
  const bin = join(dir, 'serverless.mjs');
  writeFileSync(bin, FAKE);
  chmodSync(bin, 0o755);
  const log = join(dir, 'calls.log');
  const out = join(dir, 'packages');
  const result = await release(
    command,
    ['--stage', 'production', '--out', out, ...args],
    {
      PORTAL_SERVERLESS_BIN: bin,
      FAKE_SERVERLESS_LOG: log,
      FAKE_SERVERLESS_FAIL: '',
      ...env,
    },
    options,
  );
  const calls = existsSync(log)
    ? readFileSync(log, 'utf8')
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as string[])
    : [];
  return { result, out, calls: calls.map((call) => `${call[0]} ${call[4]} ${call[6]}`) };
};
export const packageCall = (out: string, region: string) =>
  `package ${region} ${join(out, region)}`;
export const deployCall = (out: string, region: string) => `deploy ${region} ${join(out, region)}`;
