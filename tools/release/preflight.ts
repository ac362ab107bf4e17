/**
 * The preflight of `npm run deploy` (docs/deployment.md, "Preflight"): before anything is
 * packaged or created, each region's account is asked, with the AWS SDK's read-only calls,
 * whether the stage fits in it:
 *
 * - **Lambda concurrency**: the account's unreserved concurrency, plus what this stack's
 *   functions reserve already (a re-deploy replaces them), less what the stage reserves
 *   (tools/generators/serverless.ts's connection budget, as packaging computes it), keeps Lambda's minimum
 *   of 100 unreserved.
 * - **API Gateway's CloudWatch role**: set on the account, or created by this stack
 *   (API_GATEWAY_CLOUDWATCH_ROLE=create); a role set by anyone else is not replaced.
 * - **The database secret** exists in the region, not scheduled for deletion, and its
 *   customer-managed KMS key is the one configured, exists there and is enabled.
 * - **The VPC**: every subnet and security group exists, in one VPC, the subnets in at least
 *   two availability zones.
 *
 * Every problem of every region is returned, one per region and problem. Credentials come from
 * the SDK's default chain, endpoints from its settings (AWS_ENDPOINT_URL_<SERVICE>).
 */
import { APIGatewayClient, GetAccountCommand } from '@aws-sdk/client-api-gateway';
import {
  DescribeSecurityGroupsCommand,
  DescribeSubnetsCommand,
  EC2Client,
  type SecurityGroup,
  type Subnet,
} from '@aws-sdk/client-ec2';
import { DescribeKeyCommand, KMSClient, type KeyMetadata } from '@aws-sdk/client-kms';
import {
  GetAccountSettingsCommand,
  GetFunctionConcurrencyCommand,
  LambdaClient,
} from '@aws-sdk/client-lambda';
import { DescribeSecretCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { connectionBudget } from '../generators/serverless';
import { regionalName, vpcVariables, type RegionSettings } from './regions';

type Env = Readonly<Record<string, string | undefined>>;

/** Lambda keeps this much of the account's concurrency unreserved. */
export const UNRESERVED_MINIMUM = 100;

export interface PreflightProblem {
  /** The AWS region, or `every region`. */
  readonly region: string;
  readonly message: string;
}

export interface PreflightResult {
  readonly problems: readonly PreflightProblem[];
  /** One line per region that passed: what was found. */
  readonly summaries: Readonly<Record<string, string>>;
}

export interface PreflightPlan {
  readonly service: string;
  readonly stage: string;
  readonly settings: readonly RegionSettings[];
  readonly env: Env;
}

const valueOf = (env: Env, name: string) => (env[name] ?? '').trim();

/** The region's form of a region-bound variable, else its plain name: [variable, value]. */
const regionalOrPlain = (env: Env, name: string, region: string): [string, string] => {
  const regional = regionalName(name, region);
  return valueOf(env, regional) ? [regional, valueOf(env, regional)] : [name, valueOf(env, name)];
};

const errorName = (error: unknown) =>
  (error as { name?: unknown } | null)?.name === undefined
    ? 'Error'
    : String((error as { name: unknown }).name);

/** An SDK failure, in one line: its name and message. */
export const describeError = (error: unknown) =>
  `${errorName(error)}: ${String((error as { message?: unknown } | null)?.message ?? error)
    .split('\n')[0]
    ?.trim()}`;

const isNotFound = (error: unknown) =>
  ['ResourceNotFoundException', 'NotFoundException'].includes(errorName(error));

const ids = (value: string) =>
  value
    .split(',')
    .map((id) => id.trim())
    .filter(Boolean);

/** What one check of one region found: its problems, or a summary when it found none. */
class Findings {
  readonly problems: string[] = [];
  summary = '';
  readonly region: string;
  constructor(region: string) {
    this.region = region;
  }
  problem(message: string) {
    this.problems.push(message);
  }
  found(summary: string) {
    this.summary = summary;
  }
}

/** Lambda: the account's concurrency leaves the stage's reservations and the minimum. */
const checkConcurrency = async (
  check: Findings,
  plan: PreflightPlan,
  reserved: Readonly<Record<string, number>>,
) => {
  const { region } = check;
  const lambda = new LambdaClient({ region });
  try {
    const { AccountLimit: limit } = await lambda.send(new GetAccountSettingsCommand({}));
    const total = limit?.ConcurrentExecutions ?? 0;
    const unreserved = limit?.UnreservedConcurrentExecutions ?? 0;
    // A re-deploy replaces this stack's own reservations: they count as free.
    const current = await Promise.all(
      Object.keys(reserved).map(async (fn) => {
        try {
          const answer = await lambda.send(
            new GetFunctionConcurrencyCommand({
              FunctionName: `${plan.service}-${plan.stage}-${fn}`,
            }),
          );
          return answer.ReservedConcurrentExecutions ?? 0;
        } catch (error) {
          if (isNotFound(error)) return 0;
          throw error;
        }
      }),
    );
    const held = current.reduce((sum, n) => sum + n, 0);
    const wanted = Object.values(reserved).reduce((sum, n) => sum + n, 0);
    const left = unreserved + held - wanted;
    const heldText = held > 0 ? `, ${held} of it reserved by this stack today` : '';
    if (left < UNRESERVED_MINIMUM) {
      check.problem(
        `Lambda concurrency: the account's limit is ${total}, ${unreserved} unreserved${heldText}; ` +
          `the stage reserves ${wanted} (${Object.keys(reserved).length} functions), leaving ${left}, below Lambda's minimum of ${UNRESERVED_MINIMUM}: ` +
          `ask Service Quotas for "Concurrent executions" of at least ${total + UNRESERVED_MINIMUM - left} in ${region}, or lower RESERVED_CONCURRENCY`,
      );
    } else {
      check.found(`reserves ${wanted} of ${unreserved + held} unreserved (limit ${total})`);
    }
  } catch (error) {
    check.problem(`Lambda concurrency not checked: ${describeError(error)}`);
  } finally {
    lambda.destroy();
  }
};

/** API Gateway: the account's CloudWatch role is set, or this stack creates it. */
const checkCloudWatchRole = async (check: Findings, plan: PreflightPlan) => {
  const { region } = check;
  const [variable, setting] = regionalOrPlain(plan.env, 'API_GATEWAY_CLOUDWATCH_ROLE', region);
  const create = setting === 'create';
  const client = new APIGatewayClient({ region });
  try {
    const { cloudwatchRoleArn: role = '' } = await client.send(new GetAccountCommand({}));
    // CloudFormation names a role it creates `<stack>-<logical id>-<suffix>`.
    const ours = role.split(':role/')[1]?.startsWith(`${plan.service}-${plan.stage}-`) ?? false;
    if (!role && !create) {
      check.problem(
        `API Gateway has no CloudWatch role in this account and region, which the stage's access log needs: ` +
          `set one (docs/operations.md, "The account's CloudWatch role"), or let this one stack create it with ${regionalName('API_GATEWAY_CLOUDWATCH_ROLE', region)}=create`,
      );
    } else if (role && create && !ours) {
      check.problem(
        `API Gateway's CloudWatch role is already set (${role}) and ${variable}=create would replace it: ` +
          `only one stack per account and region may own it; set ${variable}=existing`,
      );
    } else {
      check.found(role ? 'CloudWatch role set' : 'CloudWatch role created by this stack');
    }
  } catch (error) {
    check.problem(`API Gateway's CloudWatch role not checked: ${describeError(error)}`);
  } finally {
    client.destroy();
  }
};

/** The key's metadata, or undefined when the region has no such key. */
const describeKey = async (kms: KMSClient, keyId: string): Promise<KeyMetadata | undefined> => {
  try {
    return (await kms.send(new DescribeKeyCommand({ KeyId: keyId }))).KeyMetadata;
  } catch (error) {
    if (isNotFound(error)) return undefined;
    throw error;
  }
};

/** Secrets Manager and KMS: the secret and its key exist in the region, the key enabled. */
const checkSecret = async (check: Findings, plan: PreflightPlan, setting: RegionSettings) => {
  const { region } = check;
  const secretVariable = setting.variables.secret;
  if (!secretVariable) return;
  const arn = valueOf(plan.env, secretVariable);
  const [keyVariable, keyArn] = regionalOrPlain(plan.env, 'DATABASE_SECRET_KMS_KEY_ARN', region);
  const secretRegion = arn.split(':')[3] ?? '';
  if (secretRegion !== region) {
    check.problem(
      `${secretVariable} names a secret in ${secretRegion || 'no region'}, not ${region}: replicate the secret to ${region} and give that replica's ARN`,
    );
    return;
  }
  const secrets = new SecretsManagerClient({ region });
  const kms = new KMSClient({ region });
  try {
    let secretKey: string | undefined;
    try {
      const secret = await secrets.send(new DescribeSecretCommand({ SecretId: arn }));
      if (secret.DeletedDate !== undefined) {
        check.problem(
          `${secretVariable}: the secret is scheduled for deletion: restore it (aws secretsmanager restore-secret) or give another`,
        );
        return;
      }
      secretKey = secret.KmsKeyId;
    } catch (error) {
      if (!isNotFound(error)) throw error;
      check.problem(
        `${secretVariable}: no such secret in ${region} (${arn}): create it, or replicate it there, with the database credential`,
      );
      return;
    }
    const configured = keyArn ? await describeKey(kms, keyArn) : undefined;
    if (keyArn && configured === undefined) {
      check.problem(`${keyVariable}: no such KMS key in ${region} (${keyArn})`);
      return;
    }
    if (configured && (configured.Enabled !== true || configured.KeyState !== 'Enabled')) {
      check.problem(
        `${keyVariable}: the KMS key is ${configured.KeyState ?? 'not enabled'}: enable it (aws kms enable-key), or the functions cannot decrypt the secret`,
      );
      return;
    }
    // The key the secret is encrypted with (omitted for aws/secretsmanager) must be the one
    // the functions may decrypt with.
    const used = secretKey ? await describeKey(kms, secretKey) : undefined;
    // aws/secretsmanager, named explicitly, needs no key of ours.
    const usedArn = used?.KeyManager === 'AWS' ? undefined : (used?.Arn ?? secretKey);
    if (usedArn && !configured) {
      check.problem(
        `${secretVariable}: the secret is encrypted with the customer-managed KMS key ${usedArn}: give it in ${regionalName('DATABASE_SECRET_KMS_KEY_ARN', region)}, or the functions may not decrypt it`,
      );
    } else if (usedArn && configured && usedArn !== configured.Arn) {
      check.problem(
        `${keyVariable} is ${configured.Arn ?? keyArn}, but the secret is encrypted with ${usedArn}: give that key`,
      );
    } else {
      check.found(configured ? 'secret and its KMS key found' : 'secret found');
    }
  } catch (error) {
    check.problem(`the database secret not checked: ${describeError(error)}`);
  } finally {
    secrets.destroy();
    kms.destroy();
  }
};

/**
 * The subnets or security groups of `wanted` the region has; an id it lacks fails the whole
 * call (InvalidSubnetID.NotFound, InvalidGroup.NotFound), so each id is then asked alone.
 */
const existing = async <T>(
  wanted: readonly string[],
  describeIds: (ids: string[]) => Promise<T[]>,
  notFound: string,
): Promise<{ found: T[]; missing: string[] }> => {
  try {
    return { found: await describeIds([...wanted]), missing: [] };
  } catch (error) {
    if (errorName(error) !== notFound) throw error;
  }
  const found: T[] = [];
  const missing: string[] = [];
  for (const id of wanted) {
    try {
      found.push(...(await describeIds([id])));
    } catch (error) {
      if (errorName(error) !== notFound) throw error;
      missing.push(id);
    }
  }
  return { found, missing };
};

/** EC2: the subnets and security groups exist, in one VPC, across two availability zones. */
const checkVpc = async (check: Findings, plan: PreflightPlan) => {
  const { region } = check;
  const single = plan.settings.length === 1;
  const [subnetVariable, groupVariable] = vpcVariables(plan.env, region, single);
  if (!subnetVariable || !groupVariable) return;
  const ec2 = new EC2Client({ region });
  try {
    const subnets = await existing<Subnet>(
      ids(valueOf(plan.env, subnetVariable)),
      async (SubnetIds) =>
        (await ec2.send(new DescribeSubnetsCommand({ SubnetIds }))).Subnets ?? [],
      'InvalidSubnetID.NotFound',
    );
    const groups = await existing<SecurityGroup>(
      ids(valueOf(plan.env, groupVariable)),
      async (GroupIds) =>
        (await ec2.send(new DescribeSecurityGroupsCommand({ GroupIds }))).SecurityGroups ?? [],
      'InvalidGroup.NotFound',
    );
    if (subnets.missing.length > 0) {
      check.problem(
        `${subnetVariable}: no such subnet in ${region}: ${subnets.missing.join(', ')}`,
      );
    }
    if (groups.missing.length > 0) {
      check.problem(
        `${groupVariable}: no such security group in ${region}: ${groups.missing.join(', ')}`,
      );
    }
    const vpcs = [...new Set([...subnets.found, ...groups.found].map(({ VpcId }) => VpcId))];
    if (vpcs.length > 1) {
      check.problem(
        `${subnetVariable} and ${groupVariable} span several VPCs (${vpcs.join(', ')}): a function's subnets and security groups must share one`,
      );
    }
    const zones = new Set(subnets.found.map(({ AvailabilityZone }) => AvailabilityZone));
    if (subnets.missing.length === 0 && zones.size < 2) {
      check.problem(
        `${subnetVariable}: every subnet is in ${[...zones].join(', ')}: give subnets in at least two availability zones`,
      );
    }
    if (check.problems.length === 0) {
      check.found(
        `${subnets.found.length} subnets in ${zones.size} zones of ${vpcs[0] ?? 'a VPC'}`,
      );
    }
  } catch (error) {
    check.problem(`the VPC not checked: ${describeError(error)}`);
  } finally {
    ec2.destroy();
  }
};

/** Every check of every region, at once; every problem of every region, in region order. */
export const runPreflight = async (plan: PreflightPlan): Promise<PreflightResult> => {
  let reserved: Readonly<Record<string, number>>;
  try {
    ({ reservedConcurrency: reserved } = connectionBudget(plan.env));
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    return { problems: [{ region: 'every region', message }], summaries: {} };
  }
  const results = await Promise.all(
    plan.settings.map(async (setting) => {
      const checks = [0, 1, 2, 3].map(() => new Findings(setting.region));
      const [concurrency, role, secret, vpc] = checks as [Findings, Findings, Findings, Findings];
      await Promise.all([
        checkConcurrency(concurrency, plan, reserved),
        checkCloudWatchRole(role, plan),
        checkSecret(secret, plan, setting),
        checkVpc(vpc, plan),
      ]);
      return { region: setting.region, checks };
    }),
  );
  return {
    problems: results.flatMap(({ region, checks }) =>
      checks.flatMap(({ problems }) => problems.map((message) => ({ region, message }))),
    ),
    summaries: Object.fromEntries(
      results
        .filter(({ checks }) => checks.every(({ problems }) => problems.length === 0))
        .map(({ region, checks }) => [
          region,
          checks
            .map(({ summary }) => summary)
            .filter(Boolean)
            .join(', '),
        ]),
    ),
  };
};
