/**
 * A lever measured, not deployed (issue 13): an esbuild plugin that turns `@middy/core`'s
 * imports of `node:stream`, `node:stream/promises` and `node:stream/web` (used only by
 * `streamifyResponse`, which no function of ours uses) into getters that `require()` the module
 * on first use, so a cold start does not load Node's web streams. Deploying it would mean adding
 * it to serverless.yml's custom.esbuild (serverless-esbuild's `plugins`).
 */
import type { Plugin } from 'esbuild';

const LAZY = new Set(['node:stream', 'node:stream/promises', 'node:stream/web']);

export const lazyMiddyStreams: Plugin = {
  name: 'lazy-middy-streams',
  setup(build) {
    build.onResolve({ filter: /^node:stream/ }, (args) =>
      args.importer.includes('@middy/core') && LAZY.has(args.path)
        ? { path: args.path, namespace: 'lazy-builtin' }
        : undefined,
    );
    build.onLoad({ filter: /.*/, namespace: 'lazy-builtin' }, (args) => ({
      contents:
        `const load = () => require(${JSON.stringify(args.path)});\n` +
        'module.exports = new Proxy({}, { get: (_, key) => load()[key] });\n',
      loader: 'js',
    }));
  },
};
