/**
 * docs/configuration.md names every environment variable the service and its tools read, and
 * nothing they do not: the reads found in functions/, middleware/, shared/, tools/ and
 * serverless.yml (tests/support/environment-names.ts), with the settings registry's, against
 * the page's backticked names (a family, `BENCH_*` or `RESERVED_CONCURRENCY_<FUNCTION>`, covers
 * its members). Each documented name is read there or by the tests, or at least spelled in a
 * file that reads names it computes (`env[name]`).
 */
import { execFileSync } from 'node:child_process';
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { SETTINGS } from '../../../tools/generators/registry';
import {
  documentedIn,
  isDocumented,
  nameConstants,
  namesSpelled,
  readsOf,
  type Reads,
} from '../../support/environment-names';

const ROOT = join(import.meta.dirname, '../../..');
const PAGE = 'docs/configuration.md';
/** The page's budget, in bytes. */
const PAGE_BYTES = 15 * 1024;

/**
 * Read by code but not the page's to document, each for its reason. Lambda's own variables the
 * functions read (AWS_REGION, AWS_LAMBDA_FUNCTION_NAME, …) are on the page instead.
 */
const NOT_SETTINGS: ReadonlyMap<string, string> = new Map([
  ['PATH', 'where the tools find the programs they run'],
  ['INIT_CWD', 'set by npm: the folder npm was run in'],
]);

/** The files under `folders` (tracked, or new and not ignored) with one of `extensions`. */
const filesOf = (folders: readonly string[], extensions: RegExp): string[] =>
  execFileSync(
    'git',
    ['ls-files', '--cached', '--others', '--exclude-standard', '--', ...folders],
    { cwd: ROOT, encoding: 'utf8' },
  )
    .split('\n')
    .filter((file) => extensions.test(file))
    .filter((file) => statSync(join(ROOT, file), { throwIfNoEntry: false })?.isFile());

const CODE = /\.(?:ts|tsx|js|cjs|mjs)$/;
const texts = (files: readonly string[]) =>
  new Map(files.map((file) => [file, readFileSync(join(ROOT, file), 'utf8')]));

const runtime = texts([
  ...filesOf(['functions', 'middleware', 'shared', 'tools'], CODE),
  'serverless.yml',
]);
const tests = texts(filesOf(['tests', 'jest.config.js', 'stryker.config.mjs'], CODE));
const constants = nameConstants([...runtime.values(), ...tests.values()]);
const readsIn = (files: ReadonlyMap<string, string>): Map<string, Reads> =>
  new Map(
    [...files].map(([file, text]) => [
      file,
      readsOf(text, { constants, yaml: file.endsWith('.yml') }),
    ]),
  );

const runtimeReads = readsIn(runtime);
const testReads = readsIn(tests);
const page = readFileSync(join(ROOT, PAGE), 'utf8');
const documented = documentedIn(page);
const registry = SETTINGS.map((setting) => setting.name);

describe(PAGE, () => {
  it('documents every environment variable the code reads and every setting of the registry', () => {
    const undocumented = new Map<string, string[]>();
    const note = (name: string, where: string) => {
      if (isDocumented(name, documented) || NOT_SETTINGS.has(name)) return;
      undocumented.set(name, [...(undocumented.get(name) ?? []), where]);
    };
    for (const [file, { names }] of runtimeReads) for (const name of names) note(name, file);
    for (const name of registry) note(name, 'tools/generators/registry.ts');

    expect(Object.fromEntries(undocumented)).toEqual({});
  });

  it('documents only what some code reads', () => {
    const read = new Set([
      ...registry,
      ...[...runtimeReads.values(), ...testReads.values()].flatMap(({ names }) => [...names]),
      // Spelled in a file that reads names it computes: tools/plugin/deploy.ts's list, …
      ...[...runtime, ...tests]
        .filter(([file]) => (runtimeReads.get(file) ?? testReads.get(file))?.computed)
        .flatMap(([, text]) => [...namesSpelled(text)]),
    ]);
    const members = (name: string) =>
      [...documented.prefixes].some((prefix) => read.has(`${prefix}${name}`));
    const unread = [...documented.names].filter(
      (name) => !read.has(name) && !members(name) && !NOT_SETTINGS.has(name),
    );

    expect(unread).toEqual([]);
  });

  it('keeps the allow-list to names the code reads', () => {
    const read = new Set([...runtimeReads.values()].flatMap(({ names }) => [...names]));
    expect([...NOT_SETTINGS.keys()].filter((name) => !read.has(name))).toEqual([]);
  });

  it(`stays within ${String(PAGE_BYTES)} bytes`, () => {
    expect(Buffer.byteLength(page)).toBeLessThanOrEqual(PAGE_BYTES);
  });
});

describe('the scanner of environment reads', () => {
  it('finds each form of read', () => {
    const source = `
      const a = process.env.ALPHA ?? process.env['BETA'];
      const b = env.GAMMA?.trim() ?? env?.DELTA ?? env['EPSILON'] ?? environment.ZETA;
      const c = integer(env, 'ETA', LIMITS.ETA) + required(process.env, "THETA");
      const READY = 'IOTA';
      const d = process.env[READY];
      const { KAPPA, LAMBDA: lambda, ...rest } = process.env;
      const e = options.env.notAName + other.MU + env[computed];
      // \${env:XI} is serverless.yml's, not read here.`;

    const { names, computed } = readsOf(source);
    const yaml = readsOf("outputWorkFolder: ${env:NU, '.esbuild'}", { yaml: true });

    expect([...names].sort()).toEqual(
      ['ALPHA', 'BETA', 'DELTA', 'EPSILON', 'ETA', 'GAMMA', 'IOTA', 'KAPPA', 'LAMBDA', 'THETA']
        .concat(['ZETA'])
        .sort(),
    );
    expect(computed).toBe(true);
    expect([...yaml.names]).toEqual(['NU']);
  });

  it('reads names, families and nothing else from a page', () => {
    const { names, prefixes } = documentedIn(
      '- `ALPHA` (`2`), `BENCH_*`, `RESERVED_CONCURRENCY_<FUNCTION>`: `DISHES`; `AWS/…`, `SEED=true`, `X`',
    );
    const page = documentedIn('`BENCH_*`, `SEED=true`');

    expect({ names: [...names], prefixes: [...prefixes] }).toEqual({
      names: ['ALPHA', 'DISHES'],
      prefixes: ['BENCH_', 'RESERVED_CONCURRENCY_'],
    });
    expect(['BENCH_SCALE', 'SEED', 'BENCH_'].map((name) => isDocumented(name, page))).toEqual([
      true,
      true,
      false,
    ]);
  });

  it('fails on a read the page does not document, and on a name no code reads', () => {
    const page = documentedIn('- `ALPHA`: one.\n- `STALE`: gone.');
    const { names } = readsOf("const a = process.env.ALPHA; const b = env['PLANTED'];");

    expect([...names].filter((name) => !isDocumented(name, page))).toEqual(['PLANTED']);
    expect([...page.names].filter((name) => !names.has(name))).toEqual(['STALE']);
  });
});
