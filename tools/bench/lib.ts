/**
 * Shared helpers of the benchmark: statistics, bundling as serverless.yml does, and fresh
 * child processes that report one JSON line.
 */
import { spawn } from 'node:child_process';
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { build, type Plugin } from 'esbuild';
import { readDeployed } from './deployed';

export const ROOT = join(import.meta.dirname, '../..');

export const median = (values: readonly number[]): number => percentile(values, 50);

export const percentile = (values: readonly number[], p: number): number => {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = (p / 100) * (sorted.length - 1);
  const low = Math.floor(rank);
  const high = Math.ceil(rank);
  const lowValue = sorted[low] ?? Number.NaN;
  const highValue = sorted[high] ?? Number.NaN;
  return lowValue + (highValue - lowValue) * (rank - low);
};

export const round = (value: number, digits = 3): number => {
  const factor = 10 ** digits;
  return Math.round(value * factor) / factor;
};

export const elapsedMs = (start: bigint): number => Number(process.hrtime.bigint() - start) / 1e6;

/**
 * Bundles `entry` into `outfile` with the options of serverless.yml's custom.esbuild, read from
 * serverless.yml itself (tools/bench/deployed.ts: bundle, minify, keepNames, sourcemap, platform node,
 * target node24, format cjs, @aws-sdk excluded, its esbuild plugins unless `withDeployedPlugins` is
 * false; `plugins` are added to those). Returns the bundle's size in bytes (the .cjs
 * only, not its source map).
 */
export const bundle = async (
  entry: string,
  outfile: string,
  external: readonly string[] = [],
  plugins: Plugin[] = [],
  withDeployedPlugins = true,
): Promise<number> => {
  const { esbuild } = readDeployed();
  await build({
    ...esbuild,
    entryPoints: [entry],
    outfile,
    external: [...(esbuild.external ?? []), ...external],
    plugins: [...(withDeployedPlugins ? (esbuild.plugins ?? []) : []), ...plugins],
    logLevel: 'silent',
  });
  return statSync(outfile).size;
};

/**
 * Runs `node script ...args` in a fresh process (`node`: the binary, this process's by default) and returns the JSON of the line it prints
 * starting with `BENCH `.
 */
export const runChild = (
  script: string,
  args: readonly string[],
  env: Readonly<Record<string, string>>,
  timeoutMs = 30_000,
  node = process.execPath,
): Promise<Record<string, unknown>> =>
  new Promise((resolve, reject) => {
    const child = spawn(node, [script, ...args], {
      env: { PATH: process.env.PATH ?? '', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('close', (code) => {
      clearTimeout(timer);
      const line = out.split('\n').find((l) => l.startsWith('BENCH '));
      if (!line) {
        reject(new Error(`child ${script} exited ${code}: ${(err || out).slice(-800)}`));
        return;
      }
      resolve(JSON.parse(line.slice('BENCH '.length)) as Record<string, unknown>);
    });
  });

/**
 * The child that times require() of a bundle (argv[2]) and then its handler's first answer to
 * the event in file argv[3]; both from the same start, measured inside the process.
 */
export const FIRST_RESPONSE_CHILD = `
const fs = require('node:fs');
const event = JSON.parse(fs.readFileSync(process.argv[3], 'utf8'));
const context = {
  awsRequestId: 'bench', functionName: 'bench', functionVersion: '$LATEST',
  invokedFunctionArn: 'arn:aws:lambda:eu-west-1:123456789012:function:bench',
  memoryLimitInMB: '1024', logGroupName: 'bench', logStreamName: 'bench',
  callbackWaitsForEmptyEventLoop: true, getRemainingTimeInMillis: () => 29000,
  done() {}, fail() {}, succeed() {},
};
const t0 = process.hrtime.bigint();
const mod = require(process.argv[2]);
const evalMs = Number(process.hrtime.bigint() - t0) / 1e6;
Promise.resolve(mod.handler(event, context)).then(
  (result) => {
    const firstMs = Number(process.hrtime.bigint() - t0) / 1e6;
    process.stdout.write('\\nBENCH ' + JSON.stringify({ evalMs, firstMs, status: result.statusCode, headers: result.headers, body: result.body }) + '\\n');
    process.exit(0);
  },
  (error) => {
    process.stdout.write('\\nBENCH ' + JSON.stringify({ error: String(error) }) + '\\n');
    process.exit(1);
  },
);
`;
