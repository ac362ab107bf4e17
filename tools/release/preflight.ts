/**
 * The preflight of `npm run deploy` (docs/deployment.md, "Preflight"): before anything is
 * packaged or created, each region's account is asked, with the AWS SDK's read-only calls,
 * whether the stage fits in it, and whether anything would make CloudFormation fail midway:
 *
 * - **The region** is enabled for the account (an opt-in region such as me-central-1 must be);
 *   a region that is not is skipped (tools/release/preflight-opt-in.ts).
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
 * - **The custom domain's certificate**, with DOMAIN_NAME: issued, in the region, covering the
 *   name, not expired (tools/release/preflight-certificate.ts).
 * - **The fixed names**: each function, log group, role, alarm, web ACL, CodeDeploy application
 *   and custom domain the stage names that exists already is the stack's own
 *   (tools/release/preflight-names.ts).
 *
 * Every problem of every region is returned, one per region and problem. Credentials come from
 * the SDK's default chain, endpoints from its settings (AWS_ENDPOINT_URL_<SERVICE>); every call
 * is bounded (preflight-common.ts's CLIENT_OPTIONS).
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
import { settingNames } from '../generators/variables';
import { checkCertificate } from './preflight-certificate';
import {
  clientConfig,
  describeError,
  errorName,
  Findings,
  isNotFound,
  scopeOf,
  stackName,
  valueOf,
  type PreflightPlan,
} from './preflight-common';
import { checkNamedResources, stageOperations, stageResourceNames } from './preflight-names';
import { unusableMessage, unusableRegions } from './preflight-opt-in';
import type { RegionSettings } from './regions';

export { describeError, type PreflightPlan } from './preflight-common';

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

/** The setting `name` of the plan in `region`, as packaging reads it (regions.ts). */
const setting = (plan: PreflightPlan, name: string, region: string) =>
  plan.settings.find((settings) => settings.region === region)?.values[name] ?? {
    variable: name,
    value: '',
  };

/** The most specific variable of `name` in `region`: the one a message asks to set. */
const ownName = (plan: PreflightPlan, name: string, region: string) =>
  settingNames(name, scopeOf(plan, region))[0] ?? name;

const ids = (value: string) =>
  value
    .split(',')
    .map((id) => id.trim())
    .filter(Boolean);

