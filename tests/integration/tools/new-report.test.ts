/**
 * `npm run new:report -- <id>` in a copy of the repository: it writes the report's own files
 * and one catalogue line, from which serverless.yml's function and routes, the manifest and the
 * OpenAPI document follow; the new report passes the type check, the linter and its own tests
 * as created, and every suite that covers all endpoints (documents, declarations, the
 * generated functions, fuzz, authorisation matrix) finds it through the catalogue and passes
 * untouched. It answers --help, and refuses, writing nothing, an unknown option, a bad or taken
 * id, and no id or two.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { copyRepository, nodeIn, passedSuites } from '../../support/repository-copy';

/** A name no other test, document or example uses (the docs' example is orders-by-state). */
const NAME = 'scaffold-probe';
const CAMEL = 'scaffoldProbe';
let copy = '';
/** The copy's files as copied, before any command ran in it. */
let copied: ReadonlyMap<string, string> = new Map();

/** Runs a node script in the copy, with none of this run's service settings. */
const inCopy = (args: readonly string[]) => nodeIn(copy, args);

/** npm run new:report in the copy, its two streams apart. */
const newReport = (args: readonly string[]) => {
  const finished = spawnSync(
    process.execPath,
    ['node_modules/tsx/dist/cli.mjs', 'tools/new-report.ts', ...args],
    { cwd: copy, encoding: 'utf8' },
  );
  return { code: finished.status, stdout: finished.stdout, stderr: finished.stderr };
};

const USAGE = 'usage: npm run new:report -- <id>   (kebab-case, e.g. orders-by-state)';

beforeAll(() => {
  const { dir, files } = copyRepository('portal-new-report-');
  copy = dir;
  copied = new Map(files.map((file) => [file, readFileSync(join(dir, file), 'utf8')]));
});

afterAll(() => {
  rmSync(copy, { recursive: true, force: true });
});

