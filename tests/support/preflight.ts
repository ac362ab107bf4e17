/**
 * What the preflight suites share (tools/release/preflight.ts): `npm run deploy` with the
 * stand-in serverless against the local AWS servers (tests/support/aws-servers.ts), in the
 * production of every region tests/support/release.ts describes; the report's lines; and a
 * stack deployed already.
 */
import type { AwsServers, RegionAccount } from './aws-servers';
import { deployWith } from './release';

export const STACK = 'portal-service-api-production';

/** `npm run deploy -- --stage production <args>` against `aws`, no bake between regions. */
export const preflightDeploy =
  (aws: () => AwsServers) =>
  (
    env: Record<string, string> = {},
    args: readonly string[] = [],
    options: { npm?: boolean } = {},
  ) =>
    deployWith({ ...aws().env, RELEASE_BAKE_MINUTES: '0', ...env }, args, options);

/** The report's lines: `<region> <message>`, spaces squeezed. */
export const problemLines = (stderr: string): string[] =>
  stderr
    .split('\n')
    .filter((line) => line.startsWith('  '))
    .map((line) => line.trim().replace(/^(\S+) +/, '$1 '));

/** Every AWS call was a read: nothing created. */
export const onlyReads = (aws: AwsServers): boolean =>
  aws.calls.every(({ operation }) => /^(Get|Describe|List)[A-Za-z]+$/.test(operation));

/** The CloudFormation physical id of a web ACL: `<name>|<id>|<scope>`. */
export const webAclId = (name: string, id: string): string => `${name}|${id}|REGIONAL`;

/**
 * `region` with `names` (stageResourceNames' list) existing, each of its kind, all held by stack
 * `stack`; IAM's roles go to us-east-1's state, where IAM answers.
 */
export const plantStack = (
  account: Record<string, RegionAccount>,
  region: string,
  names: readonly { type: string; name: string }[],
  stack = STACK,
): void => {
  const state = (account[region] ??= {});
  const iam = (account['us-east-1'] ??= {});
  const physicalIds: string[] = [];
  for (const { type, name } of names) {
    if (type === 'AWS::Lambda::Function') state.functions = { ...state.functions, [name]: 0 };
    if (type === 'AWS::Logs::LogGroup') state.logGroups = [...(state.logGroups ?? []), name];
    if (type === 'AWS::IAM::Role') iam.roles = [...(iam.roles ?? []), name];
    if (type === 'AWS::CloudWatch::Alarm') {
      state.alarms = { ...state.alarms, [name]: { state: 'OK' } };
    }
    if (type === 'AWS::CodeDeploy::Application') {
      state.applications = [...(state.applications ?? []), name];
    }
    if (type === 'AWS::ApiGateway::DomainName') {
      state.domainNames = [...(state.domainNames ?? []), name];
    }
    if (type === 'AWS::WAFv2::WebACL') {
      const id = `0a1b2c3d-${region.length}${name.length}00-4000-8000-000000000000`;
      state.webAcls = { ...state.webAcls, [name]: id };
      physicalIds.push(webAclId(name, id));
    } else {
      physicalIds.push(name);
    }
  }
  state.stacks = { ...state.stacks, [stack]: [...(state.stacks?.[stack] ?? []), ...physicalIds] };
};
