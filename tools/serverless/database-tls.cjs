/**
 * Resolves DB_TLS and DB_CA for serverless.yml (docs/database.md, "TLS to the database").
 * A stage whose rules in serverless.yml's custom.stages say `verifyDatabaseTls` connects with
 * certificate and host-name verification: it packages `verify-full` when DB_TLS is unset, and
 * fails packaging, naming DB_TLS, when it is set to anything else; its DB_CA is `rds` unless
 * set. Other stages (dev, local) pass both through (empty when unset: shared/config.ts then
 * verifies against `rds`, except for a database on this machine). Wherever the functions would verify against `rds` or `rds-proxy`, that list is
 * written to a PEM file the zip carries (tools/generators/database-ca.ts), DB_CA names the file
 * and `patterns` (package.patterns) includes it: the bundle carries no list of its own. Both are
 * read by tools/serverless/settings.cjs; DB_CA's value is checked by config-check.cjs.
 */
'use strict';

const { settingsOf } = require('./settings.cjs');

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

/**
 * DB_TLS and DB_CA as the stage is packaged with them, before a list becomes a file: a stage
 * whose rules verify the database (custom.stages, verifyDatabaseTls) gets `verify-full` and
 * `rds` unless set (any other DB_TLS is among custom.settingsCheck's problems).
 */
const settings = ({ values, rules }) => {
  const tls = values.DB_TLS.value;
  const ca = values.DB_CA.value;
  if (!rules.verifyDatabaseTls) return { tls, ca };
  return { tls: 'verify-full', ca: ca || DEFAULT_CA };
};

module.exports = async ({ resolveVariable }) => {
  const read = await settingsOf(resolveVariable);
  const { tls, ca } = settings(read);
  // A refused DB_TLS or DB_CA is among custom.settingsCheck's problems.
  if (read.problems.some((line) => /^DB_(TLS|CA)\b/.test(line))) return { tls, ca, patterns: [] };
  const url = String((await resolveVariable('self:provider.environment.DATABASE_URL')) ?? '');
  const { caFile, config } = await load();
  const verified = tls === 'verify-full' || (tls === '' && !config.isLoopbackDatabase(url));
  const list = ca || DEFAULT_CA;
  if (!verified || !caFile.PACKAGED_LISTS.includes(list)) return { tls, ca, patterns: [] };
  const file = caFile.writeCaFile({
    list,
    url,
    region: read.scope.region,
  });
  return { tls, ca: file, patterns: [file] };
};
