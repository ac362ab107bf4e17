/**
 * The heartbeat: every minute (an EventBridge schedule), each function's `live` alias is invoked
 * with the pre-traffic event (shared/release/pre-traffic-contract.ts), so a region without traffic
 * still shows whether its live versions can reach their database and their key set. One line per
 * failing function names it and the cause (a status, an error's name or code: never a payload,
 * message or secret); one `heartbeat` line carries the `Heartbeat` metric (EMF, by Service): 1
 * when every alias answered healthy, 0 when any did not. Its alarm pages on 0, or on no heartbeat
 * at all (docs/operations.md, "Heartbeat").
 *
 * Environment:
 * - HEARTBEAT_TARGETS (required): a JSON array, one entry per function,
 *     [{ "function": "ordersPerDay",
 *        "alias": "arn:aws:lambda:eu-west-1:123456789012:function:portal-service-api-production-ordersPerDay:live" }]
 * - HEARTBEAT_INVOKE_TIMEOUT_MS (required): how long one invocation may take, in whole
 *   milliseconds: the functions' longest timeout and a margin.
 * - METRICS_NAMESPACE, METRICS_SERVICE: the metric's namespace and Service dimension, as the
 *   functions write theirs.
 *
 * Bounds: every invocation is given up after HEARTBEAT_INVOKE_TIMEOUT_MS, and all of them by the
 * invocation's remaining time less HEARTBEAT_RESERVE_MS, kept for the metric line. A heartbeat
 * that cannot read its environment writes 0.
 */
import type { LambdaClient } from '@aws-sdk/client-lambda';
import type { Logger } from '../../shared/logger';
import { DEFAULT_METRICS_NAMESPACE, DEFAULT_METRICS_SERVICE } from '../../shared/metrics';
import { causeOf, preTrafficEvent } from '../../shared/release/pre-traffic-contract';
import { preTrafficProblem } from './answers';
import { FUNCTION_NAME, type Env } from './environment';
import { isObject } from './fields';
import { invokeForAnswer } from './invoke';

/** Kept out of the invocations' time for the metric line. */
export const HEARTBEAT_RESERVE_MS = 1_000;
/** The metric the heartbeat alarm reads. */
export const HEARTBEAT_METRIC = 'Heartbeat';
export const HEARTBEAT_MESSAGE = 'heartbeat';
export const HEARTBEAT_FAILURE_MESSAGE = 'heartbeat check failed';

/** One function's `live` alias: an entry of HEARTBEAT_TARGETS. */
export interface HeartbeatTarget {
  readonly function: string;
  readonly alias: string;
}

/** One function that did not answer healthy, or the environment at fault. */
export interface HeartbeatFailure {
  readonly function: string;
  readonly cause: string;
}

export interface HeartbeatOutcome {
  readonly healthy: boolean;
  readonly checked: number;
  readonly failures: readonly HeartbeatFailure[];
}

/** HEARTBEAT_TARGETS or HEARTBEAT_INVOKE_TIMEOUT_MS is not what this module reads. */
export class HeartbeatConfigError extends TypeError {
  override readonly name = 'HeartbeatConfigError';
}

/** A qualified ARN of an alias: arn:<partition>:lambda:<region>:<account>:function:<name>:<alias>. */
const ALIAS_ARN =
  /^arn:aws(?:-[a-z]+)*:lambda:[a-z]{2}(?:-[a-z]+)+-\d:\d{12}:function:[A-Za-z0-9_-]{1,64}:[A-Za-z][A-Za-z0-9_-]{0,127}$/;

/** HEARTBEAT_TARGETS: a non-empty JSON array of functions and their aliases. */
export const parseHeartbeatTargets = (raw: string | undefined): readonly HeartbeatTarget[] => {
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw ?? '');
  } catch {
    throw new HeartbeatConfigError('HEARTBEAT_TARGETS is not JSON');
  }
  if (!Array.isArray(parsed) || parsed.length === 0) {
    throw new HeartbeatConfigError('HEARTBEAT_TARGETS is not a non-empty JSON array');
  }
  return parsed.map((entry: unknown, index) => {
    const at = `HEARTBEAT_TARGETS entry ${index + 1}`;
    if (!isObject(entry)) throw new HeartbeatConfigError(`${at} is not an object`);
    const { function: name, alias } = entry;
    if (typeof name !== 'string' || !FUNCTION_NAME.test(name)) {
      throw new HeartbeatConfigError(`${at}: "function" is not a function name`);
    }
    if (typeof alias !== 'string' || !ALIAS_ARN.test(alias)) {
      throw new HeartbeatConfigError(`${at} (${name}): "alias" is not a qualified alias ARN`);
    }
    return { function: name, alias };
  });
};

