/**
 * The preflight's check of the stage's fixed names (tools/release/preflight.ts): a resource the
 * template names itself (a function, a log group, a role, an alarm, …) that already exists
 * outside the stage's stack makes CloudFormation fail ("already exists") in the middle of a
 * release, after the regions before it were deployed. A guarded stage's log groups outlive its
 * stack, and Lambda recreates a function's log group when it logs, so a stack deleted and
 * deployed again meets them. Each name the stage will create is looked up in the region; one
 * that exists must be the stack's own.
 */
import { APIGatewayClient, GetDomainNameCommand } from '@aws-sdk/client-api-gateway';
import {
  CloudFormationClient,
  DescribeStackResourcesCommand,
  paginateListStackResources,
} from '@aws-sdk/client-cloudformation';
import {
  CloudWatchClient,
  paginateDescribeAlarms,
  paginateListDashboards,
} from '@aws-sdk/client-cloudwatch';
import { CloudWatchLogsClient, paginateDescribeLogGroups } from '@aws-sdk/client-cloudwatch-logs';
import {
  ApplicationDoesNotExistException,
  CodeDeployClient,
  GetApplicationCommand,
} from '@aws-sdk/client-codedeploy';
import { GetRoleCommand, IAMClient, NoSuchEntityException } from '@aws-sdk/client-iam';
import { GetFunctionCommand, LambdaClient } from '@aws-sdk/client-lambda';
import { ListWebACLsCommand, WAFV2Client } from '@aws-sdk/client-wafv2';
import {
  ALARM_METRICS_MAX,
  OPERATIONS_VARIABLES,
  operationsSettings,
  type OperationsSettings,
  type RawOperationsSettings,
} from '../generators/operations';
import { dashboardName } from '../generators/dashboard';
import { HEARTBEAT_FUNCTION } from '../generators/heartbeat';
import { PRE_TRAFFIC_FUNCTION } from '../generators/pre-traffic';
import type { Scope } from '../generators/variables';
import {
  clientConfig,
  describeError,
  errorName,
  isNotFound,
  type Env,
  type Findings,
} from './preflight-common';
import { readRegionSettings, readReleaseConfig, type ReleaseConfig } from './regions';

/** The resource types whose name the template fixes, and what a message calls them. */
export const NAMED_TYPES = {
  'AWS::Lambda::Function': 'Lambda function',
  'AWS::Logs::LogGroup': 'log group',
  'AWS::IAM::Role': 'IAM role',
  'AWS::CloudWatch::Alarm': 'alarm',
  'AWS::CloudWatch::Dashboard': 'dashboard',
  'AWS::WAFv2::WebACL': 'web ACL',
  'AWS::CodeDeploy::Application': 'CodeDeploy application',
  'AWS::ApiGateway::DomainName': 'custom domain',
} as const;
export type NamedType = keyof typeof NAMED_TYPES;

export interface NamedResource {
  readonly type: NamedType;
  readonly name: string;
}

/**
 * The operations settings of the stage in a region, read as packaging reads them
 * (tools/serverless/operations-settings.cjs): `raw` names each one's variable. Throws, naming the
 * variable, on a bad value or a refused setting.
 */
export const stageOperations = (
  env: Env,
  scope: Scope,
  config: ReleaseConfig = readReleaseConfig(),
): { raw: RawOperationsSettings; settings: OperationsSettings } => {
  const read = readRegionSettings(config, scope.stage, scope.region, env);
  if (read.problems.length > 0) throw new Error(read.problems.join('; '));
  const raw = Object.fromEntries(
    OPERATIONS_VARIABLES.map((name) => {
      const { variable, value } = read.values[name] ?? { variable: name, value: '' };
      return [name, { variable, value }];
    }),
  ) as RawOperationsSettings;
  return { raw, settings: operationsSettings(raw, { ...scope, guarded: read.rules.guarded }) };
};

export interface StackNaming {
  readonly service: string;
  readonly stage: string;
  readonly region: string;
  /** The API's functions, by serverless.yml's key (the catalogue's ids). */
  readonly functions: readonly string[];
}

/** The stage-wide alarms of tools/generators/operations.ts, by name after `<service>-<stage>-`. */
const STAGE_ALARMS = [
  'api-5xx-rate',
  'api-5xx-count',
  'api-4xx-rate',
  'api-p99-latency',
  'key-set-failures',
  'database-errors',
];

