/**
 * cfn-lint on the CloudFormation templates `serverless package` writes, for the tests under
 * tests/integration/serverless/ (every template they package is linted when cfn-lint is on PATH).
 */
import { spawnSync } from 'node:child_process';

/** Whether cfn-lint is on PATH; tests that lint skip explicitly (`it.skip`) when it is not. */
export const CFN_LINT_AVAILABLE = spawnSync('cfn-lint', ['--version']).status === 0;

/** `it` where cfn-lint is on PATH; elsewhere Jest reports the test as skipped. */
export const withCfnLint = CFN_LINT_AVAILABLE ? it : it.skip;

// .ci/run sets REQUIRE_CFN_LINT=true: there a missing cfn-lint fails every suite that lints,
// rather than letting it skip.
if (!CFN_LINT_AVAILABLE && process.env.REQUIRE_CFN_LINT === 'true') {
  throw new Error('REQUIRE_CFN_LINT=true, but cfn-lint is not on PATH');
}

export interface LintResult {
  /** False when cfn-lint found an error or itself failed. */
  readonly ok: boolean;
  /** cfn-lint's exit code (null when it did not exit: not started, killed or timed out). */
  readonly status: number | null;
  /** What cfn-lint printed (stdout, then stderr), and why it did not exit if it did not. */
  readonly output: string;
}

/**
 * Runs cfn-lint on one template for one AWS region. cfn-lint's exit code is bit flags: 2 errors,
 * 4 warnings, 8 informational; 1 cfn-lint itself failed. A template fails on errors (2) or when
 * cfn-lint itself failed (1, or no exit code at all); warnings and informational findings alone
 * pass.
 */
export const lintTemplate = (path: string, region: string, timeoutMs = 60_000): LintResult => {
  const lint = spawnSync('cfn-lint', ['--regions', region, '--', path], {
    encoding: 'utf8',
    timeout: timeoutMs,
  });
  const failed = (lint.status ?? 1) & 3;
  const notExited =
    lint.status === null
      ? `\ncfn-lint did not exit: ${lint.error?.message ?? `signal ${String(lint.signal)}`}`
      : '';
  // Node leaves stdout and stderr null when cfn-lint could not be started at all.
  const printed: (string | null)[] = [lint.stdout, lint.stderr];
  return {
    ok: failed === 0,
    status: lint.status,
    output: `${printed.map((text) => text ?? '').join('')}${notExited}`,
  };
};

/** Expects cfn-lint to find no error in the template at `path` for `region`. */
export const expectLintPasses = (path: string, region: string): void => {
  const lint = lintTemplate(path, region);
  expect({ path, ok: lint.ok, output: lint.output }).toEqual({
    path,
    ok: true,
    output: expect.any(String) as unknown,
  });
};
