/**
 * Running in the brand's VPC (scripts/serverless/vpc.cjs, docs/database.md "Running in a
 * VPC"). Through a real `serverless package` (offline): with subnets and security groups for the
 * region every function gets their VpcConfig and the role osls's AWSLambdaVPCAccessExecutionRole
 * (the network-interface permissions), and the template passes cfn-lint when it is on PATH;
 * without them no function is in a VPC and the role has no VPC policy; with one of the pair
 * packaging fails naming the other. The resolver's rules (region names first, as a pair; params
 * first; id shapes and limits) are checked by calling it directly.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { catalogue } from '../../../shared/catalogue';
import { CFN_LINT_AVAILABLE, lintTemplate } from '../../support/cfn-lint';
import { ROOT, run, SERVERLESS } from '../../support/processes';

const SUBNETS = ['subnet-0123456789abcdef0', 'subnet-0fedcba9876543210'];
const SECURITY_GROUP = 'sg-0a1b2c3d4e5f60718';
const VPC_NAMES = [
  'VPC_SUBNET_IDS',
  'VPC_SECURITY_GROUP_IDS',
  'VPC_SUBNET_IDS_EU_WEST_1',
  'VPC_SECURITY_GROUP_IDS_EU_WEST_1',
  'VPC_SUBNET_IDS_SA_EAST_1',
  'VPC_SECURITY_GROUP_IDS_SA_EAST_1',
];
/** The packaging environment, with no VPC variable leaking in from the caller's. */
const ENV = {
  // Staging and production read the database credential from this secret (database-secret.test.ts).
  DATABASE_URL: 'postgres://db.example:5432/reports',
  DATABASE_SECRET_ARN:
    'arn:aws:secretsmanager:eu-west-1:123456789012:secret:portal/production/database-AbC123',
  DATABASE_SECRET_ARN_EU_WEST_1: '',
  DATABASE_SECRET_KMS_KEY_ARN: '',
  DATABASE_SECRET_KMS_KEY_ARN_EU_WEST_1: '',
  DATABASE_URL_EU_WEST_1: '',
  JWK_URL_EU_PRODUCTION: 'https://keys.example/eu-production/v2/jwks.json',
  ...Object.fromEntries(VPC_NAMES.map((name) => [name, ''])),
};
const VPC_POLICY = ':iam::aws:policy/service-role/AWSLambdaVPCAccessExecutionRole';

type Resource = { Type: string; Properties: Record<string, unknown> };
type Template = { Resources: Record<string, Resource> };

const workFolder = `.esbuild-test-vpc-${process.pid}`;
const outputs: string[] = [];
afterAll(() => {
  for (const path of [join(ROOT, workFolder), ...outputs]) {
    rmSync(path, { recursive: true, force: true });
  }
});

const packageWith = async (env: Record<string, string>, params: readonly string[] = []) => {
  const out = mkdtempSync(join(tmpdir(), 'portal-vpc-'));
  outputs.push(out);
  const result = await run(
    [
      SERVERLESS,
      'package',
      '--stage',
      'production',
      '--region',
      'eu-west-1',
      '--package',
      out,
      ...params.flatMap((param) => ['--param', param]),
    ],
    { ...ENV, ...env, ESBUILD_WORK_FOLDER: workFolder },
  );
  return { out, result };
};

const templatePath = (out: string) => join(out, 'cloudformation-template-update-stack.json');
const readTemplate = (out: string) =>
  JSON.parse(readFileSync(templatePath(out), 'utf8')) as Template;

const functionsOf = (template: Template) =>
  Object.values(template.Resources).filter(({ Type }) => Type === 'AWS::Lambda::Function');
const managedPoliciesOf = (template: Template) =>
  JSON.stringify(template.Resources.IamRoleLambdaExecution?.Properties.ManagedPolicyArns ?? []);

