/**
 * npm run test:mutation (outside CI): Stryker mutates the token and request chain
 * (shared/auth, middleware) and the reports' domain code (shared/reports, without the SQL of
 * `*.sql.ts`, which only a database run can judge) and runs the suites that cover them
 * against each mutant; the score says how much of what those suites run they would notice
 * changed (docs/testing.md). Incremental: a rerun tests only mutants whose code or covering
 * tests changed since reports/mutation/incremental.json.
 * Jest runs as npm test does, as native ES modules, with the `mutation` project of
 * jest.config.js; the HTML report is written to reports/mutation/.
 * @type {import('@stryker-mutator/api/core').PartialStrykerOptions}
 */
export default {
  testRunner: 'jest',
  testRunnerNodeArgs: ['--experimental-vm-modules', '--no-warnings=ExperimentalWarning'],
  jest: { projectType: 'custom', configFile: 'jest.config.js', enableFindRelatedTests: false },
  mutate: [
    'shared/auth/**/*.ts',
    'middleware/**/*.ts',
    'shared/reports/**/*.ts',
    '!shared/reports/**/*.sql.ts',
    '!**/*.d.ts',
  ],
  incremental: true,
  incrementalFile: 'reports/mutation/incremental.json',
  coverageAnalysis: 'perTest',
  ignoreStatic: true,
  concurrency: 2,
  reporters: ['clear-text', 'progress', 'html', 'json'],
  htmlReporter: { fileName: 'reports/mutation/index.html' },
  jsonReporter: { fileName: 'reports/mutation/mutation.json' },
  tempDirName: '.stryker-tmp',
  cleanTempDir: 'always',
};
