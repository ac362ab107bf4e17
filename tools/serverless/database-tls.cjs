/**
 * Resolves DB_TLS and DB_CA for serverless.yml (docs/database.md, "TLS to the database").
 * Deployed stages connect with certificate and host-name verification: any stage but dev and
 * local packages `verify-full` when DB_TLS is unset, and fails packaging, naming DB_TLS, when it
 * is set to anything else; its DB_CA is `rds` unless set. dev and local pass both through (empty
 * when unset: shared/config.ts then verifies against `rds`, except for a database on this
 * machine). Wherever the functions would verify against `rds` or `rds-proxy`, that list is
 * written to a PEM file the zip carries (tools/generators/database-ca.ts), DB_CA names the file
 * and `patterns` (package.patterns) includes it: the bundle carries no list of its own. Each
 * setting is an environment variable or the serverless param of the same name; DB_CA's value is
 * checked by config-check.cjs.
 */
'use strict';

const MODES = ['verify-full', 'require', 'disable'];
const UNVERIFIED_STAGES = ['dev', 'local'];
const DEFAULT_CA = 'rds';

let modules;
/** tools/generators/database-ca.ts and shared/config.ts, loaded with tsx once. */
const load = () => {
  modules ??= import('tsx/esm/api').then(async ({ tsImport }) => ({
    caFile: await tsImport('../generators/database-ca.ts', __filename),
    config: await tsImport('../../shared/config.ts', __filename),
  }));
  return modules;
};

/** DB_TLS and DB_CA as the stage is packaged with them, before a list becomes a file. */
const settings = async (resolveVariable, stage) => {
  const { fromParamsOrEnv } = await import('./variables.cjs');
  const tls = await fromParamsOrEnv(resolveVariable, 'DB_TLS');
  const ca = await fromParamsOrEnv(resolveVariable, 'DB_CA');
  if (tls && !MODES.includes(tls)) {
    throw new Error(`DB_TLS is "${tls}": expected one of ${MODES.join(', ')}`);
  }
  if (UNVERIFIED_STAGES.includes(stage)) return { tls, ca };
  if (tls && tls !== 'verify-full') {
    throw new Error(
      `DB_TLS is "${tls}": stage "${stage}" must verify the database's certificate and host name (DB_TLS=verify-full, the default); only ${UNVERIFIED_STAGES.join(' and ')} may turn verification off`,
    );
  }
  return { tls: 'verify-full', ca: ca || DEFAULT_CA };
};

module.exports = async ({ resolveVariable }) => {
  const stage = await resolveVariable('sls:stage');
  const { tls, ca } = await settings(resolveVariable, stage);
  const url = String((await resolveVariable('self:provider.environment.DATABASE_URL')) ?? '');
  const { caFile, config } = await load();
  const verified = tls === 'verify-full' || (tls === '' && !config.isLoopbackDatabase(url));
  const list = ca || DEFAULT_CA;
  if (!verified || !caFile.PACKAGED_LISTS.includes(list)) return { tls, ca, patterns: [] };
  const file = caFile.writeCaFile({
    list,
    url,
    region: String(await resolveVariable('self:provider.region')),
  });
  return { tls, ca: file, patterns: [file] };
};
