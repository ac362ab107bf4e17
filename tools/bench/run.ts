/**
 * npm run bench — the performance goals, measured where callers feel it (BENCHMARKS.md): the
 * packaged bundles on the deployed Node with the deployed settings (tools/bench/deployed.ts reads
 * them from serverless.yml), each goal a ratio of two figures of this run, in every
 * repetition, with the load average at the start of each.
 *
 * 1. Cold start (tools/bench/cold.ts): first 200 of a fresh container / floor B ≤ 1.2×, both
 *    over verified TLS to the database and an HTTPS key set.
 * 2. Warm invocation (tools/bench/warm.ts): the whole handler / the same queries alone through
 *    postgres.js on the 1.2M-order data set: repeated token p50 ≤ 1.25×, p99 ≤ 1.5×. A fresh
 *    token's ratio and its cost beyond a repeated one are information, beside jose alone.
 * 3. Scale (tools/bench/queries.ts): the slowest report query's median on 12M orders / on 1.2M
 *    ≤ 1.2×; only with BENCH_SCALE=10 (builds the 12M-order data set once).
 * Information: the naive handler, the verifiers alone and a bare Middy handler
 * (tools/bench/verifiers.ts), every report query's median, 1/8/32 containers as processes,
 * straight to PostgreSQL and through PgBouncer (tools/bench/concurrency.ts), and each report
 * function's warm throughput, p99 and cold first answer (tools/bench/capacity.ts).
 *
 * Prints a table and writes tools/bench/results.json (not committed). Environment:
 * BENCH_ADMIN_DATABASE_URL (default postgres://postgres@127.0.0.1:5432/postgres), the server
 * the databases are created on; BENCH_REPETITIONS (3); BENCH_SCALE=10; BENCH_PROFILE=1 (a CPU
 * profile of the warm handler, tools/bench/profile/); BENCH_ONLY, a comma-separated list of
 * sections to run (cold, warm, queries, concurrency, verifiers, capacity; the data sets always).
 */
import { execFileSync } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { availableParallelism, cpus, totalmem } from 'node:os';
import { join } from 'node:path';
import postgres from 'postgres';
import { capacity, type CapacityResult } from './capacity';
import { coldStart, type ColdResult } from './cold';
import { concurrency, type ConcurrencyResult } from './concurrency';
import { describeBuild, loadAverage, nodeBinary, nodeVersion, readDeployed } from './deployed';
import type { RatioGoal } from './goal';
import { median, ROOT, round } from './lib';
import { ADMIN_URL, dataSet, ensureDataSet, reportQueries, type QueryResult } from './queries';
import { verifiers, type VerifiersResult } from './verifiers';
import { warmInvocation, type WarmResult } from './warm';

const log = (line: string): void => {
  process.stdout.write(`${line}\n`);
};

const SECTIONS = ['cold', 'warm', 'queries', 'concurrency', 'verifiers', 'capacity'] as const;
type Section = (typeof SECTIONS)[number];
const NOT_RUN = 'not run (BENCH_ONLY)';

/** BENCH_ONLY's sections, or every section when it is unset. */
const onlySections = (): readonly string[] => {
  const only = (process.env.BENCH_ONLY ?? '')
    .split(',')
    .map((name) => name.trim())
    .filter((name) => name !== '');
  const unknown = only.filter((name) => !(SECTIONS as readonly string[]).includes(name));
  if (unknown.length > 0) {
    throw new Error(`BENCH_ONLY: unknown ${unknown.join(', ')}; sections: ${SECTIONS.join(', ')}`);
  }
  return only.length === 0 ? SECTIONS : only;
};
const ONLY = onlySections();

const section = async <T>(
  key: Section | 'always',
  title: string,
  run: () => Promise<T>,
): Promise<T | { error: string }> => {
  if (key !== 'always' && !ONLY.includes(key)) return { error: NOT_RUN };
  log(`\n== ${title} (load ${loadAverage()})`);
  const start = Date.now();
  try {
    const result = await run();
    log(`  done in ${((Date.now() - start) / 1000).toFixed(0)} s`);
    return result;
  } catch (error) {
    const message = error instanceof Error ? (error.stack ?? error.message) : String(error);
    log(`  FAILED: ${message}`);
    return { error: message };
  }
};

const failed = (value: unknown): value is { error: string } =>
  typeof value === 'object' && value !== null && 'error' in value;

