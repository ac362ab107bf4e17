/**
 * An esbuild plugin of the deployed build (serverless.yml's custom.esbuild.plugins, through
 * tools/generators/esbuild/plugins.cjs): `@middy/core` imports `node:stream`,
 * `node:stream/promises` and `node:stream/web` at its top, for `streamifyResponse` only, which
 * no function of ours uses. In the bundle those three imports become objects whose getters
 * `require()` the module on the first read of an export, so a cold start does not load Node's
 * web streams (BENCHMARKS.md, "Why it is built this way"). Middy itself still works unchanged: a streamed
 * response reads `Readable`, `pipeline` or `ReadableStream` through the getters and loads the
 * modules then (tests/integration/serverless/bundle.test.ts). Imports of the same modules from
 * anywhere else are left alone.
 */
import { createRequire } from 'node:module';
import type { Plugin } from 'esbuild';

/** The imports of `@middy/core` made lazy. */
export const LAZY_MIDDY_IMPORTS: ReadonlySet<string> = new Set([
  'node:stream',
  'node:stream/promises',
  'node:stream/web',
]);

const NAMESPACE = 'lazy-builtin';

/** The names a built-in module exports, read from the building Node. */
const exportsOf = (builtin: string): string[] =>
  Object.keys(createRequire(import.meta.url)(builtin) as object);

/** True for a file of the `@middy/core` package (its path inside node_modules). */
const isMiddyCore = (importer: string): boolean =>
  /[\\/]node_modules[\\/]@middy[\\/]core[\\/]/.test(importer);

export const lazyMiddyStreams: Plugin = {
  name: 'lazy-middy-streams',
  setup(build) {
    build.onResolve({ filter: /^node:stream/ }, (args) =>
      isMiddyCore(args.importer) && LAZY_MIDDY_IMPORTS.has(args.path)
        ? { path: args.path, namespace: NAMESPACE }
        : undefined,
    );
    build.onLoad({ filter: /.*/, namespace: NAMESPACE }, (args) => ({
      // esbuild's interop (`__toESM`) copies the module's own properties as getters: one
      // getter per export of the module (as the building Node has it), each requiring it.
      contents: [
        'let loaded;',
        `const load = () => (loaded ??= require(${JSON.stringify(args.path)}));`,
        `for (const key of ${JSON.stringify(exportsOf(args.path))}) {`,
        '  Object.defineProperty(module.exports, key, { enumerable: true, get: () => load()[key] });',
        '}',
        '',
      ].join('\n'),
      loader: 'js',
    }));
  },
};
