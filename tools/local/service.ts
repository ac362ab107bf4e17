/**
 * `npm start` as a child process, for the tools and suites that exercise the service over HTTP
 * (the load test, the end-to-end and browser suites): on free ports, with its own esbuild work
 * folder, in a fresh environment (none of the caller's service settings, so it brings up its
 * own embedded database and local issuer), in a process group of its own, stopped with SIGTERM
 * to that group (tools/start.ts then stops serverless-offline's group), SIGKILL if it has not
 * exited in time. Ready when `npm start` writes its readiness document (PORTAL_READY_FILE,
 * tools/local/ready.ts) to a file in a temporary folder of its own: its printed output is only
 * collected, never read.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { READY_FILE_VARIABLE, readReadyFile, type ReadyDocument } from './ready';

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
  // Quiet unless the caller asks for the access log (LOG_LEVEL: 'info' in `env`).
  'LOG_LEVEL',
  READY_FILE_VARIABLE,
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
  /** Through npm (`npm start`: npm → sh → tsx), as a user starts it, rather than tsx alone. */
  readonly viaNpm?: boolean;
}

/** How often the readiness document is looked for. */
const READY_POLL_MS = 100;
/** Longer than tools/start.ts takes to stop (its STOP_LIMIT_MS). */
const STOP_GRACE_MS = 15_000;

export interface RunningService {
  readonly child: ChildProcess;
  readonly port: number;
  readonly lambdaPort: number;
  readonly previewPort: number;
  /** PORTAL_READY_FILE: removed when `npm start` stops, its folder by `stop`. */
  readonly readyFile: string;
  /** http://localhost:PORT */
  readonly base: string;
  /** The sample owner's token (the printed curl's). */
  readonly token: string;
  /** The URL of the printed curl. */
  readonly curlUrl: string;
  /** What `npm start` wrote to PORTAL_READY_FILE. */
  readonly ready: ReadyDocument;
  /** Everything the service printed so far (its access log with LOG_LEVEL info or debug). */
  readonly output: () => string;
  readonly stop: () => Promise<void>;
}

const running = (child: ChildProcess) => child.exitCode === null && child.signalCode === null;

export const startService = async (options: ServiceOptions): Promise<RunningService> => {
  const workFolder = `.esbuild-${options.name}-${process.pid}`;
  // The portal preview too (PREVIEW_PORT, else PORT + 1, which something may hold).
  const [port, lambdaPort, previewPort] = [await freePort(), await freePort(), await freePort()];
  const readyFolder = await mkdtemp(join(tmpdir(), 'portal-ready-'));
  const readyFile = join(readyFolder, 'ready.json');
  const [command, args] = options.viaNpm
    ? ['npm', ['start']]
    : [process.execPath, [TSX, 'tools/start.ts']];
  const child = spawn(command, args, {
    cwd: ROOT,
    env: freshEnv({
      ESBUILD_WORK_FOLDER: workFolder,
      PORT: String(port),
      LAMBDA_PORT: String(lambdaPort),
      PREVIEW_PORT: String(previewPort),
      ...options.env,
      [READY_FILE_VARIABLE]: readyFile,
    }),
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let printed = '';
  const collect = (stream: 'stdout' | 'stderr') => (chunk: Buffer) => {
    const text = chunk.toString();
    printed += text;
    options.onOutput?.(text, stream);
  };
  child.stdout.on('data', collect('stdout'));
  child.stderr.on('data', collect('stderr'));

  const ready = new Promise<ReadyDocument>((resolve, reject) => {
    const timeoutMs = options.readyTimeoutMs ?? 120_000;
    let settled = false;
    let poll: NodeJS.Timeout | undefined;
    const settle = (outcome: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      clearTimeout(poll);
      child.off('exit', onExit);
      outcome();
    };
    const timer = setTimeout(() => {
      settle(() => {
        reject(new Error(`npm start was not ready within ${timeoutMs / 1000} s:\n${printed}`));
      });
    }, timeoutMs);
    const onExit = (code: number | null, signal: NodeJS.Signals | null) => {
      // Its last words may still be in the pipes: wait (briefly) until they are read.
      const fail = () => {
        clearTimeout(drained);
        settle(() => {
          reject(
            new Error(
              `npm start exited with ${signal ?? String(code)} before it was ready:\n${printed}`,
            ),
          );
        });
      };
      const drained = setTimeout(fail, 1000);
      child.once('close', fail);
    };
    child.once('exit', onExit);
    const look = async () => {
      try {
        const document = await readReadyFile(readyFile);
        if (settled) return;
        if (document === undefined) {
          poll = setTimeout(() => void look(), READY_POLL_MS);
          return;
        }
        if (document.port !== port) {
          throw new Error(`it names port ${document.port}, not ${port}`);
        }
        // The output printed before the document was written is in the pipe already: one turn of
        // the event loop reads it, so that `output()` (and `onOutput`) hold all of it.
        await new Promise((next) => setImmediate(next));
        settle(() => {
          resolve(document);
        });
      } catch (error) {
        settle(() => {
          const reason = error instanceof Error ? error.message : String(error);
          reject(new Error(`npm start's readiness document is unusable: ${reason}:\n${printed}`));
        });
      }
    };
    void look();
  });

  const stop = async () => {
    if (child.pid !== undefined && running(child)) {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      process.kill(-child.pid, 'SIGTERM');
      let grace: NodeJS.Timeout | undefined;
      await Promise.race([
        exited,
        new Promise((resolve) => (grace = setTimeout(resolve, STOP_GRACE_MS))),
      ]);
      // A pending grace timer would keep the caller's process (a Jest run) alive.
      clearTimeout(grace);
      if (running(child)) process.kill(-child.pid, 'SIGKILL');
    }
    await rm(join(ROOT, workFolder), { recursive: true, force: true });
    await rm(readyFolder, { recursive: true, force: true });
  };

  let document: ReadyDocument;
  try {
    document = await ready;
  } catch (error) {
    await stop();
    throw error;
  }
  return {
    child,
    port,
    lambdaPort,
    previewPort,
    readyFile,
    base: document.url,
    token: document.token,
    curlUrl: document.sampleUrl,
    ready: document,
    output: () => printed,
    stop,
  };
};
