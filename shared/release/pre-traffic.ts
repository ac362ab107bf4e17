/**
 * The release's BeforeAllowTraffic hook: CodeDeploy runs one deployment per function, each moving
 * that function's `live` alias to its new version, and invokes this hook before it moves any
 * traffic. The hook reads its own deployment (GetDeployment: the AppSpec CloudFormation wrote,
 * naming the function and its TargetVersion) and checks only the PRE_TRAFFIC_TARGETS entries whose
 * version is that function's TargetVersion, so one function's failure stops its own release only.
 * A deployment of a function PRE_TRAFFIC_TARGETS names, but to another version than this
 * template's, is not this release's: CloudFormation creates one when it rolls the stack back (the
 * alias moved back to the previous version while the hook still holds the new targets), and
 * failing it would leave the stack UPDATE_ROLLBACK_FAILED. The hook reports it Succeeded without
 * invoking anything, in one warn line ("not this release's version, not checked": the function,
 * the target version and the template's). Each version it checks is invoked directly (its
 * qualified ARN, never the alias) and must
 *
 * 1. answer the pre-traffic event (shared/release/pre-traffic-check.ts) with database `ok` (or
 *    `none`): its configuration loads, its database secret is read and `select 1` runs through
 *    its own pool and TLS;
 * 2. answer an unauthenticated API Gateway REST (v1) request for its route (each `{name}` filled
 *    with SAMPLE_PATH_VALUE, an Origin header, no Authorization and no x-api-key) with the
 *    contract's 401 (spec 5.3, 7): status 401, a TOKEN_INVALID body of spec 7, and
 *    `Access-Control-Allow-Origin: *` (spec 4.3).
 *
 * Then it reports Succeeded or Failed to CodeDeploy (PutLifecycleEventHookExecutionStatus),
 * always, whatever failed before: a malformed environment, a deployment that cannot be read, whose
 * AppSpec is not a Lambda function's or whose function no entry names, an invocation that
 * threw or did not answer in time. Each failure is one error line naming the function, the check
 * and the cause (a status, an error's name or code, the deployment's function and version: never
 * a payload, message, token or secret), and the run ends with one summary line.
 *
 * Environment:
 * - PRE_TRAFFIC_TARGETS (required): a JSON array, one entry per function,
 *     [{ "function": "ordersPerDay",
 *        "version": "arn:aws:lambda:eu-west-1:123456789012:function:portal-service-api-production-ordersPerDay:42",
 *        "method": "GET",
 *        "path": "/v1/restaurants/{id}/reports/orders/day" }]
 *   `function`: the serverless function name (for the log lines); `version`: the qualified ARN
 *   of the published version (arn:<partition>:lambda:<region>:<account>:function:<name>:<number>),
 *   the Ref of its AWS::Lambda::Version; `method` and `path`: its route as API Gateway sends it
 *   (`resource`, with `{name}` placeholders).
 * - PRE_TRAFFIC_INVOKE_TIMEOUT_MS (required): how long one invocation of a version may take, in
 *   whole milliseconds: invokeTimeoutMsFor the longest timeout of the functions checked.
 * - PRE_TRAFFIC_ORIGIN (optional): the Origin header of the unauthenticated request;
 *   DEFAULT_ORIGIN when unset.
 * - LOG_LEVEL (optional, default info).
 *
 * Bounds: reading the deployment is given up after DEPLOYMENT_READ_TIMEOUT_MS, part of
 * HOOK_OVERHEAD_MS. Every invocation is given up after PRE_TRAFFIC_INVOKE_TIMEOUT_MS,
 * INVOKE_MARGIN_MS above the longest function timeout (so a function that times out is seen as
 * Lambda's own function error), and all of them, the read included, by the invocation's remaining
 * time less REPORT_RESERVE_MS, kept for the report to CodeDeploy. The targets checked are checked
 * concurrently, the two checks of one target one after the other (the second finds the container
 * warm), so the hook's own timeout is hookTimeoutSecondsFor that bound: both checks at their
 * bound, the report and HOOK_OVERHEAD_MS. The template sets both (tools/generators/pre-traffic.ts),
 * and packaging checks them against the functions' timeouts (tools/generators/invariants.ts).
 *
 * IAM of the hook's role, the same on every deploy (a policy rewritten with each release's
 * versions may not yet allow the new one when the hook runs, IAM being eventually consistent):
 * `lambda:InvokeFunction` allowed on every published version of the functions it checks
 * (`<function ARN>:*`) and explicitly denied on their `live` alias, `$LATEST` and unqualified ARN,
 * so it invokes published versions only; `codedeploy:GetDeployment` and
 * `codedeploy:PutLifecycleEventHookExecutionStatus` on the deployment groups of the CodeDeploy
 * application (arn:aws:codedeploy:<region>:<account>:deploymentgroup:<application>/*); plus what
 * every function has to write its logs, and its traces when its tracing is Active.
 */