describe('serverless package: the VPC', () => {
  it('puts every function in the region’s subnets and security groups, with the VPC permissions', async () => {
    // Arrange: the region's names win over the single-region ones; a param over the environment
    const { out, result } = await packageWith(
      {
        VPC_SUBNET_IDS: 'subnet-11111111',
        VPC_SECURITY_GROUP_IDS: 'sg-11111111',
        VPC_SUBNET_IDS_EU_WEST_1: ` ${SUBNETS.join(' , ')} `,
        VPC_SECURITY_GROUP_IDS_EU_WEST_1: 'sg-22222222',
      },
      [`VPC_SECURITY_GROUP_IDS_EU_WEST_1=${SECURITY_GROUP}`],
    );

    // Assess
    expect({ code: result.code, stderr: result.stderr }).toMatchObject({ code: 0 });
    const template = readTemplate(out);
    const functions = functionsOf(template);
    expect(functions).toHaveLength(catalogue.length);
    for (const fn of functions) {
      expect(fn.Properties.VpcConfig).toEqual({
        SubnetIds: SUBNETS,
        SecurityGroupIds: [SECURITY_GROUP],
      });
    }
    // osls adds the managed policy itself (ec2:CreateNetworkInterface, DescribeNetworkInterfaces,
    // DeleteNetworkInterface, AssignPrivateIpAddresses, UnassignPrivateIpAddresses, ...).
    expect(managedPoliciesOf(template)).toContain(VPC_POLICY);

    if (CFN_LINT_AVAILABLE) {
      const { ok, output } = lintTemplate(templatePath(out), 'eu-west-1');
      expect({ ok, output }).toEqual({ ok: true, output: expect.any(String) as unknown });
    }
  });

  it('leaves the functions outside a VPC, with no VPC policy, when nothing is set', async () => {
    const { out, result } = await packageWith({});

    expect({ code: result.code, stderr: result.stderr }).toMatchObject({ code: 0 });
    const template = readTemplate(out);
    expect(functionsOf(template)).toHaveLength(catalogue.length);
    for (const fn of functionsOf(template)) expect(fn.Properties).not.toHaveProperty('VpcConfig');
    expect(managedPoliciesOf(template)).not.toContain('AWSLambdaVPCAccessExecutionRole');
  });

  it('fails, naming the missing variable, when only one of the pair is set', async () => {
    const { result } = await packageWith({ VPC_SUBNET_IDS_EU_WEST_1: SUBNETS[0] ?? '' });

    expect(result.code).not.toBe(0);
    expect(result.stdout + result.stderr).toContain('VPC_SECURITY_GROUP_IDS_EU_WEST_1 is not set');
  });
});

type Resolver = (context: {
  resolveVariable: (address: string) => Promise<unknown>;
}) => Promise<{ vpc: { subnetIds: string[]; securityGroupIds: string[] } | null }>;
const resolveVpc = createRequire(import.meta.url)(
  '../../../scripts/serverless/vpc.cjs',
) as Resolver;