/** HEARTBEAT_INVOKE_TIMEOUT_MS: whole milliseconds, from 1 s to 15 minutes. */
export const parseHeartbeatTimeout = (raw: string | undefined): number => {
  const value = raw?.trim() ?? '';
  const ms = /^\d{1,6}$/.test(value) ? Number(value) : Number.NaN;
  if (!(ms >= 1_000 && ms <= 900_000)) {
    throw new HeartbeatConfigError(
      'HEARTBEAT_INVOKE_TIMEOUT_MS is not a whole number of milliseconds from 1000 to 900000',
    );
  }
  return ms;
};

export interface HeartbeatOptions {
  readonly lambda: LambdaClient;
  readonly logger: Logger;
  /** Read at each run; process.env by default. */
  readonly env?: Env;
}

/** The part of Lambda's context the heartbeat reads. */
export interface HeartbeatContext {
  readonly getRemainingTimeInMillis?: () => number;
}

export const heartbeat = ({ lambda, logger, env = process.env }: HeartbeatOptions) => {
  /** Why `target` is not healthy, or undefined when it is. */
  const checkTarget = async (
    target: HeartbeatTarget,
    boundMs: number,
  ): Promise<string | undefined> => {
    const invoked = await invokeForAnswer(lambda, target.alias, preTrafficEvent(), boundMs);
    return 'cause' in invoked ? invoked.cause : preTrafficProblem(invoked.answer);
  };

  const run = async (
    context?: HeartbeatContext,
  ): Promise<{ checked: number; failures: HeartbeatFailure[] }> => {
    let targets: readonly HeartbeatTarget[];
    let timeoutMs: number;
    try {
      targets = parseHeartbeatTargets(env.HEARTBEAT_TARGETS);
      timeoutMs = parseHeartbeatTimeout(env.HEARTBEAT_INVOKE_TIMEOUT_MS);
    } catch (error) {
      const cause = error instanceof HeartbeatConfigError ? error.message : causeOf(error);
      return { checked: 0, failures: [{ function: 'environment', cause }] };
    }
    const remaining = context?.getRemainingTimeInMillis?.() ?? timeoutMs + HEARTBEAT_RESERVE_MS;
    const boundMs = Math.min(timeoutMs, remaining - HEARTBEAT_RESERVE_MS);
    const causes = await Promise.all(targets.map((target) => checkTarget(target, boundMs)));
    const failures = targets.flatMap((target, index) => {
      const cause = causes[index];
      return cause === undefined ? [] : [{ function: target.function, cause }];
    });
    return { checked: targets.length, failures };
  };

  return async (_event: unknown, context?: HeartbeatContext): Promise<HeartbeatOutcome> => {
    const { checked, failures } = await run(context);
    for (const failure of failures) logger.log('error', HEARTBEAT_FAILURE_MESSAGE, { ...failure });
    const healthy = failures.length === 0;
    const namespace = env.METRICS_NAMESPACE?.trim() || DEFAULT_METRICS_NAMESPACE;
    const service = env.METRICS_SERVICE?.trim() || DEFAULT_METRICS_SERVICE;
    logger.log(
      healthy ? 'info' : 'error',
      HEARTBEAT_MESSAGE,
      { Service: service, [HEARTBEAT_METRIC]: healthy ? 1 : 0, checked, failed: failures.length },
      [
        {
          Namespace: namespace,
          Dimensions: [['Service']],
          Metrics: [{ Name: HEARTBEAT_METRIC, Unit: 'Count' }],
        },
      ],
    );
    return { healthy, checked, failures };
  };
};