/**
 * Every resource of the stage in a region whose name the template fixes, as packaging names it:
 * osls's (lib/plugins/aws/lib/naming.js) and this project's generators' (operations.ts, waf.ts,
 * deployment.ts, pre-traffic.ts, release-alarms.ts, domain.ts) with the stage's settings.
 * tests/integration/serverless/preflight-names.test.ts holds it to packaged templates.
 */
export const stageResourceNames = (
  { service, stage, region, functions }: StackNaming,
  settings: OperationsSettings,
): NamedResource[] => {
  const stack = `${service}-${stage}`;
  const gradual = settings.deploymentPreference !== 'AllAtOnce';
  // A gradual release adds its pre-traffic check (tools/generators/pre-traffic.ts), alarms the
  // heartbeat (tools/generators/heartbeat.ts).
  const functionNames = [
    ...functions,
    ...(gradual ? [PRE_TRAFFIC_FUNCTION] : []),
    ...(settings.alarms.enabled ? [HEARTBEAT_FUNCTION] : []),
  ].map((fn) => `${stack}-${fn}`);
  const alarm = (suffix: string): NamedResource => ({
    type: 'AWS::CloudWatch::Alarm',
    name: `${stack}-${suffix}`,
  });
  const throttleAlarms = functions
    .filter((_, index) => index % ALARM_METRICS_MAX === 0)
    .map((_, group) => alarm(group === 0 ? 'throttles' : `throttles-${group + 1}`));
  return [
    ...functionNames.map((name): NamedResource => ({ type: 'AWS::Lambda::Function', name })),
    ...functionNames.map((name): NamedResource => ({
      type: 'AWS::Logs::LogGroup',
      name: `/aws/lambda/${name}`,
    })),
    { type: 'AWS::IAM::Role', name: `${stack}-${region}-lambdaRole` },
    // The stage's access log.
    { type: 'AWS::Logs::LogGroup', name: `/aws/api-gateway/${stack}` },
    ...(settings.alarms.enabled
      ? [
          ...STAGE_ALARMS.map(alarm),
          alarm('heartbeat'),
          ...(settings.waf.enabled ? [alarm('waf-blocked')] : []),
          ...functions.map((fn) => alarm(`release-${fn}`)),
          ...throttleAlarms,
        ]
      : []),
    { type: 'AWS::CloudWatch::Dashboard', name: dashboardName(stack, region) },
    ...(settings.waf.enabled ? [{ type: 'AWS::WAFv2::WebACL' as const, name: stack }] : []),
    ...(gradual ? [{ type: 'AWS::CodeDeploy::Application' as const, name: stack }] : []),
    ...(settings.domain
      ? [{ type: 'AWS::ApiGateway::DomainName' as const, name: settings.domain.name }]
      : []),
  ];
};

/* ----------------------------------------------------------------------------------------- */
/* Which of them exist                                                                        */
/* ----------------------------------------------------------------------------------------- */

/** What exists by a name: its ids for CloudFormation, the first the one to ask it with. */
type Found = Map<string, readonly string[]>;
type Lookup = (region: string, names: readonly string[]) => Promise<Found>;

const using = async <C extends { destroy(): void }, T>(
  client: C,
  use: (client: C) => Promise<T>,
) => {
  try {
    return await use(client);
  } finally {
    client.destroy();
  }
};

/** The names `ask` finds, asked one by one; an error `absent` recognises means none. */
const oneByOne = async (
  names: readonly string[],
  ask: (name: string) => Promise<unknown>,
  absent: (error: unknown) => boolean,
): Promise<Found> => {
  const found = await Promise.all(
    names.map(async (name) => {
      try {
        await ask(name);
        return true;
      } catch (error) {
        if (absent(error)) return false;
        throw error;
      }
    }),
  );
  return new Map(names.filter((_, index) => found[index]).map((name) => [name, [name]]));
};

/** `items` by `key`, in the order each key first appears. */
const groupBy = <T, K>(items: readonly T[], key: (item: T) => K): Map<K, T[]> => {
  const groups = new Map<K, T[]>();
  for (const item of items) groups.set(key(item), [...(groups.get(key(item)) ?? []), item]);
  return groups;
};