describe('scripts/serverless/vpc.cjs', () => {
  const saved = Object.fromEntries(VPC_NAMES.map((name) => [name, process.env[name]]));
  afterEach(() => {
    for (const [name, value] of Object.entries(saved)) {
      if (value === undefined) Reflect.deleteProperty(process.env, name);
      else process.env[name] = value;
    }
  });

  /** Resolves in `region` with these environment variables and serverless params. */
  const resolveWith = (
    region: string,
    env: Record<string, string>,
    params: Record<string, string> = {},
  ) => {
    for (const name of VPC_NAMES) Reflect.deleteProperty(process.env, name);
    Object.assign(process.env, env);
    return resolveVpc({
      resolveVariable: (address) => {
        if (address === 'self:provider.region') return Promise.resolve(region);
        const param = /^param:(\w+), null$/.exec(address)?.[1];
        if (param) return Promise.resolve(params[param] ?? null);
        return Promise.reject(new Error(`unexpected address ${address}`));
      },
    });
  };

  it('resolves to null without any variable', async () => {
    await expect(resolveWith('eu-west-1', {})).resolves.toEqual({ vpc: null });
  });

  it('reads the single-region names in any region without a pair of its own', async () => {
    await expect(
      resolveWith('sa-east-1', {
        VPC_SUBNET_IDS: 'subnet-aaaaaaaa,subnet-bbbbbbbb',
        VPC_SECURITY_GROUP_IDS: 'sg-cccccccc',
        VPC_SUBNET_IDS_EU_WEST_1: 'subnet-dddddddd',
        VPC_SECURITY_GROUP_IDS_EU_WEST_1: 'sg-eeeeeeee',
      }),
    ).resolves.toEqual({
      vpc: { subnetIds: ['subnet-aaaaaaaa', 'subnet-bbbbbbbb'], securityGroupIds: ['sg-cccccccc'] },
    });
  });

  it('takes the region’s names as a pair: no mixing with the single-region ones', async () => {
    await expect(
      resolveWith('eu-west-1', {
        VPC_SUBNET_IDS: 'subnet-aaaaaaaa',
        VPC_SECURITY_GROUP_IDS: 'sg-cccccccc',
        VPC_SUBNET_IDS_EU_WEST_1: 'subnet-dddddddd',
      }),
    ).rejects.toThrow('VPC_SECURITY_GROUP_IDS_EU_WEST_1 is not set');
  });

  it('prefers a serverless param to the environment variable of the same name', async () => {
    await expect(
      resolveWith(
        'eu-west-1',
        { VPC_SUBNET_IDS: 'subnet-aaaaaaaa', VPC_SECURITY_GROUP_IDS: 'sg-cccccccc' },
        { VPC_SUBNET_IDS: 'subnet-ffffffff' },
      ),
    ).resolves.toEqual({
      vpc: { subnetIds: ['subnet-ffffffff'], securityGroupIds: ['sg-cccccccc'] },
    });
  });

  it.each([
    [{ VPC_SUBNET_IDS: 'subnet-aaaaaaaa' }, 'VPC_SECURITY_GROUP_IDS is not set'],
    [{ VPC_SECURITY_GROUP_IDS: 'sg-cccccccc' }, 'VPC_SUBNET_IDS is not set'],
    [
      { VPC_SUBNET_IDS: 'subnet-aaaaaaaa,vpc-12345678', VPC_SECURITY_GROUP_IDS: 'sg-cccccccc' },
      'VPC_SUBNET_IDS holds "vpc-12345678"',
    ],
    [
      { VPC_SUBNET_IDS: 'subnet-aaaaaaaa,', VPC_SECURITY_GROUP_IDS: 'sg-cccccccc' },
      'VPC_SUBNET_IDS holds ""',
    ],
    [
      { VPC_SUBNET_IDS: 'subnet-aaaaaaaa', VPC_SECURITY_GROUP_IDS: 'sg-CCCCCCCC' },
      'VPC_SECURITY_GROUP_IDS holds "sg-CCCCCCCC"',
    ],
    [
      { VPC_SUBNET_IDS: 'subnet-aaaaaaaa,subnet-aaaaaaaa', VPC_SECURITY_GROUP_IDS: 'sg-cccccccc' },
      'VPC_SUBNET_IDS names an id more than once',
    ],
    [
      {
        VPC_SUBNET_IDS: 'subnet-aaaaaaaa',
        VPC_SECURITY_GROUP_IDS: ['1', '2', '3', '4', '5', '6']
          .map((n) => `sg-${n.repeat(8)}`)
          .join(),
      },
      'VPC_SECURITY_GROUP_IDS holds 6 ids: a Lambda function takes at most 5',
    ],
  ])('refuses %j: %s', async (env, message) => {
    await expect(resolveWith('eu-west-1', env)).rejects.toThrow(message);
  });
});
