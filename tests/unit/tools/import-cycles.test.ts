/**
 * No import cycle (eslint.config.js, import-x/no-cycle): two modules planted in tools/ that
 * import each other fail the project's lint, each named; the same two without the way back, or
 * with it through a type-only import, pass. Only that rule runs, on the project's
 * configuration, without type information, in one process for every case.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));

/** The project's lint, no-cycle alone, on `files`: each message as `file:line rule`. */
const CYCLE_LINT = `
import { ESLint } from 'eslint';
const eslint = new ESLint({
  ruleFilter: ({ ruleId }) => ruleId === 'import-x/no-cycle',
  overrideConfig: { languageOptions: { parserOptions: { projectService: false } } },
});
const results = await eslint.lintFiles(process.argv.slice(1));
const lines = results.flatMap(({ filePath, messages }) =>
  messages.map((m) => filePath + ':' + m.line + ' ' + (m.ruleId ?? m.message)),
);
console.log(JSON.stringify(lines));
`;

/** a.ts imports b.ts's value; b.ts is `b`. */
const CASES = {
  cycle:
    "import { a } from './a';\nexport const b = 1;\nexport const twice = (): number => a * 2;\n",
  'no-way-back': 'export const b = 1;\n',
  'back-by-type': "import type { a } from './a';\nexport const b = 1;\nexport type A = typeof a;\n",
};

describe('the lint of import cycles', () => {
  // Inside the linted tree (tools/), so that the project's configuration applies.
  let dir = '';
  afterAll(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('fails two modules that import each other, naming both, and passes them otherwise', () => {
    // Prepare
    dir = mkdtempSync(join(ROOT, 'tools', '.cycle-probe-'));
    for (const [name, b] of Object.entries(CASES)) {
      mkdirSync(join(dir, name));
      writeFileSync(join(dir, name, 'a.ts'), "import { b } from './b';\nexport const a = b + 1;\n");
      writeFileSync(join(dir, name, 'b.ts'), b);
    }

    // Act: one run over every case
    const run = spawnSync(process.execPath, ['--input-type=module', '--eval', CYCLE_LINT, dir], {
      cwd: ROOT,
      encoding: 'utf8',
    });

    // Assess: a type-only way back leaves no trace at run time, so it is no cycle
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    const found = (JSON.parse(run.stdout) as string[]).map((line) => relative(dir, line));
    expect(found.sort()).toEqual([
      'cycle/a.ts:1 import-x/no-cycle',
      'cycle/b.ts:1 import-x/no-cycle',
    ]);
  });
});
