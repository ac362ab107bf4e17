/**
 * Resolves JWKS_URL for serverless.yml: the key-set URL of the stage's portal environment in
 * the region being deployed (spec 5.2). The URL comes from the environment variable (or the
 * serverless param of the same name) that custom.keySetVariables names; a missing one fails
 * packaging with a message that names it. Stages without a portal environment (dev, local)
 * read JWKS_URL, which local commands (offline, invoke local) may leave empty.
 */
'use strict';

const LOCAL_COMMANDS = ['offline', 'invoke'];

const fromParamsOrEnv = async (resolveVariable, name) => {
  const param = await resolveVariable(`param:${name}, null`);
  return (typeof param === 'string' && param.trim()) || (process.env[name] ?? '').trim();
};

module.exports = async ({ resolveVariable }) => {
  const stage = await resolveVariable('sls:stage');
  const region = await resolveVariable('self:provider.region');
  const regions = (await resolveVariable('self:custom.portalRegions')) ?? {};
  const variables = (await resolveVariable('self:custom.keySetVariables')) ?? {};
  const perStage = variables[stage];
  if (!perStage) {
    const url = (process.env.JWKS_URL ?? '').trim();
    const local = process.argv.slice(2).some((arg) => LOCAL_COMMANDS.includes(arg));
    if (!url && !local) {
      throw new Error(
        `JWKS_URL is not set: stage "${stage}" has no portal environment, so its key-set URL comes from JWKS_URL`,
      );
    }
    return { url, variable: 'JWKS_URL' };
  }
  const portalRegion = regions[region];
  if (!portalRegion) {
    throw new Error(
      `AWS region "${region}" serves no portal region: add it to custom.portalRegions in serverless.yml`,
    );
  }
  const variable = perStage[portalRegion];
  if (!variable) {
    throw new Error(
      `stage "${stage}" has no key set for portal region ${portalRegion}: add it to custom.keySetVariables`,
    );
  }
  const url = await fromParamsOrEnv(resolveVariable, variable);
  if (!url) {
    throw new Error(
      `${variable} is not set: it holds the key-set URL of stage "${stage}" in ${region} (portal region ${portalRegion})`,
    );
  }
  return { url, variable };
};
