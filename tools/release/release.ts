/**
 * `npm run package` and `npm run deploy` (docs/deployment.md, "Every region of a stage"): one
 * stage to every AWS region serverless.yml releases it to, one region after another.
 *
 * 1. Check every region's settings (regions.ts): every missing one is reported, one line per
 *    region and variable, and nothing is packaged. deploy then runs the preflight
 *    (preflight.ts): each region's account asked whether the stage fits; every problem is
 *    reported, and nothing is packaged or created.
 * 2. Package each region: `serverless package --stage S --region R --package <out>/<R>`, each
 *    built in a fresh esbuild work folder (ESBUILD_WORK_FOLDER) removed afterwards; one line per
 *    region; serverless's own output only when it fails, which stops the run.
 * 3. deploy only, once every region is packaged: `serverless deploy --stage S --region R
 *    --package <out>/<R>` for each, serverless's output shown, stopping at the first failure;
 *    between two regions the bake (bake.ts): the region just deployed is watched for the bake
 *    time, and an alarm of the stage in ALARM stops the release; the regions deployed and not
 *    deployed are listed at the end.
 *
 * serverless is osls's bin run with this Node, or the executable PORTAL_SERVERLESS_BIN names
 * (the tests give a stand-in that records its arguments). It runs in the project's folder with
 * this process's environment: the settings reach the resolvers of tools/serverless/ unchanged.
 */
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { isAbsolute, join, relative } from 'node:path';
import type { Template } from '../generators/cloudformation';
import { describeTemplate } from '../generators/describe';
import { parseReleaseArguments, USAGE, type ReleaseCommand } from './arguments';
import { bake, bakeMinutes } from './bake';
import { runPreflight } from './preflight';
import {
  checkSettings,
  isPortalStage,
  readReleaseConfig,
  regionsOf,
  ReleaseUsageError,
  ROOT,
  type RegionSettings,
} from './regions';

type Env = Readonly<Record<string, string | undefined>>;

export interface ReleaseIo {
  readonly stdout: (text: string) => void;
  readonly stderr: (text: string) => void;
  /** Where npm was run (INIT_CWD): a relative --out is taken from there. */
  readonly cwd: string;
}

export const nodeIo = (env: Env): ReleaseIo => ({
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
  cwd: env.INIT_CWD ?? process.cwd(),
});

/** Lines of serverless's output shown when it fails. */
const FAILURE_LINES = 40;
/** A package takes seconds; one that has not finished in this long has hung, and is stopped. */
const PACKAGE_TIMEOUT_MS = 10 * 60_000;
const TEMPLATE = 'cloudformation-template-update-stack.json';

/** The command line of serverless: PORTAL_SERVERLESS_BIN, else osls's bin under this Node. */
const serverlessCommand = (env: Env): [string, string[]] => {
  const bin = env.PORTAL_SERVERLESS_BIN?.trim();
  if (bin) return [bin, []];
  return [process.execPath, [createRequire(import.meta.url).resolve('osls/bin/serverless.js')]];
};

/**
 * Runs serverless to its end, or until `timeoutMs` (then stopped); its output is kept, and also
 * shown as it comes when `show`.
 */
const runServerless = (
  args: readonly string[],
  env: Env,
  { show, timeoutMs }: { show?: ReleaseIo; timeoutMs?: number },
): Promise<{ code: number | null; output: string }> =>
  new Promise((resolve) => {
    const [command, prefix] = serverlessCommand(env);
    const child = spawn(command, [...prefix, ...args], {
      cwd: ROOT,
      env: { ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      show?.stdout(chunk.toString());
    });
    child.stderr.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      show?.stderr(chunk.toString());
    });
    const timer =
      timeoutMs === undefined
        ? undefined
        : setTimeout(() => {
            output += `\nno result after ${timeoutMs / 1000} s: stopped\n`;
            child.kill('SIGTERM');
          }, timeoutMs);
    child.on('error', (error) => {
      clearTimeout(timer);
      resolve({ code: null, output: `${output}could not run ${command}: ${error.message}\n` });
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    });
  });

const seconds = (since: number) => `${((performance.now() - since) / 1000).toFixed(1)} s`;

const tail = (output: string) =>
  output
    .trimEnd()
    .split('\n')
    .slice(-FAILURE_LINES)
    .map((line) => `    ${line}\n`)
    .join('');

/** The variables a region's settings come from. */
const sources = ({ variables }: RegionSettings) =>
  [
    variables.keySet,
    variables.issuer,
    variables.secret,
    variables.vpc ? `VPC ${variables.vpc}` : 'no VPC',
  ]
    .filter(Boolean)
    .join(', ');

