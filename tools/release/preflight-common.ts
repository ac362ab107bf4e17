/**
 * What the preflight's checks share (tools/release/preflight.ts): the plan they check, how each
 * records what it found, how an SDK failure becomes one line, and the bounds of every call.
 */
import type { Scope } from '../generators/variables';
import type { Env, RegionSettings } from './regions';

export { valueOf, type Env } from './regions';

export interface PreflightPlan {
  /** serverless.yml's `service`: the stack is `<service>-<stage>`. */
  readonly service: string;
  readonly stage: string;
  /** The stage has a portal environment (staging, production): regions.ts's isPortalStage. */
  readonly portal: boolean;
  readonly settings: readonly RegionSettings[];
  readonly env: Env;
}

/**
 * Every SDK client's bounds: a connection within 3 s, an answer within 5 s of the request (a
 * silent endpoint fails with a TimeoutError instead of holding the release), and one retry.
 */
export const CLIENT_OPTIONS = {
  maxAttempts: 2,
  requestHandler: { connectionTimeout: 3_000, requestTimeout: 5_000, throwOnRequestTimeout: true },
} as const;

/** A client's configuration for `region`, bounded. */
export const clientConfig = (region: string) => ({ region, ...CLIENT_OPTIONS });

/** Where the plan's settings are read in `region` (tools/generators/variables.ts). */
export const scopeOf = (plan: PreflightPlan, region: string): Scope => ({
  stage: plan.stage,
  region,
  portal: plan.portal,
});

/** The stack of the stage, in each region. */
export const stackName = (plan: PreflightPlan): string => `${plan.service}-${plan.stage}`;

export const errorName = (error: unknown): string =>
  (error as { name?: unknown } | null)?.name === undefined
    ? 'Error'
    : String((error as { name: unknown }).name);

/** An SDK failure, in one line: its name and message. */
export const describeError = (error: unknown): string =>
  `${errorName(error)}: ${String((error as { message?: unknown } | null)?.message ?? error)
    .split('\n')[0]
    ?.trim()}`;

/** A REST or JSON service's answer that the thing asked for does not exist. */
export const isNotFound = (error: unknown): boolean =>
  ['ResourceNotFoundException', 'NotFoundException'].includes(errorName(error));

/** What one check of one region found: its problems, or a summary when it found none. */
export class Findings {
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