import { InvokeCommand, type LambdaClient } from '@aws-sdk/client-lambda';
import {
  GetDeploymentCommand,
  PutLifecycleEventHookExecutionStatusCommand,
  type CodeDeployClient,
} from '@aws-sdk/client-codedeploy';
import type { APIGatewayProxyEvent } from 'aws-lambda';
import type { HttpMethod } from '../answers';
import { MESSAGES, type ErrorBody } from '../errors';
import type { Logger, LogLevel } from '../logger';
import { causeOf, PRE_TRAFFIC_SOURCE, safeName, type PreTrafficEvent } from './pre-traffic-check';

/** How much longer than its function's timeout an invocation of a version is waited for. */
export const INVOKE_MARGIN_MS = 5_000;
/** Kept out of the checks' time for the report to CodeDeploy. */
export const REPORT_RESERVE_MS = 5_000;
/** The hook's own work beside its invocations: reading its environment and deployment, logging. */
export const HOOK_OVERHEAD_MS = 5_000;
/** How long the hook waits for its deployment (GetDeployment): within HOOK_OVERHEAD_MS. */
export const DEPLOYMENT_READ_TIMEOUT_MS = 3_000;
/** The checks of one target, run one after the other. */
export const CHECKS_PER_TARGET = 2;
/** Lambda's longest function timeout. */
export const LAMBDA_MAX_TIMEOUT_SECONDS = 900;

/** One invocation's bound when the longest timeout of the functions checked is `seconds`. */
export const invokeTimeoutMsFor = (functionTimeoutSeconds: number): number =>
  functionTimeoutSeconds * 1000 + INVOKE_MARGIN_MS;

/** The hook's own timeout, whole seconds, when one invocation may take `invokeTimeoutMs`. */
export const hookTimeoutSecondsFor = (invokeTimeoutMs: number): number =>
  Math.ceil((CHECKS_PER_TARGET * invokeTimeoutMs + REPORT_RESERVE_MS + HOOK_OVERHEAD_MS) / 1000);
/** The Origin of the unauthenticated request when PRE_TRAFFIC_ORIGIN is unset. */
export const DEFAULT_ORIGIN = 'https://pre-traffic.portal-service-api.invalid';
/**
 * What each `{name}` of a path is filled with: a valid restaurant id and plugin code, so that
 * only the missing credential can refuse the request.
 */
export const SAMPLE_PATH_VALUE = 'pre-traffic';

/** The event CodeDeploy invokes the hook with. */
export interface HookEvent {
  readonly DeploymentId: string;
  readonly LifecycleEventHookExecutionId: string;
}

/** One function's new version and its route: an entry of PRE_TRAFFIC_TARGETS. */
export interface PreTrafficTarget {
  readonly function: string;
  readonly version: string;
  readonly method: HttpMethod;
  readonly path: string;
}

/** The two checks of a version, and the configuration and deployment read before them. */
export type CheckName = 'pre-traffic' | 'unauthenticated' | 'configuration' | 'deployment';

/** One thing that stops the release. */
export interface Failure {
  /**
   * The function; `environment` when the configuration is at fault, `deployment` when the
   * deployment cannot be read or its AppSpec is not a Lambda function's.
   */
  readonly function: string;
  readonly check: CheckName;
  readonly cause: string;
}

export type HookStatus = 'Succeeded' | 'Failed';

