/**
 * Concurrency, for information: Lambda runs one invocation at a time per container, so N
 * concurrent invocations are N containers. Here each is a process of its own
 * (tools/bench/invoke-child.ts on the packaged orders-per-day bundle, deployed Node and settings: a
 * pool of DB_POOL_MAX = 2), warmed up with 100 invocations, then all started together, each
 * invoking the handler with its own repeated token one at a time; 1, 8 and 32 processes
 * (1,600 invocations in all, at least 100 each), on the 1.2M-order data set for the busy
 * restaurant (31 days and a compare range). p50 and p99 of every invocation's latency. Once
 * straight to PostgreSQL, once through PgBouncer in transaction mode (DB_PREPARE=false) when a
 * `pgbouncer` binary is installed: started here on a free port with a configuration of its own
 * (8 server connections, statement_timeout ignored, `-u postgres` when run as root).
 */
import { execFileSync, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chmod, mkdir, writeFile } from 'node:fs/promises';
import { connect } from 'node:net';
import { join } from 'node:path';
import { freePort } from '../local/service';
import { loadAverage } from './deployed';
import { percentile, round } from './lib';
import { dataSet } from './queries';
import { busyEvent, busyToken, packagedContainer, type Container } from './warm';

const LEVELS = [1, 8, 32];
const INVOCATIONS = 1600;
const POOL_SIZE = 8;

export interface ConcurrencyRow {
  /** Straight to PostgreSQL, or through PgBouncer. */
  readonly path: string;
  readonly loadAverage: string;
  readonly processes: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly samples: number;
  /** Why a level could not be measured (a container's error). */
  readonly failed?: string;
}

export interface ConcurrencyResult {
  readonly rows: ConcurrencyRow[];
  readonly pgBouncer: string;
}