/** One prefix per folder of the names (`/aws/lambda/…`): the longest start they share. */
const sharedPrefixes = (names: readonly string[]): string[] => {
  const folders = groupBy(names, (name) => name.slice(0, name.lastIndexOf('/') + 1));
  return [...folders.values()].map((group) =>
    group.reduce((prefix, name) => {
      let length = 0;
      while (length < prefix.length && prefix[length] === name[length]) length += 1;
      return prefix.slice(0, length);
    }),
  );
};

/** WAF answers every page with a NextMarker, the last one's leading to an empty page. */
const WEB_ACL_PAGES_MAX = 100;

const LOOKUPS: Readonly<Record<NamedType, Lookup>> = {
  'AWS::Lambda::Function': (region, names) =>
    using(new LambdaClient(clientConfig(region)), (lambda) =>
      oneByOne(
        names,
        (FunctionName) => lambda.send(new GetFunctionCommand({ FunctionName })),
        isNotFound,
      ),
    ),
  'AWS::Logs::LogGroup': (region, names) =>
    using(new CloudWatchLogsClient(clientConfig(region)), async (logs) => {
      const found: Found = new Map();
      for (const logGroupNamePrefix of sharedPrefixes(names)) {
        for await (const page of paginateDescribeLogGroups(
          { client: logs },
          { logGroupNamePrefix },
        )) {
          for (const { logGroupName = '' } of page.logGroups ?? []) {
            if (names.includes(logGroupName)) found.set(logGroupName, [logGroupName]);
          }
        }
      }
      return found;
    }),
  // IAM is global: its endpoint signs for us-east-1.
  'AWS::IAM::Role': (_region, names) =>
    using(new IAMClient(clientConfig('us-east-1')), (iam) =>
      oneByOne(
        names,
        (RoleName) => iam.send(new GetRoleCommand({ RoleName })),
        (error) => error instanceof NoSuchEntityException,
      ),
    ),
  'AWS::CloudWatch::Alarm': (region, names) =>
    using(new CloudWatchClient(clientConfig(region)), async (cloudWatch) => {
      const found: Found = new Map();
      // DescribeAlarms takes up to 100 names.
      for (let start = 0; start < names.length; start += 100) {
        for await (const page of paginateDescribeAlarms(
          { client: cloudWatch },
          {
            AlarmNames: names.slice(start, start + 100),
            AlarmTypes: ['MetricAlarm', 'CompositeAlarm'],
          },
        )) {
          for (const { AlarmName = '' } of [
            ...(page.MetricAlarms ?? []),
            ...(page.CompositeAlarms ?? []),
          ]) {
            found.set(AlarmName, [AlarmName]);
          }
        }
      }
      return found;
    }),
  'AWS::CloudWatch::Dashboard': (region, names) =>
    using(new CloudWatchClient(clientConfig(region)), async (cloudWatch) => {
      const found: Found = new Map();
      for (const name of names) {
        for await (const page of paginateListDashboards(
          { client: cloudWatch },
          { DashboardNamePrefix: name },
        )) {
          for (const { DashboardName = '' } of page.DashboardEntries ?? []) {
            if (DashboardName === name) found.set(name, [name]);
          }
        }
      }
      return found;
    }),
  'AWS::WAFv2::WebACL': (region, names) =>
    using(new WAFV2Client(clientConfig(region)), async (waf) => {
      const found: Found = new Map();
      let NextMarker: string | undefined;
      for (let pages = 0; pages < WEB_ACL_PAGES_MAX; pages += 1) {
        const page = await waf.send(
          new ListWebACLsCommand({ Scope: 'REGIONAL', Limit: 100, NextMarker }),
        );
        for (const { Name = '', Id = '', ARN = '' } of page.WebACLs ?? []) {
          // CloudFormation's physical id of a web ACL is `<name>|<id>|<scope>`.
          if (names.includes(Name)) found.set(Name, [`${Name}|${Id}|REGIONAL`, ARN, Name]);
        }
        if (!page.NextMarker || (page.WebACLs ?? []).length === 0) break;
        NextMarker = page.NextMarker;
      }
      return found;
    }),
  'AWS::CodeDeploy::Application': (region, names) =>
    using(new CodeDeployClient(clientConfig(region)), (codeDeploy) =>
      oneByOne(
        names,
        (applicationName) => codeDeploy.send(new GetApplicationCommand({ applicationName })),
        (error) => error instanceof ApplicationDoesNotExistException,
      ),
    ),
  'AWS::ApiGateway::DomainName': (region, names) =>
    using(new APIGatewayClient(clientConfig(region)), (apiGateway) =>
      oneByOne(
        names,
        (domainName) => apiGateway.send(new GetDomainNameCommand({ domainName })),
        isNotFound,
      ),
    ),
};

