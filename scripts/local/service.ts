/**
 * `npm start` as a child process, for the tools and suites that exercise the service over HTTP
 * (the load test, the end-to-end and browser suites): on free ports, with its own esbuild work
 * folder, in a fresh environment (none of the caller's service settings, so it brings up its
 * own embedded database and local issuer), stopped with its whole process group.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { join } from 'node:path';

const ROOT = join(import.meta.dirname, '../..');
export const TSX = join(ROOT, 'node_modules/tsx/dist/cli.mjs');

/** Settings a caller may have that must not leak into a fresh service. */
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

export const freePort = (): Promise<number> =>
  new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => {
        resolve(port);
      });
    });
  });

export interface ServiceOptions {
  /** Names the esbuild work folder (`.esbuild-<name>-<pid>`). */
  readonly name: string;
  readonly env?: Readonly<Record<string, string>>;
  /** Every chunk the service prints, as it comes. */
  readonly onOutput?: (chunk: string, stream: 'stdout' | 'stderr') => void;
  readonly readyTimeoutMs?: number;
}

export interface RunningService {
  readonly child: ChildProcess;
  readonly port: number;
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

const READY = /More tokens: npm run token/;
const running = (child: ChildProcess) => child.exitCode === null && child.signalCode === null;

export const startService = async (options: ServiceOptions): Promise<RunningService> => {
  const workFolder = `.esbuild-${options.name}-${process.pid}`;
  const [port, lambdaPort] = [await freePort(), await freePort()];
  const child = spawn(process.execPath, [TSX, 'scripts/start.ts'], {
    cwd: ROOT,
    env: freshEnv({
      ESBUILD_WORK_FOLDER: workFolder,
      PORT: String(port),
      LAMBDA_PORT: String(lambdaPort),
      ...options.env,
    }),
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let printed = '';
  const ready = new Promise<void>((resolve, reject) => {
    const timeoutMs = options.readyTimeoutMs ?? 120_000;
    const timer = setTimeout(() => {
      reject(new Error(`npm start was not ready within ${timeoutMs / 1000} s:\n${printed}`));
    }, timeoutMs);
    const collect = (stream: 'stdout' | 'stderr') => (chunk: Buffer) => {
      const text = chunk.toString();
      printed += text;
      options.onOutput?.(text, stream);
      if (READY.test(printed)) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout.on('data', collect('stdout'));
    child.stderr.on('data', collect('stderr'));
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`npm start exited with ${String(code)} before it was ready:\n${printed}`));
    });
  });

  const stop = async () => {
    if (child.pid !== undefined && running(child)) {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      process.kill(-child.pid, 'SIGTERM');
      let grace: NodeJS.Timeout | undefined;
      await Promise.race([exited, new Promise((resolve) => (grace = setTimeout(resolve, 5000)))]);
      // A pending grace timer would keep the caller's process (a Jest run) alive for 5 s.
      clearTimeout(grace);
      if (running(child)) process.kill(-child.pid, 'SIGKILL');
    }
    await rm(join(ROOT, workFolder), { recursive: true, force: true });
  };

  try {
    await ready;
  } catch (error) {
    await stop();
    throw error;
  }
  return {
    child,
    port,
    base: `http://localhost:${port}`,
    token: /Authorization: Bearer ([\w.-]+)/.exec(printed)?.[1] ?? '',
    curlUrl: /'(http:\/\/localhost:\d+\/v1\/[^']+)'/.exec(printed)?.[1] ?? '',
    output: () => printed,
    stop,
  };
};
