/**
 * npm run test:browser — the API from a page on another origin in headless Chromium (Debian's
 * `chromium` package, driven by playwright-core; no browser is downloaded).
 * @type {import('jest').Config}
 */
import base from './jest.config.js';

export default {
  ...base,
  testMatch: ['<rootDir>/tests/browser/**/*.test.ts'],
  testPathIgnorePatterns: ['/node_modules/'],
};
