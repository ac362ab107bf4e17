'use strict';
/* global performance */
/* eslint-disable @typescript-eslint/no-require-imports -- plain CommonJS, run and bundled as is */
/**
 * Child entry of tools/bench/secret-client.ts, run in a fresh `node` per sample, like a Lambda
 * runtime loading a handler file. argv[2] is a client module (unbundled file under
 * tools/bench/secret-client/ or an esbuild bundle of one) exporting `getSecretJson(secretId)`.
 * Prints one line `BENCH {...}`: evaluation time of the module, times to the secret's JSON in
 * hand (from the top of this script, from the process's time origin, and from the parent's
 * spawn timestamp BENCH_SPAWN_NS, same monotonic clock), and a check of the secret's fields.
 */
const top = performance.now();
const client = require(process.argv[2]);
const loaded = performance.now();

client.getSecretJson(process.env.BENCH_SECRET_ID).then(
  (secret) => {
    const done = performance.now();
    const fromSpawnMs = Number(process.hrtime.bigint() - BigInt(process.env.BENCH_SPAWN_NS)) / 1e6;
    const ok = secret.username === 'u' && secret.password === 'p' && secret.port === 5432;
    process.stdout.write(
      `BENCH ${JSON.stringify({
        ok,
        evalMs: loaded - top,
        topToSecretMs: done - top,
        originToSecretMs: done,
        fromSpawnMs,
      })}\n`,
    );
    process.exit(0);
  },
  (error) => {
    process.stdout.write(`BENCH ${JSON.stringify({ ok: false, error: String(error) })}\n`);
    process.exit(1);
  },
);
