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
 * 1. answer the pre-traffic event (shared/release/pre-traffic-answer.ts) with database `ok` (or
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
import type { CodeDeployClient } from '@aws-sdk/client-codedeploy';
import { PutLifecycleEventHookExecutionStatusCommand } from '@aws-sdk/client-codedeploy';
import type { LambdaClient } from '@aws-sdk/client-lambda';
import type { Logger } from '../../shared/logger';
import { causeOf, preTrafficEvent } from '../../shared/release/pre-traffic-contract';
import { preTrafficProblem, unauthenticatedProblem } from './answers';
import { hookTimeoutSecondsFor, REPORT_RESERVE_MS } from './bounds';
import {
  deployedFunctionName,
  parseHookEvent,
  readDeployment,
  selectDeployed,
  type HookEvent,
} from './deployment';
import {
  parseInvokeTimeout,
  parseOrigin,
  parseTargets,
  PreTrafficConfigError,
  type Env,
  type PreTrafficTarget,
} from './environment';
import { unauthenticatedEvent } from './gateway-event';
import { invokeForAnswer } from './invoke';

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

export const preTrafficHook = ({
  lambda,
  codeDeploy,
  logger,
  env = process.env,
  invokeTimeoutMs,
  reportReserveMs = REPORT_RESERVE_MS,
}: PreTrafficHookOptions) => {
  /** Invokes `target`'s version with `event` within its bound and the time left. */
  const invoke = (target: PreTrafficTarget, event: unknown, { boundMs, deadline }: Bounds) =>
    invokeForAnswer(lambda, target.version, event, Math.min(boundMs, deadline - Date.now()));

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
    const read = await readDeployment(codeDeploy, hookEvent.DeploymentId, bounds.deadline);
    if ('cause' in read)
      return [{ function: 'deployment', check: 'deployment', cause: read.cause }];
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
