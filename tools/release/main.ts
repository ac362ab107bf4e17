/**
 * npm run package -- [--stage S] [--region R[,…]]… [--out DIR] [--check]
 * npm run deploy -- --stage S [--region R[,…]]… [--out DIR] [--bake-minutes N]
 *                   [--skip-preflight | --preflight-only]
 * Every AWS region of a stage, packaged (and deployed) one after another: tools/release/release.ts.
 * Exit 0 done, 1 a setting missing, a preflight problem, a region failed or an alarm during a
 * bake, 2 bad arguments.
 */
import { nodeIo, runRelease } from './release';

const [command, ...args] = process.argv.slice(2);
if (command !== 'package' && command !== 'deploy') {
  process.stderr.write('usage: tsx tools/release/main.ts package|deploy [options]\n');
  process.exitCode = 2;
} else {
  process.exitCode = await runRelease(command, args, process.env, nodeIo(process.env));
}
