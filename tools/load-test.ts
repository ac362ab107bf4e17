/**
 * npm run load -- [--requests 20000] [--connections 50] [--output FILE]
 *
 * A load test of `npm start`: starts the service itself on free ports (embedded database, local
 * issuer, serverless-offline), mints tokens with the local issuer, and sends a FIXED number of
 * requests with autocannon at a fixed concurrency: valid report calls and preflights (200),
 * another owner's restaurants (403), missing, forged and expired tokens (401) and bad dates
 * (400), rotated per connection. It counts every answer per kind of request, samples the
 * resident memory of the serverless-offline process tree before, during and after, and prints
 * the figures (also to FILE with --output, as Markdown).
 *
 * Not a timed pass/fail: it exits 1 only when an answer had a status (or error code) other than
 * the one its kind expects, or a request failed (connection error, timeout), or not every
 * request was answered. All traffic stays on 127.0.0.1/localhost.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { availableParallelism, cpus, release, totalmem, type } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { format, resolveConfig } from 'prettier';
import type { IsoDate } from '../shared/dates';
import { addDays, todayIn } from './dates';
import { claimsFor, SAMPLE_OWNER } from './db/sample-data';
import { createIssuer, loadOrCreateIssuer } from './local/issuer';
import { startService, TSX, type RunningService } from './local/service';
import { pluginReports } from './plugin/reports';

const ROOT = join(import.meta.dirname, '..');
const DEFAULTS = { requests: 20_000, connections: 50, output: '-' } as const;
const STARTUP_TIMEOUT_MS = 180_000;
/** Hard limit on the load phase: the run is stopped (and fails) beyond it. */
const LOAD_TIMEOUT_MS = 15 * 60_000;
const REQUEST_TIMEOUT_SECONDS = 10;
const SETTLE_MS = 5000;

// ---- autocannon (CommonJS, no type declarations): the part of its API used here ----------

interface Histogram {
  readonly average: number;
  readonly min: number;
  readonly max: number;
  readonly p50: number;
  readonly p90: number;
  readonly p97_5: number;
  readonly p99: number;
}
interface LoadResult {
  readonly duration: number;
  readonly requests: Histogram & { readonly total: number; readonly sent: number };
  readonly latency: Histogram;
  readonly throughput: Histogram & { readonly total: number };
  readonly errors: number;
  readonly timeouts: number;
  readonly non2xx: number;
  readonly statusCodeStats: Readonly<Record<string, { readonly count: number }>>;
}
interface LoadRequest {
  readonly method: 'GET' | 'OPTIONS';
  readonly path: string;
  readonly headers: Record<string, string>;
  readonly onResponse: (status: number, body: string) => void;
}
interface LoadOptions {
  readonly url: string;
  readonly connections: number;
  readonly amount: number;
  readonly timeout: number;
  readonly headers: Record<string, string>;
  readonly requests: readonly LoadRequest[];
}
interface LoadInstance {
  on(event: 'response', listener: () => void): void;
  stop(): void;
}
type Autocannon = (
  options: LoadOptions,
  done: (error: Error | null, result: LoadResult) => void,
) => LoadInstance;

const autocannon = createRequire(import.meta.url)('autocannon') as Autocannon;

// ---- arguments ----------------------------------------------------------------------------

