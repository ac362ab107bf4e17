/**
 * Information: what one container of each report function serves, on the 1.2M-order data set,
 * for the busy restaurant. Every endpoint of the catalogue (tools/catalogue.ts) that answers a
 * report or a service is bundled as serverless.yml bundles it and run on the deployed Node
 * (tools/bench/warm.ts's packagedContainer), asked what the other benchmarks ask: 31 days (and
 * a 31-day compare range for orders/day), 12 months for revenue, today for the rest.
 *
 * - Warm: one fresh container per function (tools/bench/invoke-child.ts, repeated token only),
 *   BENCH_CAPACITY_WARMUPS (100) then BENCH_CAPACITY_ITERATIONS (500) invocations one at a
 *   time: p50, p99 and mean, and the throughput of sequential invocations, 1000 / mean ms.
 * - Cold, the price of each container a burst adds: a fresh process's first answer, from the
 *   bundle's require() (tools/bench/lib.ts's FIRST_RESPONSE_CHILD), paying what a deployed first
 *   request pays (tools/bench/cold.ts's deployedFirstRequest: verified TLS to PostgreSQL, the
 *   key set over HTTPS). One discarded round, then BENCH_CAPACITY_COLD_ROUNDS (10) rounds of
 *   every function, the order rotating each round; the median.
 *
 * Run alone: BENCH_ONLY=capacity npm run bench.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { catalogue, type Endpoint } from '../catalogue';
import { deployedFirstRequest } from './cold';
import { loadAverage } from './deployed';
import { FIRST_RESPONSE_CHILD, median, round, runChild } from './lib';
import { benchRanges, dataSet } from './queries';
import {
  busyRequest,
  busyToken,
  packagedContainer,
  type Container,
  type Percentiles,
} from './warm';

const WARMUPS = Number(process.env.BENCH_CAPACITY_WARMUPS ?? 100);
const ITERATIONS = Number(process.env.BENCH_CAPACITY_ITERATIONS ?? 500);
const COLD_ROUNDS = Math.max(1, Number(process.env.BENCH_CAPACITY_COLD_ROUNDS ?? 10));

type Query = Readonly<Record<string, string>> | null;

/** The query each report is asked with; undefined for a report this benchmark does not know. */
const queryFor = (endpoint: Endpoint): Query | undefined => {
  const { range, compare, months } = benchRanges();
  const known: Record<string, Query> = {
    'orders-per-day': {
      from: range.from,
      to: range.to,
      'compare[from]': compare.from,
      'compare[to]': compare.to,
    },
    dishes: { from: range.from, to: range.to },
    revenue: { from: months.from, to: months.to },
    'orders-today': null,
    dashboard: null,
  };
  if (endpoint.id in known) return known[endpoint.id];
  const { answers } = endpoint;
  const parameters =
    answers.kind === 'report'
      ? answers.report.parameters
      : answers.kind === 'service'
        ? answers.service.parameters
        : [];
  return parameters.length === 0 ? null : undefined;
};

export interface CapacityRow {
  /** The serverless function. */
  readonly function: string;
  readonly path: string;
  readonly query: Query;
  readonly loadAverage?: string;
  readonly warm?: Percentiles & { readonly requestsPerSecond: number };
  /** Medians over the cold rounds, and the slowest. */
  readonly cold?: { readonly firstMs: number; readonly evalMs: number; readonly maxMs: number };
  readonly failed?: string;
}

export interface CapacityResult {
  readonly warmups: number;
  readonly iterations: number;
  readonly coldRounds: number;
  readonly rows: CapacityRow[];
  /** Endpoints of the catalogue not measured, with the reason. */
  readonly skipped: string[];
}

const message = (error: unknown): string =>
  error instanceof Error ? error.message.split('\n').slice(0, 3).join(' ') : String(error);

