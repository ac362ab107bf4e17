/**
 * Goal 1, cold start, on the deployed configuration (issue 13): every function of the catalogue
 * bundled with serverless.yml's own custom.esbuild settings (bench/deployed.ts reads them), run
 * by the registry's Node of provider.runtime's major (`npx -p node@24`; its binary spawned
 * directly) with provider.environment's NODE_OPTIONS (none) and its other defaults (LOG_LEVEL
 * info: the access line is written, as deployed). Figures: the median time to evaluate each
 * bundle in a fresh process; the median time from a fresh process to its first 200
 * (evaluation + first invocation: key set from a local HTTP server, both queries on a real local
 * PostgreSQL database) for ours, floor B (bench/floor/orders-day.ts: postgres.js, node:http,
 * node:crypto, no middleware library; its answer is checked equal to ours) and the naive
 * Middy + jose + pg handler (and, the lever deployed since, ours built without serverless.yml's
 * esbuild plugins: Middy's stream imports loaded at once, as before build/esbuild/), interleaved
 * in rotating order, in BENCH_REPETITIONS (3)
 * repetitions, the load average at the start of each; the same on this process's Node for
 * comparison.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import postgres from 'postgres';
import { createSql } from '../shared/db/client';
import { todayIn } from '../scripts/dates';
import { fillPlaceholders } from '../scripts/local/placeholders';
import { readFileSync } from 'node:fs';
import { migrate } from '../scripts/db/migrate';
import { seed } from '../scripts/db/seed';
import { claimsFor, SAMPLE_OWNER } from '../scripts/db/sample-data';
import { createIssuer, serveKeySet } from '../scripts/local/issuer';
import { catalogue } from '../shared/catalogue';
import { ordersPerDay } from '../shared/reports/orders-per-day';
import { describeBuild, loadAverage, nodeBinary, nodeVersion, readDeployed } from './deployed';
import { bundle, EVAL_CHILD, FIRST_RESPONSE_CHILD, median, ROOT, round, runChild } from './lib';

export const BENCH_DATABASE = 'portal_bench_cold';
const ADMIN_URL =
  process.env.BENCH_ADMIN_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

/** Every function of the catalogue, by its endpoint's id: its handler file. */
const FUNCTIONS: Readonly<Record<string, string>> = Object.fromEntries(
  catalogue.map((endpoint) => [endpoint.id, endpoint.handlerFile]),
);

const PROBES = {
  'baseline: bare handler': 'bench/naive/bare.ts',
  'baseline: pg alone': 'bench/naive/pg-only.ts',
  'baseline: postgres.js alone': 'bench/naive/postgres-only.ts',
  'baseline: naive Middy + jose + pg': 'bench/naive/orders-day.ts',
  'floor B: postgres.js + node:http + node:crypto': 'bench/floor/orders-day.ts',
} as const;

const FLOOR_B = 'floor B: postgres.js + node:http + node:crypto';

export interface BundleFigures {
  readonly name: string;
  readonly sizeKb: number;
  readonly evalMedianMs: number;
}

/** A Node binary the first responses are measured on. */
export interface ColdRuntime {
  readonly label: string;
  readonly version: string;
  /** The runtime serverless.yml deploys (provider.runtime): the goals are judged on it. */
  readonly deployed: boolean;
}

export interface FirstResponseFigures {
  readonly evalMedianMs: number;
  readonly firstMedianMs: number;
}

/** One repetition on one runtime: ours, floor B and naive, interleaved round by round. */
export interface ColdRepetition {
  readonly loadAverage: string;
  readonly ours: FirstResponseFigures;
  readonly floor: FirstResponseFigures;
  readonly naive: FirstResponseFigures;
  readonly oursToFloor: number;
  /** Ours built without serverless.yml's esbuild plugins (Middy's stream imports eager). */
  readonly eagerMiddyStreams: FirstResponseFigures;
  readonly eagerToFloor: number;
  readonly oursToNaive: number;
  /**
   * Floor B against the naive handler: goal 1b (ours ≤ 0.5× naive) asks ours to be at most
   * 0.5 / floorToNaive times floor B, below floor B itself whenever this is above 0.5.
   */
  readonly floorToNaive: number;
}

export interface RatioGoal {
  readonly ratios: number[];
  readonly min: number;
  readonly max: number;
  readonly goal: number;
  /** Met in every repetition. */
  readonly met: boolean;
}

export interface ColdResult {
  readonly runs: number;
  readonly deployed: { runtime: string; build: string; nodeOptions: string };
  readonly bundles: BundleFigures[];
  /** The first 200 per runtime; the deployed one first. */
  readonly firstResponse: {
    readonly runtime: ColdRuntime;
    readonly warmupFirstMs: Record<'ours' | 'floor' | 'naive' | 'eager', number[]>;
    readonly repetitions: ColdRepetition[];
    readonly floorGoal: RatioGoal;
    readonly naiveGoal: RatioGoal;
  }[];
}

export const ratioGoal = (ratios: number[], goal: number): RatioGoal => ({
  ratios,
  min: Math.min(...ratios),
  max: Math.max(...ratios),
  goal,
  met: ratios.every((r) => r <= goal),
});

