/**
 * Resolves provider.vpc for serverless.yml: the subnets and security groups the functions run in,
 * or nothing (outside a VPC). The pair is VPC_SUBNET_IDS and VPC_SECURITY_GROUP_IDS at the most
 * specific level either is set (tools/generators/settings-check.ts, vpcPair), ids separated by
 * commas; half a pair is among custom.settingsCheck's problems, and an id that is not a subnet or
 * security-group id fails packaging here, naming the variable. serverless.yml reads `vpc` with a
 * null fallback, so no VPC leaves provider.vpc unset (and osls adds no VPC policy to the role).
 */
'use strict';

const { rules, settingsOf, userError } = require('./settings.cjs');

const KINDS = [
  { prefix: 'subnet-', max: 16 },
  { prefix: 'sg-', max: 5 },
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
  // A name refused, or one of the pair missing, is among custom.settingsCheck's problems.
  if (problems.some((line) => line.startsWith('VPC_'))) return { vpc: null };
  const pair = (await rules()).check.vpcPair(scope, read);
  if (!pair) return { vpc: null };
  return {
    vpc: {
      subnetIds: parseIds(pair.subnets.variable, pair.subnets.value, KINDS[0]),
      securityGroupIds: parseIds(pair.groups.variable, pair.groups.value, KINDS[1]),
    },
  };
};
