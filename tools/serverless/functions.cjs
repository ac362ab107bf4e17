/**
 * Resolves serverless.yml's `functions:` from the catalogue (tools/catalogue.ts) through
 * tools/generators/serverless.ts, loaded with tsx: each endpoint's function, handler, description
 * and routes, with the timeout and memory the stage's rules give it (custom.stages.<stage>.functions),
 * the release's pre-traffic check and the heartbeat. An invalid catalogue (a missing handler file, a repeated
 * route, ...) fails packaging with every problem named.
 *
 * `reservedConcurrency` is the connection budget's `resources.extensions`: each function's
 * reserved concurrency (RESERVED_CONCURRENCY, RESERVED_CONCURRENCY_<FUNCTION>, each per stage and
 * region or from the stage's defaults), checked against DB_MAX_CONNECTIONS with DB_POOL_MAX
 * connections per container, all as tools/serverless/settings.cjs read them. A budget over
 * DB_MAX_CONNECTIONS fails packaging with the arithmetic.
 */
'use strict';

const { settingsOf, userError } = require('./settings.cjs');

module.exports = async ({ resolveVariable }) => {
  const { tsImport } = await import('tsx/esm/api');
  const build = await tsImport('../generators/serverless.ts', __filename);
  const { values, problems, rules } = await settingsOf(resolveVariable);
  let functions;
  try {
    functions = build.serverlessFunctions(undefined, rules.functions);
  } catch (error) {
    throw userError(error.message);
  }
  // The release's pre-traffic check (tools/generators/pre-traffic.ts) and the heartbeat
  // (tools/generators/heartbeat.ts): no route, no budget.
  const { preTrafficFunction } = await tsImport('../generators/pre-traffic.ts', __filename);
  const { heartbeatFunction } = await tsImport('../generators/heartbeat.ts', __filename);
  const all = { ...functions, ...preTrafficFunction(), ...heartbeatFunction() };
  // A refused setting is among custom.settingsCheck's problems.
  if (problems.length > 0) return { functions: all, reservedConcurrency: {} };
  const settings = Object.fromEntries(
    Object.entries(values).map(([name, { variable, value }]) => [name, { variable, value }]),
  );
  let budget;
  try {
    budget = build.connectionBudget(settings);
  } catch (error) {
    throw userError(error.message);
  }
  return { functions: all, reservedConcurrency: build.reservedConcurrencyExtensions(budget) };
};
