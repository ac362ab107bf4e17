/**
 * Applies the plain SQL migrations of shared/db/migrations in name order, each once, each in
 * its own transaction, under an advisory lock so two starters cannot race. A database that has
 * applied a migration which is no longer one of the files is refused, unchanged: its schema is
 * not what the files build.
 */
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Sql } from '../../shared/db/client';

export const MIGRATIONS_DIR = join(import.meta.dirname, '../../shared/db/migrations');

/** One line: the applied migrations that are no longer files, and how to rebuild the database. */
const refusal = (gone: readonly string[]): string =>
  `this database has applied migrations that are no longer migration files (${gone.join(', ')}): ` +
  'drop the database and create it again, then run npm run db:migrate ' +
  "(npm start's embedded database is new on every start and needs nothing)";

export const migrate = async (sql: Sql, dir = MIGRATIONS_DIR): Promise<string[]> => {
  const files = (await readdir(dir)).filter((name) => name.endsWith('.sql')).sort();
  const applied: string[] = [];
  await sql.begin(async (tx) => {
    await tx`select pg_advisory_xact_lock(742019)`;
    await tx`create table if not exists schema_migrations (
      name text primary key, applied_at timestamptz not null default now())`;
    const done = new Set(
      (await tx<{ name: string }[]>`select name from schema_migrations`).map((row) => row.name),
    );
    const gone = [...done].filter((name) => !files.includes(name)).sort();
    if (gone.length > 0) throw new Error(refusal(gone));
    for (const name of files) {
      if (done.has(name)) continue;
      await tx.unsafe(await readFile(join(dir, name), 'utf8'));
      await tx`insert into schema_migrations (name) values (${name})`;
      applied.push(name);
    }
  });
  return applied;
};
