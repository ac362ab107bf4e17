/**
 * One Jest configuration, six projects; JEST_PROJECTS (comma-separated, default `test`) picks
 * which run, as each npm script sets it:
 * - `test` (npm test): unit, security, handler and database integration suites, end to end;
 * - `slow` (npm run test:all): every-region packaging, the scaffold, TLS and PgBouncer servers;
 * - `faults`: database faults that need a real PostgreSQL (TEST_DATABASE_URL);
 * - `browser`: the API and the preview in Debian's chromium;
 * - `lambda`: the packaged functions booted by aws-lambda-ric;
 * - `mutation`: the suites npm run test:mutation runs against each mutant (no database).
 * Jest runs the TypeScript sources as native ES modules (Middy and jose ship ESM only): SWC
 * strips the types and keeps `import`/`export`; Node's VM modules load them.
 * @type {import('jest').Config}
 */
const base = {
  testEnvironment: 'node',
  extensionsToTreatAsEsm: ['.ts'],
  transform: {
    '^.+\\.ts$': [
      '@swc/jest',
      {
        jsc: { parser: { syntax: 'typescript' }, target: 'es2022' },
        module: { type: 'es6' },
        sourceMaps: 'inline',
      },
    ],
  },
  setupFiles: ['<rootDir>/tests/support/env.ts'],
};

/** Suites that build packages, run the tools or start servers of their own: npm run test:all. */
const SLOW = [
  '<rootDir>/tests/integration/serverless/',
  '<rootDir>/tests/integration/tools/',
  '<rootDir>/tests/integration/db/tls.test.ts',
  '<rootDir>/tests/integration/db/pgbouncer.test.ts',
  '<rootDir>/tests/integration/db/replication.test.ts',
];
const OWN_PROJECTS = ['/tests/faults/', '/tests/browser/', '/tests/lambda-runtime/'];

const project = (displayName, testMatch, ignore = []) => ({
  ...base,
  displayName,
  testMatch,
  testPathIgnorePatterns: ['/node_modules/', ...ignore],
});

const PROJECTS = [
  project('test', ['<rootDir>/tests/**/*.test.ts'], [...SLOW, ...OWN_PROJECTS]),
  project(
    'slow',
    SLOW.map((path) => (path.endsWith('/') ? `${path}**/*.test.ts` : path)),
  ),
  project('faults', ['<rootDir>/tests/faults/**/*.test.ts']),
  project('browser', ['<rootDir>/tests/browser/**/*.test.ts']),
  project('lambda', ['<rootDir>/tests/lambda-runtime/**/*.test.ts']),
  // npm run test:mutation (stryker.config.mjs): the suites of what it mutates.
  project('mutation', [
    '<rootDir>/tests/unit/shared/auth/**/*.test.ts',
    '<rootDir>/tests/unit/middleware/**/*.test.ts',
    '<rootDir>/tests/unit/shared/reports/**/*.test.ts',
    // shared/auth against real local key-set servers (no database).
    '<rootDir>/tests/integration/auth/**/*.test.ts',
  ]),
];
const selected = (process.env.JEST_PROJECTS ?? 'test').split(',').map((name) => name.trim());
const unknown = selected.filter((name) => !PROJECTS.some((p) => p.displayName === name));
if (unknown.length > 0) throw new Error(`JEST_PROJECTS: no project named ${unknown.join(', ')}`);

export default {
  projects: PROJECTS.filter((p) => selected.includes(p.displayName)),
  testTimeout: 30000,
  // The mutation project needs no database: its setup serves only the key set.
  globalSetup: selected.every((name) => name === 'mutation')
    ? '<rootDir>/tests/support/global-setup-keys.ts'
    : '<rootDir>/tests/support/global-setup.ts',
  globalTeardown: '<rootDir>/tests/support/global-teardown.ts',
  collectCoverageFrom: [
    'functions/**/*.ts',
    'middleware/**/*.ts',
    'shared/**/*.ts',
    'tools/generators/**/*.ts',
    // The reports plugin's DOM-free modules; its views are covered by the browser tests.
    'tools/reports-plugin/**/*.ts',
    '!**/*.d.ts',
  ],
};