/** One container: a process of the packaged handler, warm once `ready` settles. */
const container = (c: Container, env: Record<string, string>, settings: string) => {
  const child = spawn(c.node, [c.child, c.handler, settings], {
    env: { PATH: process.env.PATH ?? '', ...env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  const chunks: Buffer[] = [];
  const output = () => Buffer.concat(chunks).toString();
  let err = '';
  let warm = false;
  let tail = '';
  const ready = new Promise<void>((resolve, reject) => {
    child.stdout.on('data', (chunk: Buffer) => {
      // The access lines are drained and kept as they come; the result line comes last.
      chunks.push(chunk);
      if (warm) return;
      const text = tail + chunk.toString();
      if (text.includes('\nREADY\n')) {
        warm = true;
        resolve();
      }
      tail = text.slice(-8);
    });
    child.on('close', () => {
      reject(
        new Error(
          `a container exited before it was warm: ${err.slice(-300)}\n${output().slice(-600)}`,
        ),
      );
    });
  });
  child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
  const done = new Promise<number[]>((resolve, reject) => {
    child.on('close', (code) => {
      const out = output();
      const line = out.slice(out.lastIndexOf('\nBENCH ') + 1);
      if (!line.startsWith('BENCH ')) {
        reject(new Error(`a container exited ${code}: ${err.slice(-300)}\n${out.slice(-600)}`));
      } else resolve((JSON.parse(line.slice(6)) as { times: number[] }).times);
    });
  });
  // Awaited only once every container is warm; a failure before then is reported by `ready`.
  done.catch(() => undefined);
  return { child, ready, done };
};

/**
 * Starts the containers four at a time, each warmed up (as Lambda's are before they take
 * traffic), then lets them all invoke together; returns every invocation's latency.
 */
const together = async (
  c: Container,
  env: Record<string, string>,
  settings: readonly string[],
): Promise<number[]> => {
  const started: ReturnType<typeof container>[] = [];
  try {
    for (let i = 0; i < settings.length; i += 4) {
      const batch = settings.slice(i, i + 4).map((file) => container(c, env, file));
      started.push(...batch);
      await Promise.all(batch.map((k) => k.ready));
    }
  } catch (error) {
    for (const k of started) k.child.kill('SIGKILL');
    throw error;
  }
  for (const k of started) k.child.stdin.end('go\n');
  return (await Promise.all(started.map((k) => k.done))).flat();
};

export const concurrency = async (log: (line: string) => void): Promise<ConcurrencyResult> => {
  const { url: databaseUrl } = dataSet(1);
  const c = await packagedContainer(databaseUrl, 'concurrency');
  try {
    const settingsFor = async (count: number, url: string, prepare: boolean) => {
      const files: string[] = [];
      for (let i = 0; i < count; i += 1) {
        const file = join(c.dir, `settings-${count}-${i}-${prepare}.json`);
        await writeFile(
          file,
          JSON.stringify({
            mode: 'concurrency',
            repeated: busyEvent(await busyToken(c.issuer, `process-${count}-${i}`)),
            fresh: [],
            queries: [],
            databaseUrl: url,
            prepare,
            warmups: 100,
            iterations: Math.max(100, Math.ceil(INVOCATIONS / count)),
          }),
        );
        files.push(file);
      }
      return files;
    };
    const run = async (url: string, prepare: boolean, path: string) => {
      const rows: ConcurrencyRow[] = [];
      for (const processes of LEVELS) {
        const files = await settingsFor(processes, url, prepare);
        const load = loadAverage();
        const env = { ...c.env, DATABASE_URL: url, DB_PREPARE: String(prepare) };
        let times: number[];
        try {
          times = await together(c, env, files);
        } catch (error) {
          const reason = error instanceof Error ? error.message : String(error);
          log(`  ${path}, ${processes} processes (load ${load}): FAILED ${reason}`);
          rows.push({
            path,
            loadAverage: load,
            processes,
            p50Ms: NaN,
            p99Ms: NaN,
            samples: 0,
            failed: reason,
          });
          continue;
        }
        const row = {
          path,
          loadAverage: load,
          processes,
          p50Ms: round(percentile(times, 50), 2),
          p99Ms: round(percentile(times, 99), 2),
          samples: times.length,
        };
        rows.push(row);
        log(
          `  ${path}, ${processes} processes (load ${load}): p50 ${row.p50Ms} ms, p99 ${row.p99Ms} ms`,
        );
      }
      return rows;
    };
    const rows = await run(databaseUrl, c.prepare, 'PostgreSQL');
    const bouncer = await startPgBouncer(c.dir, databaseUrl);
    let pgBouncer: string;
    if (typeof bouncer === 'string') pgBouncer = `not measured: ${bouncer}`;
    else {
      try {
        // Transaction pooling: no named statements (DB_PREPARE=false, as serverless.yml says).
        rows.push(...(await run(bouncer.url, false, 'PgBouncer')));
        pgBouncer = `${bouncer.version}, pool_mode transaction, default_pool_size ${POOL_SIZE}`;
      } finally {
        bouncer.stop();
      }
    }
    return { rows, pgBouncer };
  } finally {
    await c.close();
  }
};

interface Bouncer {
  readonly url: string;
  readonly version: string;
  readonly stop: () => void;
}

const PGBOUNCER_PATHS = ['/usr/sbin/pgbouncer', '/usr/bin/pgbouncer', '/usr/local/bin/pgbouncer'];

/** Starts PgBouncer in front of `databaseUrl`, or says why not. */
const startPgBouncer = async (dir: string, databaseUrl: string): Promise<Bouncer | string> => {
  const binary = PGBOUNCER_PATHS.find((path) => existsSync(path));
  if (!binary) return 'no pgbouncer binary installed (apt-get install pgbouncer)';
  const target = new URL(databaseUrl);
  const port = await freePort();
  const work = join(dir, 'pgbouncer');
  await mkdir(work, { recursive: true });
  const user = decodeURIComponent(target.username || 'postgres');
  await writeFile(join(work, 'users.txt'), `"${user}" ""\n`);
  await writeFile(
    join(work, 'pgbouncer.ini'),
    [
      '[databases]',
      `bench = host=${target.hostname} port=${target.port || '5432'} dbname=${target.pathname.slice(1)} user=${user}`,
      '[pgbouncer]',
      'listen_addr = 127.0.0.1',
      `listen_port = ${port}`,
      'unix_socket_dir =',
      'auth_type = trust',
      `auth_file = ${join(work, 'users.txt')}`,
      'pool_mode = transaction',
      `default_pool_size = ${POOL_SIZE}`,
      'max_client_conn = 200',
      // The service's startup parameter PgBouncer does not track (docs/database.md, "Behind a proxy").
      'ignore_startup_parameters = statement_timeout',
      `logfile = ${join(work, 'pgbouncer.log')}`,
      '',
    ].join('\n'),
  );
  const asRoot = process.getuid?.() === 0;
  if (asRoot) {
    await chmod(dir, 0o755);
    await chmod(work, 0o777);
  }
  const version = execFileSync(binary, ['--version'], { encoding: 'utf8' }).split('\n')[0] ?? '';
  const child = spawn(
    binary,
    [...(asRoot ? ['-u', 'postgres'] : []), join(work, 'pgbouncer.ini')],
    {
      stdio: 'ignore',
    },
  );
  const stop = () => {
    child.kill('SIGTERM');
  };
  const url = `postgres://${encodeURIComponent(user)}@127.0.0.1:${port}/bench`;
  for (let i = 0; i < 50; i += 1) {
    if (child.exitCode !== null) return `pgbouncer exited with ${child.exitCode}`;
    if (await accepts(port)) return { url, version, stop };
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  stop();
  return 'pgbouncer did not listen within 5 s';
};

const accepts = (port: number): Promise<boolean> =>
  new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.on('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.on('error', () => {
      resolve(false);
    });
  });
