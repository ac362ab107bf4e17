/**
 * npm run bench — every benchmark of issues 5 and 13 in one run on this machine: cold start
 * (goal 1), the warm path with fresh and repeated tokens (goals 2, 3), the key set under 1,000
 * concurrent invocations (issue 5's goal 4), the report queries (goal 5, bench/queries.ts, when
 * present), whole invocations of the packaged handler at 1/8/32 concurrent through one pool on
 * that data set (issue 13's goal 4, bench/concurrency.ts) and `npm start` under a fixed load
 * (goal 6). Prints a table and writes
 * bench/results.json. Goals 1-3 run on the deployed configuration read from serverless.yml
 * (bench/deployed.ts: custom.esbuild's build, provider.runtime's Node from the registry,
 * NODE_OPTIONS), each against its anchors, in BENCH_REPETITIONS (3) repetitions with the load
 * average at the start of each; Node 20 (this process's) figures beside them. Each section's
 * child processes are fresh; ratios compare figures measured in this run.
 *
 * Environment: BENCH_ADMIN_DATABASE_URL (default postgres://postgres@127.0.0.1:5432/postgres),
 * the PostgreSQL server where the cold-start database portal_bench_cold is (re)created.
 * BENCH_SKIP_HTTP=1 skips section 6; BENCH_REPETITIONS (default 3); BENCH_ITERATIONS (measured
 * warm-path calls per repetition, default 2000).
 */
import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { availableParallelism, cpus, release, totalmem, type } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describeBuild, loadAverage, nodeBinary, nodeVersion, readDeployed } from './deployed';
import { concurrency, type ConcurrencyResult } from './concurrency';
import { coldStart, type ColdResult, type RatioGoal } from './cold';
import { throughHttp, type HttpResult } from './http';
import { keySetConcurrency, type KeySetResult } from './key-set';
import { median, ROOT, round } from './lib';
import { warmPath, type WarmResult } from './warm';

interface QueryBenchResult {
  title: string;
  rows: { name: string; median: number; p95: number; unit: 'ms' }[];
  notes: string[];
}

type QueryBench = (log: (line: string) => void) => Promise<QueryBenchResult>;

const log = (line: string): void => {
  process.stdout.write(`${line}\n`);
};

const section = async <T>(title: string, run: () => Promise<T>): Promise<T | { error: string }> => {
  log(`\n== ${title}`);
  const start = Date.now();
  try {
    const result = await run();
    log(`  done in ${((Date.now() - start) / 1000).toFixed(1)} s`);
    return result;
  } catch (error) {
    const message = error instanceof Error ? (error.stack ?? error.message) : String(error);
    log(`  FAILED: ${message}`);
    return { error: message };
  }
};

const isError = (value: unknown): value is { error: string } =>
  typeof value === 'object' && value !== null && 'error' in value;

const queries = async (): Promise<QueryBenchResult | { notMeasured: string }> => {
  const file = join(ROOT, 'bench/queries.ts');
  if (!existsSync(file)) return { notMeasured: 'bench/queries.ts does not exist in this checkout' };
  const module = (await import(pathToFileURL(file).href)) as { queryBench?: unknown };
  if (typeof module.queryBench !== 'function') {
    return { notMeasured: 'bench/queries.ts does not export queryBench' };
  }
  return (module.queryBench as QueryBench)(log);
};

const pad = (text: string, width: number): string => text.padEnd(width);

const printTable = (rows: readonly (readonly string[])[]): void => {
  const widths =
    rows[0]?.map((_, i) => Math.max(...rows.map((row) => (row[i] ?? '').length))) ?? [];
  for (const row of rows) log(row.map((cell, i) => pad(cell, widths[i] ?? 0)).join('  '));
};

