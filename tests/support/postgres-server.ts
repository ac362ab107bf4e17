/**
 * A throwaway PostgreSQL server of the test's own, with the settings the test needs (password
 * authentication, TLS only, a second listen address): `initdb` into a temporary directory as
 * the postgres user (Debian's /usr/lib/postgresql/<version>/bin), on a free port, stopped and
 * removed by `stop`. Its superuser is `superuser` with `password`; local (Unix-socket)
 * connections are trusted, for `psql` and `createdb` at setup. Tests skip where there is no
 * initdb (`POSTGRES_BIN` undefined).
 */
import { execFileSync } from 'node:child_process';
import {
  appendFileSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './processes';

const PG_ROOT = '/usr/lib/postgresql';

/** The newest installed PostgreSQL's bin directory, or undefined. */
export const POSTGRES_BIN = ((): string | undefined => {
  if (!existsSync(PG_ROOT)) return undefined;
  const versions = readdirSync(PG_ROOT)
    .filter((version) => existsSync(join(PG_ROOT, version, 'bin', 'initdb')))
    .sort((a, b) => Number(b) - Number(a));
  return versions[0] === undefined ? undefined : join(PG_ROOT, versions[0], 'bin');
})();

/** pg_hba.conf: every user over TCP from 127.0.0.1, by password (SCRAM). */
export const PASSWORDS_OVER_TCP = ['host all all 127.0.0.1/32 scram-sha-256'];

export interface PostgresServerOptions {
  readonly superuser: string;
  readonly password: string;
  /** Lines of pg_hba.conf after `local all all trust`. */
  readonly hba: readonly string[];
  readonly listen?: readonly string[];
  /** Extra postgresql.conf lines (ssl = on, its files in the directory, …). */
  readonly settings?: (dir: string) => readonly string[];
  /** Runs in the directory before initdb (certificates); the directory then goes to postgres. */
  readonly prepare?: (dir: string) => void;
}

export interface PostgresServer {
  readonly dir: string;
  readonly port: number;
  /** Runs one of the server's programs as the postgres user. */
  asPostgres(command: string, args: readonly string[]): string;
  /** Runs SQL as the superuser over the Unix socket (trusted). */
  psql(database: string, statement: string): string;
  createDatabase(name: string): void;
  stop(): void;
}

/** Runs a command in `cwd`; its standard output. */
export const sh = (command: string, args: readonly string[], cwd: string): string =>
  execFileSync(command, args, { cwd, stdio: ['ignore', 'pipe', 'pipe'] }).toString();

export const startPostgresServer = async (
  options: PostgresServerOptions,
): Promise<PostgresServer> => {
  const bin = POSTGRES_BIN;
  if (!bin) throw new Error('no initdb on this machine');
  const dir = mkdtempSync(join(tmpdir(), 'portal-pg-'));
  const port = await freePort();
  const asPostgres = (command: string, args: readonly string[]): string =>
    sh('runuser', ['-u', 'postgres', '--', join(bin, command), ...args], dir);
  let started = false;
  const stop = (): void => {
    if (started) {
      try {
        asPostgres('pg_ctl', ['-D', join(dir, 'data'), '-m', 'immediate', '-w', 'stop']);
      } catch {
        // already gone
      }
      started = false;
    }
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    options.prepare?.(dir);
    writeFileSync(join(dir, 'password'), `${options.password}\n`);
    sh('chown', ['-R', 'postgres:postgres', dir], dir);
    const data = join(dir, 'data');
    asPostgres('initdb', [
      '-D', data, '-U', options.superuser, `--pwfile=${join(dir, 'password')}`,
      '--auth-local=trust', '--auth-host=scram-sha-256', '-E', 'UTF8', '--locale=C', '--no-sync',
    ]); // prettier-ignore
    appendFileSync(
      join(data, 'postgresql.conf'),
      [
        `listen_addresses = '${(options.listen ?? ['127.0.0.1']).join(',')}'`,
        `port = ${port}`,
        `unix_socket_directories = '${dir}'`,
        'fsync = off',
        'synchronous_commit = off',
        ...(options.settings?.(dir) ?? []),
        '',
      ].join('\n'),
    );
    writeFileSync(
      join(data, 'pg_hba.conf'),
      ['local all all trust', ...options.hba, ''].join('\n'),
    );
    asPostgres('pg_ctl', ['-D', data, '-l', join(dir, 'server.log'), '-w', '-t', '20', 'start']);
    started = true;
  } catch (error) {
    stop();
    throw error;
  }
  const psql = (database: string, statement: string): string =>
    asPostgres('psql', [
      '-h', dir, '-p', String(port), '-U', options.superuser, '-d', database,
      '-v', 'ON_ERROR_STOP=1', '-qAtc', statement,
    ]); // prettier-ignore
  return {
    dir,
    port,
    asPostgres,
    psql,
    createDatabase: (name) => {
      asPostgres('createdb', ['-h', dir, '-p', String(port), '-U', options.superuser, name]);
    },
    stop,
  };
};
