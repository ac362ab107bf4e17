/**
 * npm run test:lambda — every packaged function booted by AWS's runtime interface client on the
 * Lambda runtime's Node (tests/lambda-runtime/, which `npm test` leaves out): the suite builds
 * aws-lambda-ric once (scripts/local/lambda-ric.ts) and packages the service.
 * @type {import('jest').Config}
 */
import base from './jest.config.js';

export default {
  ...base,
  testMatch: ['<rootDir>/tests/lambda-runtime/**/*.test.ts'],
  testPathIgnorePatterns: ['/node_modules/'],
};
