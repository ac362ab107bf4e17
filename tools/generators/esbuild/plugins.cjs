/**
 * serverless-esbuild's `plugins` (serverless.yml, custom.esbuild.plugins): the esbuild plugins
 * of every function's bundle, written in TypeScript beside this file and loaded with tsx, as the
 * other build-time files serverless.yml reads are (tools/serverless/*.cjs). serverless-esbuild
 * reads this file synchronously, hence tsx's require.
 */
'use strict';

const { require: tsxRequire } = require('tsx/cjs/api');

const { lazyMiddyStreams } = tsxRequire('./lazy-middy-streams.ts', __filename);
const { packagedCaLists } = tsxRequire('./packaged-ca-lists.ts', __filename);

module.exports = [lazyMiddyStreams, packagedCaLists];
