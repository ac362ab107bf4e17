/**
 * The bundle `serverless package` ships: serverless.yml's custom.esbuild names
 * tools/generators/esbuild/plugins.cjs, whose plugin turns `@middy/core`'s imports of `node:stream`,
 * `node:stream/promises` and `node:stream/web` into getters. The packaged orders/day bundle,
 * taken out of its zip, must not ask for those modules when it is required, and must still
 * answer (a preflight: 200, a request without a token: 401) as a handler; Middy's streamed responses,
 * which no function uses, must still work through the getters, loading the modules then.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build, type Plugin } from 'esbuild';
import { lazyMiddyStreams } from '../../../tools/generators/esbuild/lazy-middy-streams';
import { ROOT, run, SERVERLESS } from '../../support/processes';
import { unzip } from '../../support/zip';

const STREAM_MODULES = ['node:stream', 'node:stream/promises', 'node:stream/web'];

/**
 * A child that records every module the bundle asks `require` for while it is required, then
 * calls its handler with each event of argv[3] (a JSON array) and prints one JSON line: the
 * modules asked for at require time, after the calls, and the answers.
 */
const TRACE_CHILD = `
const Module = require('node:module');
const asked = [];
const load = Module._load;
Module._load = function (request, ...rest) {
  asked.push(request);
  return load.call(this, request, ...rest);
};
(async () => {
  const { handler } = require(process.argv[2]);
  const atRequire = [...asked];
  const answers = [];
  for (const event of JSON.parse(process.argv[3])) {
    answers.push(await handler(event, { getRemainingTimeInMillis: () => 10000, awsRequestId: 'r' }));
  }
  process.stdout.write(JSON.stringify({ atRequire, afterCalls: [...asked], answers }) + '\\n');
  process.exit(0);
})().catch((error) => {
  process.stderr.write(String(error && error.stack) + '\\n');
  process.exit(1);
});
`;

interface Trace {
  readonly atRequire: string[];
  readonly afterCalls: string[];
  readonly answers: { statusCode: number; headers?: Record<string, string>; body?: string }[];
}

const dir = mkdtempSync(join(tmpdir(), 'portal-bundle-'));
const workFolder = `.esbuild-test-bundle-${process.pid}`;
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
  rmSync(join(ROOT, workFolder), { recursive: true, force: true });
});
writeFileSync(join(dir, 'trace-child.cjs'), TRACE_CHILD);

const trace = (bundle: string, events: unknown[], env: Record<string, string> = {}): Trace => {
  const result = spawnSync(
    process.execPath,
    [join(dir, 'trace-child.cjs'), bundle, JSON.stringify(events)],
    {
      encoding: 'utf8',
      env: { PATH: process.env.PATH ?? '', ...env },
      timeout: 30_000,
    },
  );
  if (result.status !== 0) throw new Error(`child failed: ${result.stderr}`);
  return JSON.parse(result.stdout.trim().split('\n').at(-1) ?? '') as Trace;
};

const event = (file: string, headerLeftOut?: string): unknown => {
  const parsed = JSON.parse(readFileSync(join(ROOT, 'events', file), 'utf8')) as {
    headers: Record<string, string>;
    multiValueHeaders: Record<string, string[]>;
  };
  const without = <T>(headers: Record<string, T>) =>
    Object.fromEntries(Object.entries(headers).filter(([name]) => name !== headerLeftOut));
  return {
    ...parsed,
    headers: without(parsed.headers),
    multiValueHeaders: without(parsed.multiValueHeaders),
  };
};

