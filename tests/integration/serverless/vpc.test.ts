/**
 * Running in the brand's VPC (tools/serverless/vpc.cjs, docs/database.md "Running in a
 * VPC"). Through a real `serverless package` (offline): with subnets and security groups for the
 * region every function gets their VpcConfig and the role osls's AWSLambdaVPCAccessExecutionRole
 * (the network-interface permissions), and the template passes cfn-lint when it is on PATH;
 * without them no function is in a VPC and the role has no VPC policy; with one of the pair
 * packaging fails naming the other. The resolver's rules (most specific names first, as a pair;
 * staging and production from their own names only; params first; id shapes and limits) are
 * checked by calling it directly.
 */
import { catalogue } from '../../../tools/catalogue';
import { lambdaLogicalId } from '../../../tools/generators/serverless';
import { stagedNames, unstagedNames } from '../../../tools/generators/variables';
import { CFN_LINT_AVAILABLE, expectLintPasses } from '../../support/cfn-lint';
import {
  expectPackaged,
  expectRefused,
  ofType,
  packageService,
  removeTemporary,
  type Template,
} from '../../support/packaging';
import { resolverOf, settingsCheckOf } from '../../support/resolvers';

const SUBNETS = ['subnet-0123456789abcdef0', 'subnet-0fedcba9876543210'];
const SECURITY_GROUP = 'sg-0a1b2c3d4e5f60718';
/** Every name of the pair, for each stage and region of these tests. */
const VPC_NAMES = [
  ...new Set(
    ['VPC_SUBNET_IDS', 'VPC_SECURITY_GROUP_IDS'].flatMap((name) =>
      ['production', 'staging', 'dev'].flatMap((stage) =>
        ['eu-west-1', 'sa-east-1'].flatMap((region) => {
          const scope = { stage, region, portal: stage !== 'dev' };
          return [...stagedNames(name, scope), ...unstagedNames(name, scope)];
        }),
      ),
    ),
  ),
];
/** No VPC variable, other stages' and regions' included, leaking in from the caller's environment. */
const NO_VPC = Object.fromEntries(VPC_NAMES.map((name) => [name, '']));
const VPC_POLICY = ':iam::aws:policy/service-role/AWSLambdaVPCAccessExecutionRole';

const ENDPOINT_FUNCTIONS = catalogue.map((endpoint) => lambdaLogicalId(endpoint.function));

afterAll(removeTemporary);

const packageWith = (env: Record<string, string>, params: readonly string[] = []) =>
  packageService({ env: { ...NO_VPC, ...env }, params });

/** The function of each endpoint of the catalogue (the release's own functions aside). */
const functionsOf = (template: Template) =>
  ofType(template, 'AWS::Lambda::Function')
    .filter(([logicalId]) => ENDPOINT_FUNCTIONS.includes(logicalId))
    .map(([, fn]) => fn);
const managedPoliciesOf = (template: Template) =>
  JSON.stringify(template.Resources.IamRoleLambdaExecution?.Properties.ManagedPolicyArns ?? []);