/** PRE_TRAFFIC_TARGETS or PRE_TRAFFIC_ORIGIN is not what this module reads. */
export class PreTrafficConfigError extends TypeError {
  override readonly name = 'PreTrafficConfigError';
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

type Env = Readonly<Record<string, string | undefined>>;
type Fields = Readonly<Record<string, unknown>>;

const isObject = (value: unknown): value is Fields =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** Every HttpMethod, so that a method added to the type must be added here. */
const METHODS: Readonly<Record<HttpMethod, true>> = { GET: true, PUT: true };
const isMethod = (value: unknown): value is HttpMethod =>
  typeof value === 'string' && Object.hasOwn(METHODS, value);

/** A function name as serverless names it (the key of `functions`). */
const FUNCTION_NAME = /^[A-Za-z][A-Za-z0-9_-]{0,63}$/;
/** A qualified ARN of a published version: arn:<partition>:lambda:<region>:<account>:function:<name>:<number>. */
const VERSION_ARN =
  /^arn:aws(?:-[a-z]+)*:lambda:[a-z]{2}(?:-[a-z]+)+-\d:\d{12}:function:[A-Za-z0-9_-]{1,64}:\d+$/;
/** A function's name, or its unqualified ARN, as an AppSpec's `Name` gives it. */
const FUNCTION_REF =
  /^(?:arn:aws(?:-[a-z]+)*:lambda:[a-z]{2}(?:-[a-z]+)+-\d:\d{12}:function:)?[A-Za-z0-9_-]{1,64}$/;
/** An alias's name: not a number, else Lambda would take it for a version. */
const ALIAS = /^(?!\d+$)[A-Za-z0-9_-]{1,128}$/;
/** A published version's number. */
const VERSION_NUMBER = /^\d{1,10}$/;
/** A route: `/` then segments, each literal or one `{name}`. */
const ROUTE = /^(?:\/(?:[A-Za-z0-9._~-]+|\{[A-Za-z0-9_]+\}))+$/;
const PLACEHOLDER = /\{([A-Za-z0-9_]+)\}/g;

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

/** One entry of PRE_TRAFFIC_TARGETS, or a PreTrafficConfigError naming it and its field. */
const parseTarget = (entry: unknown, index: number): PreTrafficTarget => {
  const at = `PRE_TRAFFIC_TARGETS entry ${index + 1}`;
  if (!isObject(entry)) throw new PreTrafficConfigError(`${at} is not an object`);
  const { function: name, version, method, path } = entry;
  if (typeof name !== 'string' || !FUNCTION_NAME.test(name)) {
    throw new PreTrafficConfigError(`${at}: "function" is not a function name`);
  }
  if (typeof version !== 'string' || !VERSION_ARN.test(version)) {
    throw new PreTrafficConfigError(`${at} (${name}): "version" is not a qualified version ARN`);
  }
  if (!isMethod(method)) {
    throw new PreTrafficConfigError(
      `${at} (${name}): "method" is not one of ${Object.keys(METHODS).join(', ')}`,
    );
  }
  if (typeof path !== 'string' || !ROUTE.test(path)) {
    throw new PreTrafficConfigError(`${at} (${name}): "path" is not a route`);
  }
  return { function: name, version, method, path };
};

/** PRE_TRAFFIC_TARGETS: a non-empty JSON array of targets, no function twice. */
export const parseTargets = (raw: string | undefined): readonly PreTrafficTarget[] => {
  if (raw === undefined || raw.trim() === '') {
    throw new PreTrafficConfigError('PRE_TRAFFIC_TARGETS is not set');
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    throw new PreTrafficConfigError('PRE_TRAFFIC_TARGETS is not JSON');
  }
  if (!Array.isArray(parsed) || parsed.length === 0) {
    throw new PreTrafficConfigError('PRE_TRAFFIC_TARGETS is not a non-empty JSON array');
  }
  const targets = parsed.map(parseTarget);
  const seen = new Set<string>();
  for (const target of targets) {
    if (seen.has(target.function)) {
      throw new PreTrafficConfigError(`PRE_TRAFFIC_TARGETS names ${target.function} twice`);
    }
    seen.add(target.function);
  }
  return targets;
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

/** PRE_TRAFFIC_INVOKE_TIMEOUT_MS: whole milliseconds, from 1 s to Lambda's longest timeout. */
export const parseInvokeTimeout = (raw: string | undefined): number => {
  const value = raw?.trim() ?? '';
  if (value === '') throw new PreTrafficConfigError('PRE_TRAFFIC_INVOKE_TIMEOUT_MS is not set');
  const ms = /^\d{1,7}$/.test(value) ? Number(value) : Number.NaN;
  if (!(ms >= 1_000 && ms <= LAMBDA_MAX_TIMEOUT_SECONDS * 1000)) {
    throw new PreTrafficConfigError(
      `PRE_TRAFFIC_INVOKE_TIMEOUT_MS is not a whole number of milliseconds from 1000 to ${LAMBDA_MAX_TIMEOUT_SECONDS * 1000}`,
    );
  }
  return ms;
};

/** PRE_TRAFFIC_ORIGIN: an http(s) origin (scheme, host, port only), or DEFAULT_ORIGIN. */
export const parseOrigin = (raw: string | undefined): string => {
  const value = raw?.trim();
  if (!value) return DEFAULT_ORIGIN;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new PreTrafficConfigError('PRE_TRAFFIC_ORIGIN is not a URL');
  }
  if ((url.protocol !== 'https:' && url.protocol !== 'http:') || url.origin !== value) {
    throw new PreTrafficConfigError('PRE_TRAFFIC_ORIGIN must be an origin: https://host[:port]');
  }
  return value;
};

/** The pre-traffic event, as the functions recognise it. */
export const preTrafficEvent = (): PreTrafficEvent => ({ source: PRE_TRAFFIC_SOURCE });

/**
 * The unauthenticated API Gateway REST (v1) proxy event of a target's route: what API Gateway
 * sends for a browser's request without a credential.
 */
export const unauthenticatedEvent = (
  { method, path }: Pick<PreTrafficTarget, 'method' | 'path'>,
  origin: string,
  requestId: string,
): APIGatewayProxyEvent => {
  const names = [...path.matchAll(PLACEHOLDER)].map(([, name]) => name ?? '');
  const pathParameters = Object.fromEntries(names.map((name) => [name, SAMPLE_PATH_VALUE]));
  const filled = path.replace(PLACEHOLDER, SAMPLE_PATH_VALUE);
  const headers = { Accept: 'application/json', Origin: origin };
  return {
    resource: path,
    path: filled,
    httpMethod: method,
    headers,
    multiValueHeaders: Object.fromEntries(
      Object.entries(headers).map(([name, value]) => [name, [value]]),
    ),
    queryStringParameters: null,
    multiValueQueryStringParameters: null,
    pathParameters: names.length === 0 ? null : pathParameters,
    stageVariables: null,
    requestContext: {
      accountId: 'pre-traffic',
      apiId: 'pre-traffic',
      authorizer: null,
      protocol: 'HTTP/1.1',
      httpMethod: method,
      identity: {
        accessKey: null,
        accountId: null,
        apiKey: null,
        apiKeyId: null,
        caller: null,
        clientCert: null,
        cognitoAuthenticationProvider: null,
        cognitoAuthenticationType: null,
        cognitoIdentityId: null,
        cognitoIdentityPoolId: null,
        principalOrgId: null,
        sourceIp: '127.0.0.1',
        user: null,
        userAgent: 'portal-service-api pre-traffic hook',
        userArn: null,
      },
      path: filled,
      stage: 'pre-traffic',
      requestId,
      requestTimeEpoch: Date.now(),
      resourceId: 'pre-traffic',
      resourcePath: path,
    },
    body: null,
    isBase64Encoded: false,
  };
};

/** Spec 7's 401 bodies for a request without a credential: the bearer's, and the API key's. */
const UNAUTHENTICATED_BODIES: readonly ErrorBody[] = [
  { state: 'ERROR', code: 'TOKEN_INVALID', message: MESSAGES.headerInvalid },
  { state: 'ERROR', code: 'TOKEN_INVALID', message: MESSAGES.tokenUnverifiable },
];

const sameBody = (body: unknown, expected: ErrorBody): boolean =>
  isObject(body) &&
  Object.keys(body).length === Object.keys(expected).length &&
  body.state === expected.state &&
  body.code === expected.code &&
  body.message === expected.message;

/** The JSON of a payload, or undefined when it is not JSON. */
const jsonOf = (payload: Uint8Array | undefined): { value: unknown } | undefined => {
  try {
    return { value: JSON.parse(Buffer.from(payload ?? new Uint8Array()).toString('utf8')) };
  } catch {
    return undefined;
  }
};

/** Why the answer to the pre-traffic event is not healthy (database and key set each `ok` or `none`); undefined when it is. */
export const preTrafficProblem = (answer: unknown): string | undefined => {
  if (!isObject(answer) || answer.check !== 'pre-traffic') return 'not a pre-traffic answer';
  const named = (error: unknown, code: unknown) => {
    const errorName = safeName(error) ?? 'Error';
    const errorCode = safeName(code);
    return errorCode === undefined ? errorName : `${errorName} ${errorCode}`;
  };
  const problems: string[] = [];
  if (answer.database === 'failed') {
    problems.push(`database failed (${named(answer.error, answer.code)})`);
  } else if (answer.database !== 'ok' && answer.database !== 'none') {
    return 'not a pre-traffic answer';
  }
  // A key set that cannot be fetched: every token would be refused.
  if (answer.keySet === 'failed') {
    problems.push(`key set failed (${named(answer.keySetError, answer.keySetCode)})`);
  } else if (answer.keySet !== 'ok' && answer.keySet !== 'none') {
    return 'not a pre-traffic answer';
  }
  // Without JWT_ISSUER a token of any issuer would verify.
  if (answer.issuer === 'unset') problems.push('issuer not set (JWT_ISSUER)');
  else if (answer.issuer !== 'set' && answer.issuer !== 'none') return 'not a pre-traffic answer';
  return problems.length === 0 ? undefined : problems.join('; ');
};

/** A header's value in a gateway result, in any case, single- or multi-valued. */
const headerOf = (result: Fields, name: string): unknown => {
  const wanted = name.toLowerCase();
  for (const key of ['headers', 'multiValueHeaders']) {
    const headers = result[key];
    if (!isObject(headers)) continue;
    const found = Object.entries(headers).find(([header]) => header.toLowerCase() === wanted);
    if (found !== undefined) return Array.isArray(found[1]) ? found[1][0] : found[1];
  }
  return undefined;
};

/** Why the answer to the unauthenticated request is not the contract's 401; undefined when it is. */
export const unauthenticatedProblem = (answer: unknown): string | undefined => {
  if (!isObject(answer) || typeof answer.statusCode !== 'number') {
    return 'not an API Gateway result';
  }
  if (answer.statusCode !== 401) return `status ${answer.statusCode}, not 401`;
  let body: unknown;
  try {
    body = typeof answer.body === 'string' ? JSON.parse(answer.body) : undefined;
  } catch {
    body = undefined;
  }
  if (!UNAUTHENTICATED_BODIES.some((expected) => sameBody(body, expected))) {
    return "body is not the contract's 401 TOKEN_INVALID";
  }
  if (headerOf(answer, 'Access-Control-Allow-Origin') !== '*') {
    return 'no Access-Control-Allow-Origin: * header';
  }
  return undefined;
};

export interface PreTrafficHookOptions {
  readonly lambda: LambdaClient;
  readonly codeDeploy: CodeDeployClient;
  readonly logger: Logger;
  /** Read at each run; process.env by default. */
  readonly env?: Env;
  /** Over the environment's PRE_TRAFFIC_INVOKE_TIMEOUT_MS. */
  readonly invokeTimeoutMs?: number;
  readonly reportReserveMs?: number;
}

/** One invocation's bound, and when every invocation must have ended (epoch ms). */
interface Bounds {
  readonly boundMs: number;
  readonly deadline: number;
}

/** The part of Lambda's context the hook reads. */
export interface HookContext {
  readonly getRemainingTimeInMillis?: () => number;
}

/** What the hook reported, and why. */
export interface HookOutcome {
  readonly status: HookStatus;
  readonly failures: readonly Failure[];
}

/** A failure as one line: `<function>: <check>: <cause>`. */
export const describeFailure = ({ function: name, check, cause }: Failure): string =>
  `${name}: ${check}: ${cause}`;

/** The LOG_LEVEL of the environment, info when unset or unknown. */
export const hookLogLevel = (env: Env): LogLevel => {
  const levels: readonly LogLevel[] = ['debug', 'info', 'warn', 'error'];
  return levels.find((level) => level === env.LOG_LEVEL?.trim()) ?? 'info';
};

export const preTrafficHook = ({
  lambda,
  codeDeploy,
  logger,
  env = process.env,
  invokeTimeoutMs,
  reportReserveMs = REPORT_RESERVE_MS,
}: PreTrafficHookOptions) => {
  /**
   * Invokes `target`'s version with `event` within its bound and the time left; the answer's
   * JSON, or the cause of a failure.
   */
  const invoke = async (
    target: PreTrafficTarget,
    event: unknown,
    { boundMs: invokeBoundMs, deadline }: Bounds,
  ): Promise<{ answer: unknown } | { cause: string }> => {
    const boundMs = Math.min(invokeBoundMs, deadline - Date.now());
    if (boundMs <= 0) return { cause: 'no time left to invoke it' };
    const abortSignal = AbortSignal.timeout(boundMs);
    try {
      const result = await lambda.send(
        new InvokeCommand({
          FunctionName: target.version,
          InvocationType: 'RequestResponse',
          Payload: JSON.stringify(event),
        }),
        { abortSignal },
      );
      const json = jsonOf(result.Payload);
      if (result.FunctionError !== undefined) {
        const errorType = isObject(json?.value) ? safeName(json.value.errorType) : undefined;
        const kind = safeName(result.FunctionError) ?? 'Unhandled';
        return {
          cause: `function error ${kind}${errorType === undefined ? '' : ` (${errorType})`}`,
        };
      }
      if (json === undefined) return { cause: 'answer is not JSON' };
      return { answer: json.value };
    } catch (error) {
      if (abortSignal.aborted) return { cause: `no answer within ${boundMs} ms` };
      return { cause: `invocation failed (${causeOf(error)})` };
    }
  };

  /** Both checks of one target, one after the other; its failures. */
  const checkTarget = async (
    target: PreTrafficTarget,
    origin: string,
    bounds: Bounds,
    requestId: string,
  ): Promise<Failure[]> => {
    const failures: Failure[] = [];
    const fail = (check: CheckName, cause: string) => {
      failures.push({ function: target.function, check, cause });
    };
    const checked = await invoke(target, preTrafficEvent(), bounds);
    if ('cause' in checked) fail('pre-traffic', checked.cause);
    else {
      const problem = preTrafficProblem(checked.answer);
      if (problem !== undefined) fail('pre-traffic', problem);
    }
    const request = unauthenticatedEvent(target, origin, requestId);
    const refused = await invoke(target, request, bounds);
    if ('cause' in refused) fail('unauthenticated', refused.cause);
    else {
      const problem = unauthenticatedProblem(refused.answer);
      if (problem !== undefined) fail('unauthenticated', problem);
    }
    return failures;
  };

  /**
   * The deployment `deploymentId`, read within DEPLOYMENT_READ_TIMEOUT_MS and the time left to
   * `deadline`; or what stops it: GetDeployment failed or did not answer, or its AppSpec is not
   * a Lambda function's.
   */
  const readDeployment = async (
    deploymentId: string,
    deadline: number,
  ): Promise<{ deployment: LambdaDeployment } | { failure: Failure }> => {
    const fail = (cause: string) => ({
      failure: { function: 'deployment', check: 'deployment' as const, cause },
    });
    const boundMs = Math.min(DEPLOYMENT_READ_TIMEOUT_MS, deadline - Date.now());
    if (boundMs <= 0) return fail('no time left to read it');
    const abortSignal = AbortSignal.timeout(boundMs);
    let deploymentInfo: unknown;
    try {
      ({ deploymentInfo } = await codeDeploy.send(new GetDeploymentCommand({ deploymentId }), {
        abortSignal,
      }));
    } catch (error) {
      if (abortSignal.aborted) return fail(`GetDeployment gave no answer within ${boundMs} ms`);
      return fail(`GetDeployment failed (${causeOf(error)})`);
    }
    try {
      return { deployment: parseAppSpec(appSpecOf(deploymentInfo)) };
    } catch (error) {
      if (error instanceof AppSpecError) return fail(error.message);
      throw error;
    }
  };

  /**
   * The targets of the hook's deployment checked by `started` plus `remainingMs` (the hook's own
   * timeout when Lambda's context does not say) less the report's reserve; a configuration or a
   * deployment that cannot be read, or a deployment of a function no target names, is the one
   * failure; a deployment of another version of a function a target names is none (selectDeployed).
   */
  const check = async (
    hookEvent: HookEvent,
    started: number,
    remainingMs: number | undefined,
  ): Promise<Failure[]> => {
    let targets: readonly PreTrafficTarget[];
    let origin: string;
    let boundMs: number;
    try {
      targets = parseTargets(env.PRE_TRAFFIC_TARGETS);
      origin = parseOrigin(env.PRE_TRAFFIC_ORIGIN);
      boundMs = invokeTimeoutMs ?? parseInvokeTimeout(env.PRE_TRAFFIC_INVOKE_TIMEOUT_MS);
    } catch (error) {
      const cause = error instanceof PreTrafficConfigError ? error.message : causeOf(error);
      return [{ function: 'environment', check: 'configuration', cause }];
    }
    const remaining = remainingMs ?? hookTimeoutSecondsFor(boundMs) * 1000;
    const bounds: Bounds = { boundMs, deadline: started + remaining - reportReserveMs };
    const read = await readDeployment(hookEvent.DeploymentId, bounds.deadline);
    if ('failure' in read) return [read.failure];
    const selection = selectDeployed(targets, read.deployment);
    const checked = selection.action === 'check' ? selection.targets : [];
    const deployedFunction = deployedFunctionName(read.deployment);
    logger.log('info', 'pre-traffic hook: deployment read', {
      deploymentId: hookEvent.DeploymentId,
      function: deployedFunction,
      targetVersion: read.deployment.targetVersion,
      targets: checked.length,
    });
    if (selection.action === 'fail') {
      return [
        {
          function: deployedFunction,
          check: 'deployment',
          cause: `no PRE_TRAFFIC_TARGETS entry is of this function (version ${read.deployment.targetVersion})`,
        },
      ];
    }
    if (selection.action === 'pass') {
      // A rollback's deployment back to an older version: failing it would leave the stack
      // UPDATE_ROLLBACK_FAILED, and this template's version is not the one it moves to.
      logger.log('warn', "pre-traffic hook: not this release's version, not checked", {
        deploymentId: hookEvent.DeploymentId,
        function: deployedFunction,
        targetVersion: read.deployment.targetVersion,
        templateVersion: selection.templateVersion,
      });
      return [];
    }
    const outcomes = await Promise.allSettled(
      checked.map((target, index) =>
        checkTarget(target, origin, bounds, `pre-traffic-${hookEvent.DeploymentId}-${index + 1}`),
      ),
    );
    return outcomes.flatMap((outcome, index) =>
      outcome.status === 'fulfilled'
        ? outcome.value
        : [
            {
              function: checked[index]?.function ?? 'unknown',
              check: 'pre-traffic' as const,
              cause: `check failed (${causeOf(outcome.reason)})`,
            },
          ],
    );
  };

  return async (event: unknown, context?: HookContext): Promise<HookOutcome> => {
    const started = Date.now();
    let hookEvent: HookEvent;
    try {
      hookEvent = parseHookEvent(event);
    } catch (error) {
      logger.log('error', 'pre-traffic hook: not a CodeDeploy lifecycle hook event');
      throw error;
    }
    const remainingMs = context?.getRemainingTimeInMillis?.();
    let failures: Failure[];
    try {
      failures = await check(hookEvent, started, remainingMs);
    } catch (error) {
      failures = [{ function: 'hook', check: 'configuration', cause: causeOf(error) }];
    }
    for (const failure of failures) {
      logger.log('error', 'pre-traffic check failed', {
        function: failure.function,
        check: failure.check,
        cause: failure.cause,
        deploymentId: hookEvent.DeploymentId,
      });
    }
    const status: HookStatus = failures.length === 0 ? 'Succeeded' : 'Failed';
    logger.log(status === 'Succeeded' ? 'info' : 'error', 'pre-traffic hook', {
      status,
      failures: failures.length,
      deploymentId: hookEvent.DeploymentId,
      durationMs: Date.now() - started,
    });
    try {
      await codeDeploy.send(
        new PutLifecycleEventHookExecutionStatusCommand({
          deploymentId: hookEvent.DeploymentId,
          lifecycleEventHookExecutionId: hookEvent.LifecycleEventHookExecutionId,
          status,
        }),
        { abortSignal: AbortSignal.timeout(reportReserveMs) },
      );
    } catch (error) {
      // Thrown on: Lambda retries the asynchronous invocation, which checks and reports again.
      logger.log('error', 'pre-traffic hook: status not reported to CodeDeploy', {
        status,
        deploymentId: hookEvent.DeploymentId,
        cause: causeOf(error),
      });
      throw error;
    }
    return { status, failures };
  };
};
