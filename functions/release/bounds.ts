/**
 * The pre-traffic hook's bounds: what each invocation of a checked version, the report to
 * CodeDeploy and the hook's own work may take, from which the template sets the hook's timeout
 * and PRE_TRAFFIC_INVOKE_TIMEOUT_MS (tools/generators/pre-traffic.ts), and packaging checks them
 * (tools/generators/invariants.ts).
 */
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
