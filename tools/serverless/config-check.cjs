/**
 * Checks, when packaging or deploying, the environment every function will get
 * (provider.environment, resolved) with the validators the functions run at initialisation:
 * shared/config.ts's loadConfig, loaded with tsx. A value the functions would refuse (an http
 * key-set URL, a DATABASE_URL that is no URL, DB_POOL_MAX=500, a malformed secret ARN, …) fails
 * packaging here, with loadConfig's message naming the variable, instead of every request of a
 * deployed stage. A value that came from a per-stage or per-region variable is named by it too
 * (JWK_URL_EU_PRODUCTION for JWKS_URL, JWT_AUDIENCE_PRODUCTION for JWT_AUDIENCE).
 *
 * Then the worst case of one request under that configuration (tools/budget.ts) must fit below
 * the function timeout, which must fit below API Gateway's 29 s: otherwise packaging fails,
 * showing the sum.
 *
 * What only Lambda has is taken as given: AWS_SESSION_TOKEN and AWS_REGION (the region
 * packaged), set in every function, and the file a DB_CA path names (in the zip or a layer).
 * Local commands (`offline`, `invoke local`) are not checked: npm start and the local invoke
 * plugin fill the environment in themselves.
 */
'use strict';

const { settingsOf, userError } = require('./settings.cjs');

/**
 * Checks `environment` (provider.environment, resolved) with `loadConfig`; `variableOf(setting)`
 * names the variable packaging read the setting from. Resolves, or rejects naming the variable.
 */
const checkEnvironment = async (environment, loadConfig, variableOf, budget, region) => {
  const env = Object.fromEntries(
    Object.entries(environment).map(([name, value]) => [name, value == null ? '' : String(value)]),
  );
  env.AWS_SESSION_TOKEN = 'set-by-lambda';
  env.AWS_REGION = region;
  if (env.DB_CA && env.DB_CA.includes('/')) env.DB_CA = '';
  let config;
  try {
    config = loadConfig(env);
  } catch (error) {
    if (!(error instanceof Error) || error.name !== 'ConfigError') throw error;
    const setting = error.message.split(' ', 1)[0];
    const variable = variableOf(setting);
    throw userError(
      variable && variable !== setting
        ? `${variable} (the functions' ${setting}): ${error.message}`
        : error.message,
    );
  }
  if (budget) {
    const problem = budget.problem(budget.of(config), budget.timeoutSeconds);
    if (problem) throw userError(problem);
  }
  return { checked: 'the functions accept this environment' };
};

module.exports = async ({ resolveVariable }) => {
  const { values, problems, local, scope } = await settingsOf(resolveVariable);
  if (local) return { checked: 'not checked: a local command' };
  // A refused setting is among custom.settingsCheck's problems.
  if (problems.length > 0) return { checked: 'not checked: settings refused' };
  const environment = (await resolveVariable('self:provider.environment')) ?? {};
  const { tsImport } = await import('tsx/esm/api');
  const { loadConfig } = await tsImport('../../shared/config.ts', __filename);
  const { requestBudget, budgetProblem } = await tsImport('../budget.ts', __filename);
  const timeoutSeconds = Number(await resolveVariable('self:provider.timeout'));
  return checkEnvironment(
    environment,
    loadConfig,
    (setting) => values[setting]?.variable,
    { of: requestBudget, problem: budgetProblem, timeoutSeconds },
    scope.region,
  );
};

module.exports.checkEnvironment = checkEnvironment;
