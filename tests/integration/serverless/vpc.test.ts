/**
 * Running in the brand's VPC (tools/serverless/vpc.cjs, docs/database.md "Running in a
 * VPC"). Through a real `serverless package` (offline): with subnets and security groups for the
 * region every function gets their VpcConfig and the role osls's AWSLambdaVPCAccessExecutionRole
 * (the network-interface permissions), and the template passes cfn-lint when it is on PATH;
 * without them no function is in a VPC and the role has no VPC policy; with one of the pair
 * packaging fails naming the other. The resolver's rules (region names first, as a pair; params
 * first; id shapes and limits) are checked by calling it directly.
 */
import { catalogue } from '../../../shared/catalogue';
import { CFN_LINT_AVAILABLE, expectLintPasses } from '../../support/cfn-lint';
import {
  expectPackaged,
  expectRefused,
  ofType,
  packageService,
  removeTemporary,
  type Template,
} from '../../support/packaging';
import { resolverOf } from '../../support/resolvers';

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
/** No VPC variable, the other region's included, leaking in from the caller's environment. */
const NO_VPC = Object.fromEntries(VPC_NAMES.map((name) => [name, '']));
const VPC_POLICY = ':iam::aws:policy/service-role/AWSLambdaVPCAccessExecutionRole';

afterAll(removeTemporary);

const packageWith = (env: Record<string, string>, params: readonly string[] = []) =>
  packageService({ env: { ...NO_VPC, ...env }, params });

const functionsOf = (template: Template) =>
  ofType(template, 'AWS::Lambda::Function').map(([, fn]) => fn);
const managedPoliciesOf = (template: Template) =>
  JSON.stringify(template.Resources.IamRoleLambdaExecution?.Properties.ManagedPolicyArns ?? []);

describe('serverless package: the VPC', () => {
  it('puts every function in the region’s subnets and security groups, with the VPC permissions', async () => {
    // Arrange: the region's names win over the single-region ones; a param over the environment
    const packaged = await packageWith(
      {
        VPC_SUBNET_IDS: 'subnet-11111111',
        VPC_SECURITY_GROUP_IDS: 'sg-11111111',
        VPC_SUBNET_IDS_EU_WEST_1: ` ${SUBNETS.join(' , ')} `,
        VPC_SECURITY_GROUP_IDS_EU_WEST_1: 'sg-22222222',
      },
      [`VPC_SECURITY_GROUP_IDS_EU_WEST_1=${SECURITY_GROUP}`],
    );

    // Assess
    expectPackaged(packaged);
    const template = packaged.template();
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

    if (CFN_LINT_AVAILABLE) expectLintPasses(packaged.templatePath, 'eu-west-1');
  });

  it('leaves the functions outside a VPC, with no VPC policy, when nothing is set', async () => {
    const packaged = await packageWith({});

    expectPackaged(packaged);
    const template = packaged.template();
    expect(functionsOf(template)).toHaveLength(catalogue.length);
    for (const fn of functionsOf(template)) expect(fn.Properties).not.toHaveProperty('VpcConfig');
    expect(managedPoliciesOf(template)).not.toContain('AWSLambdaVPCAccessExecutionRole');
  });

  it('fails, naming the missing variable, when only one of the pair is set', async () => {
    const packaged = await packageWith({ VPC_SUBNET_IDS_EU_WEST_1: SUBNETS[0] ?? '' });

    expectRefused(packaged, 'VPC_SECURITY_GROUP_IDS_EU_WEST_1 is not set');
  });
});

type Resolved = { vpc: { subnetIds: string[]; securityGroupIds: string[] } | null };

describe('tools/serverless/vpc.cjs', () => {
  const resolve = resolverOf<Resolved>('tools/serverless/vpc.cjs', VPC_NAMES);
  /** Resolves in `region` with these environment variables and serverless params. */
  const resolveWith = (
    region: string,
    env: Record<string, string>,
    params: Record<string, string> = {},
  ) => resolve({ 'self:provider.region': region }, env, params);

  /** A subnet and a security group by the single-region names. */
  const SINGLE_REGION = {
    VPC_SUBNET_IDS: 'subnet-aaaaaaaa',
    VPC_SECURITY_GROUP_IDS: 'sg-cccccccc',
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
      resolveWith('eu-west-1', { ...SINGLE_REGION, VPC_SUBNET_IDS_EU_WEST_1: 'subnet-dddddddd' }),
    ).rejects.toThrow('VPC_SECURITY_GROUP_IDS_EU_WEST_1 is not set');
  });

  it('prefers a serverless param to the environment variable of the same name', async () => {
    await expect(
      resolveWith('eu-west-1', SINGLE_REGION, { VPC_SUBNET_IDS: 'subnet-ffffffff' }),
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