const usage = 'usage: npm run load -- [--requests N] [--connections N] [--output FILE]';
const positive = (name: string, value: string, max: number): number => {
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed < 1 || parsed > max) {
    process.stderr.write(`--${name} must be a whole number from 1 to ${max}\n${usage}\n`);
    process.exit(2);
  }
  return parsed;
};
let values: { requests?: string; connections?: string; output?: string };
try {
  ({ values } = parseArgs({
    options: {
      requests: { type: 'string', default: String(DEFAULTS.requests) },
      connections: { type: 'string', default: String(DEFAULTS.connections) },
      output: { type: 'string', default: DEFAULTS.output },
    },
    strict: true,
  }));
} catch (error) {
  process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n${usage}\n`);
  process.exit(2);
}
const requests = positive('requests', values.requests ?? '', 1_000_000);
const connections = positive('connections', values.connections ?? '', 1000);
const output = values.output ?? DEFAULTS.output;

// ---- processes and memory -----------------------------------------------------------------

const readProc = (pid: number, file: string): string | undefined => {
  try {
    return readFileSync(`/proc/${pid}/${file}`, 'utf8');
  } catch {
    return undefined; // the process ended meanwhile
  }
};

/** Every running process and its parent, from /proc/<pid>/stat. */
const parents = (): Map<number, number> => {
  const map = new Map<number, number>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = readProc(Number(entry), 'stat');
    // "pid (comm) state ppid …": comm may hold spaces and parentheses, so read after the last ')'.
    const ppid = stat?.slice(stat.lastIndexOf(')') + 2).split(' ')[1];
    if (ppid !== undefined) map.set(Number(entry), Number(ppid));
  }
  return map;
};

/** `root` and all its descendants. */
const tree = (root: number, parentOf = parents()): number[] => {
  const found = [root];
  for (let index = 0; index < found.length; index++) {
    for (const [pid, ppid] of parentOf) if (ppid === found[index]) found.push(pid);
  }
  return found.filter((pid) => readProc(pid, 'stat') !== undefined);
};

/** VmRSS of one process, in bytes (0 once it has ended). */
const rssOf = (pid: number): number => {
  const kib = /^VmRSS:\s+(\d+) kB/m.exec(readProc(pid, 'status') ?? '')?.[1];
  return kib === undefined ? 0 : Number(kib) * 1024;
};

interface MemorySample {
  /** serverless-offline (the functions run in its worker threads) and its descendants. */
  readonly offline: number;
  /** Threads of the serverless-offline process: one worker thread per live container. */
  readonly threads: number;
  /** The whole `npm start` tree: also the embedded database and the local issuer. */
  readonly all: number;
}

let offlinePid: number | undefined;
const sampleMemory = (root: number): MemorySample => {
  const parentOf = parents();
  offlinePid ??= tree(root, parentOf).find((pid) =>
    (readProc(pid, 'cmdline') ?? '').includes('serverless.js\0offline'),
  );
  const sum = (pids: number[]) => pids.reduce((total, pid) => total + rssOf(pid), 0);
  const threads = /^Threads:\s+(\d+)/m.exec(
    offlinePid === undefined ? '' : (readProc(offlinePid, 'status') ?? ''),
  )?.[1];
  return {
    offline: offlinePid === undefined ? 0 : sum(tree(offlinePid, parentOf)),
    threads: Number(threads ?? 0),
    all: sum(tree(root, parentOf)),
  };
};

// ---- the service --------------------------------------------------------------------------

/** Access-log lines (one per request the functions answered), counted by status. */
const serverStatuses = new Map<number, number>();
/** Access-log lines marked as their container's first invocation: containers started. */
let coldStarts = 0;
/** Error and warning lines of the service, by message, error name and code. */
const serverProblems = new Map<string, number>();
let serverTail = '';
let partialLine = '';
const readServerOutput = (chunk: string) => {
  const text = partialLine + chunk;
  const lines = text.split('\n');
  partialLine = lines.pop() ?? '';
  for (const line of lines) {
    if (!line.startsWith('{')) continue;
    if (line.includes('"level":"error"') || line.includes('"level":"warn"')) {
      const field = (name: string) => new RegExp(`"${name}":"([^"]*)"`).exec(line)?.[1] ?? '';
      const key = [field('level'), field('message'), field('errorName'), field('errorCode')]
        .filter(Boolean)
        .join(' ');
      serverProblems.set(key, (serverProblems.get(key) ?? 0) + 1);
    }
    if (!line.includes('"message":"request"')) continue;
    if (line.includes('"coldStart":true')) coldStarts++;
    const status = /"status":(\d+)/.exec(line)?.[1];
    if (status !== undefined) {
      serverStatuses.set(Number(status), (serverStatuses.get(Number(status)) ?? 0) + 1);
    }
  }
};

