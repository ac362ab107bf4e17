/**
 * Resolves provider.vpc for serverless.yml: the subnets and security groups the functions run in,
 * or nothing (the functions run outside a VPC). The ids come from VPC_SUBNET_IDS and
 * VPC_SECURITY_GROUP_IDS read per stage and region (VPC_SUBNET_IDS_PRODUCTION_EU_WEST_1,
 * tools/serverless/settings.cjs), ids separated by commas. Both of a pair or neither; an id that is not a subnet or
 * security-group id, or one of the pair missing, fails packaging with a message naming the variable. serverless.yml reads `vpc` with a null
 * fallback, so no VPC leaves provider.vpc unset (and osls adds no VPC policy to the role).
 */
'use strict';

const { rules, settingsOf, userError } = require('./settings.cjs');

const KINDS = [
  { name: 'VPC_SUBNET_IDS', key: 'subnetIds', prefix: 'subnet-', max: 16 },
  { name: 'VPC_SECURITY_GROUP_IDS', key: 'securityGroupIds', prefix: 'sg-', max: 5 },
];

const parseIds = (variable, value, { prefix, max }) => {
  const ids = value.split(',').map((id) => id.trim());
  const pattern = new RegExp(`^${prefix}[0-9a-f]{8,17}$`);
  const wrong = ids.filter((id) => !pattern.test(id));
  if (wrong.length > 0) {
    throw userError(
      `${variable} holds ${wrong.map((id) => `"${id}"`).join(', ')}: expected comma-separated ids like ${prefix}0123456789abcdef0`,
    );
  }
  if (new Set(ids).size !== ids.length) {
    throw userError(`${variable} names an id more than once`);
  }
  if (ids.length > max) {
    throw userError(`${variable} holds ${ids.length} ids: a Lambda function takes at most ${max}`);
  }
  return ids;
};

module.exports = async ({ resolveVariable }) => {
  const { problems, read, scope } = await settingsOf(resolveVariable);
  const { settingNames } = (await rules()).variables;
  const { region } = scope;
  // A name refused, or one of the pair missing, is among custom.settingsCheck's problems.
  if (problems.some((line) => line.startsWith('VPC_'))) return { vpc: null };
  // The most specific pair set wins as a pair: ids of two stages or regions are never mixed.
  const levels = settingNames(KINDS[0].name, scope).map((_, level) =>
    KINDS.map((kind) => {
      const variable = settingNames(kind.name, scope)[level];
      return { ...kind, variable, value: read(variable) };
    }),
  );
  const chosen = levels.find((pair) => pair.some(({ value }) => value)) ?? levels[0];
  const set = chosen.filter(({ value }) => value);
  if (set.length === 0) return { vpc: null };
  const missing = chosen.find(({ value }) => !value);
  if (missing) {
    throw userError(
      `${missing.variable} is not set: ${set[0].variable} puts the functions in ${region} in a VPC, which needs both subnets and security groups`,
    );
  }
  const vpc = {};
  for (const kind of chosen) vpc[kind.key] = parseIds(kind.variable, kind.value, kind);
  return { vpc };
};