const main = async (): Promise<void> => {
  const started = new Date();
  const deployed = readDeployed();
  const deployedNode = nodeBinary(deployed.nodeMajor);
  const deployedVersion = deployedNode ? nodeVersion(deployedNode) : 'unavailable';
  const machine = {
    nproc: availableParallelism(),
    cpuModel: cpus()[0]?.model.trim() ?? 'unknown',
    memoryGiB: round(totalmem() / 1024 ** 3, 1),
    os: `${type()} ${release()}`,
    node: process.version,
    deployedNode: deployedVersion,
    deployedRuntime: deployed.runtime,
    build: describeBuild(deployed),
    nodeOptions: deployed.nodeOptions,
  };
  log(`portal-service-api benchmark — ${started.toISOString()}, load average ${loadAverage()}`);
  log(
    `machine: ${machine.nproc} CPUs (${machine.cpuModel}), ${machine.memoryGiB} GiB, Node ${machine.node}`,
  );
  log(
    `deployed: ${deployed.runtime} → Node ${deployedVersion} (${deployedNode ?? 'npx -p node@' + String(deployed.nodeMajor) + ' failed'}), ` +
      `NODE_OPTIONS ${deployed.nodeOptions || 'none'}, build ${machine.build}`,
  );

  const warm = await section('2/3. Warm path (fresh and repeated tokens)', () => warmPath(log));
  const keySet = await section('4. Key set: 1,000 concurrent invocations, cold container', () =>
    keySetConcurrency(log),
  );
  const cold = await section('1. Cold start (bundles, evaluation, first response)', () =>
    coldStart(log),
  );
  const query = await section('5. Queries (bench/queries.ts)', queries);
  const concurrent =
    isError(query) || 'notMeasured' in query
      ? { skipped: "needs section 5's data set" }
      : await section('4b. Concurrent invocations, one pool (issue 13 goal 4)', () =>
          concurrency(log),
        );
  const http =
    process.env.BENCH_SKIP_HTTP === '1'
      ? { skipped: 'BENCH_SKIP_HTTP=1' }
      : await section('6. Through HTTP (npm start under a fixed load)', () => throughHttp(log));

  const rows: string[][] = [['Section', 'Figure', 'Value', 'Goal', 'Met']];
  const yes = (met: boolean): string => (met ? 'yes' : 'NO');
  /** A goal's row: the median ratio of the repetitions, their spread, met in every one. */
  const goalRow = (section_: string, figure: string, g: RatioGoal, deployed: boolean) => {
    const median_ = round(median(g.ratios));
    rows.push([
      section_,
      `${figure}, median [min–max] of ${g.ratios.length}`,
      `${median_}× [${g.min}–${g.max}×] (${round(median_ / g.goal, 2)} of the goal)`,
      `≤ ${g.goal}× every rep`,
      deployed ? yes(g.met) : `(${yes(g.met)})`,
    ]);
  };
  /** An information row: the median ratio of the repetitions and their spread. */
  const infoRow = (section_: string, figure: string, values: readonly number[]) => {
    rows.push([
      section_,
      `${figure}, median [min–max]`,
      `${round(median(values))}× [${Math.min(...values)}–${Math.max(...values)}×]`,
      'info',
      '',
    ]);
  };
  if (!isError(cold)) {
    const c: ColdResult = cold;
    for (const b of c.bundles) {
      rows.push([
        '1 cold',
        `${b.name}: size / eval median`,
        `${b.sizeKb} KB / ${b.evalMedianMs} ms`,
        '',
        '',
      ]);
    }
    for (const f of c.firstResponse) {
      const on = f.runtime.deployed ? 'deployed' : f.runtime.version;
      for (const [i, r] of f.repetitions.entries()) {
        rows.push([
          '1 cold',
          `${f.runtime.label} rep ${i + 1} (load ${r.loadAverage}): first 200 ours / floor B / naive`,
          `${r.ours.firstMedianMs} / ${r.floor.firstMedianMs} / ${r.naive.firstMedianMs} ms`,
          '',
          '',
        ]);
      }
      const deployed = f.runtime.deployed;
      goalRow('1 cold', `${on}: first 200 ours / floor B`, f.floorGoal, deployed);
      goalRow('1 cold', `${on}: first 200 ours / naive`, f.naiveGoal, deployed);
      infoRow(
        '1 cold',
        `${on}: floor B / naive (goal 1b asks ours for 0.5× naive)`,
        f.repetitions.map((r) => r.floorToNaive),
      );
      infoRow(
        '1 cold',
        `${on}: ours without the esbuild plugins (Middy's streams eager) / floor B`,
        f.repetitions.map((r) => r.eagerToFloor),
      );
    }
  }
  if (!isError(warm)) {
    const w: WarmResult = warm;
    for (const run of w.runs) {
      const on = run.deployed ? 'deployed' : (run.repetitions[0]?.node ?? '');
      for (const [i, r] of run.repetitions.entries()) {
        const f = r.fresh.measured;
        const q = r.repeated.measured;
        rows.push([
          '2 fresh',
          `${run.label} rep ${i + 1} (load ${r.loadAverage}): chain / jose / aws-jwt-verify / node:crypto, median`,
          `${f.chain?.medianUs} / ${f.jose?.medianUs} / ${f.awsJwtVerify?.medianUs} / ${f.crypto?.medianUs} µs`,
          '',
          '',
        ]);
        rows.push([
          '3 repeat',
          `${run.label} rep ${i + 1} (load ${r.loadAverage}): chain / aws-jwt-verify / bare Middy, median`,
          `${q.chain?.medianUs} / ${q.awsJwtVerify?.medianUs} / ${q.bareMiddy?.medianUs} µs`,
          '',
          '',
        ]);
      }
      const goal = (section_: string, name: string, g: RatioGoal) => {
        goalRow(section_, `${on}: ${name}`, g, run.deployed);
      };
      const info = (section_: string, name: string, values: readonly number[]) => {
        infoRow(section_, `${on}: ${name}`, values);
      };
      const ratios = run.repetitions.map((r) => r.ratios);
      goal('2 fresh', 'chain / jose jwtVerify', run.freshGoal);
      info(
        '2 fresh',
        'chain / node:crypto alone',
        ratios.map((r) => r.freshChainToCrypto),
      );
      info(
        '2 fresh',
        'chain / aws-jwt-verify',
        ratios.map((r) => r.freshChainToAwsJwtVerify),
      );
      goal('3 repeat', 'chain / aws-jwt-verify, interleaved', run.repeatedGoal);
      goal('3 repeat', 'chain / aws-jwt-verify, blocks of 500', run.repeatedGoalBlocked);
      info(
        '3 repeat',
        'chain / bare Middy',
        ratios.map((r) => r.repeatedChainToBareMiddy),
      );
      info(
        '3 repeat',
        'bare Middy / aws-jwt-verify',
        ratios.map((r) => r.repeatedBareMiddyToAwsJwtVerify),
      );
    }
  }
  if ('skipped' in concurrent) rows.push(['4 concurrency', 'skipped', concurrent.skipped, '', '']);
  else if (!isError(concurrent)) {
    const c: ConcurrencyResult = concurrent;
    for (const r of c.rows) {
      rows.push([
        '4 concurrency',
        `deployed: ${r.path}, ${r.concurrency} concurrent, ${r.mode} (load ${r.loadAverage})`,
        `p50 ${r.p50Ms} / p99 ${r.p99Ms} ms`,
        'info',
        '',
      ]);
    }
    rows.push(['4 concurrency', 'PgBouncer', c.pgBouncer, 'info', '']);
  }
  if (!isError(keySet)) {
    const k: KeySetResult = keySet;
    rows.push(['4 key set', 'fetches per round', k.fetchesPerRound.join(', '), '1', yes(k.met)]);
    rows.push([
      '4 key set',
      `all ${k.concurrency} answered (median)`,
      `${k.allAnsweredMedianMs} ms`,
      '',
      '',
    ]);
  }
  if (!isError(query)) {
    if ('notMeasured' in query) rows.push(['5 queries', 'not measured', query.notMeasured, '', '']);
    else {
      for (const q of query.rows) {
        rows.push([
          '5 queries',
          q.name,
          `${q.median} / ${q.p95} ${q.unit}`,
          '≤ 10 ms',
          yes(q.median <= 10),
        ]);
      }
    }
  }
  if ('skipped' in http) rows.push(['6 http', 'skipped', http.skipped, '', '']);
  else if (!isError(http)) {
    const h: HttpResult = http;
    rows.push(['6 http', 'requests/s', String(h.requestsPerSecond ?? 'n/a'), 'info', '']);
    if (h.latencyMs) {
      const l = h.latencyMs;
      rows.push([
        '6 http',
        'latency p50/p90/p99/max',
        `${l.p50}/${l.p90}/${l.p99}/${l.max} ms`,
        'info',
        '',
      ]);
    }
  }
  for (const [name, value] of Object.entries({ cold, warm, keySet, query, concurrent, http })) {
    if (isError(value)) rows.push([name, 'FAILED', value.error.split('\n')[0] ?? '', '', '']);
  }
  log('\n== Summary');
  log(
    `Goals 1-3 on the deployed configuration: ${deployed.runtime} as Node ${deployedVersion} ` +
      `(the registry's node@${deployed.nodeMajor}, its binary spawned directly), bundles built ` +
      `with serverless.yml's custom.esbuild (${describeBuild(deployed)}), NODE_OPTIONS ` +
      `${deployed.nodeOptions || 'none (as deployed)'}; rows without "deployed" ran on Node ` +
      `${process.versions.node} for comparison. Ratios are medians of interleaved samples, one ` +
      `per repetition; [min–max] is their spread; a goal is met when every repetition meets it.`,
  );
  printTable(rows);

  const results = {
    date: started.toISOString(),
    durationSeconds: round((Date.now() - started.getTime()) / 1000, 1),
    command: 'npm run bench',
    machine,
    coldStart: cold,
    warmPath: warm,
    keySet,
    queries: query,
    concurrency: concurrent,
    http,
  };
  await writeFile(join(ROOT, 'bench/results.json'), `${JSON.stringify(results, null, 2)}\n`);
  log('\nWritten to bench/results.json');
};

await main();