/** Creates (or recreates) the benchmark database, migrated and seeded with the sample data. */
export const prepareDatabase = async (log: (line: string) => void): Promise<string> => {
  const admin = postgres(ADMIN_URL, { max: 1, onnotice: () => undefined });
  try {
    await admin.unsafe(`drop database if exists ${BENCH_DATABASE} with (force)`);
    await admin.unsafe(`create database ${BENCH_DATABASE}`);
  } finally {
    await admin.end({ timeout: 1 });
  }
  const url = new URL(ADMIN_URL);
  url.pathname = `/${BENCH_DATABASE}`;
  const sql = createSql({
    url: url.toString(),
    poolMax: 2,
    statementTimeoutMs: 120_000,
    connectTimeoutSeconds: 10,
  });
  try {
    await migrate(sql);
    const { orders } = await seed(sql);
    log(`  database ${BENCH_DATABASE}: migrated, ${orders} sample orders`);
  } finally {
    await sql.end({ timeout: 1 });
  }
  return url.toString();
};

const COLD_REPETITIONS = Math.max(1, Number(process.env.BENCH_REPETITIONS ?? 3));

export const coldStart = async (log: (line: string) => void, runs = 15): Promise<ColdResult> => {
  const deployed = readDeployed();
  const deployedNode = nodeBinary(deployed.nodeMajor);
  if (!deployedNode) throw new Error(`npx -p node@${deployed.nodeMajor} could not provide Node`);
  const runtimes = [
    { node: deployedNode, deployed: true },
    ...(process.versions.node.split('.')[0] === String(deployed.nodeMajor)
      ? []
      : [{ node: process.execPath, deployed: false }]),
  ].map(({ node, deployed: isDeployed }) => {
    const version = nodeVersion(node);
    return {
      node,
      runtime: {
        label: isDeployed ? `Node ${version} (${deployed.runtime}, deployed)` : `Node ${version}`,
        version,
        deployed: isDeployed,
      },
    };
  });
  log(`  build: ${describeBuild(deployed)} (serverless.yml custom.esbuild)`);
  log(`  runtime: ${runtimes.map((r) => r.runtime.label).join('; ')}`);
  log(`  NODE_OPTIONS: ${deployed.nodeOptions || '(none, as deployed)'}`);
  log(
    `  protocol: fresh processes; 3 warm-up rounds, then per repetition ${runs} rounds of ours, ` +
      `floor B and naive, the order rotating each round; ${COLD_REPETITIONS} repetitions`,
  );
  const dir = await mkdtemp(join(tmpdir(), 'portal-bench-'));
  const databaseUrl = await prepareDatabase(log);
  const issuer = await createIssuer();
  const server = await serveKeySet(() => issuer.publicKeySet);
  try {
    const env = {
      ...deployed.environment,
      ...(deployed.nodeOptions ? { NODE_OPTIONS: deployed.nodeOptions } : {}),
      JWKS_URL: server.url,
      DATABASE_URL: databaseUrl,
      JWT_ISSUER: issuer.issuer,
      NODE_ENV: 'production',
    };
    const evalChild = join(dir, 'eval-child.cjs');
    const firstChild = join(dir, 'first-child.cjs');
    await writeFile(evalChild, EVAL_CHILD);
    await writeFile(firstChild, FIRST_RESPONSE_CHILD);

    const outputs = new Map<string, string>();
    const bundles: BundleFigures[] = [];
    const entries = [...Object.entries(FUNCTIONS), ...Object.entries(PROBES)];
    const sizes = new Map<string, number>();
    for (const [name, entry] of entries) {
      const outfile = join(dir, `${name.replace(/[^a-z0-9]+/gi, '-')}.cjs`);
      sizes.set(name, await bundle(join(ROOT, entry), outfile, ['pg-native']));
      outputs.set(name, outfile);
    }
    // Evaluation on the deployed runtime: interleaved rounds, so that drift on the shared
    // machine hits every bundle alike.
    const evalTimes = new Map<string, number[]>(entries.map(([name]) => [name, []]));
    const evalOn = (file: string) => runChild(evalChild, [file], env, 30_000, deployedNode);
    await evalOn(outputs.get('baseline: bare handler') ?? ''); // warm the disk cache
    log(`  evaluation: ${runs} rounds of ${entries.length} bundles, load ${loadAverage()}`);
    for (let round_ = 0; round_ < runs; round_ += 1) {
      for (const [name] of entries) {
        const result = await evalOn(outputs.get(name) ?? '');
        evalTimes.get(name)?.push(Number(result.evalMs));
      }
    }
    for (const [name] of entries) {
      bundles.push({
        name,
        sizeKb: round((sizes.get(name) ?? 0) / 1024, 1),
        evalMedianMs: round(median(evalTimes.get(name) ?? [])),
      });
    }

    // First response: a real REST event for orders/day with a valid token (with compare range).
    const token = await issuer.sign(claimsFor(SAMPLE_OWNER), { expiresIn: '2h' });
    const event = fillPlaceholders(
      JSON.parse(readFileSync(join(ROOT, 'events/orders-per-day.json'), 'utf8')) as object,
      { token, today: todayIn('Asia/Dubai') },
    );
    const eventFile = join(dir, 'event.json');
    await writeFile(eventFile, JSON.stringify(event));
    // The lever deployed since, measured beside ours: the same bundle without serverless.yml's
    // esbuild plugins, so with Middy's stream imports loaded at once (build/esbuild/).
    const eager = join(dir, 'orders-per-day-eager-middy-streams.cjs');
    await bundle(join(ROOT, FUNCTIONS[ordersPerDay.id] ?? ''), eager, ['pg-native'], [], false);
    const handlers = {
      ours: outputs.get(ordersPerDay.id) ?? '',
      floor: outputs.get(FLOOR_B) ?? '',
      naive: outputs.get('baseline: naive Middy + jose + pg') ?? '',
      eager,
    };
    type Name = keyof typeof handlers;
    const names = Object.keys(handlers) as Name[];
    const first = async (node: string, name: Name) => {
      const sample = await runChild(firstChild, [handlers[name], eventFile], env, 30_000, node);
      if (sample.status !== 200) {
        throw new Error(`${name} first response was not 200: ${JSON.stringify(sample)}`);
      }
      return sample;
    };
    const figures = (list: Record<string, unknown>[]): FirstResponseFigures => ({
      evalMedianMs: round(median(list.map((s) => Number(s.evalMs)))),
      firstMedianMs: round(median(list.map((s) => Number(s.firstMs)))),
    });

    const firstResponse: ColdResult['firstResponse'][number][] = [];
    for (const { node, runtime } of runtimes) {
      // Warm-up: the disk cache and PostgreSQL's for each handler. Floor B must answer what
      // ours answers (status, headers, body), or it is not a floor of the same work.
      const warmupFirstMs: Record<Name, number[]> = { ours: [], floor: [], naive: [], eager: [] };
      for (let i = 0; i < 3; i += 1) {
        const answers = new Map<Name, Record<string, unknown>>();
        for (const name of names) {
          const sample = await first(node, name);
          answers.set(name, sample);
          warmupFirstMs[name].push(round(Number(sample.firstMs), 1));
        }
        const [ours, floor] = [answers.get('ours'), answers.get('floor')];
        if (
          JSON.stringify(ours?.headers) !== JSON.stringify(floor?.headers) ||
          ours?.body !== floor?.body
        ) {
          throw new Error(
            `floor B answered differently from ours:\n${JSON.stringify(ours)}\n${JSON.stringify(floor)}`,
          );
        }
      }
      const repetitions: ColdRepetition[] = [];
      for (let rep = 0; rep < COLD_REPETITIONS; rep += 1) {
        const loadAtStart = loadAverage();
        const samples = { ours: [], floor: [], naive: [], eager: [] } as Record<
          Name,
          Record<string, unknown>[]
        >;
        for (let i = 0; i < runs; i += 1) {
          // The order within a round rotates, so no handler always follows the same one.
          for (let j = 0; j < names.length; j += 1) {
            const name = names[(i + j) % names.length] as Name;
            samples[name].push(await first(node, name));
          }
        }
        const [ours, floor, naive, eagerFigures] = [
          figures(samples.ours),
          figures(samples.floor),
          figures(samples.naive),
          figures(samples.eager),
        ];
        const repetition = {
          loadAverage: loadAtStart,
          ours,
          floor,
          naive,
          oursToFloor: round(ours.firstMedianMs / floor.firstMedianMs),
          oursToNaive: round(ours.firstMedianMs / naive.firstMedianMs),
          floorToNaive: round(floor.firstMedianMs / naive.firstMedianMs),
          eagerMiddyStreams: eagerFigures,
          eagerToFloor: round(eagerFigures.firstMedianMs / floor.firstMedianMs),
        };
        repetitions.push(repetition);
        log(
          `  ${runtime.label} rep ${rep + 1} (load ${loadAtStart}): first 200 ours ${ours.firstMedianMs} ms, ` +
            `floor B ${floor.firstMedianMs} ms, naive ${naive.firstMedianMs} ms; ` +
            `ours/floor ${repetition.oursToFloor}×, ours/naive ${repetition.oursToNaive}× ` +
            `(floor B/naive ${repetition.floorToNaive}×); ` +
            `ours without the esbuild plugins (Middy's streams eager) ${eagerFigures.firstMedianMs} ms ` +
            `(${repetition.eagerToFloor}× floor B)`,
        );
      }
      firstResponse.push({
        runtime,
        warmupFirstMs,
        repetitions,
        floorGoal: ratioGoal(
          repetitions.map((r) => r.oursToFloor),
          1.15,
        ),
        naiveGoal: ratioGoal(
          repetitions.map((r) => r.oursToNaive),
          0.5,
        ),
      });
    }
    return {
      runs,
      deployed: {
        runtime: deployed.runtime,
        build: describeBuild(deployed),
        nodeOptions: deployed.nodeOptions,
      },
      bundles,
      firstResponse,
    };
  } finally {
    await server.close();
    await rm(dir, { recursive: true, force: true });
  }
};
