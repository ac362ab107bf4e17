/**
 * npm run test:all [-- --results DIR]: everything `npm test` leaves out, one step after another,
 * each step's time printed and a summary at the end; exits 1 if any step failed.
 *
 * Needs what the slow suites need: PostgreSQL at TEST_DATABASE_URL (the integration suites
 * again, and the fault suite), Debian's pgbouncer and chromium, cfn-lint on PATH, and cmake with
 * a C++ compiler (aws-lambda-ric's native part, built once into .cache/). With --results, each
 * Jest step writes its JSON report there and the load test its figures.
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { parseArgs } from 'node:util';

const ROOT = join(import.meta.dirname, '..');
const { values } = parseArgs({ options: { results: { type: 'string' } } });
const results = values.results;
const databaseUrl = process.env.TEST_DATABASE_URL?.trim();
if (!databaseUrl) {
  process.stderr.write('test:all: set TEST_DATABASE_URL to a PostgreSQL the suites may use\n');
  process.exit(2);
}

const JEST: [string, ...string[]] = [
  'node',
  '--experimental-vm-modules',
  '--no-warnings=ExperimentalWarning',
  'node_modules/jest/bin/jest.js',
];
const json = (name: string): string[] =>
  results ? ['--json', `--outputFile=${join(results, `${name}.json`)}`] : [];
const { TEST_DATABASE_URL: _omitted, ...embedded } = process.env;

interface Step {
  readonly name: string;
  readonly command: readonly [string, ...string[]];
  /** The embedded PGlite unless the step needs the real server. */
  readonly env: NodeJS.ProcessEnv;
}

const STEPS: readonly Step[] = [
  {
    name: 'packaging, tools, TLS, PgBouncer and replication suites',
    command: [...JEST, ...json('slow')],
    env: { ...embedded, JEST_PROJECTS: 'slow' },
  },
  {
    name: 'integration suites on PostgreSQL',
    command: [
      ...JEST,
      // Packaging and the scaffolds (a report, a language) touch no database, and the TLS and
      // replication suites start servers of their own: they ran in the first step.
      'tests/integration/(?!serverless/|tools/new-(report|language)|db/tls)',
      ...json('postgresql'),
    ],
    env: { ...process.env, JEST_PROJECTS: 'test,slow' },
  },
  {
    name: 'database faults',
    command: [...JEST, ...json('faults')],
    env: { ...process.env, JEST_PROJECTS: 'faults' },
  },
  {
    name: "handler suites on the Lambda runtime's Node",
    command: ['npx', 'tsx', 'tools/test-runtime.ts', ...json('runtime')],
    env: embedded,
  },
  {
    name: 'aws-lambda-ric build (cached)',
    command: ['npx', 'tsx', 'tools/local/lambda-ric.ts'],
    env: process.env,
  },
  {
    name: 'packaged functions booted by aws-lambda-ric',
    command: [...JEST, ...json('lambda')],
    env: { ...process.env, JEST_PROJECTS: 'lambda' },
  },
  {
    name: 'browser',
    command: [...JEST, ...json('browser')],
    env: { ...embedded, JEST_PROJECTS: 'browser' },
  },
  {
    name: 'load',
    command: [
      'npx',
      'tsx',
      'tools/load-test.ts',
      '--output',
      results ? join(results, 'load-test.md') : '-',
    ],
    env: process.env,
  },
];

const outcomes: string[] = [];
let failed = false;
for (const step of STEPS) {
  process.stdout.write(`\n== ${step.name}\n`);
  const started = Date.now();
  const [command, ...args] = step.command;
  const run = spawnSync(command, args, { cwd: ROOT, env: step.env, stdio: 'inherit' });
  const seconds = Math.round((Date.now() - started) / 1000);
  const ok = run.status === 0;
  failed ||= !ok;
  outcomes.push(`${ok ? 'ok  ' : 'FAIL'} ${step.name} (${seconds} s)`);
}
process.stdout.write(`\n${outcomes.join('\n')}\n`);
process.exit(failed ? 1 : 0);
