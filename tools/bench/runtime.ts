/**
 * npm run bench:runtime — which Node runtime and which stack-trace setting keep the cold start
 * fastest (issue 11, item 8). The orders-per-day handler (functions/orders-per-day.ts) is
 * bundled four ways, each a candidate for serverless.yml's custom.esbuild and NODE_OPTIONS:
 *
 *   maps+flag   minified, linked source map, NODE_OPTIONS=--enable-source-maps (deployed until
 *               nodejs24.x)
 *   maps        minified, linked source map, no flag (the map is shipped but never read)
 *   names+maps  minified with keepNames (function and class names survive in stack frames),
 *               linked source map, no flag: deployed now; the flag can be set while debugging
 *   readable    whitespace and syntax minified, identifiers kept, no source map
 *
 * Each sample is a fresh `node` process of the version measured (Node 24 and 22 from the
 * registry through `npx -p node@<major>`, and the Node running this script) that requires the
 * bundle; the table gives the median and p90 of (a) require() alone, timed inside the process,
 * and (b) spawn to exit, timed by this process (Node's own start-up included, which is where
 * the source-map flag costs most). Variants and versions run round-robin, so drift on the
 * shared machine hits every one alike. The load average is printed at the start.
 *
 * The bundle's initialisation starts the key-set prefetch and the database warm-up at require
 * time; here both point at a closed port, and the child exits as soon as require() returns.
 *
 * Environment: BENCH_SAMPLES (default 25).
 */
import { execFileSync, spawn } from 'node:child_process';
import { statSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { build, type BuildOptions } from 'esbuild';
import { EVAL_CHILD, median, percentile, ROOT, round } from './lib';

const SAMPLES = Math.max(10, Number(process.env.BENCH_SAMPLES ?? 25));
const ENTRY = join(ROOT, 'functions/orders-per-day.ts');

interface Variant {
  readonly name: string;
  readonly esbuild: BuildOptions;
  readonly nodeOptions: string;
}

const VARIANTS: readonly Variant[] = [
  {
    name: 'maps+flag',
    esbuild: { minify: true, sourcemap: true },
    nodeOptions: '--enable-source-maps',
  },
  { name: 'maps', esbuild: { minify: true, sourcemap: true }, nodeOptions: '' },
  {
    name: 'names+maps',
    esbuild: { minify: true, keepNames: true, sourcemap: true },
    nodeOptions: '',
  },
  {
    name: 'readable',
    esbuild: { minifyWhitespace: true, minifySyntax: true, keepNames: true },
    nodeOptions: '',
  },
];

/** The binary of `node@<major>` from the registry, or undefined when npx cannot provide it. */
const nodeBinary = (major: number): string | undefined => {
  try {
    return execFileSync('npx', ['-y', '-p', `node@${major}`, 'node', '-p', 'process.execPath'], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    })
      .trim()
      .split('\n')
      .at(-1);
  } catch {
    return undefined;
  }
};

interface Sample {
  readonly evalMs: number;
  readonly wallMs: number;
}

const sample = (
  node: string,
  child: string,
  bundle: string,
  env: Readonly<Record<string, string>>,
): Promise<Sample> =>
  new Promise((resolve, reject) => {
    const start = process.hrtime.bigint();
    const proc = spawn(node, [child, bundle], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    proc.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    proc.on('close', (code) => {
      const wallMs = Number(process.hrtime.bigint() - start) / 1e6;
      const line = out.split('\n').find((l) => l.startsWith('BENCH '));
      if (code !== 0 || !line) {
        reject(new Error(`${node} ${bundle}: exit ${String(code)}`));
        return;
      }
      const { evalMs } = JSON.parse(line.slice(6)) as { evalMs: number };
      resolve({ evalMs, wallMs });
    });
  });

const main = async (): Promise<void> => {
  const dir = await mkdtemp(join(tmpdir(), 'portal-bench-runtime-'));
  try {
    const child = join(dir, 'eval-child.cjs');
    await writeFile(child, EVAL_CHILD);
    const bundles = new Map<string, string>();
    for (const variant of VARIANTS) {
      const outfile = join(dir, `${variant.name}.cjs`);
      await build({
        entryPoints: [ENTRY],
        outfile,
        bundle: true,
        platform: 'node',
        target: 'node24',
        format: 'cjs',
        external: ['@aws-sdk/*'],
        logLevel: 'silent',
        ...variant.esbuild,
      });
      bundles.set(variant.name, outfile);
      const map = `${outfile}.map`;
      const mapKb = variant.esbuild.sourcemap
        ? ` + map ${round(statSync(map).size / 1024, 1)} KB`
        : '';
      console.log(`bundle ${variant.name}: ${round(statSync(outfile).size / 1024, 1)} KB${mapKb}`);
    }
    const versions = [
      { label: 'Node 24', node: nodeBinary(24) },
      { label: 'Node 22', node: nodeBinary(22) },
      { label: `Node ${process.versions.node} (this machine)`, node: process.execPath },
    ].filter((v): v is { label: string; node: string } => v.node !== undefined);

    const closed = 'http://127.0.0.1:9/';
    const baseEnv = {
      PATH: process.env.PATH ?? '',
      JWKS_URL: `${closed}.well-known/jwks.json`,
      DATABASE_URL: 'postgres://bench@127.0.0.1:9/bench',
      LOG_LEVEL: 'error',
      NODE_ENV: 'production',
    };
    const samples = new Map<string, Sample[]>();
    const key = (version: string, variant: string) => `${version}|${variant}`;
    console.log(
      `load average at start: ${loadavg()
        .map((l) => l.toFixed(2))
        .join(' ')}`,
    );
    for (const { node } of versions) await sample(node, child, bundles.get('maps') ?? '', baseEnv);
    for (let i = 0; i < SAMPLES; i += 1) {
      for (const version of versions) {
        for (const variant of VARIANTS) {
          const env = variant.nodeOptions
            ? { ...baseEnv, NODE_OPTIONS: variant.nodeOptions }
            : baseEnv;
          const result = await sample(version.node, child, bundles.get(variant.name) ?? '', env);
          const list = samples.get(key(version.label, variant.name)) ?? [];
          list.push(result);
          samples.set(key(version.label, variant.name), list);
        }
      }
    }
    console.log(`\n${SAMPLES} fresh processes per row, round-robin; milliseconds.\n`);
    console.log('| Node | Variant | require() median | p90 | spawn → exit median | p90 |');
    console.log('|---|---|---:|---:|---:|---:|');
    for (const version of versions) {
      for (const variant of VARIANTS) {
        const list = samples.get(key(version.label, variant.name)) ?? [];
        const evals = list.map((s) => s.evalMs);
        const walls = list.map((s) => s.wallMs);
        console.log(
          `| ${version.label} | ${variant.name} | ${round(median(evals), 1)} | ${round(percentile(evals, 90), 1)} | ${round(median(walls), 1)} | ${round(percentile(walls, 90), 1)} |`,
        );
      }
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
};

await main();
