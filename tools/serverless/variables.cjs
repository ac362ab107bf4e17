/**
 * Helpers shared by the resolvers of tools/serverless/: how serverless.yml's configuration
 * variables are read. Each is an environment variable or the serverless param of the same name
 * (`--param NAME=value`, or the dashboard's params): a param, even an empty one, wins over the
 * environment. Which names a setting is read from, per stage and region, is
 * tools/generators/variables.ts (docs/deployment.md, "Per-stage settings").
 */
'use strict';

/** The value of `name`: the serverless param of that name if there is one, else the environment's. */
const fromParamsOrEnv = async (resolveVariable, name) => {
  const param = await resolveVariable(`param:${name}, null`);
  const value = param === null || param === undefined ? (process.env[name] ?? '') : String(param);
  return value.trim();
};

let loaded;
/** tools/generators/variables.ts, loaded with tsx once. */
const rules = () => {
  loaded ??= import('tsx/esm/api').then(({ tsImport }) =>
    tsImport('../generators/variables.ts', __filename),
  );
  return loaded;
};

/** The stage and region being packaged, and whether the stage has a portal environment. */
const scopeOf = async (resolveVariable) => {
  const stage = String(await resolveVariable('sls:stage'));
  const region = String(await resolveVariable('self:provider.region'));
  const portalStages = (await resolveVariable('self:custom.keySetVariables')) ?? {};
  return { stage, region, portal: Object.hasOwn(portalStages, stage) };
};

/**
 * The setting `name` for the stage and region being packaged: the variable it came from (to name
 * it in messages) and its value, '' when unset, with `hint` naming where to set it and
 * `regionHint` where to set this region's own value. Fails when
 * a portal stage would read a setting of its own resource from a name without the stage.
 */
const scopedSetting = async (resolveVariable, name) => {
  const { regionalHint, resolveSetting, settingHint, stagedNames, unstagedNames } = await rules();
  const scope = await scopeOf(resolveVariable);
  const names = [...stagedNames(name, scope), ...unstagedNames(name, scope)];
  const values = new Map();
  for (const variable of names)
    values.set(variable, await fromParamsOrEnv(resolveVariable, variable));
  const setting = resolveSetting(name, scope, (variable) => values.get(variable) ?? '');
  return { ...setting, hint: settingHint(name, scope), regionHint: regionalHint(name, scope) };
};

module.exports = { fromParamsOrEnv, rules, scopeOf, scopedSetting };
