/**
 * `npm start` for the suites that test over HTTP (end to end, plugins, browser): on free ports,
 * with its own esbuild work folder, in a fresh environment (none of the test run's service
 * settings, so it brings up its own embedded database and local issuer), stopped with its whole
 * process group.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { freePort, ROOT, waitForOutput } from './processes';

export const TSX = join(ROOT, 'node_modules/tsx/dist/cli.mjs');

const SERVICE_SETTINGS = new Set([
  'DATABASE_URL',
  'JWKS_URL',
  'JWT_ISSUER',
  'LEGACY_PLATFORM_KEYS',
  'TEST_DATABASE_URL',
  'PLUGIN_UPDATE_URL',
  'PLUGIN_API_KEY',
  'PLUGIN_CDN_URL',
]);

/** The environment of a fresh shell, plus `extra`. */
export const freshEnv = (extra: Readonly<Record<string, string>> = {}): NodeJS.ProcessEnv => ({
  ...Object.fromEntries(
    Object.entries(process.env).filter(([name]) => !SERVICE_SETTINGS.has(name)),
  ),
  ...extra,
});

export interface RunningService {
  /** http://localhost:PORT */
  readonly base: string;
  /** The sample owner's token from the printed curl. */
  readonly token: string;
  /** The URL of the printed curl. */
  readonly curlUrl: string;
  /** Everything the service printed so far (its access log included). */
  readonly output: () => string;
  readonly stop: () => Promise<void>;
}

const running = (child: ChildProcess) => child.exitCode === null && child.signalCode === null;

export const startService = async (
  name: string,
  env: Readonly<Record<string, string>> = {},
): Promise<RunningService> => {
  const workFolder = `.esbuild-test-${name}-${process.pid}`;
  const [port, lambdaPort] = [await freePort(), await freePort()];
  const child = spawn(process.execPath, [TSX, 'scripts/start.ts'], {
    cwd: ROOT,
    env: freshEnv({
      ESBUILD_WORK_FOLDER: workFolder,
      PORT: String(port),
      LAMBDA_PORT: String(lambdaPort),
      ...env,
    }),
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let printed = '';
  const collect = (chunk: Buffer) => {
    printed += chunk.toString();
  };
  child.stdout.on('data', collect);
  child.stderr.on('data', collect);

  const stop = async () => {
    if (child.pid !== undefined && running(child)) {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      process.kill(-child.pid, 'SIGTERM');
      await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 5000))]);
      if (running(child)) process.kill(-child.pid, 'SIGKILL');
    }
    await rm(join(ROOT, workFolder), { recursive: true, force: true });
  };

  try {
    const ready = await waitForOutput(child, /More tokens: npm run token/, 120_000);
    return {
      base: `http://localhost:${port}`,
      token: /Authorization: Bearer ([\w.-]+)/.exec(ready)?.[1] ?? '',
      curlUrl: /'(http:\/\/localhost:\d+\/v1\/[^']+)'/.exec(ready)?.[1] ?? '',
      output: () => printed,
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
};
