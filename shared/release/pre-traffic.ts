/**
 * The release's BeforeAllowTraffic hook: before CodeDeploy moves any traffic of a function's
 * `live` alias to a new version, every new version is invoked directly (its qualified ARN, never
 * the alias) and must
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
 * always, whatever failed before: a malformed environment, an invocation that threw or did not
 * answer in time. Each failure is one error line naming the function, the check and the cause
 * (a status, an error's name or code: never a payload, message, token or secret), and the run
 * ends with one summary line.
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
 * Bounds: every invocation is given up after PRE_TRAFFIC_INVOKE_TIMEOUT_MS, INVOKE_MARGIN_MS
 * above the longest function timeout (so a function that times out is seen as Lambda's own
 * function error), and all of them by the invocation's remaining time less REPORT_RESERVE_MS,
 * kept for the report to CodeDeploy. Targets are checked concurrently, the two checks of one
 * target one after the other (the second finds the container warm), so the hook's own timeout
 * is hookTimeoutSecondsFor that bound: both checks at their bound, the report and
 * HOOK_OVERHEAD_MS. The template sets both (tools/generators/pre-traffic.ts), and packaging
 * checks them against the functions' timeouts (tools/generators/invariants.ts).
 *
 * IAM of the hook's role: `lambda:InvokeFunction` on the functions' versions
 * (arn:aws:lambda:<region>:<account>:function:<name>:*), and
 * `codedeploy:PutLifecycleEventHookExecutionStatus` on the deployment groups of the CodeDeploy
 * application (arn:aws:codedeploy:<region>:<account>:deploymentgroup:<application>/*), plus
 * what every function has to write its logs, and its traces when its tracing is Active.
 */
import { InvokeCommand, type LambdaClient } from '@aws-sdk/client-lambda';
import {
  PutLifecycleEventHookExecutionStatusCommand,
  type CodeDeployClient,
} from '@aws-sdk/client-codedeploy';
import type { APIGatewayProxyEvent } from 'aws-lambda';
import type { HttpMethod } from '../answers';
import { MESSAGES, type ErrorBody } from '../errors';
import type { Logger, LogLevel } from '../logger';
import { PRE_TRAFFIC_SOURCE, type PreTrafficEvent } from './pre-traffic-check';

/** How much longer than its function's timeout an invocation of a version is waited for. */
export const INVOKE_MARGIN_MS = 5_000;
/** Kept out of the checks' time for the report to CodeDeploy. */
export const REPORT_RESERVE_MS = 5_000;
/** The hook's own work beside its invocations: reading its environment, logging. */
export const HOOK_OVERHEAD_MS = 5_000;
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

/** The two checks of a version, and the configuration before them. */
export type CheckName = 'pre-traffic' | 'unauthenticated' | 'configuration';

/** One thing that stops the release. */
export interface Failure {
  /** The function, or the environment variable at fault. */
  readonly function: string;
  readonly check: CheckName;
  readonly cause: string;
}

export type HookStatus = 'Succeeded' | 'Failed';

/** PRE_TRAFFIC_TARGETS or PRE_TRAFFIC_ORIGIN is not what this module reads. */
export class PreTrafficConfigError extends TypeError {
  override readonly name = 'PreTrafficConfigError';
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

/** A name or code that may be logged: a short word, else nothing. */
const NAME = /^[A-Za-z0-9_.-]{1,64}$/;
const safeName = (value: unknown): string | undefined =>
  typeof value === 'string' && NAME.test(value) ? value : undefined;

/** The JSON of a payload, or undefined when it is not JSON. */
const jsonOf = (payload: Uint8Array | undefined): { value: unknown } | undefined => {
  try {
    return { value: JSON.parse(Buffer.from(payload ?? new Uint8Array()).toString('utf8')) };
  } catch {
    return undefined;
  }
};

/** Why the answer to the pre-traffic event is not `ok` or `none`; undefined when it is. */
export const preTrafficProblem = (answer: unknown): string | undefined => {
  if (!isObject(answer) || answer.check !== 'pre-traffic') return 'not a pre-traffic answer';
  if (answer.database === 'ok' || answer.database === 'none') return undefined;
  if (answer.database !== 'failed') return 'not a pre-traffic answer';
  const error = safeName(answer.error) ?? 'Error';
  const code = safeName(answer.code);
  return `database failed (${code === undefined ? error : `${error} ${code}`})`;
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

/** An error as a cause: its name and code, never its message. */
const causeOf = (error: unknown): string => {
  const { name, code } = isObject(error) ? error : {};
  const errorName = safeName(name) ?? typeof error;
  const errorCode = safeName(code);
  return errorCode === undefined ? errorName : `${errorName} ${errorCode}`;
};

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
   * Every target checked by `started` plus `remainingMs` (the hook's own timeout when Lambda's
   * context does not say) less the report's reserve; a configuration that cannot be read is the
   * one failure.
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
    const outcomes = await Promise.allSettled(
      targets.map((target, index) =>
        checkTarget(target, origin, bounds, `pre-traffic-${hookEvent.DeploymentId}-${index + 1}`),
      ),
    );
    return outcomes.flatMap((outcome, index) =>
      outcome.status === 'fulfilled'
        ? outcome.value
        : [
            {
              function: targets[index]?.function ?? 'unknown',
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
