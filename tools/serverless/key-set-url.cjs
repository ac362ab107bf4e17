/**
 * Resolves JWKS_URL for serverless.yml: the key-set URL of the stage's portal environment in
 * the region being deployed (spec 5.2), from the variable (or serverless param) that
 * custom.keySetVariables names for the region's portal region. Stages without a portal
 * environment (dev, local) read JWKS_URL, which local commands (offline, invoke local) may leave
 * empty. A missing one is among custom.settingsCheck's problems (tools/serverless/settings.cjs).
 */
'use strict';

const { settingsOf } = require('./settings.cjs');

module.exports = async ({ resolveVariable }) => {
  const { values } = await settingsOf(resolveVariable);
  return { url: values.JWKS_URL.value, variable: values.JWKS_URL.variable };
};
