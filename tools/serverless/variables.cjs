/**
 * Helpers shared by the resolvers of tools/serverless/: how serverless.yml's configuration
 * variables are read. Each is an environment variable or the serverless param of the same name
 * (`--param NAME=value`, or the dashboard's params): a param, even an empty one, wins over the
 * environment. A variable that may differ per AWS region has a regional form, the region in upper
 * snake case appended (VPC_SUBNET_IDS_EU_WEST_1 for eu-west-1), which wins over the plain name.
 */
'use strict';

/** The value of `name`: the serverless param of that name if there is one, else the environment's. */
const fromParamsOrEnv = async (resolveVariable, name) => {
  const param = await resolveVariable(`param:${name}, null`);
  const value = param === null || param === undefined ? (process.env[name] ?? '') : String(param);
  return value.trim();
};

/** The suffix of a variable's regional form: `_EU_WEST_1` for eu-west-1. */
const regionSuffix = (region) => `_${String(region).toUpperCase().replace(/-/g, '_')}`;

/** The regional form of `name` for `region`: VPC_SUBNET_IDS_EU_WEST_1. */
const regionalName = (name, region) => `${name}${regionSuffix(region)}`;

/**
 * `name` for `region`: the regional form when it is set, else the plain name. Resolves to the
 * variable the value came from (to name it in messages) and the value, empty when neither is set.
 */
const regionalOrPlain = async (resolveVariable, name, region) => {
  const regional = regionalName(name, region);
  const value = await fromParamsOrEnv(resolveVariable, regional);
  if (value) return { variable: regional, value };
  return { variable: name, value: await fromParamsOrEnv(resolveVariable, name) };
};

module.exports = { fromParamsOrEnv, regionSuffix, regionalName, regionalOrPlain };
