/**
 * Resolves DB_TLS for serverless.yml (docs/deployment.md, "TLS to the database"). Deployed
 * stages connect with certificate and host-name verification: any stage but dev and local
 * packages `verify-full` when DB_TLS is unset, and fails packaging, naming DB_TLS, when it is
 * set to anything else. dev and local pass DB_TLS through (empty when unset: shared/config.ts
 * then verifies, except for a database on this machine). DB_TLS is an environment variable or
 * the serverless param of the same name.
 */
'use strict';

const MODES = ['verify-full', 'require', 'disable'];
const UNVERIFIED_STAGES = ['dev', 'local'];

module.exports = async ({ resolveVariable }) => {
  const stage = await resolveVariable('sls:stage');
  const param = await resolveVariable('param:DB_TLS, null');
  const tls = (
    param === null || param === undefined ? (process.env.DB_TLS ?? '') : String(param)
  ).trim();
  if (tls && !MODES.includes(tls)) {
    throw new Error(`DB_TLS is "${tls}": expected one of ${MODES.join(', ')}`);
  }
  if (UNVERIFIED_STAGES.includes(stage)) return { tls };
  if (tls && tls !== 'verify-full') {
    throw new Error(
      `DB_TLS is "${tls}": stage "${stage}" must verify the database's certificate and host name (DB_TLS=verify-full, the default); only ${UNVERIFIED_STAGES.join(' and ')} may turn verification off`,
    );
  }
  return { tls: 'verify-full' };
};
