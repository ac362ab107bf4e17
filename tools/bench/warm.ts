/**
 * The warm-invocation goal: the packaged orders-per-day handler (serverless.yml's esbuild
 * settings, the deployed Node and environment defaults, the access line written to stdout) in
 * a warm container of its own, invoked one at a time on the 1.2M-order data set for the busy
 * restaurant, 31 days with a 31-day compare range, against the same two queries issued alone
 * through postgres.js in the same process. Goals, in every repetition: with a repeated token
 * p50 ≤ 1.25× and p99 ≤ 1.5× the queries'. With a token never seen before, information: its
 * p50 over the queries', and what it costs beyond a repeated token (jose's Web Crypto
 * verification, paid once per token per container), set beside jose alone in run.ts.
 * BENCH_REPETITIONS (3) fresh processes, each BENCH_WARM_WARMUPS (300) then
 * BENCH_WARM_ITERATIONS (2,000) iterations of the three, interleaved (tools/bench/invoke-child.ts).
 *
 * BENCH_PROFILE=1 adds a CPU profile of the handler alone (repeated token, then fresh tokens;
 * node --cpu-prof) and sums its self time by source file through the bundle's source map:
 * where the time beyond the queries goes.
 */
import { readFileSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { SourceMap } from 'node:module';
import { tmpdir } from 'node:os';
import { basename, join, relative } from 'node:path';
import type { APIGatewayProxyEvent } from 'aws-lambda';
import { createIssuer, serveKeySet, type LocalIssuer } from '../local/issuer';
import { ordersPerDayQueries } from '../../shared/reports/orders-per-day.sql';
import { loadAverage, nodeBinary, readDeployed } from './deployed';
import { orderDayEvent } from './fixtures';
import { ratioGoal, type RatioGoal } from './goal';
import { bundle, ROOT, round, runChild } from './lib';
import { benchRanges, BUSY, captureSql, dataSet, type Captured } from './queries';
import { REPETITIONS } from './cold';

const WARMUPS = Number(process.env.BENCH_WARM_WARMUPS ?? 300);
const ITERATIONS = Number(process.env.BENCH_WARM_ITERATIONS ?? 2000);

/**
 * A GET of the busy restaurant at `resource` (a catalogue path, `{id}` in it) with `query`, on
 * the orders/day event's headers and context; X-Platform-Id its platform.
 */
export const busyRequest = (
  token: string,
  resource: string,
  query: Readonly<Record<string, string>> | null,
): APIGatewayProxyEvent => {
  const event = orderDayEvent(token, benchRanges().range.to);
  const path = resource.replace('{id}', BUSY.restaurantId);
  return {
    ...event,
    resource,
    path,
    pathParameters: { id: BUSY.restaurantId },
    headers: { ...event.headers, 'X-Platform-Id': BUSY.platformId },
    multiValueHeaders: { ...event.multiValueHeaders, 'X-Platform-Id': [BUSY.platformId] },
    queryStringParameters: query ? { ...query } : null,
    multiValueQueryStringParameters: query
      ? Object.fromEntries(Object.entries(query).map(([k, v]) => [k, [v]]))
      : null,
    requestContext: { ...event.requestContext, path, resourcePath: resource },
  };
};

/** The busy restaurant's orders/day event: 31 days and a 31-day compare range. */
export const busyEvent = (token: string): APIGatewayProxyEvent => {
  const { range, compare } = benchRanges();
  return busyRequest(token, '/v1/restaurants/{id}/reports/orders/day', {
    from: range.from,
    to: range.to,
    'compare[from]': compare.from,
    'compare[to]': compare.to,
  });
};

/** A token of the busy restaurant's owner; `jti` makes each one new to the token cache. */
export const busyToken = (issuer: LocalIssuer, jti: string): Promise<string> =>
  issuer.sign(
    {
      sub: 'bench-busy-owner',
      jti,
      authSchema: JSON.stringify({
        restaurants: [
          {
            id: BUSY.restaurantId,
            platforms: [
              {
                restaurantId: 'bx-busy',
                platformId: BUSY.platformId,
                platformKey: BUSY.platformId,
              },
            ],
          },
        ],
      }),
    },
    { expiresIn: '2h' },
  );

/** The SQL the handler sends for busyEvent: both ranges of orders/day. */
export const busyQueries = async (url: string): Promise<Captured[]> => {
  const { range, compare } = benchRanges();
  const captured = await captureSql(url, (spy) => {
    const q = ordersPerDayQueries(spy);
    return Promise.all([q.ordersPerDay(BUSY, range), q.ordersPerDay(BUSY, compare)]);
  });
  if (captured.length !== 2) throw new Error(`${captured.length} queries caught, not 2`);
  return captured;
};

/** The packaged handler and the child that hosts it, with the environment they run in. */
export interface Container {
  readonly dir: string;
  readonly node: string;
  readonly handler: string;
  readonly child: string;
  readonly env: Record<string, string>;
  readonly prepare: boolean;
  readonly issuer: LocalIssuer;
  readonly close: () => Promise<void>;
}

/** `entry`'s packaged bundle (orders-per-day's by default) in a container of its own. */
export const packagedContainer = async (
  databaseUrl: string,
  label: string,
  entry = 'functions/orders-per-day.ts',
): Promise<Container> => {
  const deployed = readDeployed();
  const node = nodeBinary(deployed.nodeMajor);
  if (!node) throw new Error(`npx -p node@${deployed.nodeMajor} could not provide Node`);
  const dir = await mkdtemp(join(tmpdir(), `portal-bench-${label}-`));
  const handler = join(dir, `${basename(entry, '.ts')}.cjs`);
  const child = join(dir, 'invoke-child.cjs');
  await bundle(join(ROOT, entry), handler, ['pg-native']);
  await bundle(join(ROOT, 'tools/bench/invoke-child.ts'), child);
  const issuer = await createIssuer();
  const server = await serveKeySet(() => issuer.publicKeySet);
  const env = {
    ...deployed.environment,
    ...(deployed.nodeOptions ? { NODE_OPTIONS: deployed.nodeOptions } : {}),
    JWKS_URL: server.url,
    JWT_ISSUER: issuer.issuer,
    DATABASE_URL: databaseUrl,
    NODE_ENV: 'production',
  };
  return {
    dir,
    node,
    handler,
    child,
    env,
    prepare: deployed.environment.DB_PREPARE !== 'false',
    issuer,
    close: async () => {
      await server.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
};

export interface Percentiles {
  readonly p50Ms: number;
  readonly meanMs: number;
  readonly p99Ms: number;
  readonly samples: number;
}

export interface WarmRepetition {
  readonly loadAverage: string;
  readonly repeated: Percentiles;
  readonly fresh: Percentiles;
  readonly queries: Percentiles;
}

export interface WarmResult {
  readonly warmups: number;
  readonly iterations: number;
  readonly repetitions: WarmRepetition[];
  readonly repeatedP50: RatioGoal;
  readonly repeatedP99: RatioGoal;
  /** Per repetition, fresh token p50 / queries alone p50 (information). */
  readonly freshP50Ratios: number[];
  /** Per repetition, fresh token p50 − repeated token p50, in µs: a token's first verification. */
  readonly freshExtraUs: number[];
  readonly profile?: Profile;
}

const settingsFor = async (
  c: Container,
  url: string,
  queries: Captured[],
  fresh: number,
  extra: object,
): Promise<string> => {
  const tokens: APIGatewayProxyEvent[] = [];
  const tag = `${Date.now()}-${Math.random()}`;
  for (let i = 0; i < fresh; i += 1) {
    tokens.push(busyEvent(await busyToken(c.issuer, `fresh-${tag}-${i}`)));
  }
  const file = join(c.dir, `settings-${tag}.json`);
  await writeFile(
    file,
    JSON.stringify({
      repeated: busyEvent(await busyToken(c.issuer, `repeated-${tag}`)),
      fresh: tokens,
      queries,
      databaseUrl: url,
      prepare: c.prepare,
      ...extra,
    }),
  );
  return file;
};

export const warmInvocation = async (log: (line: string) => void): Promise<WarmResult> => {
  const { url } = dataSet(1);
  const c = await packagedContainer(url, 'warm');
  try {
    const queries = await busyQueries(url);
    log(
      `  protocol: ${REPETITIONS} fresh processes; each ${WARMUPS} warm-up then ${ITERATIONS} ` +
        'iterations of: repeated token, fresh token, the queries alone (order rotating)',
    );
    const repetitions: WarmRepetition[] = [];
    for (let rep = 0; rep < REPETITIONS; rep += 1) {
      const settings = await settingsFor(c, url, queries, WARMUPS + ITERATIONS, {
        mode: 'warm',
        warmups: WARMUPS,
        iterations: ITERATIONS,
      });
      const load = loadAverage();
      const result = (await runChild(
        c.child,
        [c.handler, settings],
        c.env,
        600_000,
        c.node,
      )) as unknown as Omit<WarmRepetition, 'loadAverage'>;
      const r = { loadAverage: load, ...result };
      repetitions.push(r);
      log(
        `  rep ${rep + 1} (load ${load}): queries alone p50 ${r.queries.p50Ms} / p99 ` +
          `${r.queries.p99Ms} ms; repeated token p50 ${r.repeated.p50Ms} / p99 ` +
          `${r.repeated.p99Ms} ms; fresh token p50 ${r.fresh.p50Ms} / p99 ${r.fresh.p99Ms} ms`,
      );
    }
    const ratios = (pick: (r: WarmRepetition) => number) => repetitions.map((r) => round(pick(r)));
    const profile =
      process.env.BENCH_PROFILE === '1' ? await profileHandler(c, url, queries, log) : undefined;
    return {
      warmups: WARMUPS,
      iterations: ITERATIONS,
      repetitions,
      repeatedP50: ratioGoal(
        ratios((r) => r.repeated.p50Ms / r.queries.p50Ms),
        1.25,
      ),
      repeatedP99: ratioGoal(
        ratios((r) => r.repeated.p99Ms / r.queries.p99Ms),
        1.5,
      ),
      freshP50Ratios: ratios((r) => r.fresh.p50Ms / r.queries.p50Ms),
      freshExtraUs: repetitions.map((r) => Math.round((r.fresh.p50Ms - r.repeated.p50Ms) * 1000)),
      ...(profile ? { profile } : {}),
    };
  } finally {
    await c.close();
  }
};

export interface Profile {
  readonly directory: string;
  /** Per run (repeated token, fresh token): CPU time by source file, busiest first. */
  readonly runs: { only: string; cpuMs: number; bySource: { source: string; ms: number }[] }[];
}

interface CpuProfile {
  nodes: {
    id: number;
    callFrame: { functionName: string; url: string; lineNumber: number; columnNumber: number };
    children?: number[];
  }[];
  samples: number[];
  timeDeltas: number[];
}

/**
 * CPU time of a profile by the source file that caused it: each sample goes to the nearest
 * frame on its stack that maps (through the bundle's source map) to a file of this repository
 * or a package, so Node's internals and native code count for the code that called them.
 */
const bySource = (profile: CpuProfile): Map<string, number> => {
  const maps = new Map<string, SourceMap | undefined>();
  const mapOf = (url: string): SourceMap | undefined => {
    if (!maps.has(url)) {
      try {
        const file = new URL(url).pathname;
        maps.set(url, new SourceMap(JSON.parse(readFileSync(`${file}.map`, 'utf8')) as never));
      } catch {
        maps.set(url, undefined);
      }
    }
    return maps.get(url);
  };
  const own = new Map<number, string | undefined>();
  const fallback = new Map<number, string>();
  const parent = new Map<number, number>();
  for (const { id, callFrame, children } of profile.nodes) {
    for (const child of children ?? []) parent.set(child, id);
    const { url, functionName, lineNumber, columnNumber } = callFrame;
    if (url === '') fallback.set(id, `(${functionName.replace(/[()]/g, '') || 'native'})`);
    else if (url.startsWith('node:')) fallback.set(id, url.split('/').slice(0, 2).join('/'));
    else {
      const entry = mapOf(url)?.findEntry(lineNumber, columnNumber);
      const original = entry && 'originalSource' in entry ? entry.originalSource : undefined;
      own.set(
        id,
        original
          ? relative(ROOT, new URL(original, url).pathname).replace(
              /^node_modules\/((?:@[^/]+\/)?[^/]+)\/.*$/,
              '$1',
            )
          : undefined,
      );
      fallback.set(id, '(bundle, unmapped)');
    }
  }
  const cause = new Map<number, string>();
  const causeOf = (id: number): string => {
    const known = cause.get(id);
    if (known) return known;
    let node: number | undefined = id;
    let name: string | undefined;
    while (node !== undefined && name === undefined) {
      name = own.get(node);
      node = parent.get(node);
    }
    const found = name ?? fallback.get(id) ?? '?';
    cause.set(id, found);
    return found;
  };
  const totals = new Map<string, number>();
  profile.samples.forEach((id, i) => {
    const name = causeOf(id);
    totals.set(name, (totals.get(name) ?? 0) + (profile.timeDeltas[i] ?? 0) / 1000);
  });
  return totals;
};

const profileHandler = async (
  c: Container,
  url: string,
  queries: Captured[],
  log: (line: string) => void,
): Promise<Profile> => {
  const directory = join(ROOT, 'tools/bench/profile');
  await rm(directory, { recursive: true, force: true });
  await mkdir(directory, { recursive: true });
  const runs: Profile['runs'] = [];
  for (const only of ['repeated', 'fresh'] as const) {
    const count = WARMUPS + ITERATIONS;
    const settings = await settingsFor(c, url, queries, only === 'fresh' ? count : 0, {
      mode: 'warm',
      only,
      warmups: WARMUPS,
      iterations: ITERATIONS,
    });
    const dir = join(directory, only);
    const options = [c.env.NODE_OPTIONS ?? '', '--cpu-prof', `--cpu-prof-dir=${dir}`];
    await runChild(
      c.child,
      [c.handler, settings],
      { ...c.env, NODE_OPTIONS: options.join(' ').trim() },
      600_000,
      c.node,
    );
    const [file] = await readdir(dir);
    const totals = bySource(JSON.parse(readFileSync(join(dir, file ?? ''), 'utf8')) as CpuProfile);
    const idle = totals.get('(idle)') ?? 0;
    const cpuMs = [...totals.values()].reduce((a, b) => a + b, 0) - idle;
    const sorted = [...totals.entries()]
      .filter(([name]) => name !== '(idle)')
      .sort((a, b) => b[1] - a[1])
      .map(([source, ms]) => ({ source, ms: round(ms, 1) }));
    runs.push({ only, cpuMs: round(cpuMs, 1), bySource: sorted });
    log(
      `  profile, ${only} token, ${count} invocations: ${round(cpuMs, 0)} ms on CPU; ` +
        sorted
          .slice(0, 12)
          .map((s) => `${s.source} ${round((100 * s.ms) / cpuMs, 1)} %`)
          .join(', '),
    );
  }
  return { directory: relative(ROOT, directory), runs };
};
