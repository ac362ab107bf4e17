/**
 * Checks, when packaging or deploying, the environment every function will get
 * (provider.environment, resolved) with the validators the functions run at initialisation:
 * shared/config.ts's loadConfig, loaded with tsx. A value the functions would refuse (an http
 * key-set URL, a DATABASE_URL that is no URL, DB_POOL_MAX=500, a malformed secret ARN, …) fails
 * packaging here, with loadConfig's message naming the variable, instead of every request of a
 * deployed stage. A value that came from a per-stage or per-region variable is named by it too
 * (JWK_URL_EU_PRODUCTION for JWKS_URL, JWT_ISSUER_EU_PRODUCTION for JWT_ISSUER).
 *
 * Then the worst case of one request under that configuration (shared/budget.ts) must fit below
 * the function timeout, which must fit below API Gateway's 29 s: otherwise packaging fails,
 * showing the sum.
 *
 * What only Lambda has is taken as given: AWS_SESSION_TOKEN and AWS_REGION (the region
 * packaged), set in every function, and the file a DB_CA path names (in the zip or a layer).
 * Local commands (`offline`, `invoke local`) are not checked: npm start and the local invoke
 * plugin fill the environment in themselves.
 */
'use strict';

const LOCAL_COMMANDS = ['offline', 'invoke'];

/** Where a function setting came from, when not from a variable of its own name. */
const SOURCES = [
  { setting: 'JWKS_URL', file: './tools/serverless/key-set-url.cjs' },
  { setting: 'JWT_ISSUER', file: './tools/serverless/issuer.cjs' },
];

/**
 * Checks `environment` (provider.environment, resolved) with `loadConfig`; `variableOf(file)`
 * names the variable the resolver in `file` read. Resolves, or rejects naming the variable.
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
    for (const { setting, file } of SOURCES) {
      if (!error.message.startsWith(`${setting} `)) continue;
      const variable = await variableOf(file);
      if (variable && variable !== setting) {
        throw new Error(`${variable} (the functions' ${setting}): ${error.message}`, {
          cause: error,
        });
      }
    }
    throw new Error(error.message, { cause: error });
  }
  if (budget) {
    const problem = budget.problem(budget.of(config), budget.timeoutSeconds);
    if (problem) throw new Error(problem);
  }
  return { checked: 'the functions accept this environment' };
};

module.exports = async ({ resolveVariable }) => {
  if (process.argv.slice(2).some((arg) => LOCAL_COMMANDS.includes(arg))) {
    return { checked: 'not checked: a local command' };
  }
  const environment = (await resolveVariable('self:provider.environment')) ?? {};
  const { tsImport } = await import('tsx/esm/api');
  const { loadConfig } = await tsImport('../../shared/config.ts', __filename);
  const { requestBudget, budgetProblem } = await tsImport('../../shared/budget.ts', __filename);
  const timeoutSeconds = Number(await resolveVariable('self:provider.timeout'));
  return checkEnvironment(
    environment,
    loadConfig,
    (file) => resolveVariable(`file(${file}):variable`),
    { of: requestBudget, problem: budgetProblem, timeoutSeconds },
    String(await resolveVariable('self:provider.region')),
  );
};

module.exports.checkEnvironment = checkEnvironment;