/** The service's output: stdout is its log (counted); both streams feed the tail shown on failure. */
const onServiceOutput = (chunk: string, stream: 'stdout' | 'stderr') => {
  if (stream === 'stdout') readServerOutput(chunk);
  serverTail = (serverTail + chunk).slice(-8000);
};

// ---- the mix of requests ------------------------------------------------------------------

type Group = 'valid' | 'forbidden' | 'unauthenticated' | 'bad input';

interface Kind {
  readonly name: string;
  readonly group: Group;
  readonly method: 'GET' | 'OPTIONS';
  readonly path: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly expected: number;
  /** The spec error code the body must carry (errors only). */
  readonly code?: string;
  /** Share of the rotation. */
  readonly weight: number;
}

interface Tally {
  answers: number;
  unexpected: number;
  readonly statuses: Map<number, number>;
}

const buildKinds = async (): Promise<Kind[]> => {
  const issuer = await loadOrCreateIssuer(); // the key `npm start` serves (.data/issuer/)
  const owner = claimsFor(SAMPLE_OWNER);
  const token = await issuer.sign(owner, { expiresIn: '1h' });
  const expired = await issuer.sign(owner, { expiresIn: Math.floor(Date.now() / 1000) - 600 });
  const forged = await (await createIssuer(issuer.issuer)).sign(owner, { expiresIn: '1h' });
  const bearer = { Authorization: `Bearer ${token}` };
  const today = todayIn('Asia/Dubai');
  const week = `from=${addDays(today, -6)}&to=${today}`;
  const month = `${today.slice(0, 7)}-01` as IsoDate;
  const months = `from=${addDays(month, -60).slice(0, 7)}-01&to=${month}`;
  const r1001 = '/v1/restaurants/R-1001';
  const get = (
    group: Group,
    name: string,
    path: string,
    expected: number,
    weight: number,
    headers: Record<string, string> = bearer,
    code?: string,
  ): Kind => ({
    name,
    group,
    method: 'GET',
    path,
    headers,
    expected,
    weight,
    ...(code ? { code } : {}),
  });
  const kinds: Kind[] = [
    get('valid', 'orders per day', `${r1001}/reports/orders/day?${week}`, 200, 3),
    get(
      'valid',
      'orders per day with compare',
      `${r1001}/reports/orders/day?${week}&compare[from]=${addDays(today, -13)}&compare[to]=${addDays(today, -7)}`,
      200,
      2,
    ),
    get('valid', 'orders per day as CSV', `${r1001}/reports/orders/day?${week}&format=csv`, 200, 2),
    get('valid', 'dishes', `${r1001}/reports/dishes?${week}`, 200, 3),
    get(
      'valid',
      'dishes, platform named by its legacy key',
      `/v1/restaurants/R-1002/reports/dishes?${week}`,
      200,
      2,
      { ...bearer, 'X-Platform-Id': 'TBLEGACY_KW' },
    ),
    get('valid', 'revenue (alias)', `/res/R-1001/reports/revenue?${months}`, 200, 2),
    get('valid', 'orders today (alias)', '/res/R-1001/orders/today', 200, 2),
    get('valid', 'dashboard', `${r1001}/dashboard`, 200, 2),
    get('valid', 'plugins', '/v1/plugins', 200, 2),
    {
      name: 'preflight',
      group: 'valid',
      method: 'OPTIONS',
      path: `${r1001}/reports/dishes`,
      headers: {
        Origin: 'http://127.0.0.1:8080',
        'Access-Control-Request-Method': 'GET',
        'Access-Control-Request-Headers': 'authorization',
      },
      expected: 200,
      weight: 2,
    },
    get(
      'forbidden',
      "another owner's restaurant",
      `/v1/restaurants/R-2001/reports/dishes?${week}`,
      403,
      3,
      bearer,
      'FORBIDDEN',
    ),
    get(
      'forbidden',
      "another owner's dashboard (alias)",
      '/res/R-2001/dashboard',
      403,
      2,
      bearer,
      'FORBIDDEN',
    ),
    get(
      'forbidden',
      'own restaurant, platform not granted',
      `${r1001}/reports/orders/day?${week}`,
      403,
      2,
      { ...bearer, 'X-Platform-Id': 'FD_DE' },
      'FORBIDDEN',
    ),
    get(
      'unauthenticated',
      'no token',
      `${r1001}/reports/dishes?${week}`,
      401,
      2,
      {},
      'TOKEN_INVALID',
    ),
    get(
      'unauthenticated',
      'token signed by another key',
      `${r1001}/reports/dishes?${week}`,
      401,
      2,
      { Authorization: `Bearer ${forged}` },
      'TOKEN_INVALID',
    ),
    get(
      'unauthenticated',
      'expired token',
      `${r1001}/dashboard`,
      401,
      1,
      { Authorization: `Bearer ${expired}` },
      'TOKEN_EXPIRED',
    ),
    get(
      'bad input',
      'a date that does not exist',
      `${r1001}/reports/dishes?from=2026-02-30&to=2026-03-01`,
      400,
      2,
      bearer,
      'VALIDATION_ERROR',
    ),
    get(
      'bad input',
      'a range over 31 days',
      `${r1001}/reports/dishes?from=${addDays(today, -40)}&to=${today}`,
      400,
      2,
      bearer,
      'OUT_OF_RANGE',
    ),
    get('bad input', 'no dates', `${r1001}/reports/orders/day`, 400, 1, bearer, 'VALIDATION_ERROR'),
  ];
  return [...kinds, ...unnamedReports(kinds, { day: week, month: months }, bearer)];
};

