/**
 * npm run test:faults — database faults that need a real PostgreSQL server (TEST_DATABASE_URL):
 * PGlite has no statement timeout and no backends to terminate.
 * @type {import('jest').Config}
 */
import base from './jest.config.js';

export default {
  ...base,
  testMatch: ['<rootDir>/tests/faults/**/*.test.ts'],
  testPathIgnorePatterns: ['/node_modules/'],
};