const printTable = (rows: readonly (readonly string[])[]): void => {
  const widths = rows[0]?.map((_, i) => Math.max(...rows.map((row) => (row[i] ?? '').length)));
  for (const row of rows) {
    log(
      row
        .map((cell, i) => cell.padEnd(widths?.[i] ?? 0))
        .join('  ')
        .trimEnd(),
    );
  }
};

const scaleOption = (): number[] => {
  const scale = process.env.BENCH_SCALE;
  if (scale === undefined || scale === '' || scale === '1') return [1];
  if (scale !== '10') throw new Error(`BENCH_SCALE=${scale}: only 10 is measured`);
  return [1, 10];
};

const postgresVersion = async (): Promise<string> => {
  const sql = postgres(ADMIN_URL, { max: 1, onnotice: () => undefined });
  try {
    const [row] = await sql<{ v: string }[]>`select current_setting('server_version') as v`;
    return `PostgreSQL ${row?.v ?? '?'}`;
  } finally {
    await sql.end();
  }
};

const main = async (): Promise<void> => {
  const started = new Date();
  const scales = scaleOption();
  const deployed = readDeployed();
  const node = nodeBinary(deployed.nodeMajor);
  const commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: ROOT })
    .toString()
    .trim();
  const machine = {
    cpus: availableParallelism(),
    cpuModel: cpus()[0]?.model.trim() ?? 'unknown',
    memoryGiB: round(totalmem() / 1024 ** 3, 1),
    node: node ? nodeVersion(node) : 'unavailable',
    runtime: deployed.runtime,
    build: describeBuild(deployed),
    nodeOptions: deployed.nodeOptions,
    database: await postgresVersion(),
  };
  log(`npm run bench at ${commit}, ${started.toISOString()}, load average ${loadAverage()}`);
  log(
    `machine: ${machine.cpus} CPUs (${machine.cpuModel}), ${machine.memoryGiB} GiB, ` +
      `${machine.database}; deployed ${machine.runtime} as Node ${machine.node}, ` +
      `NODE_OPTIONS ${machine.nodeOptions || 'none'}; build ${machine.build}`,
  );

  log(`sections: ${ONLY.join(', ')}`);
  const sets = await section('always', 'Data sets', async () => {
    for (const scale of scales) {
      const set = dataSet(scale);
      log(`  ${set.database}: ${await ensureDataSet(set, log)}`);
    }
  });
  if (failed(sets)) throw new Error('no data set');
  const cold = await section('cold', 'Goal 1, cold start: first 200 / floor B', () =>
    coldStart(log),
  );
  const warm = await section('warm', 'Goal 2, warm invocation: handler / queries alone', () =>
    warmInvocation(log),
  );
  const queries = await section(
    'queries',
    scales.length > 1 ? 'Goal 3, scale: report queries on 12M / 1.2M orders' : 'Report queries',
    () => reportQueries(log, scales, Number(process.env.BENCH_REPETITIONS ?? 3)),
  );
  const concurrent = await section(
    'concurrency',
    'Information: 1/8/32 containers as processes',
    () => concurrency(log),
  );
  const anchors = await section(
    'verifiers',
    'Information: the chain beside the verifiers alone',
    () => verifiers(log),
  );
  const capacities = await section('capacity', 'Information: capacity per report function', () =>
    capacity(log),
  );

  const goals: string[][] = [['Goal', 'Ratio: median [min–max]', 'Target', 'Met']];
  const goal = (name: string, g: RatioGoal | undefined, missing?: string) => {
    if (!g) {
      goals.push([name, missing ?? 'not measured', '', '']);
      return;
    }
    goals.push([
      name,
      `${round(median(g.ratios), 2)}× [${g.min}–${g.max}×] over ${g.ratios.length}`,
      `≤ ${g.goal}× in each`,
      g.met ? 'met' : 'NOT MET',
    ]);
  };
  const error = (value: { error: string }) =>
    value.error === NOT_RUN ? NOT_RUN : `FAILED: ${value.error.split('\n')[0] ?? ''}`;
  if (failed(cold)) goal('1. Cold start, first 200 / floor B', undefined, error(cold));
  else goal('1. Cold start, first 200 / floor B', cold.goal);
  if (failed(warm)) goal('2. Warm invocation', undefined, error(warm));
  else {
    goal('2a. Warm, repeated token, p50 / queries alone', warm.repeatedP50);
    goal('2b. Warm, repeated token, p99 / queries alone', warm.repeatedP99);
  }
  if (failed(queries)) goal('3. Scale', undefined, error(queries));
  else if (queries.scaleGoal) {
    goal(`3. Scale, ${queries.scaleGoal.query}, 12M / 1.2M orders`, queries.scaleGoal);
  } else goal('3. Scale, slowest query, 12M / 1.2M orders', undefined, 'BENCH_SCALE=10 to measure');

  const figures: string[][] = [['Figure', 'Repetitions (load average 1/5/15 min)']];
  if (!failed(cold)) {
    const c: ColdResult = cold;
    for (const [i, r] of c.repetitions.entries()) {
      const f = r.figures;
      figures.push([
        i === 0 ? 'first 200 ms: ours / floor B / naive' : '',
        `${f.ours.firstMs} / ${f.floor.firstMs} / ${f.naive.firstMs} (${r.loadAverage})`,
      ]);
    }
    figures.push([
      'ours / naive (information)',
      c.repetitions.map((r) => `${r.oursToNaive}×`).join(', '),
    ]);
    figures.push([
      'ours, whole RDS bundle as before: ms, / floor B',
      c.repetitions
        .map((r) => `${r.figures.oursWholeBundle.firstMs} (${r.wholeBundleToFloor}×)`)
        .join(', '),
    ]);
    figures.push([
      'bundle KB, eval ms (rep 1)',
      Object.entries(c.bundleKb)
        .map(([k, kb]) => `${k} ${kb}, ${c.repetitions[0]?.figures[k as 'ours'].evalMs}`)
        .join('; '),
    ]);
  }
  if (!failed(warm)) {
    const w: WarmResult = warm;
    for (const [i, r] of w.repetitions.entries()) {
      figures.push([
        i === 0 ? 'warm p50/p99 ms: queries, repeated, fresh' : '',
        `${r.queries.p50Ms}/${r.queries.p99Ms}, ${r.repeated.p50Ms}/${r.repeated.p99Ms}, ` +
          `${r.fresh.p50Ms}/${r.fresh.p99Ms} (${r.loadAverage})`,
      ]);
    }
    figures.push([
      'warm fresh token: p50 / queries; µs beyond a repeated token',
      w.repetitions.map((_, i) => `${w.freshP50Ratios[i]}×; ${w.freshExtraUs[i]} µs`).join(', '),
    ]);
  }
  if (!failed(queries)) {
    const q: QueryResult = queries;
    for (const row of q.rows) {
      figures.push([
        `query median ms: ${row.name}`,
        q.sets.map((s) => `${row.medianMs[s.database]?.join(', ')}`).join(' | 12M: '),
      ]);
    }
  }
  if (!failed(concurrent)) {
    const c: ConcurrencyResult = concurrent;
    for (const r of c.rows) {
      figures.push([
        `${r.path}, ${r.processes} processes: p50 / p99 ms`,
        r.failed
          ? `FAILED: ${r.failed.split('\n').slice(-1).join('').slice(0, 200)}`
          : `${r.p50Ms} / ${r.p99Ms} (${r.loadAverage})`,
      ]);
    }
    figures.push(['PgBouncer', c.pgBouncer]);
  }
  if (!failed(anchors)) {
    const a: VerifiersResult = anchors;
    const us = (t: VerifiersResult['fresh']) =>
      Object.entries(t)
        .map(([k, v]) => `${k} ${v.medianUs}`)
        .join(', ');
    figures.push(['fresh token, median µs', `${us(a.fresh)} (${a.loadAverage})`]);
    figures.push(['repeated token, median µs', us(a.repeated)]);
  }
  if (!failed(capacities)) {
    const c: CapacityResult = capacities;
    for (const r of c.rows) {
      figures.push([
        `capacity ${r.function}: warm p50/p99 ms, req/s; cold first ms`,
        r.warm && r.cold
          ? `${r.warm.p50Ms}/${r.warm.p99Ms}, ${r.warm.requestsPerSecond}; ${r.cold.firstMs} ` +
            `(${r.loadAverage})`
          : `FAILED: ${r.failed ?? '?'}`,
      ]);
    }
    if (c.skipped.length > 0) figures.push(['capacity: skipped', c.skipped.join(', ')]);
  }

  log('\n== Goals');
  printTable(goals);
  log('\n== Figures');
  printTable(figures);
  const results = {
    commit,
    date: started.toISOString(),
    durationSeconds: round((Date.now() - started.getTime()) / 1000, 0),
    machine,
    coldStart: cold,
    warmInvocation: warm,
    queries,
    concurrency: concurrent,
    verifiers: anchors,
    capacity: capacities,
  };
  await writeFile(join(ROOT, 'tools/bench/results.json'), `${JSON.stringify(results, null, 2)}\n`);
  log(`\nWritten to tools/bench/results.json in ${results.durationSeconds} s`);
};

await main();
