/**
 * Resolves DATABASE_URL for serverless.yml. A stage with a portal environment (those listed in
 * custom.keySetVariables: staging, production) cannot be packaged without one — the functions
 * would fail on every request — so its absence fails packaging, naming the variable. Other
 * stages (dev, local) may leave it empty: npm start and invoke local provide the embedded one.
 */
'use strict';

module.exports = async ({ resolveVariable }) => {
  const stage = await resolveVariable('sls:stage');
  const variables = (await resolveVariable('self:custom.keySetVariables')) ?? {};
  const param = await resolveVariable('param:DATABASE_URL, null');
  const url =
    (typeof param === 'string' && param.trim()) || (process.env.DATABASE_URL ?? '').trim();
  if (!url && variables[stage]) {
    throw new Error(
      `DATABASE_URL is not set: stage "${stage}" needs the PostgreSQL connection string (set it from SSM or Secrets Manager)`,
    );
  }
  return { url };
};
