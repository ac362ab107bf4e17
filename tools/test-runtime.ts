/**
 * npm run test:runtime [-- <jest arguments>]: the handler suites on the Node major version of
 * the Lambda runtime deployed (serverless.yml's provider.runtime, nodejs24.x → Node 24), from
 * the registry's `node@<major>` package through npx, so that a difference between this
 * machine's Node and Lambda's shows here, not in production. Without Jest arguments it runs the
 * unit, security and handler/database integration suites (on the embedded PGlite unless
 * TEST_DATABASE_URL is set); with them, exactly what they name. Exits with Jest's status.
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { registryNode, runtimeMajor } from './local/lambda-ric';

const ROOT = join(import.meta.dirname, '..');

/** The suites that run handler code: what differs between Node versions if anything does. */
const HANDLER_SUITES = [
  'tests/unit',
  'tests/security',
  'tests/integration/functions',
  'tests/integration/db',
];

const runtime = runtimeMajor();
const { node, version } = registryNode(runtime);

const args = process.argv.slice(2);
const suites = args.some((arg) => !arg.startsWith('-')) ? [] : HANDLER_SUITES;
process.stdout.write(
  `test:runtime: Jest on Node ${version} (provider.runtime nodejs${runtime}.x)\n`,
);
const jest = spawnSync(
  node,
  [
    '--experimental-vm-modules',
    '--no-warnings=ExperimentalWarning',
    join(ROOT, 'node_modules/jest/bin/jest.js'),
    ...suites,
    ...args,
  ],
  { cwd: ROOT, stdio: 'inherit' },
);
process.exit(jest.status ?? 1);
