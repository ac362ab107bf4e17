/**
 * The deployment the pre-traffic hook runs for: CodeDeploy's event, the AppSpec CloudFormation
 * wrote (read through GetDeployment), and which PRE_TRAFFIC_TARGETS entries it concerns.
 */
import { GetDeploymentCommand, type CodeDeployClient } from '@aws-sdk/client-codedeploy';
import { causeOf } from '../../shared/release/pre-traffic-contract';
import { DEPLOYMENT_READ_TIMEOUT_MS } from './bounds';
import type { PreTrafficTarget } from './environment';
import { isObject } from './fields';

/** The event CodeDeploy invokes the hook with. */
export interface HookEvent {
  readonly DeploymentId: string;
  readonly LifecycleEventHookExecutionId: string;
}

/** A deployment's AppSpec is not the one of a Lambda function's alias. */
export class AppSpecError extends TypeError {
  override readonly name = 'AppSpecError';
}

/** What a Lambda deployment moves, as its AppSpec says: `alias` of `name` to `targetVersion`. */
export interface LambdaDeployment {
  /** The function's name, or its unqualified ARN. */
  readonly name: string;
  readonly alias: string;
  /** Absent when the alias pointed at no version before. */
  readonly currentVersion?: string;
  readonly targetVersion: string;
}

/** A function's name, or its unqualified ARN, as an AppSpec's `Name` gives it. */
const FUNCTION_REF =
  /^(?:arn:aws(?:-[a-z]+)*:lambda:[a-z]{2}(?:-[a-z]+)+-\d:\d{12}:function:)?[A-Za-z0-9_-]{1,64}$/;
/** An alias's name: not a number, else Lambda would take it for a version. */
const ALIAS = /^(?!\d+$)[A-Za-z0-9_-]{1,128}$/;
/** A published version's number. */
const VERSION_NUMBER = /^\d{1,10}$/;
/** The CodeDeploy event, or a TypeError: without its ids there is nobody to report to. */
export const parseHookEvent = (event: unknown): HookEvent => {
  const fields = isObject(event) ? event : {};
  const { DeploymentId, LifecycleEventHookExecutionId } = fields;
  if (
    typeof DeploymentId !== 'string' ||
    DeploymentId === '' ||
    typeof LifecycleEventHookExecutionId !== 'string' ||
    LifecycleEventHookExecutionId === ''
  ) {
    throw new TypeError('not a CodeDeploy lifecycle hook event');
  }
  return { DeploymentId, LifecycleEventHookExecutionId };
};

/** The one resource of a Lambda AppSpec's `Resources`: `{ "<LogicalName>": { Type, Properties } }`. */
const parseAppSpecResource = (resources: unknown): LambdaDeployment => {
  if (!Array.isArray(resources) || resources.length !== 1) {
    throw new AppSpecError('AppSpec "Resources" is not a list of one function');
  }
  const [entry] = resources as unknown[];
  const named = isObject(entry) ? Object.values(entry) : [];
  const [resource] = named;
  if (named.length !== 1 || !isObject(resource) || resource.Type !== 'AWS::Lambda::Function') {
    throw new AppSpecError('AppSpec resource is not one AWS::Lambda::Function');
  }
  const properties = isObject(resource.Properties) ? resource.Properties : {};
  const { Name, Alias, CurrentVersion, TargetVersion } = properties;
  if (typeof Name !== 'string' || !FUNCTION_REF.test(Name)) {
    throw new AppSpecError('AppSpec "Name" is not a function name or ARN');
  }
  if (typeof Alias !== 'string' || !ALIAS.test(Alias)) {
    throw new AppSpecError('AppSpec "Alias" is not an alias name');
  }
  if (
    CurrentVersion !== undefined &&
    !(typeof CurrentVersion === 'string' && VERSION_NUMBER.test(CurrentVersion))
  ) {
    throw new AppSpecError('AppSpec "CurrentVersion" is not a version number');
  }
  if (typeof TargetVersion !== 'string' || !VERSION_NUMBER.test(TargetVersion)) {
    throw new AppSpecError('AppSpec "TargetVersion" is not a version number');
  }
  return {
    name: Name,
    alias: Alias,
    ...(CurrentVersion === undefined ? {} : { currentVersion: CurrentVersion }),
    targetVersion: TargetVersion,
  };
};

/**
 * A Lambda deployment's AppSpec, as CloudFormation writes it (JSON):
 *   {"version":0.0,"Resources":[{"<LogicalName>":{"Type":"AWS::Lambda::Function",
 *    "Properties":{"Name":"<name or ARN>","Alias":"live","CurrentVersion":"3","TargetVersion":"4"}}}],
 *    "Hooks":[...]}
 * or an AppSpecError saying which part is not (never the content itself).
 */
