/**
 * AWS's Lambda runtime interface client (the npm package `aws-lambda-ric`, the client of
 * Lambda's managed Node runtimes) built for the Node major of serverless.yml's provider.runtime,
 * for tests that boot the packaged functions as Lambda does (tests/lambda-runtime/).
 *
 * Node comes from the registry's `node@<major>` package through npx, as for test:runtime. The
 * client has a native part (curl and aws-lambda-cpp from its own archives, then a node-gyp
 * addon), compiled against that Node's headers: those of `node-<platform>-<arch>` of the same
 * version, the full distribution `node@<major>` itself installs (npx keeps only its binary),
 * installed beside the build and named in npm_config_nodedir (this machine's npm says
 * nodedir=/usr, Node 20's headers). Nothing is downloaded but from the npm registry. The build
 * (two to three minutes; cmake, make and a C++ compiler) goes into
 * `.cache/aws-lambda-ric/<node version>/` and is reused while that folder holds it for exactly
 * that Node version.
 *
 *   npm run lambda:ric     # builds when needed; prints the Node and the client's entry as JSON
 */
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';

const ROOT = join(import.meta.dirname, '../..');

export const RIC_PACKAGE = 'aws-lambda-ric';
export const RIC_VERSION = '4.0.2';
export const CACHE_DIR = join(ROOT, '.cache', RIC_PACKAGE);

export interface LambdaRuntimeClient {
  /** The Node executable of the runtime's major version. */
  readonly node: string;
  /** Its version, `v24.…`. */
  readonly nodeVersion: string;
  /** The client's entry point (what Lambda's bootstrap runs): `node <entry>`. */
  readonly entry: string;
}

interface Marker {
  readonly ric: string;
  readonly nodeVersion: string;
  readonly modules: string;
}

/** serverless.yml's provider.runtime major (`nodejs24.x` → `24`). */
export const runtimeMajor = (): string => {
  const major = /^\s*runtime:\s*nodejs(\d+)\.x\s*$/m.exec(
    readFileSync(join(ROOT, 'serverless.yml'), 'utf8'),
  )?.[1];
  if (!major) throw new Error('serverless.yml: provider.runtime is not a nodejs<major>.x runtime');
  return major;
};

/** The registry's node@<major> through npx: its executable and version. */
export const registryNode = (major: string): { node: string; version: string } => {
  const node = execFileSync(
    'npx',
    ['-y', '-p', `node@${major}`, 'node', '-p', 'process.execPath'],
    {
      cwd: ROOT,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    },
  )
    .trim()
    .split('\n')
    .at(-1);
  if (!node) throw new Error(`npx could not provide node@${major}`);
  const version = execFileSync(node, ['--version'], { encoding: 'utf8' }).trim();
  return { node, version };
};

const readMarker = (file: string): Marker | undefined => {
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as Marker;
  } catch {
    return undefined;
  }
};

/** `npm install <specs>` in `dir`, run on `node`, with `env` added. */
const npmInstall = (
  dir: string,
  node: string,
  specs: readonly string[],
  env: Readonly<Record<string, string>> = {},
): Promise<void> =>
  new Promise((resolve, reject) => {
    writeFileSync(
      join(dir, 'package.json'),
      `${JSON.stringify({ name: 'lambda-ric-cache', private: true }, null, 2)}\n`,
    );
    const child = spawn(
      'npm',
      [
        'install',
        '--no-save',
        '--no-package-lock',
        '--no-audit',
        '--no-fund',
        '--foreground-scripts',
        ...specs,
      ],
      {
        cwd: dir,
        // npm, and node-gyp under it, run on that Node.
        env: { ...process.env, PATH: `${dirname(node)}:${process.env.PATH ?? ''}`, ...env },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => {
      if (code === 0) resolve();
      else {
        reject(
          new Error(
            `npm install ${specs.join(' ')} failed (exit ${String(code)}):\n${output.slice(-4000)}`,
          ),
        );
      }
    });
  });

/**
 * The client built for the runtime's Node: reused from the cache when built for exactly that
 * Node version, otherwise built there first (in a temporary folder renamed into place, so an
 * interrupted build leaves nothing that looks ready).
 */
export const ensureLambdaRuntimeClient = async (
  log: (line: string) => void = () => undefined,
): Promise<LambdaRuntimeClient> => {
  const { node, version } = registryNode(runtimeMajor());
  const modules = execFileSync(node, ['-p', 'process.versions.modules'], {
    encoding: 'utf8',
  }).trim();
  const dir = join(CACHE_DIR, version);
  const installed = (base: string) => join(base, 'client', 'node_modules', RIC_PACKAGE);
  const entry = join(installed(dir), 'index.mjs');
  const marker = readMarker(join(dir, 'built.json'));
  if (
    marker?.ric === RIC_VERSION &&
    marker.nodeVersion === version &&
    marker.modules === modules &&
    existsSync(entry) &&
    existsSync(join(installed(dir), 'rapid-client.node'))
  ) {
    return { node, nodeVersion: version, entry };
  }

  log(`building ${RIC_PACKAGE}@${RIC_VERSION} for Node ${version} in ${dir} (about two minutes)`);
  mkdirSync(CACHE_DIR, { recursive: true });
  const building = join(CACHE_DIR, `.building-${version}-${process.pid}`);
  rmSync(building, { recursive: true, force: true });
  try {
    // The headers: the distribution package node@<major> itself installs, of the same version.
    const headers = join(building, 'headers');
    mkdirSync(headers, { recursive: true });
    const distribution = `node-${process.platform}-${process.arch}`;
    await npmInstall(headers, node, [`${distribution}@${version.slice(1)}`]);
    const nodedir = join(headers, 'node_modules', distribution);
    if (!existsSync(join(nodedir, 'include', 'node', 'node_version.h'))) {
      throw new Error(`${distribution}@${version} ships no include/node headers`);
    }
    const client = join(building, 'client');
    mkdirSync(client);
    await npmInstall(client, node, [`${RIC_PACKAGE}@${RIC_VERSION}`], {
      npm_config_nodedir: nodedir,
    });
    const addon = join(installed(building), 'rapid-client.node');
    if (!existsSync(addon)) {
      throw new Error(`${RIC_PACKAGE} installed without its native client (rapid-client.node)`);
    }
    // The addon must load in that Node (it reads the Runtime API's address when loaded).
    execFileSync(node, ['-e', `require(${JSON.stringify(addon)})`], {
      stdio: 'pipe',
      env: { ...process.env, AWS_LAMBDA_RUNTIME_API: '127.0.0.1:9' },
    });
    rmSync(headers, { recursive: true, force: true });
    writeFileSync(
      join(building, 'built.json'),
      `${JSON.stringify({ ric: RIC_VERSION, nodeVersion: version, modules } satisfies Marker)}\n`,
    );
    rmSync(dir, { recursive: true, force: true });
    renameSync(building, dir);
  } finally {
    rmSync(building, { recursive: true, force: true });
  }
  log(`built ${RIC_PACKAGE}@${RIC_VERSION} for Node ${version}`);
  return { node, nodeVersion: version, entry };
};

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const client = await ensureLambdaRuntimeClient((line) => process.stderr.write(`${line}\n`));
  process.stdout.write(`${JSON.stringify(client)}\n`);
}
