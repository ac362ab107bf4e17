/**
 * Goal 1, cold start: every function of the catalogue (its handler file) bundled as
 * serverless.yml does; the median time to evaluate each bundle in a fresh `node` process; the
 * median time from a fresh process to its first 200 (evaluation + first invocation: key set
 * from a local HTTP server, first query on a real local PostgreSQL database); the same for a
 * naive Middy + jose + pg baseline, and for `pg` and postgres.js imported alone.
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
} as const;

export interface BundleFigures {
  readonly name: string;
  readonly sizeKb: number;
  readonly evalMedianMs: number;
}

export interface ColdResult {
  readonly runs: number;
  readonly bundles: BundleFigures[];
  readonly firstResponse: {
    readonly ours: { evalMedianMs: number; firstMedianMs: number };
    readonly naive: { evalMedianMs: number; firstMedianMs: number };
    readonly ratio: number;
    readonly goal: number;
    readonly met: boolean;
  };
}

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

export const coldStart = async (log: (line: string) => void, runs = 15): Promise<ColdResult> => {
  const dir = await mkdtemp(join(tmpdir(), 'portal-bench-'));
  const databaseUrl = await prepareDatabase(log);
  const issuer = await createIssuer();
  const server = await serveKeySet(() => issuer.publicKeySet);
  try {
    const env = {
      JWKS_URL: server.url,
      DATABASE_URL: databaseUrl,
      JWT_ISSUER: issuer.issuer,
      LOG_LEVEL: 'error',
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
    // Evaluation: interleaved rounds, so that drift on the shared machine hits every bundle alike.
    const evalTimes = new Map<string, number[]>(entries.map(([name]) => [name, []]));
    await runChild(evalChild, [outputs.get('baseline: bare handler') ?? ''], env); // warm the disk cache
    for (let round_ = 0; round_ < runs; round_ += 1) {
      for (const [name] of entries) {
        const result = await runChild(evalChild, [outputs.get(name) ?? ''], env);
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
    const ours = outputs.get(ordersPerDay.id) ?? '';
    const naive = outputs.get('baseline: naive Middy + jose + pg') ?? '';
    const samples = {
      ours: [] as Record<string, unknown>[],
      naive: [] as Record<string, unknown>[],
    };
    for (let i = 0; i < 2; i += 1) {
      await runChild(firstChild, [ours, eventFile], env);
      await runChild(firstChild, [naive, eventFile], env);
    }
    for (let i = 0; i < runs; i += 1) {
      samples.ours.push(await runChild(firstChild, [ours, eventFile], env));
      samples.naive.push(await runChild(firstChild, [naive, eventFile], env));
    }
    for (const [name, list] of Object.entries(samples)) {
      const bad = list.find((s) => s.status !== 200);
      if (bad) throw new Error(`${name} first response was not 200: ${JSON.stringify(bad)}`);
    }
    const figures = (list: Record<string, unknown>[]) => ({
      evalMedianMs: round(median(list.map((s) => Number(s.evalMs)))),
      firstMedianMs: round(median(list.map((s) => Number(s.firstMs)))),
    });
    const oursFig = figures(samples.ours);
    const naiveFig = figures(samples.naive);
    const ratio = round(oursFig.firstMedianMs / naiveFig.firstMedianMs);
    return {
      runs,
      bundles,
      firstResponse: { ours: oursFig, naive: naiveFig, ratio, goal: 0.7, met: ratio <= 0.7 },
    };
  } finally {
    await server.close();
    await rm(dir, { recursive: true, force: true });
  }
};