/**
 * A valid call to every report of the catalogue the kinds above do not already ask for (a report
 * added with npm run new:report), over its day or month range, so the load reaches every report.
 */
const unnamedReports = (
  kinds: readonly Kind[],
  ranges: Readonly<Record<'day' | 'month', string>>,
  headers: Readonly<Record<string, string>>,
): Kind[] => {
  const asked = new Set(kinds.map((kind) => kind.path.split('?')[0]));
  return pluginReports().flatMap((report): Kind[] => {
    const path = report.path.replace('{id}', 'R-1001');
    if (asked.has(path)) return [];
    const query = report.range ? `?${ranges[report.range.granularity]}` : '';
    return [
      {
        name: report.id,
        group: 'valid',
        method: 'GET',
        path: `${path}${query}`,
        headers,
        expected: 200,
        weight: 1,
      },
    ];
  });
};

/** The rotation every connection walks through: the kinds interleaved by weight. */
const rotation = (kinds: readonly Kind[]): Kind[] => {
  const left = kinds.map((kind) => kind.weight);
  const order: Kind[] = [];
  while (left.some((count) => count > 0)) {
    kinds.forEach((kind, index) => {
      if ((left[index] ?? 0) > 0) {
        order.push(kind);
        left[index] = (left[index] ?? 0) - 1;
      }
    });
  }
  return order;
};

// ---- the run ------------------------------------------------------------------------------

const mib = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
const sign = (value: number) => (value >= 0 ? '+' : '−');
const signedMib = (bytes: number) => `${sign(bytes)}${mib(Math.abs(bytes))}`;
const signedCount = (value: number) => `${sign(value)}${Math.abs(value)}`;
const count = (value: number) => value.toLocaleString('en-US');
const statusList = (statuses: ReadonlyMap<number, number>) =>
  [...statuses]
    .sort(([a], [b]) => a - b)
    .map(([status, n]) => `${status}: ${count(n)}`)
    .join(', ') || '—';

