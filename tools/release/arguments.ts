/**
 * The arguments of `npm run package` and `npm run deploy` (tools/release/main.ts).
 */
import { isAbsolute, join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { ReleaseUsageError } from './regions';

export type ReleaseCommand = 'package' | 'deploy';

export const USAGE = {
  package:
    'usage: npm run package -- [--stage <stage>] [--region <aws-region>[,…]]… [--out <dir>]\n' +
    '                          [--check | --describe]\n' +
    '  packages every AWS region of the stage (dev: its default region) into <dir>/<aws-region>/\n' +
    '  (default .serverless-packages/<stage>/); --check: only check every region has its settings;\n' +
    '  --describe: then say what each region deploys (functions, routes, alarms, changed settings)',
  deploy:
    'usage: npm run deploy -- --stage <stage> [--region <aws-region>[,…]]… [--out <dir>]\n' +
    '                         [--bake-minutes <n>] [--skip-preflight | --preflight-only]\n' +
    "  checks each region's AWS account first (the preflight: Lambda concurrency, API Gateway's\n" +
    '  CloudWatch role, the database secret and KMS key, the subnets and security groups),\n' +
    '  packages every AWS region of the stage into <dir>/<aws-region>/, then deploys them one\n' +
    '  after another from those packages, stopping at the first failure; between two regions it\n' +
    "  watches the one just deployed for <n> minutes and stops if one of the stage's alarms fires\n" +
    '  (default RELEASE_BAKE_MINUTES, else 10 for production, 0 for other stages)\n' +
    '  --preflight-only: only the preflight; --skip-preflight: none (an account it cannot read)',
} as const;

export interface ReleaseArguments {
  readonly stage: string;
  /** The regions asked for with --region, in order, without repeats; empty: all of the stage's. */
  readonly regions: readonly string[];
  /** The folder the packages go in, absolute: one sub-folder per region. */
  readonly out: string;
  /** Only check the settings (package only). */
  readonly check: boolean;
  /** Say what each packaged region deploys (package only). */
  readonly describe: boolean;
  /** deploy: no preflight. */
  readonly skipPreflight: boolean;
  /** deploy: the settings and the preflight only. */
  readonly preflightOnly: boolean;
  /** deploy: --bake-minutes as given (checked with the stage's default: bake.ts). */
  readonly bakeMinutes?: string;
}

/**
 * `help`, or the checked arguments. `--region` may be repeated and may hold a comma-separated
 * list. A relative `--out` is taken from `cwd` (npm's INIT_CWD: where npm was run); the default
 * is `.serverless-packages/<stage>` under `root` (not `.serverless/`, which osls empties whenever
 * it packages).
 */
export const parseReleaseArguments = (
  command: ReleaseCommand,
  args: readonly string[],
  { cwd, root }: { readonly cwd: string; readonly root: string },
): ReleaseArguments | 'help' => {
  let values;
  try {
    ({ values } = parseArgs({
      args: [...args],
      options: {
        stage: { type: 'string' },
        region: { type: 'string', multiple: true },
        out: { type: 'string' },
        check: { type: 'boolean' },
        describe: { type: 'boolean' },
        'skip-preflight': { type: 'boolean' },
        'preflight-only': { type: 'boolean' },
        'bake-minutes': { type: 'string' },
        help: { type: 'boolean' },
      },
      strict: true,
      allowPositionals: false,
    }));
  } catch (error) {
    // parseArgs's TypeError may come from another realm (Jest's): no instanceof.
    const message = (error as { message?: unknown } | null)?.message;
    throw new ReleaseUsageError(typeof message === 'string' ? message : 'invalid arguments');
  }
  if (values.help) return 'help';
  if (command === 'deploy' && values.check) {
    throw new ReleaseUsageError(
      '--check is for npm run package (npm run deploy checks first anyway)',
    );
  }
  if (command === 'deploy' && values.describe) {
    throw new ReleaseUsageError('--describe is for npm run package');
  }
  if (values.check && values.describe) {
    throw new ReleaseUsageError('--check and --describe exclude each other: --describe packages');
  }
  if (command === 'package') {
    const deployOnly = ['skip-preflight', 'preflight-only', 'bake-minutes'] as const;
    const given = deployOnly.find((option) => values[option] !== undefined);
    if (given) throw new ReleaseUsageError(`--${given} is for npm run deploy`);
  }
  if (values['skip-preflight'] && values['preflight-only']) {
    throw new ReleaseUsageError('--skip-preflight and --preflight-only exclude each other');
  }
  if (command === 'deploy' && values.stage === undefined) {
    throw new ReleaseUsageError('--stage is required: the stage to deploy, such as production');
  }
  const stage = (values.stage ?? 'dev').trim();
  if (stage === '') throw new ReleaseUsageError('--stage is empty');
  const regions = (values.region ?? []).flatMap((list) =>
    list.split(',').map((region) => region.trim()),
  );
  if (regions.includes('')) throw new ReleaseUsageError('--region names an empty region');
  const out = values.out?.trim();
  if (out === '') throw new ReleaseUsageError('--out is empty');
  return {
    stage,
    regions: [...new Set(regions)],
    out:
      out === undefined
        ? join(root, '.serverless-packages', stage)
        : isAbsolute(out)
          ? out
          : resolve(cwd, out),
    check: values.check ?? false,
    describe: values.describe ?? false,
    skipPreflight: values['skip-preflight'] ?? false,
    preflightOnly: values['preflight-only'] ?? false,
    ...(values['bake-minutes'] === undefined ? {} : { bakeMinutes: values['bake-minutes'] }),
  };
};
