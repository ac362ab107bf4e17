/**
 * A real PgBouncer (Debian's `pgbouncer`) in `pool_mode = transaction`, started on a free port in
 * front of the PostgreSQL at `target`, with `serverConnections` server connections and no
 * `ignore_startup_parameters` (it refuses unknown startup parameters, as RDS Proxy does). Its
 * `asClient` database is the same database, logged in to as whoever the client is, so that a
 * role's own settings apply; `users` are the roles besides the target's that may log in.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import postgres from 'postgres';
import { freePort } from './processes';

const PGBOUNCER = process.env.PGBOUNCER_PATH ?? '/usr/sbin/pgbouncer';
/** PgBouncer's name for the database when it logs in as the client's own role. */
export const AS_CLIENT = 'as_client';

export interface PgBouncer {
  /** The target's database through PgBouncer, as the target's user. */
  readonly url: string;
  readonly port: number;
  /** Its admin console (simple protocol only). */
  readonly adminUrl: string;
  readonly log: () => string;
  readonly stop: () => Promise<void>;
}

const alive = (child: ChildProcess): boolean =>
  child.exitCode === null && child.signalCode === null;

export const startPgBouncer = async ({
  target,
  serverConnections,
  users = [],
}: {
  readonly target: URL;
  readonly serverConnections: number;
  readonly users?: readonly string[];
}): Promise<PgBouncer> => {
  if (!existsSync(PGBOUNCER)) {
    throw new Error(
      `${PGBOUNCER} not found: install Debian's pgbouncer (apt-get install pgbouncer), as .ci/run does`,
    );
  }
  const database = decodeURIComponent(target.pathname.slice(1));
  const user = decodeURIComponent(target.username) || 'postgres';
  const password = decodeURIComponent(target.password);
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'portal-pgbouncer-'));
  // pgbouncer refuses to run as root: it is started as `postgres` then (-u), and reads its files
  // and writes its log as that user.
  chmodSync(dir, 0o777);
  const location = [
    `host=${target.hostname}`,
    `port=${target.port || '5432'}`,
    `dbname=${database}`,
  ];
  const server = [...location, `user=${user}`, ...(password ? [`password=${password}`] : [])].join(
    ' ',
  );
  // With auth_type = trust PgBouncer still admits only the users of its auth_file.
  writeFileSync(
    join(dir, 'userlist.txt'),
    [user, ...users].map((name) => `"${name}" ""\n`).join(''),
    { mode: 0o644 },
  );
  writeFileSync(
    join(dir, 'pgbouncer.ini'),
    [
      '[databases]',
      `${database} = ${server}`,
      `${AS_CLIENT} = ${location.join(' ')}`,
      '[pgbouncer]',
      'listen_addr = 127.0.0.1',
      `listen_port = ${port}`,
      'unix_socket_dir =',
      'auth_type = trust',
      `auth_file = ${join(dir, 'userlist.txt')}`,
      `admin_users = ${user}`,
      'pool_mode = transaction',
      `default_pool_size = ${serverConnections}`,
      'min_pool_size = 0',
      'reserve_pool_size = 0',
      'max_client_conn = 200',
      `logfile = ${join(dir, 'pgbouncer.log')}`,
      '',
    ].join('\n'),
    { mode: 0o644 },
  );
  const asRoot = process.getuid?.() === 0;
  const bouncer = spawn(
    PGBOUNCER,
    [...(asRoot ? ['-u', 'postgres'] : []), join(dir, 'pgbouncer.ini')],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let output = '';
  bouncer.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  bouncer.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const base = `postgres://${encodeURIComponent(user)}@127.0.0.1:${port}`;
  const url = `${base}/${encodeURIComponent(database)}`;

  const stop = async () => {
    if (alive(bouncer)) {
      const exited = new Promise((resolve) => bouncer.once('exit', resolve));
      bouncer.kill('SIGTERM');
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([exited, new Promise((resolve) => (timer = setTimeout(resolve, 3000)))]);
      clearTimeout(timer);
      if (alive(bouncer)) bouncer.kill('SIGKILL');
    }
    rmSync(dir, { recursive: true, force: true });
  };

  const probe = postgres(url, { max: 1, prepare: false, onnotice: () => undefined });
  try {
    for (let attempt = 0; ; attempt += 1) {
      try {
        await probe`select 1`;
        break;
      } catch (error) {
        if (attempt >= 50 || !alive(bouncer)) {
          await stop();
          throw new Error(`pgbouncer did not start: ${String(error)}\n${output}`, {
            cause: error,
          });
        }
        // PgBouncer gives no sign of readiness but answering: each attempt is one more probe.
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }
  } finally {
    await probe.end({ timeout: 1 });
  }
  return { url, port, adminUrl: `${base}/pgbouncer`, log: () => output, stop };
};