const main = async (): Promise<number> => {
  process.stdout.write('Starting npm start …\n');
  let service: RunningService | undefined;
  const interrupt = () => {
    void (service?.stop() ?? Promise.resolve()).finally(() => process.exit(130));
  };
  process.once('SIGINT', interrupt);
  process.once('SIGTERM', interrupt);
  try {
    service = await startService({
      name: 'load',
      env: { LOG_LEVEL: 'info' },
      onOutput: onServiceOutput,
      readyTimeoutMs: STARTUP_TIMEOUT_MS,
    });
    // The log figures are the load's: not what came before readiness (the readiness probe's
    // request, answered by a cold start, or a probe that failed while the service came up).
    serverStatuses.clear();
    serverProblems.clear();
    coldStarts = 0;
    const { port } = service;
    const root = service.child.pid ?? 0;
    const kinds = await buildKinds();
    const tallies = new Map<Kind, Tally>(
      kinds.map((kind) => [kind, { answers: 0, unexpected: 0, statuses: new Map() }]),
    );
    const unexpectedExamples: string[] = [];
    const record = (kind: Kind) => (status: number, body: string) => {
      const tally = tallies.get(kind);
      if (!tally) return;
      tally.answers++;
      tally.statuses.set(status, (tally.statuses.get(status) ?? 0) + 1);
      const wrongCode = kind.code !== undefined && !body.includes(`"code":"${kind.code}"`);
      if (status !== kind.expected || wrongCode) {
        tally.unexpected++;
        if (unexpectedExamples.length < 10) {
          unexpectedExamples.push(`${kind.name}: ${status} ${body.slice(0, 200)}`);
        }
      }
    };
    const loadRequests: LoadRequest[] = rotation(kinds).map((kind) => ({
      method: kind.method,
      path: kind.path,
      headers: { ...kind.headers },
      onResponse: record(kind),
    }));

    const before = sampleMemory(root);
    const checkpoints = [0.25, 0.5, 0.75];
    const atCheckpoint: { share: number; memory: MemorySample }[] = [];
    let answered = 0;
    let peak = before;
    const sampler = setInterval(() => {
      const now = sampleMemory(root);
      peak = {
        offline: Math.max(peak.offline, now.offline),
        threads: Math.max(peak.threads, now.threads),
        all: Math.max(peak.all, now.all),
      };
    }, 250);

    process.stdout.write(
      `Sending ${count(requests)} requests over ${connections} connections to http://localhost:${port} …\n`,
    );
    const started = new Date();
    const result = await new Promise<LoadResult>((resolve, reject) => {
      const instance = autocannon(
        {
          url: `http://localhost:${port}`,
          connections,
          amount: requests,
          timeout: REQUEST_TIMEOUT_SECONDS,
          headers: {},
          requests: loadRequests,
        },
        (error, finished) => {
          clearTimeout(limit);
          if (error) reject(error);
          else resolve(finished);
        },
      );
      const limit = setTimeout(() => {
        instance.stop();
      }, LOAD_TIMEOUT_MS);
      instance.on('response', () => {
        answered++;
        const next = checkpoints[atCheckpoint.length];
        if (next !== undefined && answered >= next * requests) {
          atCheckpoint.push({ share: next, memory: sampleMemory(root) });
        }
      });
    });
    clearInterval(sampler);
    const atLastAnswer = sampleMemory(root);
    const total = [...tallies.values()].reduce((sum, tally) => sum + tally.answers, 0);
    // The access log trails the answers by a moment; wait (bounded) until it has them all.
    const logged = () => [...serverStatuses.values()].reduce((sum, n) => sum + n, 0);
    for (let waited = 0; logged() < total && waited < SETTLE_MS; waited += 100) {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
    const after = sampleMemory(root);
    peak = {
      offline: Math.max(peak.offline, atLastAnswer.offline, after.offline),
      threads: Math.max(peak.threads, atLastAnswer.threads, after.threads),
      all: Math.max(peak.all, atLastAnswer.all, after.all),
    };

    const unexpected = [...tallies.values()].reduce((sum, tally) => sum + tally.unexpected, 0);
    const failed = result.errors + result.timeouts;
    const incomplete = total < requests;
    const statuses = new Map(
      Object.entries(result.statusCodeStats).map(([status, { count: n }]) => [Number(status), n]),
    );
    const non2xx = new Map([...statuses].filter(([status]) => status < 200 || status > 299));
    const firstQuarter = atCheckpoint[0]?.memory ?? before;

    const groups: Group[] = ['valid', 'forbidden', 'unauthenticated', 'bad input'];
    const groupShare = (group: Group) => {
      const sent = [...tallies]
        .filter(([kind]) => kind.group === group)
        .reduce((sum, [, tally]) => sum + tally.answers, 0);
      return `${group} ${count(sent)} (${((sent / Math.max(total, 1)) * 100).toFixed(0)}%)`;
    };
    const report = [
      '# Load test',
      '',
      'Latest output of `npm run load` (`tools/load-test.ts`). It starts `npm start` (serverless-offline',
      'with the embedded PGlite database and the local issuer) on free ports, mints tokens with the',
      'local issuer, and sends a fixed number of requests with autocannon at a fixed concurrency: a',
      'mix of valid, forbidden, unauthenticated and invalid requests, each kind checked against the',
      'status (and error code) it must get. It is not a timed pass/fail: it fails only on an',
      'unexpected status, a request error or timeout, or an unanswered request. Client and server',
      'share the same machine (and its cores), so the throughput is a floor, not a capacity figure.',
      '"Containers started" counts cold starts (the access log\'s `coldStart`): serverless-offline',
      'starts a new container (a worker thread, unless `useInProcess`) whenever an invocation finds',
      'no idle one of its function, with no cap, and each container has its own key-set cache and',
      'database pool. The figures from the access log start once `npm start` is ready, so they',
      'leave out its readiness probe (one orders-per-day request, and the cold start it causes).',
      '',
      `- Date: ${started.toISOString()}`,
      `- Machine: ${availableParallelism()} CPUs (\`nproc\`; ${cpus()[0]?.model.trim() ?? 'unknown model'}), ${mib(totalmem())} memory, ${type()} ${release()}`,
      `- Node.js ${process.version}`,
      `- Command: \`npm run load -- --requests ${requests} --connections ${connections}\``,
      '',
      '## Result',
      '',
      '| Figure | Value |',
      '| --- | --- |',
      `| Requests | ${count(requests)} asked, ${count(result.requests.sent)} sent, ${count(total)} answered |`,
      `| Mix | ${groups.map(groupShare).join(', ')} |`,
      `| Concurrent connections | ${connections} |`,
      `| Duration | ${result.duration.toFixed(1)} s |`,
      `| Requests/s | ${(total / Math.max(result.duration, 0.001)).toFixed(0)} (mean of 1 s samples ${result.requests.average.toFixed(0)}) |`,
      `| Latency p50 / p90 / p99 / max | ${result.latency.p50} / ${result.latency.p90} / ${result.latency.p99} / ${result.latency.max} ms (mean ${result.latency.average.toFixed(1)} ms) |`,
      `| Statuses | ${statusList(statuses)} |`,
      `| Non-2xx by status | ${statusList(non2xx)} (${count(result.non2xx)} in all) |`,
      `| Errors / timeouts | ${result.errors} / ${result.timeouts} |`,
      `| **Unexpected statuses (or error codes)** | **${unexpected}** |`,
      `| Server access log, by status | ${statusList(serverStatuses)} |`,
      `| Containers started (access-log \`coldStart\`) | ${count(coldStarts)} |`,
      `| Server error/warning log lines | ${
        [...serverProblems]
          .sort(([, a], [, b]) => b - a)
          .map(([problem, n]) => `${problem}: ${count(n)}`)
          .join('; ') || 'none'
      } |`,
      '',
      '## By kind of request',
      '',
      '| Kind | Group | Request | Expected | Answered | Statuses seen | Unexpected |',
      '| --- | --- | --- | --- | --- | --- | --- |',
      ...kinds.map((kind) => {
        const tally = tallies.get(kind);
        const path = kind.path.replace(/\?.*/, '?…');
        return `| ${kind.name} | ${kind.group} | \`${kind.method} ${path}\` | ${kind.expected}${kind.code ? ` ${kind.code}` : ''} | ${count(tally?.answers ?? 0)} | ${statusList(tally?.statuses ?? new Map<number, number>())} | ${tally?.unexpected ?? 0} |`;
      }),
      '',
      '## Memory (resident set size)',
      '',
      'VmRSS from `/proc/<pid>/status`, summed over the serverless-offline process (which runs the',
      'functions) and its descendants, and over the whole `npm start` tree (which',
      'also holds the embedded database and the local issuer). "Memory flat" means the steady-state',
      'change (from a quarter of the requests to the last answer) is small next to the total, not a',
      'growth with the number of requests.',
      '',
      '| Moment | serverless-offline tree | its threads | whole npm start tree |',
      '| --- | --- | --- | --- |',
      `| before the load (service ready, idle) | ${mib(before.offline)} | ${before.threads} | ${mib(before.all)} |`,
      ...atCheckpoint.map(
        ({ share, memory }) =>
          `| after ${share * 100}% of the requests | ${mib(memory.offline)} | ${memory.threads} | ${mib(memory.all)} |`,
      ),
      `| at the last answer | ${mib(atLastAnswer.offline)} | ${atLastAnswer.threads} | ${mib(atLastAnswer.all)} |`,
      `| peak (sampled every 250 ms) | ${mib(peak.offline)} | ${peak.threads} | ${mib(peak.all)} |`,
      `| end (${SETTLE_MS / 1000} s after the last answer) | ${mib(after.offline)} | ${after.threads} | ${mib(after.all)} |`,
      `| change, end − before | ${signedMib(after.offline - before.offline)} | ${signedCount(after.threads - before.threads)} | ${signedMib(after.all - before.all)} |`,
      `| change, last answer − 25% of the requests | ${signedMib(atLastAnswer.offline - firstQuarter.offline)} | ${signedCount(atLastAnswer.threads - firstQuarter.threads)} | ${signedMib(atLastAnswer.all - firstQuarter.all)} |`,
      '',
      ...(unexpectedExamples.length > 0
        ? [
            '## Unexpected answers (first ten)',
            '',
            ...unexpectedExamples.map((line) => `- \`${line}\``),
            '',
          ]
        : []),
    ].join('\n');

    process.stdout.write(`\n${report}\n`);
    if (output !== '-') {
      const file = resolve(ROOT, output);
      // Formatted as Prettier wants it, so a report kept in the repository passes format:check.
      const options = (await resolveConfig(file)) ?? {};
      await writeFile(file, await format(report, { ...options, filepath: file }));
      process.stdout.write(`Written to ${output}\n`);
    }
    if (unexpected > 0 || failed > 0 || incomplete) {
      process.stderr.write(
        `FAILED: ${unexpected} unexpected statuses, ${result.errors} errors, ${result.timeouts} timeouts, ${count(total)} of ${count(requests)} answered\n`,
      );
      return 1;
    }
    return 0;
  } catch (error) {
    process.stderr.write(
      `${error instanceof Error ? error.message : String(error)}\n--- npm start output (tail) ---\n${serverTail}\n`,
    );
    return 1;
  } finally {
    await service?.stop();
  }
};

if (!existsSync(TSX)) {
  process.stderr.write('node_modules is missing: run npm ci first\n');
  process.exit(2);
}
process.exit(await main());