export const parseAppSpec = (content: string | undefined): LambdaDeployment => {
  if (content === undefined || content.trim() === '') {
    throw new AppSpecError('the deployment has no AppSpec');
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(content);
  } catch {
    throw new AppSpecError('AppSpec is not JSON');
  }
  if (!isObject(parsed)) throw new AppSpecError('AppSpec is not a JSON object');
  if (parsed.version !== 0 && parsed.version !== '0.0') {
    throw new AppSpecError('AppSpec "version" is not 0.0');
  }
  return parseAppSpecResource(parsed.Resources);
};

/**
 * The AppSpec of GetDeployment's `deploymentInfo`: its revision's AppSpecContent, or its String
 * (the older revision type) when it has none.
 */
export const appSpecOf = (deploymentInfo: unknown): string | undefined => {
  const revision = isObject(deploymentInfo) ? deploymentInfo.revision : undefined;
  const { appSpecContent, string: raw } = isObject(revision) ? revision : {};
  const content = isObject(appSpecContent) ? appSpecContent.content : undefined;
  const fallback = isObject(raw) ? raw.content : undefined;
  if (typeof content === 'string') return content;
  return typeof fallback === 'string' ? fallback : undefined;
};

/** A qualified version ARN's function (unqualified ARN and name) and version number. */
const partsOf = (versionArn: string) => {
  const parts = versionArn.split(':');
  return { arn: parts.slice(0, 7).join(':'), name: parts[6] ?? '', version: parts[7] ?? '' };
};

/** The function name of an AppSpec's `Name`: itself, or the last part of its ARN. */
export const deployedFunctionName = ({ name }: Pick<LambdaDeployment, 'name'>): string =>
  name.split(':').at(-1) ?? name;

/** The entries of `targets` of the function `deployment` moves, whatever their version. */
export const deployedFunctionTargets = (
  targets: readonly PreTrafficTarget[],
  deployment: LambdaDeployment,
): PreTrafficTarget[] =>
  targets.filter((target) => {
    const { arn, name } = partsOf(target.version);
    return deployment.name === name || deployment.name === arn;
  });

/** The entries of `targets` whose version is the one `deployment` moves its alias to. */
export const deployedTargets = (
  targets: readonly PreTrafficTarget[],
  deployment: LambdaDeployment,
): PreTrafficTarget[] =>
  deployedFunctionTargets(targets, deployment).filter(
    (target) => partsOf(target.version).version === deployment.targetVersion,
  );

/**
 * What the hook does with its deployment: `check` the entries of the version it moves to;
 * `pass` a deployment of a function PRE_TRAFFIC_TARGETS names but to another version than this
 * template's (`templateVersion`), as CloudFormation creates when it rolls the stack back; `fail`
 * a deployment of a function no entry names.
 */
export type DeploymentSelection =
  | { readonly action: 'check'; readonly targets: readonly PreTrafficTarget[] }
  | { readonly action: 'pass'; readonly templateVersion: string }
  | { readonly action: 'fail' };

export const selectDeployed = (
  targets: readonly PreTrafficTarget[],
  deployment: LambdaDeployment,
): DeploymentSelection => {
  const ofFunction = deployedFunctionTargets(targets, deployment);
  if (ofFunction.length === 0) return { action: 'fail' };
  const deployed = deployedTargets(targets, deployment);
  return deployed.length > 0
    ? { action: 'check', targets: deployed }
    : {
        action: 'pass',
        templateVersion: ofFunction.map((target) => partsOf(target.version).version).join(','),
      };
};

/**
 * The deployment `deploymentId`, read within DEPLOYMENT_READ_TIMEOUT_MS and the time left to
 * `deadline` (epoch ms); or what stops it: GetDeployment failed or did not answer, or its AppSpec
 * is not a Lambda function's.
 */
export const readDeployment = async (
  codeDeploy: CodeDeployClient,
  deploymentId: string,
  deadline: number,
): Promise<{ deployment: LambdaDeployment } | { cause: string }> => {
  const boundMs = Math.min(DEPLOYMENT_READ_TIMEOUT_MS, deadline - Date.now());
  if (boundMs <= 0) return { cause: 'no time left to read it' };
  const abortSignal = AbortSignal.timeout(boundMs);
  let deploymentInfo: unknown;
  try {
    ({ deploymentInfo } = await codeDeploy.send(new GetDeploymentCommand({ deploymentId }), {
      abortSignal,
    }));
  } catch (error) {
    if (abortSignal.aborted) return { cause: `GetDeployment gave no answer within ${boundMs} ms` };
    return { cause: `GetDeployment failed (${causeOf(error)})` };
  }
  try {
    return { deployment: parseAppSpec(appSpecOf(deploymentInfo)) };
  } catch (error) {
    if (error instanceof AppSpecError) return { cause: error.message };
    throw error;
  }
};
