/**
 * A scratch copy of the repository (its tracked and new files, this checkout's node_modules
 * linked in) for tests that change the sources as a developer would, and a way to run Node
 * scripts in it with none of this run's service settings.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT } from './processes';

export interface RepositoryCopy {
  readonly dir: string;
  /** The repository's files copied, relative to its root. */
  readonly files: readonly string[];
}

export const copyRepository = (prefix: string): RepositoryCopy => {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  const files = execFileSync('git', ['ls-files', '-co', '--exclude-standard'], {
    cwd: ROOT,
    encoding: 'utf8',
  })
    .split('\n')
    .filter((file) => file !== '' && existsSync(join(ROOT, file)));
  for (const file of files) cpSync(join(ROOT, file), join(dir, file), { recursive: true });
  symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'));
  return { dir, files };
};

const SERVICE_SETTINGS = [
  'DATABASE_URL',
  'JWKS_URL',
  'JWT_ISSUER',
  'TEST_DATABASE_URL',
  'LEGACY_PLATFORM_KEYS',
  'JEST_PROJECTS',
];

/**
 * `node <args>` in `dir`, with `env` added to this environment less its service settings and
 * its JEST_PROJECTS: the exit code and the output, both streams together.
 */
export const nodeIn = (
  dir: string,
  args: readonly string[],
  env: Readonly<Record<string, string>> = {},
): { code: number; output: string } => {
  const environment = {
    ...Object.fromEntries(
      Object.entries(process.env).filter(([key]) => !SERVICE_SETTINGS.includes(key)),
    ),
    ...env,
  };
  const run = spawnSync(process.execPath, args, {
    cwd: dir,
    env: environment,
    encoding: 'utf8',
  });
  return { code: run.status ?? -1, output: `${run.stdout}${run.stderr}` };
};

/** The test files Jest's output says passed (`PASS [project] tests/…`). */
export const passedSuites = (output: string): string[] =>
  [...output.matchAll(/^\s*PASS\s+(?:\S+\s+)?(tests\/\S+)/gm)].flatMap((match) =>
    match[1] === undefined ? [] : [match[1]],
  );