describe('npm run new:report', () => {
  it('creates a report that type-checks, lints and passes its tests and the catalogue checks', () => {
    const created = inCopy(['node_modules/tsx/dist/cli.mjs', 'tools/new-report.ts', NAME]);
    expect(created).toMatchObject({ code: 0 });

    for (const file of [
      `shared/reports/${NAME}.ts`,
      `shared/reports/${NAME}.sql.ts`,
      `functions/${NAME}.ts`,
      `events/${NAME}.json`,
      `tests/unit/shared/reports/${NAME}.test.ts`,
      `tests/integration/functions/${NAME}.test.ts`,
    ]) {
      expect(existsSync(join(copy, file))).toBe(true);
    }
    const read = (file: string) => readFileSync(join(copy, file), 'utf8');
    // Of the files that were there, only the catalogue and the generated documents changed.
    const changed = [...copied].flatMap(([file, text]) => (text === read(file) ? [] : [file]));
    expect(changed.sort()).toEqual([
      'docs/configuration.md',
      'docs/openapi.json',
      'docs/portal-manifest.json',
      'docs/portal-manifest.md',
      'tools/catalogue.ts',
    ]);
    const catalogueLines = (text: string) => new Set(text.split('\n'));
    const before = catalogueLines(copied.get('tools/catalogue.ts') ?? '');
    expect(
      [...catalogueLines(read('tools/catalogue.ts'))].filter((line) => !before.has(line)),
    ).toEqual([
      `import { ${CAMEL} } from '../shared/reports/${NAME}';`,
      `  report(${CAMEL}, '/v1/restaurants/{id}/reports/${NAME}'),`,
    ]);
    const functions = inCopy([
      'node_modules/tsx/dist/cli.mjs',
      '--eval',
      `import('./tools/generators/serverless.ts').then(({ serverlessFunctions }) => process.stdout.write(JSON.stringify(serverlessFunctions().${CAMEL})))`,
    ]);
    expect(JSON.parse(functions.output)).toEqual({
      handler: `functions/${NAME}.handler`,
      description: 'Orders and sales per order state in the range.',
      events: [
        { http: { path: `/v1/restaurants/{id}/reports/${NAME}`, method: 'get' } },
        { http: { path: `/v1/restaurants/{id}/reports/${NAME}`, method: 'options' } },
      ],
    });
    expect(JSON.stringify(JSON.parse(read('docs/openapi.json')))).toContain(
      `/v1/restaurants/{id}/reports/${NAME}`,
    );
    expect(read('docs/portal-manifest.md')).toContain('Scaffold probe');
    expect(read('docs/configuration.md')).toContain(`\`${NAME.toUpperCase().replace(/-/g, '_')}\``);

    expect(inCopy(['node_modules/typescript/bin/tsc', '-p', '.'])).toEqual({ code: 0, output: '' });
    expect(
      inCopy([
        'node_modules/eslint/bin/eslint.js',
        'shared',
        'functions',
        'tests/unit/shared/reports',
        `tests/integration/functions/${NAME}.test.ts`,
      ]),
    ).toMatchObject({ code: 0 });
    // Both projects: the package test is a slow suite, the others are npm test's.
    const suites = [
      `tests/unit/shared/reports/${NAME}.test.ts`,
      `tests/integration/functions/${NAME}.test.ts`,
      'tests/integration/openapi.test.ts',
      'tests/integration/functions/declarations.test.ts',
      'tests/unit/generators/',
      'tests/unit/reports-plugin/',
      'tests/security/fuzz.test.ts',
      'tests/security/authorization-matrix.test.ts',
      'tests/integration/serverless/package.test.ts',
    ];
    const tests = nodeIn(
      copy,
      [
        '--experimental-vm-modules',
        '--no-warnings=ExperimentalWarning',
        'node_modules/jest/bin/jest.js',
        '--verbose',
        ...suites,
      ],
      { JEST_PROJECTS: 'test,slow' },
    );
    expect({ code: tests.code, failures: tests.output.match(/✕.*/g) ?? [] }).toEqual({
      code: 0,
      failures: [],
    });
    // Every suite ran (a suite outside the chosen projects would be skipped without a word).
    const passed = passedSuites(tests.output);
    expect(suites.filter((suite) => !passed.some((file) => file.startsWith(suite)))).toEqual([]);
  });

  it.each([
    ['a name that is not kebab-case', 'Orders_By_State', 'is not a kebab-case report name'],
    ['a report that exists', 'dishes', 'the catalogue has an endpoint dishes'],
    ['an id whose file exists', 'parameters', 'shared/reports/parameters.ts exists already'],
    ['an id the catalogue has', 'deploy-plugin', 'the catalogue has an endpoint deploy-plugin'],
    ['an id that is a reserved word', 'delete', 'a reserved word'],
    ['an id the catalogue declares', 'custom', 'a name tools/catalogue.ts has'],
  ])('refuses %s and writes nothing', (_case, name, message) => {
    const before = readFileSync(join(copy, 'tools/catalogue.ts'), 'utf8');

    const refused = inCopy(['node_modules/tsx/dist/cli.mjs', 'tools/new-report.ts', name]);

    expect(refused.code).toBe(2);
    expect(refused.output).toContain(message);
    expect(readFileSync(join(copy, 'tools/catalogue.ts'), 'utf8')).toBe(before);
  });

  it('answers --help and -h with its usage on standard output and exit 0, writing nothing', () => {
    // Arrange
    const before = readFileSync(join(copy, 'tools/catalogue.ts'), 'utf8');

    // Act
    const long = newReport(['help-probe', '--help']);
    const short = newReport(['-h']);

    // Assess
    const help = { code: 0, stdout: `${USAGE}\n`, stderr: '' };
    expect(long).toEqual(help);
    expect(short).toEqual(help);
    expect(existsSync(join(copy, 'shared/reports/help-probe.ts'))).toBe(false);
    expect(readFileSync(join(copy, 'tools/catalogue.ts'), 'utf8')).toBe(before);
  });

  it.each([
    ['an unknown option', ['unknown-probe', '--force'], "Unknown option '--force'."],
    ['no id', [], 'name the report'],
    [
      'two ids',
      ['unknown-probe', 'other-probe'],
      'one report at a time: unknown-probe other-probe',
    ],
  ])(
    'refuses %s with exit 2, one line before the usage, and writes nothing',
    (_case, args, start) => {
      // Arrange
      const before = readFileSync(join(copy, 'tools/catalogue.ts'), 'utf8');

      // Act
      const refused = newReport(args);

      // Assess
      const [line, usage, ...more] = refused.stderr.split('\n');
      expect({ code: refused.code, stdout: refused.stdout, usage, more }).toEqual({
        code: 2,
        stdout: '',
        usage: USAGE,
        more: [''],
      });
      expect(line?.startsWith(start)).toBe(true);
      expect(existsSync(join(copy, 'shared/reports/unknown-probe.ts'))).toBe(false);
      expect(readFileSync(join(copy, 'tools/catalogue.ts'), 'utf8')).toBe(before);
    },
  );
});
