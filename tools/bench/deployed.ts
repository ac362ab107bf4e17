/**
 * What is deployed, read from serverless.yml itself so that the benchmark cannot drift from it:
 * custom.esbuild (the options serverless-esbuild builds every function's bundle with, its
 * esbuild plugins file included),
 * provider.runtime (the Lambda Node major) and provider.environment's NODE_OPTIONS (none since
 * the source-map flag was dropped). The registry's `node@<major>` package provides that
 * runtime's binary; children are spawned on its path directly, not through npx.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import type { BuildOptions, Plugin } from 'esbuild';

const ROOT = join(import.meta.dirname, '../..');

export interface Deployed {
  /** esbuild options of custom.esbuild (serverless-esbuild's own keys left out). */
  readonly esbuild: BuildOptions;
  /** provider.runtime, e.g. nodejs24.x. */
  readonly runtime: string;
  readonly nodeMajor: number;
  /** provider.environment.NODE_OPTIONS, or '' when it is not set. */
  readonly nodeOptions: string;
  /**
   * provider.environment's variables whose value is `${env:NAME, 'default'}`, at their
   * defaults (pool size, timeouts, clock tolerance, log level …); the ones computed per stage
   * and region (key-set URL, issuer, database) are the benchmark's own.
   */
  readonly environment: Readonly<Record<string, string>>;
}

/** The lines of the block under `key:` at `indent` spaces (its children, more indented). */
const block = (lines: readonly string[], path: readonly string[]): string[] => {
  let scope = lines;
  let indent = 0;
  for (const key of path) {
    const start = scope.findIndex((line) => line === `${' '.repeat(indent)}${key}:`);
    if (start < 0) throw new Error(`serverless.yml: no ${path.join('.')}`);
    const rest = scope.slice(start + 1);
    const end = rest.findIndex(
      (line) =>
        line.trim() !== '' &&
        !line.trimStart().startsWith('#') &&
        !line.startsWith(' '.repeat(indent + 1)),
    );
    scope = end < 0 ? rest : rest.slice(0, end);
    indent += 2;
  }
  return [...scope];
};

const scalar = (lines: readonly string[], key: string, indent: number): string | undefined => {
  const prefix = `${' '.repeat(indent)}${key}:`;
  const line = lines.find((l) => l.startsWith(prefix));
  if (line === undefined) return undefined;
  return line
    .slice(prefix.length)
    .replace(/\s+#.*$/, '')
    .trim()
    .replace(/^'(.*)'$/, '$1');
};

const flag = (lines: readonly string[], key: string): boolean => scalar(lines, key, 4) === 'true';

/** Reads serverless.yml's deployed build and runtime. Throws when a setting cannot be read. */
export const readDeployed = (file = join(ROOT, 'serverless.yml')): Deployed => {
  const lines = readFileSync(file, 'utf8').split('\n');
  const esbuild = block(lines, ['custom', 'esbuild']);
  const provider = block(lines, ['provider']);
  const environment = block(lines, ['provider', 'environment']);
  const runtime = scalar(provider, 'runtime', 2) ?? '';
  const major = /^nodejs(\d+)\.x$/.exec(runtime)?.[1];
  if (!major) throw new Error(`serverless.yml: provider.runtime ${runtime} is not nodejsNN.x`);
  const exclude = scalar(esbuild, 'exclude', 4) ?? '[]';
  const external = [...exclude.matchAll(/'([^']+)'/g)].map((m) => m[1] ?? '');
  const target = scalar(esbuild, 'target', 4);
  const format = scalar(esbuild, 'format', 4);
  const platform = scalar(esbuild, 'platform', 4);
  // serverless-esbuild's `plugins`: a file exporting an array of esbuild plugins.
  const pluginsFile = scalar(esbuild, 'plugins', 4);
  const plugins = pluginsFile
    ? (createRequire(import.meta.url)(join(ROOT, pluginsFile)) as Plugin[])
    : [];
  if (!target || format !== 'cjs' || platform !== 'node') {
    throw new Error('serverless.yml: custom.esbuild target/format/platform not as expected');
  }
  return {
    esbuild: {
      bundle: flag(esbuild, 'bundle'),
      minify: flag(esbuild, 'minify'),
      sourcemap: flag(esbuild, 'sourcemap'),
      keepNames: flag(esbuild, 'keepNames'),
      target,
      platform: 'node',
      format: 'cjs',
      external,
      plugins,
    },
    runtime,
    nodeMajor: Number(major),
    nodeOptions: scalar(environment, 'NODE_OPTIONS', 4) ?? '',
    environment: Object.fromEntries(
      environment.flatMap((line) => {
        const m = /^ {4}([A-Z_]+): \$\{env:[A-Z_]+, '([^']*)'\}\s*$/.exec(line);
        return m ? [[m[1] ?? '', m[2] ?? '']] : [];
      }),
    ),
  };
};

/** One line describing the build, e.g. `bundle, minify, keepNames, sourcemap, target node24`. */
export const describeBuild = (deployed: Deployed): string => {
  const e = deployed.esbuild;
  const on = (['bundle', 'minify', 'keepNames', 'sourcemap'] as const).filter((k) => e[k]);
  const plugins = (e.plugins ?? []).map((p) => p.name).join(' ');
  return `${on.join(', ')}, target ${String(e.target)}, ${String(e.format)}, external ${(e.external ?? []).join(' ')}${plugins ? `, plugins ${plugins}` : ''}`;
};

const binaries = new Map<number, string>();

/**
 * The binary of the registry's `node@<major>` (fetched once into npx's cache), or undefined
 * when npx cannot provide it (offline).
 */
export const nodeBinary = (major: number): string | undefined => {
  const known = binaries.get(major);
  if (known) return known;
  try {
    const path = execFileSync(
      'npx',
      ['-y', '-p', `node@${major}`, 'node', '-p', 'process.execPath'],
      {
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'ignore'],
      },
    )
      .trim()
      .split('\n')
      .at(-1);
    if (path) binaries.set(major, path);
    return path;
  } catch {
    return undefined;
  }
};

/** The version string of a node binary. */
export const nodeVersion = (binary: string): string =>
  execFileSync(binary, ['-p', 'process.version'], { encoding: 'utf8' }).trim();

/** The 1-, 5- and 15-minute load averages, as printed beside every figure. */
export const loadAverage = (): string =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');