describe('serverless package: the VPC', () => {
  it('puts every function in the region’s subnets and security groups, with the VPC permissions', async () => {
    // Arrange: production's names with the region win over those without; a param over the
    // environment
    const packaged = await packageWith(
      {
        VPC_SUBNET_IDS_PRODUCTION: 'subnet-11111111',
        VPC_SECURITY_GROUP_IDS_PRODUCTION: 'sg-11111111',
        VPC_SUBNET_IDS_PRODUCTION_EU_WEST_1: ` ${SUBNETS.join(' , ')} `,
        VPC_SECURITY_GROUP_IDS_PRODUCTION_EU_WEST_1: 'sg-22222222',
      },
      [`VPC_SECURITY_GROUP_IDS_PRODUCTION_EU_WEST_1=${SECURITY_GROUP}`],
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
    for (const [, fn] of ofType(template, 'AWS::Lambda::Function')) {
      expect(fn.Properties).not.toHaveProperty('VpcConfig');
    }
    expect(managedPoliciesOf(template)).not.toContain('AWSLambdaVPCAccessExecutionRole');
  });

  it('fails, naming the missing variable, when only one of the pair is set', async () => {
    const packaged = await packageWith({ VPC_SUBNET_IDS_PRODUCTION_EU_WEST_1: SUBNETS[0] ?? '' });

    expectRefused(packaged, 'VPC_SECURITY_GROUP_IDS_PRODUCTION_EU_WEST_1 is not set');
  });
});

type Resolved = { vpc: { subnetIds: string[]; securityGroupIds: string[] } | null };

describe('tools/serverless/vpc.cjs', () => {
  const resolve = resolverOf<Resolved>('tools/serverless/vpc.cjs', VPC_NAMES);
  /** Resolves `stage` in `region` with these environment variables and serverless params. */
  const resolveWith = (
    stage: string,
    region: string,
    env: Record<string, string>,
    params: Record<string, string> = {},
  ) =>
    resolve(
      {
        'sls:stage': stage,
        'self:provider.region': region,
        'self:custom.keySetVariables': {
          staging: { EU: 'JWK_URL_EU_STAGING' },
          production: { EU: 'JWK_URL_EU_PRODUCTION', LATAM: 'JWK_URL_LATAM_PRODUCTION' },
        },
      },
      env,
      params,
    );
  const check = settingsCheckOf(VPC_NAMES);
  /**
   * What packaging refuses `stage` in `region` with, as far as the VPC goes: custom.settingsCheck's
   * list when it names a VPC setting, else vpc.cjs's own refusal.
   */
  const refusal = (
    stage: string,
    region: string,
    env: Record<string, string>,
    params: Record<string, string> = {},
  ) =>
    check(stage, region, env, params).then(
      () => resolveWith(stage, region, env, params),
      // The other settings this suite leaves unset are no concern of the VPC's.
      (error: unknown) =>
        error instanceof Error && /\n {4}VPC_/.test(error.message)
          ? Promise.reject(error)
          : resolveWith(stage, region, env, params),
    );
  const vpcOf = (subnet: string, group: string) => ({
    vpc: { subnetIds: [subnet], securityGroupIds: [group] },
  });

  /** A subnet and a security group by the plain names, which dev reads. */
  const PLAIN = {
    VPC_SUBNET_IDS: 'subnet-aaaaaaaa',
    VPC_SECURITY_GROUP_IDS: 'sg-cccccccc',
  };

  it('resolves to null without any variable', async () => {
    await expect(resolveWith('production', 'eu-west-1', {})).resolves.toEqual({ vpc: null });
    await expect(resolveWith('dev', 'eu-west-1', {})).resolves.toEqual({ vpc: null });
  });

  /** The pairs dev reads in sa-east-1, most specific first. */
  const DEV_LEVELS = [
    ['VPC_SUBNET_IDS_DEV_SA_EAST_1', 'VPC_SECURITY_GROUP_IDS_DEV_SA_EAST_1'],
    ['VPC_SUBNET_IDS_DEV', 'VPC_SECURITY_GROUP_IDS_DEV'],
    ['VPC_SUBNET_IDS_SA_EAST_1', 'VPC_SECURITY_GROUP_IDS_SA_EAST_1'],
    ['VPC_SUBNET_IDS', 'VPC_SECURITY_GROUP_IDS'],
  ] as const;

  it.each(DEV_LEVELS.map(([subnets, groups], level) => [subnets, groups, level] as const))(
    'reads dev from %s and %s over every less specific pair',
    async (_subnets, _groups, level) => {
      // Arrange: this pair and each less specific one set, the winner's ids all 0; and another
      // region's pair
      const env = {
        VPC_SUBNET_IDS_EU_WEST_1: 'subnet-dddddddd',
        VPC_SECURITY_GROUP_IDS_EU_WEST_1: 'sg-eeeeeeee',
        ...Object.fromEntries(
          DEV_LEVELS.slice(level).flatMap(([subnets, groups], index) => [
            [subnets, `subnet-${String(index).repeat(8)}`],
            [groups, `sg-${String(index).repeat(8)}`],
          ]),
        ),
      };

      // Act, Assess
      await expect(resolveWith('dev', 'sa-east-1', env)).resolves.toEqual(
        vpcOf('subnet-00000000', 'sg-00000000'),
      );
    },
  );

  it('reads production from its own names only, the region’s over the stage’s', async () => {
    await expect(
      resolveWith('production', 'eu-west-1', {
        VPC_SUBNET_IDS_PRODUCTION: 'subnet-aaaaaaaa',
        VPC_SECURITY_GROUP_IDS_PRODUCTION: 'sg-aaaaaaaa',
        VPC_SUBNET_IDS_PRODUCTION_EU_WEST_1: 'subnet-bbbbbbbb',
        VPC_SECURITY_GROUP_IDS_PRODUCTION_EU_WEST_1: 'sg-bbbbbbbb',
        VPC_SUBNET_IDS_STAGING_EU_WEST_1: 'subnet-cccccccc',
        VPC_SECURITY_GROUP_IDS_STAGING_EU_WEST_1: 'sg-cccccccc',
      }),
    ).resolves.toEqual(vpcOf('subnet-bbbbbbbb', 'sg-bbbbbbbb'));
    await expect(
      resolveWith('production', 'sa-east-1', {
        VPC_SUBNET_IDS_PRODUCTION: 'subnet-aaaaaaaa',
        VPC_SECURITY_GROUP_IDS_PRODUCTION: 'sg-aaaaaaaa',
        VPC_SUBNET_IDS_PRODUCTION_EU_WEST_1: 'subnet-bbbbbbbb',
        VPC_SECURITY_GROUP_IDS_PRODUCTION_EU_WEST_1: 'sg-bbbbbbbb',
      }),
    ).resolves.toEqual(vpcOf('subnet-aaaaaaaa', 'sg-aaaaaaaa'));
  });

  it('never puts staging in production’s network', async () => {
    await expect(
      resolveWith('staging', 'eu-west-1', {
        VPC_SUBNET_IDS_PRODUCTION_EU_WEST_1: 'subnet-bbbbbbbb',
        VPC_SECURITY_GROUP_IDS_PRODUCTION_EU_WEST_1: 'sg-bbbbbbbb',
        VPC_SUBNET_IDS_PRODUCTION: 'subnet-aaaaaaaa',
        VPC_SECURITY_GROUP_IDS_PRODUCTION: 'sg-aaaaaaaa',
      }),
    ).resolves.toEqual({ vpc: null });
  });

  it.each([
    [
      'staging',
      { VPC_SUBNET_IDS: 'subnet-aaaaaaaa' },
      {},
      'VPC_SUBNET_IDS is set, but stage "staging" reads VPC_SUBNET_IDS only from VPC_SUBNET_IDS_STAGING_EU_WEST_1 or VPC_SUBNET_IDS_STAGING',
    ],
    [
      'production',
      { VPC_SECURITY_GROUP_IDS_EU_WEST_1: 'sg-cccccccc' },
      {},
      'VPC_SECURITY_GROUP_IDS_EU_WEST_1 is set, but stage "production" reads VPC_SECURITY_GROUP_IDS only from VPC_SECURITY_GROUP_IDS_PRODUCTION_EU_WEST_1 or VPC_SECURITY_GROUP_IDS_PRODUCTION',
    ],
    [
      'production',
      {},
      { VPC_SUBNET_IDS_EU_WEST_1: 'subnet-aaaaaaaa' },
      'VPC_SUBNET_IDS_EU_WEST_1 is set, but stage "production" reads VPC_SUBNET_IDS only from VPC_SUBNET_IDS_PRODUCTION_EU_WEST_1 or VPC_SUBNET_IDS_PRODUCTION',
    ],
  ])(
    'refuses %s with %j (params %j) beside its own pair: %s',
    async (stage, env, params, message) => {
      const own = stage.toUpperCase();
      const pair = {
        [`VPC_SUBNET_IDS_${own}_EU_WEST_1`]: 'subnet-bbbbbbbb',
        [`VPC_SECURITY_GROUP_IDS_${own}_EU_WEST_1`]: 'sg-bbbbbbbb',
      };

      await expect(refusal(stage, 'eu-west-1', { ...pair, ...env }, params)).rejects.toThrow(
        message,
      );
    },
  );

  it('takes the most specific pair set as a pair: no mixing with a less specific one', async () => {
    await expect(
      refusal('production', 'eu-west-1', {
        VPC_SUBNET_IDS_PRODUCTION: 'subnet-aaaaaaaa',
        VPC_SECURITY_GROUP_IDS_PRODUCTION: 'sg-cccccccc',
        VPC_SUBNET_IDS_PRODUCTION_EU_WEST_1: 'subnet-dddddddd',
      }),
    ).rejects.toThrow(
      'VPC_SECURITY_GROUP_IDS_PRODUCTION_EU_WEST_1 is not set: VPC_SUBNET_IDS_PRODUCTION_EU_WEST_1 puts the functions in eu-west-1 in a VPC',
    );
    await expect(
      refusal('dev', 'eu-west-1', { ...PLAIN, VPC_SUBNET_IDS_EU_WEST_1: 'subnet-dddddddd' }),
    ).rejects.toThrow('VPC_SECURITY_GROUP_IDS_EU_WEST_1 is not set');
  });

  it('prefers a serverless param to the environment variable of the same name', async () => {
    await expect(
      resolveWith(
        'production',
        'eu-west-1',
        {
          VPC_SUBNET_IDS_PRODUCTION: 'subnet-aaaaaaaa',
          VPC_SECURITY_GROUP_IDS_PRODUCTION: 'sg-cccccccc',
        },
        { VPC_SUBNET_IDS_PRODUCTION: 'subnet-ffffffff' },
      ),
    ).resolves.toEqual(vpcOf('subnet-ffffffff', 'sg-cccccccc'));
    await expect(
      resolveWith('dev', 'eu-west-1', PLAIN, { VPC_SUBNET_IDS: 'subnet-ffffffff' }),
    ).resolves.toEqual(vpcOf('subnet-ffffffff', 'sg-cccccccc'));
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
  ])('refuses %j in dev: %s', async (env, message) => {
    await expect(refusal('dev', 'eu-west-1', env)).rejects.toThrow(message);
  });

  it('names production’s own variable when its ids are wrong', async () => {
    await expect(
      refusal('production', 'eu-west-1', {
        VPC_SUBNET_IDS_PRODUCTION_EU_WEST_1: 'subnet-aaaaaaaa,vpc-12345678',
        VPC_SECURITY_GROUP_IDS_PRODUCTION_EU_WEST_1: 'sg-cccccccc',
      }),
    ).rejects.toThrow('VPC_SUBNET_IDS_PRODUCTION_EU_WEST_1 holds "vpc-12345678"');
  });
});