/**
 * CloudFormation's answer that no stack exists by that name ("Stack with id … does not exist") or
 * holding that resource ("Stack for … does not exist"): a ValidationError, told apart by its text.
 */
const isNoStack = (error: unknown) =>
  errorName(error) === 'ValidationError' && /does not exist$/.test(describeError(error));

/** The physical ids of the stack's resources in the region; none when there is no such stack. */
const stackResources = async (cloudFormation: CloudFormationClient, StackName: string) => {
  const ids = new Set<string>();
  try {
    for await (const page of paginateListStackResources(
      { client: cloudFormation },
      { StackName },
    )) {
      for (const { PhysicalResourceId } of page.StackResourceSummaries ?? []) {
        if (PhysicalResourceId) ids.add(PhysicalResourceId);
      }
    }
  } catch (error) {
    if (!isNoStack(error)) throw error;
  }
  return ids;
};

/** The stack holding the resource of that physical id in the region, if any. */
const owningStack = async (cloudFormation: CloudFormationClient, PhysicalResourceId: string) => {
  try {
    const answer = await cloudFormation.send(
      new DescribeStackResourcesCommand({ PhysicalResourceId }),
    );
    return answer.StackResources?.[0]?.StackName;
  } catch (error) {
    if (isNoStack(error)) return undefined;
    throw error;
  }
};

/** The line of a name held outside the stack: where, and what to do. */
const heldElsewhere = (
  { type, name }: NamedResource,
  owner: string | undefined,
  stack: string,
  domainVariable: string,
) => {
  const where = owner === undefined ? 'outside CloudFormation' : `in stack ${owner}`;
  const remedy =
    owner === undefined
      ? `delete it, or import it into ${stack} (a change set of type IMPORT)`
      : `delete it with ${owner}, or remove it from ${owner} keeping it (DeletionPolicy: Retain) and import it into ${stack}`;
  const rename =
    type === 'AWS::ApiGateway::DomainName' ? `, or give ${domainVariable} another name` : '';
  return `${NAMED_TYPES[type]} ${name} already exists ${where}, and deploying stack ${stack} would fail creating it ("already exists"): ${remedy}${rename}`;
};

/**
 * Each of `names` that exists in the region must be the stack's own: a problem for every one
 * held by another stack or by none, saying what to do. `domainVariable` names DOMAIN_NAME's
 * variable, for the custom domain's line.
 */
export const checkNamedResources = async (
  check: Findings,
  {
    stack,
    names,
    domainVariable,
  }: { stack: string; names: readonly NamedResource[]; domainVariable: string },
): Promise<void> => {
  const { region } = check;
  // Each kind asked at once, its names in as few calls as its service allows.
  const found = new Map<NamedType, Found>();
  await Promise.all(
    [...groupBy(names, ({ type }) => type)].map(async ([type, resources]) => {
      try {
        found.set(
          type,
          await LOOKUPS[type](
            region,
            resources.map(({ name }) => name),
          ),
        );
      } catch (error) {
        check.problem(`${NAMED_TYPES[type]}s not checked: ${describeError(error)}`);
      }
    }),
  );
  const idsOf = ({ type, name }: NamedResource) => found.get(type)?.get(name);
  const existing = names.filter((resource) => idsOf(resource) !== undefined);
  if (existing.length === 0) {
    if (check.problems.length === 0) check.found(`${names.length} fixed names free`);
    return;
  }
  const cloudFormation = new CloudFormationClient(clientConfig(region));
  try {
    const own = await stackResources(cloudFormation, stack);
    for (const resource of existing) {
      const ids = idsOf(resource) ?? [];
      if (ids.some((id) => own.has(id))) continue;
      // One at a time: CloudFormation's describe calls are throttled per account.
      const owner = await owningStack(cloudFormation, ids[0] ?? resource.name);
      if (owner !== stack) check.problem(heldElsewhere(resource, owner, stack, domainVariable));
    }
    if (check.problems.length === 0) {
      check.found(`${names.length} fixed names free or the stack's own`);
    }
  } catch (error) {
    check.problem(
      `the stacks holding ${existing.length} existing fixed names not checked: ${describeError(error)}`,
    );
  } finally {
    cloudFormation.destroy();
  }
};
