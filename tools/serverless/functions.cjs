/**
 * Resolves serverless.yml's `functions:` from the catalogue (shared/catalogue.ts) through
 * tools/generators/serverless.ts, loaded with tsx: each endpoint's function, handler, description and
 * routes, and the release's pre-traffic check. An invalid catalogue (a missing handler file, a repeated route, ...) fails packaging
 * with every problem named.
 *
 * `reservedConcurrency` is the connection budget's `resources.extensions`: each function's
 * reserved concurrency (RESERVED_CONCURRENCY, RESERVED_CONCURRENCY_<FUNCTION>), checked against
 * DB_MAX_CONNECTIONS with DB_POOL_MAX connections per container. A value out of range, or a budget over
 * DB_MAX_CONNECTIONS, fails packaging with a message naming the variable.
 */
'use strict';

/**
 * Serverless params win over the environment (`param:NAME`), as for the key-set URLs; except
 * DB_POOL_MAX, which provider.environment hands the functions from the environment only.
 */
const budgetSettings = async (resolveVariable, names) => {
  const settings = { DB_POOL_MAX: (process.env.DB_POOL_MAX ?? '').trim() };
  for (const name of names) {
    const param = resolveVariable ? await resolveVariable(`param:${name}, null`) : null;
    const value = param === null || param === undefined ? (process.env[name] ?? '') : String(param);
    settings[name] = value.trim();
  }
  return settings;
};

module.exports = async ({ resolveVariable } = {}) => {
  const { tsImport } = await import('tsx/esm/api');
  const build = await tsImport('../generators/serverless.ts', __filename);
  const functions = build.serverlessFunctions();
  const names = [
    'RESERVED_CONCURRENCY',
    ...Object.keys(functions).map(build.reservedConcurrencyVariable),
    'DB_MAX_CONNECTIONS',
  ];
  const budget = build.connectionBudget(await budgetSettings(resolveVariable, names));
  // The release's pre-traffic check (tools/generators/pre-traffic.ts): no route, no budget.
  const { preTrafficFunction } = await tsImport('../generators/pre-traffic.ts', __filename);
  return {
    functions: { ...functions, ...preTrafficFunction() },
    reservedConcurrency: build.reservedConcurrencyExtensions(budget),
  };
};
