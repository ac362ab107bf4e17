/**
 * Resolves JWT_ISSUER for serverless.yml: the `iss` every token must carry, per stage and portal
 * region like the key-set URL (spec 5.2), from the variable custom.issuerVariables names for the
 * region being packaged (JWT_ISSUER_EU_PRODUCTION, …; MENA shares EU production's, as its key
 * set does), else JWT_ISSUER (a single-region package). Stages with a portal environment
 * (staging, production) require one and refuse JWT_ISSUER, which may hold another stage's: a
 * deployed function that accepts any issuer accepts tokens of every other environment sharing
 * the key set (custom.settingsCheck, tools/serverless/settings.cjs). Other stages pass
 * JWT_ISSUER through, empty when unset.
 */
'use strict';

const { settingsOf } = require('./settings.cjs');

module.exports = async ({ resolveVariable }) => {
  const { values } = await settingsOf(resolveVariable);
  return { issuer: values.JWT_ISSUER.value, variable: values.JWT_ISSUER.variable };
};