/**
 * serverless-esbuild's work folder for one package (custom.esbuild.outputWorkFolder, relative to
 * the project), fresh for each region: the plugin zips every file of its build folder into each
 * function's zip, so a bundle left in the default `.esbuild/` (by `npm start`, or of a function
 * since removed) would ship with every function.
 */
const buildFolder = (region: string) => `.esbuild-release-${String(process.pid)}-${region}`;

/** `<out>/<region>` emptied for a new package: refused when it holds anything but a package. */
const prepareFolder = (folder: string) => {
  if (!existsSync(folder)) return;
  const entries = readdirSync(folder);
  if (entries.length > 0 && !entries.includes('serverless-state.json')) {
    throw new ReleaseUsageError(
      `${folder} holds files that are no serverless package: choose another --out, or empty it`,
    );
  }
  rmSync(folder, { recursive: true, force: true });
};

/** A path as the user can read it: from where npm was run when inside it, else absolute. */
const pathFrom = (cwd: string, path: string) => {
  const shown = relative(cwd, path);
  return shown === '' ? '.' : shown.startsWith('..') || isAbsolute(shown) ? path : shown;
};

const list = (regions: readonly string[]) => (regions.length > 0 ? regions.join(', ') : 'none');

/**
 * The whole command; resolves to its exit code (0 done, 1 a setting missing, a preflight problem,
 * a step failed or an alarm during a bake, 2 usage).
 */
