/**
 * A container of the packaged handler, in its own process: tools/bench/warm.ts and
 * tools/bench/concurrency.ts bundle this file (serverless.yml's esbuild settings) and run it on the
 * deployed Node. It requires the handler's bundle (argv[2]) and reads its settings from the
 * JSON file argv[3]; the handler's access lines go to stdout as deployed. Prints one
 * `BENCH {…}` line.
 *
 * - `warm`: per iteration, in an order rotating each iteration, the handler with the repeated
 *   token, the handler with a token it has never seen, and the same queries issued alone
 *   through postgres.js (a pool of its own: 2 connections, prepared as the handler's are), all
 *   one at a time; `only` keeps one of them (for a CPU profile).
 * - `concurrency`: after its warm-up, prints READY and waits for a line on stdin, then invokes
 *   the handler with its repeated token `iterations` times, one at a time.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import type { APIGatewayProxyEvent, Context } from 'aws-lambda';
import postgres from 'postgres';
import { benchContext } from './context';

interface Settings {
  readonly mode: 'warm' | 'concurrency';
  readonly only?: 'repeated' | 'fresh' | 'queries';
  readonly repeated: APIGatewayProxyEvent;
  readonly fresh: APIGatewayProxyEvent[];
  readonly queries: { string: string; parameters: string[] }[];
  readonly databaseUrl: string;
  readonly prepare: boolean;
  readonly warmups: number;
  readonly iterations: number;
}

type Handler = (
  event: APIGatewayProxyEvent,
  context: Context,
) => Promise<{ statusCode: number; body: string }>;

const [bundlePath = '', settingsFile = ''] = process.argv.slice(2);
const settings = JSON.parse(readFileSync(settingsFile, 'utf8')) as Settings;
const { handler } = createRequire(pathToFileURL(process.argv[1] ?? '').href)(bundlePath) as {
  handler: Handler;
};

const context = benchContext();

const now = (): bigint => process.hrtime.bigint();
const msSince = (start: bigint): number => Number(process.hrtime.bigint() - start) / 1e6;

const invoke = async (event: APIGatewayProxyEvent): Promise<void> => {
  const result = await handler(event, context);
  if (result.statusCode !== 200) throw new Error(`${result.statusCode}: ${result.body}`);
};

const quantile = (values: readonly number[], q: number): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)] ?? NaN;
};
const summary = (times: readonly number[]) => ({
  p50Ms: Math.round(quantile(times, 0.5) * 1000) / 1000,
  p99Ms: Math.round(quantile(times, 0.99) * 1000) / 1000,
  meanMs: Math.round((times.reduce((a, b) => a + b, 0) / times.length) * 1000) / 1000,
  samples: times.length,
});

const report = (result: object): void => {
  process.stdout.write(`\nBENCH ${JSON.stringify(result)}\n`);
};

const warm = async (): Promise<void> => {
  const sql = postgres(settings.databaseUrl, {
    max: 2,
    prepare: settings.prepare,
    fetch_types: false,
    onnotice: () => undefined,
  });
  let next = 0;
  const runs = {
    repeated: () => invoke(settings.repeated),
    fresh: () => {
      const event = settings.fresh[next];
      next += 1;
      if (!event) throw new Error('out of fresh tokens');
      return invoke(event);
    },
    queries: () =>
      Promise.all(
        settings.queries.map((q) =>
          sql.unsafe(q.string, q.parameters, { prepare: settings.prepare }),
        ),
      ),
  };
  const names = (Object.keys(runs) as (keyof typeof runs)[]).filter(
    (name) => settings.only === undefined || settings.only === name,
  );
  const times: Record<string, number[]> = Object.fromEntries(names.map((n) => [n, []]));
  for (let i = 0; i < settings.warmups + settings.iterations; i += 1) {
    for (let j = 0; j < names.length; j += 1) {
      const name = names[(i + j) % names.length] ?? 'repeated';
      const start = now();
      await runs[name]();
      if (i >= settings.warmups) times[name]?.push(msSince(start));
    }
  }
  await sql.end({ timeout: 1 });
  report(Object.fromEntries(Object.entries(times).map(([name, list]) => [name, summary(list)])));
};

const concurrency = async (): Promise<void> => {
  for (let i = 0; i < settings.warmups; i += 1) await invoke(settings.repeated);
  process.stdout.write('\nREADY\n');
  await new Promise((resolve) => process.stdin.once('data', resolve));
  const times: number[] = [];
  for (let i = 0; i < settings.iterations; i += 1) {
    const start = now();
    await invoke(settings.repeated);
    times.push(msSince(start));
  }
  report({ times });
};

(settings.mode === 'warm' ? warm() : concurrency()).then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(
      `${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
    );
    process.exit(1);
  },
);
