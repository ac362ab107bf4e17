/**
 * Resolves serverless.yml's `functions:` from the catalogue (shared/catalogue.ts) through
 * build/serverless.ts, loaded with tsx: each endpoint's function, handler, description and
 * routes. An invalid catalogue (a missing handler file, a repeated route, ...) fails packaging
 * with every problem named.
 */
'use strict';

module.exports = async () => {
  const { tsImport } = await import('tsx/esm/api');
  const { serverlessFunctions } = await tsImport('../../build/serverless.ts', __filename);
  return { functions: serverlessFunctions() };
};
