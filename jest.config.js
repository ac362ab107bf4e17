/**
 * Jest runs the TypeScript sources as native ES modules (Middy and jose ship ESM only):
 * SWC strips the types and keeps `import`/`export`; Node's VM modules load them.
 * @type {import('jest').Config}
 */
export default {
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
  testMatch: ['<rootDir>/tests/**/*.test.ts'],
  // Suites with needs of their own run by their own scripts (and in .ci/run):
  // tests/faults needs a real PostgreSQL (npm run test:faults), tests/browser Debian's
  // chromium (npm run test:browser), tests/lambda-runtime a built aws-lambda-ric (npm run test:lambda).
  testPathIgnorePatterns: [
    '/node_modules/',
    '<rootDir>/tests/faults/',
    '<rootDir>/tests/browser/',
    '<rootDir>/tests/lambda-runtime/',
  ],
  setupFiles: ['<rootDir>/tests/support/env.ts'],
  globalSetup: '<rootDir>/tests/support/global-setup.ts',
  globalTeardown: '<rootDir>/tests/support/global-teardown.ts',
  collectCoverageFrom: [
    'functions/**/*.ts',
    'middleware/**/*.ts',
    'shared/**/*.ts',
    'build/**/*.ts',
    // The reports plugin's DOM-free modules; its views are covered by the browser tests.
    'plugins/**/*.ts',
    '!**/*.d.ts',
  ],
  testTimeout: 30000,
};
