/**
 * The settings of the stage and region being packaged, read once per osls process for every
 * resolver here (tools/generators/settings-check.ts): each setting of
 * tools/generators/registry.ts from its serverless param or environment variable, in the
 * documented precedence, over the stage's defaults of `custom.stages`. A param, even an empty
 * one, wins over the environment.
 *
 * `settingsOf(resolveVariable)` is what the other resolvers read: `values` (each with the variable
 * it came from), `problems`, `warnings`, `rules` (the stage's), `scope` and `read` (one
 * variable's value). A resolver that meets a
 * problem leaves it to custom.settingsCheck (settings-check.cjs), which refuses packaging with
 * every problem at once. As a file source, this module gives serverless.yml `environment`: the
 * functions' settings by name.
 */
'use strict';

const LOCAL_COMMANDS = ['offline', 'invoke'];

/** The value of `name`: the serverless param of that name if there is one, else the environment's. */
const fromParamsOrEnv = async (resolveVariable, name) => {
  const param = await resolveVariable(`param:${name}, null`);
  const value = param === null || param === undefined ? (process.env[name] ?? '') : String(param);
  return value.trim();
};

let modules;
/** The TypeScript rules, loaded with tsx once. */
const rules = () => {
  modules ??= import('tsx/esm/api').then(async ({ tsImport }) => ({
    variables: await tsImport('../generators/variables.ts', __filename),
    registry: await tsImport('../generators/registry.ts', __filename),
    stages: await tsImport('../generators/stages.ts', __filename),
    check: await tsImport('../generators/settings-check.ts', __filename),
  }));
  return modules;
};

/** The stage and region being packaged, and whether the stage has a portal environment. */
const scopeOf = async (resolveVariable) => {
  const stage = String(await resolveVariable('sls:stage'));
  const region = String(await resolveVariable('self:provider.region'));
  const portalStages = (await resolveVariable('self:custom.keySetVariables')) ?? {};
  return { stage, region, portal: Object.hasOwn(portalStages, stage) };
};

/** A portal stage's portal region in the region, and the variables of its key set and issuer. */
const portalVariablesOf = async (resolveVariable, { stage, region, portal }) => {
  if (!portal) return undefined;
  const regions = (await resolveVariable('self:custom.portalRegions')) ?? {};
  const keySets = (await resolveVariable('self:custom.keySetVariables')) ?? {};
  const issuers = (await resolveVariable('self:custom.issuerVariables')) ?? {};
  const portalRegion = regions[region] ?? '';
  return {
    portalRegion,
    keySet: keySets[stage]?.[portalRegion] ?? '',
    issuer: issuers[stage]?.[portalRegion] ?? '',
  };
};

/** An error osls prints as its message alone: a refused setting is no bug to trace. */
const userError = (message) => {
  const error = new Error(message);
  error.stack = message;
  return error;
};

let read;
/** The settings of this package, read once it can be. */
const settingsOf = (resolveVariable) => {
  read ??= (async () => {
    const { variables, registry, stages, check } = await rules();
    const scope = await scopeOf(resolveVariable);
    const table = await resolveVariable('self:custom.stages, null');
    const { rules: stageRules, problem: tableProblem } = stages.stageRulesOrProblem(
      table,
      scope.stage,
    );
    const portalVariables = await portalVariablesOf(resolveVariable, scope);
    const names = new Set(['JWKS_URL', 'JWT_ISSUER']);
    if (portalVariables)
      [portalVariables.keySet, portalVariables.issuer].forEach((name) => names.add(name));
    for (const { name } of registry.SETTINGS) {
      for (const variable of [
        ...variables.stagedNames(name, scope),
        ...variables.unstagedNames(name, scope),
      ]) {
        names.add(variable);
      }
    }
    const found = new Map();
    for (const name of names) {
      if (name !== '') found.set(name, await fromParamsOrEnv(resolveVariable, name));
    }
    const local = process.argv.slice(2).some((arg) => LOCAL_COMMANDS.includes(arg));
    const readVariable = (variable) => found.get(variable) ?? '';
    const result = check.readSettings({
      scope,
      rules: stageRules,
      read: readVariable,
      ...(portalVariables ? { portalVariables } : {}),
      local,
    });
    const problems = tableProblem ? [tableProblem, ...result.problems] : result.problems;
    return { ...result, problems, scope, rules: stageRules, local, read: readVariable };
  })();
  // osls rejects a lookup it cannot answer yet (params, before its plugins load) and asks again
  // later: only a reading that finished is kept.
  read.catch(() => {
    read = undefined;
  });
  return read;
};

module.exports = async ({ resolveVariable }) => {
  const { values } = await settingsOf(resolveVariable);
  const { registry } = await rules();
  return {
    environment: Object.fromEntries(
      registry.FUNCTION_ENVIRONMENT.map((name) => [name, values[name]?.value ?? '']),
    ),
  };
};

module.exports.settingsOf = settingsOf;
module.exports.rules = rules;
module.exports.userError = userError;
module.exports.fromParamsOrEnv = fromParamsOrEnv;
