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
  setupFiles: ['<rootDir>/tests/support/env.ts'],
  globalSetup: '<rootDir>/tests/support/global-setup.ts',
  globalTeardown: '<rootDir>/tests/support/global-teardown.ts',
  collectCoverageFrom: ['functions/**/*.ts', 'middleware/**/*.ts', 'shared/**/*.ts'],
  testTimeout: 30000,
};
