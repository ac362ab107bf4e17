/** Running the project's own commands from tests: serverless (osls) and npm scripts. */
import { spawn, type ChildProcess } from 'node:child_process';
import { createRequire } from 'node:module';
import { join } from 'node:path';

export { freePort } from '../../tools/local/service';

export const ROOT = join(import.meta.dirname, '../..');
export const SERVERLESS = createRequire(import.meta.url).resolve('osls/bin/serverless.js');

export interface Finished {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs a command to its end, with a hard time limit. */
export const run = (
  args: readonly string[],
  env: Readonly<Record<string, string | undefined>>,
  timeoutMs = 120_000,
): Promise<Finished> =>
  new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, {
      cwd: ROOT,
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });

/** Waits until `pattern` appears in the child's output. */
export const waitForOutput = (
  child: ChildProcess,
  pattern: RegExp,
  timeoutMs: number,
): Promise<string> =>
  new Promise((resolve, reject) => {
    let seen = '';
    const timer = setTimeout(() => {
      reject(new Error(`timed out waiting for ${String(pattern)}; output so far:\n${seen}`));
    }, timeoutMs);
    const onData = (chunk: Buffer) => {
      seen += chunk.toString();
      if (pattern.test(seen)) {
        clearTimeout(timer);
        resolve(seen);
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`exited with ${String(code)} before ${String(pattern)}; output:\n${seen}`));
    });
  });
