/**
 * `npm run new:report -- <name>` in a copy of the repository: it creates every file of a
 * report, wires it into serverless.yml, the catalogue, the manifest and the OpenAPI document,
 * and the new report passes the type check, the linter and its own tests as created, next to
 * the tests that hold serverless.yml, the catalogue and the documents equal.
 */
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT } from '../../support/processes';

const NAME = 'orders-by-state';
let copy = '';

/** Runs a node script in the copy, with none of this run's service settings. */
const inCopy = (args: readonly string[]) => {
  const env = Object.fromEntries(
    Object.entries(process.env).filter(
      ([key]) =>
        ![
          'DATABASE_URL',
          'JWKS_URL',
          'JWT_ISSUER',
          'TEST_DATABASE_URL',
          'LEGACY_PLATFORM_KEYS',
        ].includes(key),
    ),
  );
  try {
    return {
      code: 0,
      output: execFileSync(process.execPath, args, {
        cwd: copy,
        env,
        encoding: 'utf8',
        stdio: 'pipe',
      }),
    };
  } catch (error) {
    const failed = error as { status: number; stdout: string; stderr: string };
    return { code: failed.status, output: `${failed.stdout}${failed.stderr}` };
  }
};

beforeAll(() => {
  copy = mkdtempSync(join(tmpdir(), 'portal-new-report-'));
  const files = execFileSync('git', ['ls-files', '-co', '--exclude-standard'], {
    cwd: ROOT,
    encoding: 'utf8',
  })
    .split('\n')
    .filter((file) => file !== '' && existsSync(join(ROOT, file)));
  for (const file of files) cpSync(join(ROOT, file), join(copy, file), { recursive: true });
  symlinkSync(join(ROOT, 'node_modules'), join(copy, 'node_modules'));
});

afterAll(() => {
  rmSync(copy, { recursive: true, force: true });
});

describe('npm run new:report', () => {
  it('creates a report that type-checks, lints and passes its tests and the catalogue checks', () => {
    const created = inCopy(['node_modules/tsx/dist/cli.mjs', 'scripts/new-report.ts', NAME]);
    expect(created).toMatchObject({ code: 0 });

    for (const file of [
      `shared/reports/${NAME}.ts`,
      `shared/reports/queries/${NAME}.ts`,
      `functions/reports/${NAME}.ts`,
      `events/${NAME}.json`,
      `tests/unit/shared/reports/${NAME}.test.ts`,
      `tests/integration/functions/${NAME}.test.ts`,
    ]) {
      expect(existsSync(join(copy, file))).toBe(true);
    }
    const read = (file: string) => readFileSync(join(copy, file), 'utf8');
    expect(read('serverless.yml')).toContain(`handler: functions/reports/${NAME}.handler`);
    expect(read('shared/catalogue.ts')).toContain(
      `reportAt('ordersByState', ordersByState, '/v1/restaurants/{id}/reports/${NAME}')`,
    );
    expect(JSON.stringify(JSON.parse(read('docs/openapi.json')))).toContain(
      `/v1/restaurants/{id}/reports/${NAME}`,
    );
    expect(read('docs/portal-manifest.md')).toContain('Orders by state');

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
    const tests = inCopy([
      '--experimental-vm-modules',
      '--no-warnings=ExperimentalWarning',
      'node_modules/jest/bin/jest.js',
      `tests/unit/shared/reports/${NAME}.test.ts`,
      `tests/integration/functions/${NAME}.test.ts`,
      'tests/integration/openapi.test.ts',
      'tests/integration/functions/declarations.test.ts',
      'tests/unit/shared/reports/manifest.test.ts',
    ]);
    expect({ code: tests.code, failures: tests.output.match(/✕.*/g) ?? [] }).toEqual({
      code: 0,
      failures: [],
    });
  });

  it.each([
    ['a name that is not kebab-case', 'Orders_By_State', 'is not a kebab-case report name'],
    ['a report that exists', 'dishes', 'exists already'],
  ])('refuses %s and writes nothing', (_case, name, message) => {
    const before = readFileSync(join(copy, 'serverless.yml'), 'utf8');

    const refused = inCopy(['node_modules/tsx/dist/cli.mjs', 'scripts/new-report.ts', name]);

    expect(refused.code).toBe(2);
    expect(refused.output).toContain(message);
    expect(readFileSync(join(copy, 'serverless.yml'), 'utf8')).toBe(before);
  });
});