export const capacity = async (log: (line: string) => void): Promise<CapacityResult> => {
  const { url } = dataSet(1);
  const skipped: string[] = [];
  const measured: { endpoint: Endpoint; query: Query }[] = [];
  for (const endpoint of catalogue) {
    const { kind } = endpoint.answers;
    if (kind !== 'report' && kind !== 'service') {
      skipped.push(`${endpoint.function} (${kind})`);
      continue;
    }
    const query = queryFor(endpoint);
    if (query === undefined) skipped.push(`${endpoint.function} (no benchmark query)`);
    else measured.push({ endpoint, query });
  }
  log(
    `  protocol: per function a fresh container, ${WARMUPS} warm-ups then ${ITERATIONS} ` +
      `invocations one at a time; cold: ${COLD_ROUNDS} rounds of fresh processes after one ` +
      `discarded; skipped: ${skipped.join(', ') || 'none'}`,
  );
  const dir = await mkdtemp(join(tmpdir(), 'portal-bench-capacity-'));
  const first = await deployedFirstRequest(url, dir);
  const containers: Container[] = [];
  try {
    const rows: CapacityRow[] = [];
    const cold: { name: string; bundle: string; event: string; node: string }[] = [];
    for (const { endpoint, query } of measured) {
      const path = endpoint.paths[0];
      const row: CapacityRow = { function: endpoint.function, path, query };
      try {
        const c = await packagedContainer(url, 'capacity', endpoint.handlerFile);
        containers.push(c);
        const settings = join(c.dir, 'settings.json');
        const token = await busyToken(c.issuer, `capacity-${endpoint.id}`);
        await writeFile(
          settings,
          JSON.stringify({
            mode: 'warm',
            only: 'repeated',
            repeated: busyRequest(token, path, query),
            fresh: [],
            queries: [],
            databaseUrl: url,
            prepare: c.prepare,
            warmups: WARMUPS,
            iterations: ITERATIONS,
          }),
        );
        const load = loadAverage();
        const result = await runChild(c.child, [c.handler, settings], c.env, 600_000, c.node);
        const warm = result.repeated as Percentiles;
        rows.push({
          ...row,
          loadAverage: load,
          warm: { ...warm, requestsPerSecond: round(1000 / warm.meanMs, 0) },
        });
        const event = join(dir, `${endpoint.id}.json`);
        const coldToken = await busyToken(first.issuer, `capacity-cold-${endpoint.id}`);
        await writeFile(event, JSON.stringify(busyRequest(coldToken, path, query)));
        cold.push({ name: endpoint.function, bundle: c.handler, event, node: c.node });
        log(
          `  ${endpoint.function} (load ${load}): warm p50 ${warm.p50Ms} / p99 ${warm.p99Ms} / ` +
            `mean ${warm.meanMs} ms, ${round(1000 / warm.meanMs, 0)} req/s`,
        );
      } catch (error) {
        rows.push({ ...row, failed: message(error) });
        log(`  ${endpoint.function}: FAILED ${message(error)}`);
      }
    }

    const child = join(dir, 'first-child.cjs');
    await writeFile(child, FIRST_RESPONSE_CHILD);
    const samples = new Map<string, { firstMs: number; evalMs: number }[]>();
    const failed = new Map<string, string>();
    const once = async (target: (typeof cold)[number], keep: boolean): Promise<void> => {
      if (failed.has(target.name)) return;
      try {
        const sample = await runChild(
          child,
          [target.bundle, target.event],
          first.ours,
          30_000,
          target.node,
        );
        if (sample.status !== 200) {
          throw new Error(`first answer not 200: ${JSON.stringify(sample).slice(0, 300)}`);
        }
        if (keep) {
          const list = samples.get(target.name) ?? [];
          list.push({ firstMs: Number(sample.firstMs), evalMs: Number(sample.evalMs) });
          samples.set(target.name, list);
        }
      } catch (error) {
        failed.set(target.name, `cold: ${message(error)}`);
      }
    };
    const coldLoad = loadAverage();
    for (const target of cold) await once(target, false);
    for (let i = 0; i < COLD_ROUNDS; i += 1) {
      for (let j = 0; j < cold.length; j += 1) {
        const target = cold[(i + j) % cold.length];
        if (target) await once(target, true);
      }
    }
    log(`  cold (load ${coldLoad} at the start):`);
    return {
      warmups: WARMUPS,
      iterations: ITERATIONS,
      coldRounds: COLD_ROUNDS,
      skipped,
      rows: rows.map((row) => {
        const failure = failed.get(row.function);
        const list = samples.get(row.function) ?? [];
        if (failure || list.length === 0) {
          log(`    ${row.function}: ${failure ?? 'no cold sample'}`);
          return failure
            ? { ...row, failed: [row.failed, failure].filter(Boolean).join('; ') }
            : row;
        }
        const figures = {
          firstMs: round(median(list.map((s) => s.firstMs)), 1),
          evalMs: round(median(list.map((s) => s.evalMs)), 1),
          maxMs: round(Math.max(...list.map((s) => s.firstMs)), 1),
        };
        log(
          `    ${row.function}: first answer ${figures.firstMs} ms (max ${figures.maxMs}), ` +
            `evaluation ${figures.evalMs} ms`,
        );
        return { ...row, cold: figures };
      }),
    };
  } finally {
    for (const c of containers) await c.close();
    await first.close();
    await rm(dir, { recursive: true, force: true });
  }
};