describe('the packaged bundle', () => {
  it('does not load Middy stream imports when required, and still answers as a handler', async () => {
    // Prepare: serverless package of the dev stage, the orders/day function's zip.
    const out = join(dir, 'package');
    const packaged = await run(
      [SERVERLESS, 'package', '--stage', 'dev', '--region', 'eu-west-1', '--package', out],
      {
        DATABASE_URL: 'postgres://127.0.0.1:9/reports',
        JWKS_URL: 'http://127.0.0.1:9/jwks.json',
        ESBUILD_WORK_FOLDER: workFolder,
      },
    );
    expect({ code: packaged.code, stderr: packaged.stderr }).toMatchObject({ code: 0 });
    const files = unzip(readFileSync(join(out, 'ordersPerDay.zip')));
    const source = files.get('functions/orders-per-day.cjs');
    expect(source).toBeDefined();
    const bundle = join(dir, 'orders-per-day.cjs');
    writeFileSync(bundle, source ?? '');

    // Act: nothing listens on port 9, so initialisation's fetch and warm-up fail (logged).
    const result = trace(
      bundle,
      [event('orders-per-day-preflight.json'), event('orders-per-day.json', 'Authorization')],
      {
        DATABASE_URL: 'postgres://127.0.0.1:9/reports',
        JWKS_URL: 'http://127.0.0.1:9/jwks.json',
        LOG_LEVEL: 'error',
      },
    );

    // Assess
    expect(result.atRequire.filter((m) => STREAM_MODULES.includes(m))).toEqual([]);
    expect(result.afterCalls.filter((m) => STREAM_MODULES.includes(m))).toEqual([]);
    expect(result.answers.map((answer) => answer.statusCode)).toEqual([200, 401]);
    expect(result.answers[1]?.headers?.['Access-Control-Allow-Origin']).toBe('*');
    expect(JSON.parse(result.answers[1]?.body ?? '{}')).toMatchObject({ state: 'ERROR' });
  }, 120_000);

  it('still streams a Middy response through the lazy imports, loading them on first use', async () => {
    // Prepare: a streamed handler bundled with the plugin (tools/generators/esbuild/plugins.cjs's), and the part
    // of Lambda's `awslambda` global Middy calls.
    const plugins: Plugin[] = [lazyMiddyStreams];
    const entry = join(dir, 'streamed.mjs');
    writeFileSync(
      entry,
      `import middy from '@middy/core';
import { Writable } from 'node:stream';
let written = '';
globalThis.awslambda = {
  streamifyResponse: (fn) => (event, context) =>
    fn(event, new Writable({ write(chunk, _e, done) { written += chunk; done(); } }), context),
  HttpResponseStream: { from: (stream) => stream },
};
const streamed = middy({ streamifyResponse: true }).handler(async () => ({
  statusCode: 200,
  body: 'streamed body',
}));
export const handler = async (event, context) => {
  await streamed(event, context);
  return { statusCode: 200, body: written };
};
`,
    );
    const bundleWith = async (name: string, withPlugins: Plugin[]) => {
      const outfile = join(dir, name);
      await build({
        entryPoints: [entry],
        outfile,
        bundle: true,
        platform: 'node',
        format: 'cjs',
        target: 'node24',
        nodePaths: [join(ROOT, 'node_modules')],
        plugins: withPlugins,
        logLevel: 'silent',
      });
      return outfile;
    };
    const lazyOnly = (modules: string[]) =>
      modules.filter((m) => m === 'node:stream/promises' || m === 'node:stream/web');

    // Act
    const lazy = trace(await bundleWith('streamed.cjs', plugins), [{}]);
    const eager = trace(await bundleWith('streamed-eager.cjs', []), [{}]);

    // Assess: without the plugins Middy asks for them at once (the trace sees it); with them,
    // only when it streams. (The entry's own `node:stream` import is loaded at once.)
    expect(lazyOnly(eager.atRequire)).toEqual(['node:stream/promises', 'node:stream/web']);
    expect(lazyOnly(lazy.atRequire)).toEqual([]);
    expect(lazy.afterCalls).toEqual(expect.arrayContaining(STREAM_MODULES));
    expect(lazy.answers).toEqual([{ statusCode: 200, body: 'streamed body' }]);
    expect(eager.answers).toEqual(lazy.answers);
  });
});