/** Lambda: the account's concurrency leaves the stage's reservations and the minimum. */
const checkConcurrency = async (
  check: Findings,
  plan: PreflightPlan,
  reserved: Readonly<Record<string, number>>,
) => {
  const { region } = check;
  const lambda = new LambdaClient(clientConfig(region));
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
              FunctionName: `${stackName(plan)}-${fn}`,
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
  const role = setting(plan, 'API_GATEWAY_CLOUDWATCH_ROLE', region);
  const create = role.value === 'create';
  const variable = role.variable;
  const client = new APIGatewayClient(clientConfig(region));
  try {
    const { cloudwatchRoleArn: arn = '' } = await client.send(new GetAccountCommand({}));
    // CloudFormation names a role it creates `<stack>-<logical id>-<suffix>`.
    const ours = arn.split(':role/')[1]?.startsWith(`${stackName(plan)}-`) ?? false;
    if (!arn && !create) {
      check.problem(
        `API Gateway has no CloudWatch role in this account and region, which the stage's access log needs: ` +
          `set one (docs/operations.md, "The account's CloudWatch role"), or let this one stack create it with ${ownName(plan, 'API_GATEWAY_CLOUDWATCH_ROLE', region)}=create`,
      );
    } else if (arn && create && !ours) {
      check.problem(
        `API Gateway's CloudWatch role is already set (${arn}) and ${variable}=create would replace it: ` +
          `only one stack per account and region may own it; set ${variable}=existing`,
      );
    } else {
      check.found(arn ? 'CloudWatch role set' : 'CloudWatch role created by this stack');
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
const checkSecret = async (check: Findings, plan: PreflightPlan, settings: RegionSettings) => {
  const { region } = check;
  const secretVariable = settings.variables.secret;
  if (!secretVariable) return;
  const arn = valueOf(plan.env, secretVariable);
  let key;
  try {
    key = setting(plan, 'DATABASE_SECRET_KMS_KEY_ARN', region);
  } catch (error) {
    check.problem((error as Error).message);
    return;
  }
  const { variable: keyVariable, value: keyArn } = key;
  const secretRegion = arn.split(':')[3] ?? '';
  if (secretRegion !== region) {
    check.problem(
      `${secretVariable} names a secret in ${secretRegion || 'no region'}, not ${region}: replicate the secret to ${region} and give that replica's ARN`,
    );
    return;
  }
  const secrets = new SecretsManagerClient(clientConfig(region));
  const kms = new KMSClient(clientConfig(region));
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
        `${secretVariable}: the secret is encrypted with the customer-managed KMS key ${usedArn}: give it in ${ownName(plan, 'DATABASE_SECRET_KMS_KEY_ARN', region)}, or the functions may not decrypt it`,
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
const checkVpc = async (check: Findings, plan: PreflightPlan, settings: RegionSettings) => {
  const { region } = check;
  // `<subnets variable>, <security groups variable>` (regions.ts's checkSettings), or none.
  const [subnetVariable, groupVariable] = (settings.variables.vpc ?? '').split(', ');
  if (!subnetVariable || !groupVariable) return;
  const ec2 = new EC2Client(clientConfig(region));
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

/**
 * The custom domain's certificate and the stage's fixed names, from the stage's operations
 * settings as packaging reads them; a bad one is the problem.
 */
const checkStageResources = async (
  certificate: Findings,
  names: Findings,
  plan: PreflightPlan,
  functions: readonly string[],
) => {
  const { region } = names;
  let operations;
  try {
    operations = stageOperations(plan.env, scopeOf(plan, region));
  } catch (error) {
    names.problem(
      `${(error as Error).message} (the custom domain's certificate and the fixed names not checked)`,
    );
    return;
  }
  const { raw, settings } = operations;
  const { service, stage } = plan;
  await Promise.all([
    settings.domain
      ? checkCertificate(certificate, settings.domain, {
          name: raw.DOMAIN_NAME.variable,
          certificate: raw.DOMAIN_CERTIFICATE_ARN.variable,
        })
      : undefined,
    checkNamedResources(names, {
      stack: stackName(plan),
      names: stageResourceNames({ service, stage, region, functions }, settings),
      domainVariable: raw.DOMAIN_NAME.variable,
    }),
  ]);
};

/**
 * Every check of every region, at once, but for the regions the account has not enabled; every
 * problem of every region, in region order.
 */
export const runPreflight = async (plan: PreflightPlan): Promise<PreflightResult> => {
  let reserved: Readonly<Record<string, number>>;
  try {
    ({ reservedConcurrency: reserved } = connectionBudget(plan.settings[0]?.values ?? {}));
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    return { problems: [{ region: 'every region', message }], summaries: {} };
  }
  const everyRegion: PreflightProblem[] = [];
  let unusable = new Map<string, 'not enabled' | 'unknown'>();
  try {
    unusable = await unusableRegions(plan.settings.map(({ region }) => region));
  } catch (error) {
    everyRegion.push({
      region: 'every region',
      message: `whether each region is enabled not checked: ${describeError(error)}`,
    });
  }
  const results = await Promise.all(
    plan.settings.map(async (settings) => {
      const { region } = settings;
      const why = unusable.get(region);
      if (why !== undefined) {
        const skipped = new Findings(region);
        skipped.problem(unusableMessage(region, why));
        return { region, checks: [skipped] };
      }
      const checks = {
        concurrency: new Findings(region),
        role: new Findings(region),
        secret: new Findings(region),
        vpc: new Findings(region),
        certificate: new Findings(region),
        names: new Findings(region),
      };
      await Promise.all([
        checkConcurrency(checks.concurrency, plan, reserved),
        checkCloudWatchRole(checks.role, plan),
        checkSecret(checks.secret, plan, settings),
        checkVpc(checks.vpc, plan, settings),
        checkStageResources(checks.certificate, checks.names, plan, Object.keys(reserved)),
      ]);
      return { region, checks: Object.values(checks) };
    }),
  );
  return {
    problems: [
      ...everyRegion,
      ...results.flatMap(({ region, checks }) =>
        checks.flatMap(({ problems }) => problems.map((message) => ({ region, message }))),
      ),
    ],
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
