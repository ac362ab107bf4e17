/**
 * One check, all refusals: `npx serverless package` and `npm run package -- --check` refuse the
 * same shell with the same lines, every missing or refused setting at once, one line each, with no
 * stack trace and a non-zero exit (tools/generators/settings-check.ts, docs/deployment.md
 * "Per-stage settings").
 */
import { join } from 'node:path';
import { PACKAGING_ENV, packageService, removeTemporary } from '../../support/packaging';
import { ROOT, run } from '../../support/processes';

afterAll(removeTemporary);

/**
 * Production in eu-west-1 from a shell that lacks its key set, its secret and its alarm topic,
 * and holds another stage's plain JWT_AUDIENCE and ALARMS=false.
 */
const SHELL = {
  ...PACKAGING_ENV,
  JWK_URL_EU_PRODUCTION: '',
  DATABASE_SECRET_ARN_PRODUCTION: '',
  ALARM_TOPIC_ARN_PRODUCTION: '',
  JWT_AUDIENCE: 'portal-dev',
  ALARMS: 'false',
};

const EXPECTED = [
  'JWT_AUDIENCE is set, but stage "production" reads JWT_AUDIENCE only from JWT_AUDIENCE_PRODUCTION_EU_WEST_1 or JWT_AUDIENCE_PRODUCTION',
  'ALARMS is set, but stage "production" reads ALARMS only from ALARMS_PRODUCTION_EU_WEST_1 or ALARMS_PRODUCTION',
  'JWK_URL_EU_PRODUCTION is not set',
  'DATABASE_SECRET_ARN_PRODUCTION_EU_WEST_1 is not set',
  'ALARM_TOPIC_ARN is not set',
];

/** The problem lines of an output: those naming a setting, as each command indents them. */
const problemLines = (output: string): string[] =>
  output
    .split('\n')
    .map((line) => line.replace(/^ {2}eu-west-1\s+/, '').trim())
    .filter((line) => EXPECTED.some((start) => line.startsWith(start)));

describe('a shell production cannot package from', () => {
  it('is refused by npx serverless package and npm run package -- --check with the same lines', async () => {
    // Act
    const [packaged, checked] = await Promise.all([
      packageService({ env: SHELL }),
      run(
        [
          '--import',
          'tsx',
          join(ROOT, 'tools/release/main.ts'),
          'package',
          '--stage',
          'production',
          '--region',
          'eu-west-1',
          '--check',
        ],
        SHELL,
      ),
    ]);

    // Assess: each command, every problem once, in the same words
    const outputs = [
      packaged.result.stdout + packaged.result.stderr,
      checked.stdout + checked.stderr,
    ];
    for (const output of outputs) {
      const lines = problemLines(output);
      expect(lines.map((line) => EXPECTED.find((start) => line.startsWith(start)))).toEqual(
        EXPECTED,
      );
      expect(output).not.toMatch(/^\s+at .+:\d+:\d+\)?$/m);
    }
    expect(problemLines(outputs[0] ?? '')).toEqual(problemLines(outputs[1] ?? ''));
    expect([packaged.result.code, checked.code]).toEqual([1, 1]);
  }, 180_000);
});
