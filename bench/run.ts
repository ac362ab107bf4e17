/**
 * npm run bench — every benchmark of issue 5 in one run on this machine: cold start (goal 1),
 * the warm path with fresh and repeated tokens (goals 2, 3), the key set under 1,000 concurrent
 * invocations (goal 4), the report queries (goal 5, bench/queries.ts, when present) and
 * `npm start` under a fixed load (goal 6). Prints a table and writes bench/results.json.
 * Each section's child processes are fresh; ratios compare figures measured in this run.
 *
 * Environment: BENCH_ADMIN_DATABASE_URL (default postgres://postgres@127.0.0.1:5432/postgres),
 * the PostgreSQL server where the cold-start database portal_bench_cold is (re)created.
 * BENCH_SKIP_HTTP=1 skips section 6.
 */
import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { availableParallelism, cpus, release, totalmem, type } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
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
  const machine = {
    nproc: availableParallelism(),
    cpuModel: cpus()[0]?.model.trim() ?? 'unknown',
    memoryGiB: round(totalmem() / 1024 ** 3, 1),
    os: `${type()} ${release()}`,
    node: process.version,
  };
  log(`portal-service-api benchmark — ${started.toISOString()}`);
  log(
    `machine: ${machine.nproc} CPUs (${machine.cpuModel}), ${machine.memoryGiB} GiB, Node ${machine.node}`,
  );

  const warm = await section('2/3. Warm path (fresh and repeated tokens)', () => warmPath(log));
  const keySet = await section('4. Key set: 1,000 concurrent invocations, cold container', () =>
    keySetConcurrency(log),
  );
  const cold = await section('1. Cold start (bundles, evaluation, first response)', () =>
    coldStart(log),
  );
  const query = await section('5. Queries (bench/queries.ts)', queries);
  const http =
    process.env.BENCH_SKIP_HTTP === '1'
      ? { skipped: 'BENCH_SKIP_HTTP=1' }
      : await section('6. Through HTTP (npm start under a fixed load)', () => throughHttp(log));

  const rows: string[][] = [['Section', 'Figure', 'Value', 'Goal', 'Met']];
  const yes = (met: boolean): string => (met ? 'yes' : 'NO');
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
      const goal = (name: string, g: RatioGoal) => {
        const median_ = round(median(g.ratios));
        rows.push([
          '1 cold',
          `${on}: first 200 ${name}, median [min–max] of ${g.ratios.length}`,
          `${median_}× [${g.min}–${g.max}×] (${round(median_ / g.goal, 2)} of the goal)`,
          `≤ ${g.goal}× every rep`,
          f.runtime.deployed ? yes(g.met) : `(${yes(g.met)})`,
        ]);
      };
      goal('ours / floor B', f.floorGoal);
      goal('ours / naive', f.naiveGoal);
    }
  }
  if (!isError(warm)) {
    const w: WarmResult = warm;
    const f = w.freshToken;
    rows.push([
      '2 warm',
      'chain, fresh token (median / p95)',
      `${f.chain.medianUs} / ${f.chain.p95Us} µs`,
      '',
      '',
    ]);
    rows.push([
      '2 warm',
      'jose jwtVerify alone',
      `${f.jose.medianUs} / ${f.jose.p95Us} µs`,
      '',
      '',
    ]);
    rows.push([
      '2 warm',
      'aws-jwt-verify verifySync alone',
      `${f.awsJwtVerify.medianUs} / ${f.awsJwtVerify.p95Us} µs`,
      '',
      '',
    ]);
    rows.push([
      '2 warm',
      'ratio chain / jose',
      `${f.ratioChainToJose}×`,
      `≤ ${f.goal}×`,
      yes(f.met),
    ]);
    const r = w.repeatedToken;
    if (r.measured) {
      rows.push([
        '3 repeat',
        'chain, repeated token',
        `${r.chain.medianUs} / ${r.chain.p95Us} µs`,
        '',
        '',
      ]);
      rows.push([
        '3 repeat',
        'aws-jwt-verify alone',
        `${r.awsJwtVerify.medianUs} / ${r.awsJwtVerify.p95Us} µs`,
        '',
        '',
      ]);
      rows.push([
        '3 repeat',
        'ratio chain / aws-jwt-verify',
        `${r.ratioChainToAwsJwtVerify}×`,
        `≤ ${r.goal}×`,
        yes(r.met),
      ]);
    } else {
      rows.push(['3 repeat', 'not measured', r.reason, '', '']);
    }
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
  for (const [name, value] of Object.entries({ cold, warm, keySet, query, http })) {
    if (isError(value)) rows.push([name, 'FAILED', value.error.split('\n')[0] ?? '', '', '']);
  }
  log('\n== Summary');
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
    http,
  };
  await writeFile(join(ROOT, 'bench/results.json'), `${JSON.stringify(results, null, 2)}\n`);
  log('\nWritten to bench/results.json');
};

await main();
