/**
 * Applies the plain SQL migrations of shared/db/migrations in name order, each once, each in
 * its own transaction, under an advisory lock so two starters cannot race.
 */
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Sql } from '../../shared/db/client';

export const MIGRATIONS_DIR = join(import.meta.dirname, '../../shared/db/migrations');

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
    for (const name of files) {
      if (done.has(name)) continue;
      await tx.unsafe(await readFile(join(dir, name), 'utf8'));
      await tx`insert into schema_migrations (name) values (${name})`;
      applied.push(name);
    }
  });
  return applied;
};