export const runRelease = async (
  command: ReleaseCommand,
  args: readonly string[],
  env: Env,
  io: ReleaseIo,
): Promise<number> => {
  const name = `npm run ${command}`;
  let plan;
  try {
    const parsed = parseReleaseArguments(command, args, { cwd: io.cwd, root: ROOT });
    if (parsed === 'help') {
      io.stdout(`${USAGE[command]}\n`);
      return 0;
    }
    const config = readReleaseConfig();
    const regions = regionsOf(config, parsed.stage, parsed.regions);
    const bakeFor = command === 'deploy' ? bakeMinutes(parsed.stage, parsed.bakeMinutes, env) : 0;
    plan = { ...parsed, regions, config, bakeFor };
  } catch (error) {
    if (!(error instanceof ReleaseUsageError)) throw error;
    io.stderr(`${name}: ${error.message}\n${USAGE[command]}\n`);
    return 2;
  }
  const { stage, regions, out, config, bakeFor } = plan;
  const width = Math.max(...regions.map((region) => region.length)) + 2;
  const column = (text: string) => text.padEnd(width);

  // 1. Every region's settings, before anything is packaged.
  const { settings, problems } = checkSettings(config, stage, regions, env);
  if (problems.length > 0) {
    io.stderr(
      `${name}: stage "${stage}", ${regions.length} region${regions.length === 1 ? '' : 's'} (${regions.join(', ')}): ` +
        `${problems.length} setting${problems.length === 1 ? '' : 's'} missing or refused; nothing ${command === 'deploy' ? 'packaged or deployed' : 'packaged'}:\n` +
        problems.map((p) => `  ${p.region.padEnd(Math.max(width, 14))}${p.message}\n`).join(''),
    );
    return 1;
  }
  if (plan.check) {
    io.stdout(`${name}: stage "${stage}", every region has its settings:\n`);
    for (const setting of settings) {
      io.stdout(
        `  ${column(setting.region)}${setting.portalRegion.padEnd(7)}${sources(setting)}\n`,
      );
    }
    return 0;
  }
  if (command === 'deploy' && plan.skipPreflight) {
    io.stdout(`${name}: preflight skipped (--skip-preflight)\n`);
  } else if (command === 'deploy') {
    const { problems: found, summaries } = await runPreflight({
      service: config.service,
      stage,
      portal: isPortalStage(config, stage),
      settings,
      env,
    });
    if (found.length > 0) {
      io.stderr(
        `${name}: preflight of stage "${stage}": ${found.length} problem${found.length === 1 ? '' : 's'} found in AWS; nothing packaged or created:\n` +
          found.map((p) => `  ${p.region.padEnd(Math.max(width, 14))}${p.message}\n`).join('') +
          `Fix them and run it again (--preflight-only checks without deploying; --skip-preflight, for an account it cannot read, deploys without it)\n`,
      );
      return 1;
    }
    io.stdout(`${name}: preflight of stage "${stage}" passed:\n`);
    for (const region of regions) io.stdout(`  ${column(region)}${summaries[region] ?? ''}\n`);
    if (plan.preflightOnly) return 0;
  }

  // 2. Every region packaged, one after another.
  io.stdout(
    `${name}: stage "${stage}" → ${pathFrom(io.cwd, out)}/<region>: ${regions.join(', ')}\n`,
  );
  const packaged: string[] = [];
  for (const setting of settings) {
    const { region } = setting;
    const folder = join(out, region);
    const started = performance.now();
    let failure = '';
    const work = join(ROOT, buildFolder(region));
    try {
      prepareFolder(folder);
      rmSync(work, { recursive: true, force: true });
      const result = await runServerless(
        ['package', '--stage', stage, '--region', region, '--package', folder],
        { ...env, ESBUILD_WORK_FOLDER: buildFolder(region) },
        { timeoutMs: PACKAGE_TIMEOUT_MS },
      );
      if (result.code !== 0) {
        failure = `serverless package failed (exit ${String(result.code)}):\n${tail(result.output)}`;
      } else if (!existsSync(join(folder, TEMPLATE))) {
        failure = `serverless package wrote no ${TEMPLATE} in ${folder}\n${tail(result.output)}`;
      }
    } catch (error) {
      if (!(error instanceof ReleaseUsageError)) throw error;
      failure = `${error.message}\n`;
    } finally {
      rmSync(work, { recursive: true, force: true });
    }
    if (failure) {
      io.stderr(`  ${column(region)}NOT packaged: ${failure}`);
      io.stderr(
        `${name}: stopped at ${region}; packaged: ${list(packaged)}; not packaged: ${list(regions.filter((r) => !packaged.includes(r)))}` +
          `${command === 'deploy' ? '; nothing deployed' : ''}\n`,
      );
      return 1;
    }
    packaged.push(region);
    io.stdout(
      `  ${column(region)}${setting.portalRegion.padEnd(7)}packaged in ${seconds(started)} → ${pathFrom(io.cwd, folder)} (${sources(setting)})\n`,
    );
    if (plan.describe) {
      const template = JSON.parse(readFileSync(join(folder, TEMPLATE), 'utf8')) as Template;
      io.stdout(
        [`${stage} in ${region}:`, ...describeTemplate(template, setting.values)].join('\n') + '\n',
      );
    }
  }
  if (command === 'package') {
    io.stdout(`${name}: ${regions.length} region${regions.length === 1 ? '' : 's'} packaged\n`);
    return 0;
  }

  // 3. deploy: each region from its package, stopping at the first failure.
  const deployed: string[] = [];
  for (const region of regions) {
    const folder = join(out, region);
    const started = performance.now();
    io.stdout(
      `${name}: deploying stage "${stage}" to ${region} from ${pathFrom(io.cwd, folder)}\n`,
    );
    const result = await runServerless(
      ['deploy', '--stage', stage, '--region', region, '--package', folder],
      env,
      { show: io },
    );
    if (result.code !== 0) {
      io.stderr(
        `  ${column(region)}NOT deployed: serverless deploy failed (exit ${String(result.code)})\n` +
          `${name}: stopped at ${region}; deployed: ${list(deployed)}; not deployed: ${list(regions.filter((r) => !deployed.includes(r)))}\n`,
      );
      return 1;
    }
    deployed.push(region);
    io.stdout(`  ${column(region)}deployed in ${seconds(started)}\n`);
    const rest = regions.filter((r) => !deployed.includes(r));
    if (bakeFor > 0 && rest.length > 0) {
      const bakeStarted = performance.now();
      io.stdout(
        `  ${column(region)}baking for ${bakeFor} min before ${rest[0]}: watching the stage's alarms\n`,
      );
      const result = await bake({ service: config.service, stage, region, minutes: bakeFor });
      if (!result.ok) {
        const why =
          'firing' in result
            ? `alarm${result.firing.length === 1 ? '' : 's'} in ALARM during the bake:\n` +
              result.firing.map((a) => `    ${a.name}: ${a.reason}\n`).join('')
            : `its alarms could not be read during the bake: ${result.error}\n`;
        io.stderr(
          `  ${column(region)}${why}` +
            `${name}: stopped after ${region}; deployed: ${list(deployed)}; not deployed: ${list(rest)}\n` +
            `  What to do: read the alarm's runbook (docs/operations.md, "Alarms"); roll ${region} back ` +
            `(docs/releases.md, "Releases and rollback") or fix the cause; once its alarms are OK, ` +
            `deploy the rest: npm run deploy -- --stage ${stage} --region ${rest.join(',')}\n`,
        );
        return 1;
      }
      io.stdout(
        `  ${column(region)}baked ${seconds(bakeStarted)}: ${result.watched} alarm${result.watched === 1 ? '' : 's'} watched, none in ALARM\n`,
      );
    }
  }
  io.stdout(`${name}: stage "${stage}" deployed to ${list(deployed)}\n`);
  return 0;
};
