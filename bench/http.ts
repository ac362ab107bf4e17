/**
 * Goal 6, through HTTP (for information): runs scripts/load-test.ts (which starts `npm start`
 * itself on free ports and sends a fixed number of mixed requests with autocannon) and keeps
 * its requests/s and latency percentiles.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { ROOT } from './lib';

export interface HttpResult {
  readonly command: string;
  readonly requests: number;
  readonly exitCode: number | null;
  readonly requestsPerSecond?: number;
  readonly latencyMs?: { p50: number; p90: number; p99: number; max: number; mean: number };
  readonly table: string[];
  readonly error?: string;
}

const TIMEOUT_MS = 240_000;

export const throughHttp = async (
  log: (line: string) => void,
  requests = 5000,
): Promise<HttpResult> => {
  const args = [
    join(ROOT, 'node_modules/tsx/dist/cli.mjs'),
    join(ROOT, 'scripts/load-test.ts'),
    '--requests',
    String(requests),
    '--output',
    '-',
  ];
  const command = `npm run load -- --requests ${requests} --output -`;
  log(`  ${command}`);
  const { code, out } = await new Promise<{ code: number | null; out: string }>((resolve) => {
    const child = spawn(process.execPath, args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let text = '';
    child.stdout.on('data', (chunk: Buffer) => (text += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (text += chunk.toString()));
    const timer = setTimeout(() => child.kill('SIGTERM'), TIMEOUT_MS);
    child.on('close', (exit) => {
      clearTimeout(timer);
      resolve({ code: exit, out: text });
    });
  });
  const lines = out.split('\n');
  const table = lines.filter((line) =>
    /^\| (Requests|Mix|Concurrent|Duration|Latency|Statuses|Errors)/.test(line),
  );
  const rps = /^\| Requests\/s \| (\d+)/.exec(
    lines.find((l) => l.startsWith('| Requests/s')) ?? '',
  );
  const latency =
    /^\| Latency p50 \/ p90 \/ p99 \/ max \| ([\d.]+) \/ ([\d.]+) \/ ([\d.]+) \/ ([\d.]+) ms \(mean ([\d.]+) ms\)/.exec(
      lines.find((l) => l.startsWith('| Latency')) ?? '',
    );
  return {
    command,
    requests,
    exitCode: code,
    ...(rps ? { requestsPerSecond: Number(rps[1]) } : {}),
    ...(latency
      ? {
          latencyMs: {
            p50: Number(latency[1]),
            p90: Number(latency[2]),
            p99: Number(latency[3]),
            max: Number(latency[4]),
            mean: Number(latency[5]),
          },
        }
      : {}),
    table,
    ...(code === 0 && rps ? {} : { error: out.slice(-1500) }),
  };
};
