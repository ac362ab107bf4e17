/**
 * Resolves JWT_ISSUER for serverless.yml: the `iss` every token must carry, per stage and portal
 * region like the key-set URL (spec 5.2), from the variable custom.issuerVariables names for the
 * region being packaged (JWT_ISSUER_EU_PRODUCTION, …; MENA shares EU production's, as its key
 * set does), else JWT_ISSUER (a single-region package); each an environment variable or the
 * serverless param of the same name. Stages with a portal environment (staging, production)
 * require one: packaging without it fails naming the region's variable, since a deployed
 * function that accepts any issuer accepts tokens of every other environment that shares the
 * key set. Other stages (dev, local) pass JWT_ISSUER through, empty when unset.
 */
'use strict';

module.exports = async ({ resolveVariable }) => {
  const { fromParamsOrEnv } = await import('./variables.cjs');
  const stage = await resolveVariable('sls:stage');
  const region = await resolveVariable('self:provider.region');
  const regions = (await resolveVariable('self:custom.portalRegions')) ?? {};
  const variables = (await resolveVariable('self:custom.issuerVariables')) ?? {};
  const plain = await fromParamsOrEnv(resolveVariable, 'JWT_ISSUER');
  const perStage = variables[stage];
  if (!perStage) return { issuer: plain, variable: 'JWT_ISSUER' };
  const variable = perStage[regions[region]];
  if (!variable) {
    throw new Error(
      `stage "${stage}" has no issuer for AWS region ${region}: add its portal region to custom.issuerVariables`,
    );
  }
  if (plain) {
    throw new Error(
      `JWT_ISSUER is set, but stage "${stage}" reads its issuer in ${region} only from ${variable}: JWT_ISSUER may hold another stage's issuer; unset it`,
    );
  }
  const issuer = await fromParamsOrEnv(resolveVariable, variable);
  if (!issuer) {
    throw new Error(
      `${variable} is not set: stage "${stage}" in ${region} must name the portal's token issuer (the iss claim) for portal region ${regions[region]}`,
    );
  }
  return { issuer, variable };
};
