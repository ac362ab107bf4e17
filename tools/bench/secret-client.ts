/**
 * npx tsx tools/bench/secret-client.ts — cold-start cost of reading one Secrets Manager secret during
 * a Lambda function's initialisation, three ways, all against a local HTTP server (no AWS):
 *   (A)  AWS SDK v3 @aws-sdk/client-secrets-manager, unbundled from node_modules (as the Lambda
 *        runtime ships it), endpoint in the client config, and endpoint from the environment
 *        variable AWS_ENDPOINT_URL_SECRETS_MANAGER only;
 *   (A2) the same client code bundled and minified by esbuild (platform node, cjs, node22);
 *   (B)  Powertools Parameters getSecret, unbundled, bundled (SDK included), and bundled with
 *        @aws-sdk/* external as serverless.yml's custom.esbuild does;
 *   (C)  the Parameters and Secrets Lambda Extension's client side: a node:http GET to
 *        /secretsmanager/get with X-Aws-Parameters-Secrets-Token (the server plays the
 *        extension; the extension's own start-up cannot be measured here);
 *   floor: one plain node:http GET to the server.
 * Per sample, a fresh `node` process (tools/bench/secret-client/runner.cjs) reports: evaluation time
 * of the client module, time to the secret's JSON from the top of the entry script, from the
 * process's performance time origin, and from the parent's spawn (same monotonic clock).
 * Bundles are built with linked source maps; their "+ source maps" rows run with
 * NODE_OPTIONS=--enable-source-maps. Variants run round-robin, sequentially, on Node 22
 * (npx -y -p node@22) and the Node running this script. Prints Markdown tables.
 *
 * Environment: BENCH_SAMPLES (default 20, at least 15), BENCH_NODE22 (a node 22 binary, skips npx).
 */
import { execFileSync, spawn } from 'node:child_process';
import { readFileSync, statSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { build } from 'esbuild';
import { median, percentile, ROOT, round } from './lib';

const SAMPLES = Math.max(15, Number(process.env.BENCH_SAMPLES ?? 20));
const CHILD_DIR = join(ROOT, 'tools/bench/secret-client');
const RUNNER = join(CHILD_DIR, 'runner.cjs');

const REGION = 'eu-west-1';
const AKID = 'ASIABENCHEXAMPLE0000';
const SESSION_TOKEN = 'bench-session-token';
const SECRET_ARN = 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:portal/db-AbCdEf';
const SECRET_STRING = JSON.stringify({
  username: 'u',
  password: 'p',
  host: 'h',
  port: 5432,
  dbname: 'd',
  engine: 'postgres',
});

const log = (line: string): void => {
  process.stdout.write(`${line}\n`);
};

// ---------------------------------------------------------------------------------------------
// Local server: Secrets Manager JSON 1.1 (POST /), the extension (GET /secretsmanager/get) and
// the floor (GET /floor). Every request is checked; rejected ones are counted and answered 400.
// ---------------------------------------------------------------------------------------------

interface ServerStats {
  readonly ok: Record<'sdk' | 'extension' | 'floor', number>;
  readonly rejected: string[];
}

const AUTHORIZATION = new RegExp(
  `^AWS4-HMAC-SHA256 Credential=${AKID}/\\d{8}/${REGION}/secretsmanager/aws4_request, ` +
    'SignedHeaders=[a-z0-9;-]+, Signature=[0-9a-f]{64}$',
);

const readBody = (request: IncomingMessage): Promise<string> =>
  new Promise((resolve, reject) => {
    let body = '';
    request.setEncoding('utf8');
    request.on('data', (chunk: string) => (body += chunk));
    request.on('end', () => {
      resolve(body);
    });
    request.on('error', reject);
  });

/** Why a GetSecretValue request is not what the SDK should send, or undefined when it is. */
const sdkRequestProblem = (request: IncomingMessage, body: string): string | undefined => {
  const { headers } = request;
  if (request.url !== '/') return `path ${request.url}`;
  if (headers['x-amz-target'] !== 'secretsmanager.GetSecretValue') {
    return `X-Amz-Target ${String(headers['x-amz-target'])}`;
  }
  if (headers['content-type'] !== 'application/x-amz-json-1.1') {
    return `Content-Type ${String(headers['content-type'])}`;
  }
  if (!AUTHORIZATION.test(headers.authorization ?? '')) {
    return `Authorization ${String(headers.authorization)}`;
  }
  if (headers['x-amz-security-token'] !== SESSION_TOKEN) return 'X-Amz-Security-Token';
  try {
    const { SecretId } = JSON.parse(body) as { SecretId?: unknown };
    return SecretId === SECRET_ARN ? undefined : `SecretId ${String(SecretId)}`;
  } catch {
    return 'body is not JSON';
  }
};

const getSecretValueOutput = (): string =>
  JSON.stringify({
    ARN: SECRET_ARN,
    Name: 'portal/db',
    VersionId: '00000000-0000-4000-8000-000000000001',
    SecretString: SECRET_STRING,
    VersionStages: ['AWSCURRENT'],
    CreatedDate: 1_700_000_000.123,
  });

const startServer = async (): Promise<{ server: Server; port: number; stats: ServerStats }> => {
  const stats: ServerStats = { ok: { sdk: 0, extension: 0, floor: 0 }, rejected: [] };
  const answer = (response: ServerResponse, status: number, type: string, body: string): void => {
    response.writeHead(status, { 'content-type': type, 'content-length': Buffer.byteLength(body) });
    response.end(body);
  };
  const reject = (response: ServerResponse, problem: string): void => {
    stats.rejected.push(problem);
    answer(
      response,
      400,
      'application/x-amz-json-1.1',
      JSON.stringify({ __type: 'ValidationException', message: problem }),
    );
  };
  const server = createServer((request, response) => {
    void (async () => {
      const body = await readBody(request);
      const url = new URL(request.url ?? '/', 'http://localhost');
      if (request.method === 'POST') {
        const problem = sdkRequestProblem(request, body);
        if (problem) {
          reject(response, problem);
          return;
        }
        stats.ok.sdk += 1;
        answer(response, 200, 'application/x-amz-json-1.1', getSecretValueOutput());
        return;
      }
      if (url.pathname === '/secretsmanager/get') {
        if (request.headers['x-aws-parameters-secrets-token'] !== SESSION_TOKEN) {
          reject(response, 'X-Aws-Parameters-Secrets-Token');
          return;
        }
        if (url.searchParams.get('secretId') !== SECRET_ARN) {
          reject(response, 'secretId');
          return;
        }
        stats.ok.extension += 1;
        answer(response, 200, 'application/json', getSecretValueOutput());
        return;
      }
      if (url.pathname === '/floor') {
        stats.ok.floor += 1;
        answer(response, 200, 'application/json', SECRET_STRING);
        return;
      }
      reject(response, `${request.method} ${request.url}`);
    })().catch((error: unknown) => {
      reject(response, String(error));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, port: (server.address() as AddressInfo).port, stats };
};

// ---------------------------------------------------------------------------------------------
// Bundles and variants.
// ---------------------------------------------------------------------------------------------

interface BundleInfo {
  readonly file: string;
  readonly bytes: number;
  readonly mapBytes: number;
}

/** esbuild as serverless.yml's custom.esbuild (bundle, minify, linked source map, node22, cjs). */
const bundleClient = async (
  entry: string,
  outfile: string,
  external: readonly string[],
): Promise<BundleInfo> => {
  await build({
    entryPoints: [join(CHILD_DIR, entry)],
    outfile,
    bundle: true,
    minify: true,
    sourcemap: true,
    platform: 'node',
    target: 'node22',
    format: 'cjs',
    external: [...external],
    logLevel: 'silent',
  });
  return {
    file: outfile,
    bytes: statSync(outfile).size,
    mapBytes: statSync(`${outfile}.map`).size,
  };
};

interface Variant {
  readonly name: string;
  readonly module: string;
  readonly env: Readonly<Record<string, string>>;
  readonly bundle?: BundleInfo;
}

interface Sample {
  readonly evalMs: number;
  readonly topToSecretMs: number;
  readonly originToSecretMs: number;
  readonly fromSpawnMs: number;
}

const variantsFor = (
  port: number,
  bundles: Readonly<Record<'sdk' | 'powertools' | 'powertoolsExternal', BundleInfo>>,
): Variant[] => {
  const endpoint = `http://127.0.0.1:${port}`;
  const viaEnv = { AWS_ENDPOINT_URL_SECRETS_MANAGER: endpoint };
  const viaConfig = { BENCH_SDK_ENDPOINT: endpoint };
  const sourceMaps = { NODE_OPTIONS: '--enable-source-maps' };
  // The bundle with @aws-sdk/* external lives in a temporary folder: it finds the SDK the way
  // the runtime's own copy would be found, here through NODE_PATH.
  const runtimeSdk = { NODE_PATH: join(ROOT, 'node_modules') };
  return [
    {
      name: 'floor: node:http GET',
      module: join(CHILD_DIR, 'floor.cjs'),
      env: { BENCH_FLOOR_URL: `${endpoint}/floor` },
    },
    {
      name: 'C: extension client (node:http)',
      module: join(CHILD_DIR, 'extension.cjs'),
      env: {
        PARAMETERS_SECRETS_EXTENSION_HTTP_PORT: String(port),
        BENCH_EXTENSION_HOST: '127.0.0.1',
      },
    },
    {
      name: 'A: SDK unbundled, endpoint in config',
      module: join(CHILD_DIR, 'sdk.cjs'),
      env: viaConfig,
    },
    {
      name: 'A: SDK unbundled, endpoint from env',
      module: join(CHILD_DIR, 'sdk.cjs'),
      env: viaEnv,
    },
    { name: 'A2: SDK bundled', module: bundles.sdk.file, env: viaConfig, bundle: bundles.sdk },
    {
      name: 'A2: SDK bundled + source maps',
      module: bundles.sdk.file,
      env: { ...viaConfig, ...sourceMaps },
      bundle: bundles.sdk,
    },
    { name: 'B: Powertools unbundled', module: join(CHILD_DIR, 'powertools.cjs'), env: viaEnv },
    {
      name: 'B: Powertools bundled (SDK inside)',
      module: bundles.powertools.file,
      env: viaEnv,
      bundle: bundles.powertools,
    },
    {
      name: 'B: Powertools bundled (SDK inside) + source maps',
      module: bundles.powertools.file,
      env: { ...viaEnv, ...sourceMaps },
      bundle: bundles.powertools,
    },
    {
      name: 'B: Powertools bundled, @aws-sdk external',
      module: bundles.powertoolsExternal.file,
      env: { ...viaEnv, ...runtimeSdk },
      bundle: bundles.powertoolsExternal,
    },
  ];
};

// ---------------------------------------------------------------------------------------------
// Fresh child processes.
// ---------------------------------------------------------------------------------------------

/** Environment of every child, as Lambda sets it (credentials, region), plus the variant's own. */
const childEnv = (variant: Variant): Record<string, string> => ({
  PATH: process.env.PATH ?? '',
  AWS_REGION: REGION,
  AWS_DEFAULT_REGION: REGION,
  AWS_ACCESS_KEY_ID: AKID,
  AWS_SECRET_ACCESS_KEY: 'bench-secret-access-key',
  AWS_SESSION_TOKEN: SESSION_TOKEN,
  AWS_LAMBDA_FUNCTION_NAME: 'portal-bench',
  BENCH_SECRET_ID: SECRET_ARN,
  ...variant.env,
});

const runSample = (node: string, variant: Variant): Promise<Sample> =>
  new Promise((resolve, reject) => {
    const env = childEnv(variant);
    env.BENCH_SPAWN_NS = process.hrtime.bigint().toString();
    const child = spawn(node, [RUNNER, variant.module], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
    child.on('close', (code) => {
      clearTimeout(timer);
      const line = out.split('\n').find((l) => l.startsWith('BENCH '));
      const result = line
        ? (JSON.parse(line.slice('BENCH '.length)) as Partial<Sample> & {
            ok: boolean;
            error?: string;
          })
        : undefined;
      if (!result?.ok) {
        reject(
          new Error(`${variant.name}: exit ${code} ${result?.error ?? ''} ${err.slice(-600)}`),
        );
        return;
      }
      resolve(result as Sample);
    });
  });

/** The Node 22 binary (npx -y -p node@22), and the Node running this script. */
const nodeBinaries = (): { label: string; path: string }[] => {
  const node22 =
    process.env.BENCH_NODE22 ??
    execFileSync('npx', ['-y', '-p', 'node@22', 'node', '-p', 'process.execPath'], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    }).trim();
  const version = (path: string): string =>
    execFileSync(path, ['-p', 'process.version'], { encoding: 'utf8' }).trim();
  return [
    { label: `Node ${version(node22)}`, path: node22 },
    { label: `Node ${process.version}`, path: process.execPath },
  ];
};

// ---------------------------------------------------------------------------------------------
// Report.
// ---------------------------------------------------------------------------------------------

const fmt = (value: number): string => round(value, 1).toFixed(1);
const kb = (bytes: number): string => round(bytes / 1024, 1).toFixed(1);

const stat = (samples: readonly Sample[], key: keyof Sample): string => {
  const values = samples.map((sample) => sample[key]);
  return `${fmt(median(values))} / ${fmt(percentile(values, 90))}`;
};

const printTable = (
  label: string,
  variants: readonly Variant[],
  samples: ReadonlyMap<string, Sample[]>,
): void => {
  log(`\n### ${label} — median / p90, ms (${SAMPLES} fresh processes per row)\n`);
  log(
    '| variant | module eval | top of script → secret | process origin → secret | spawn → secret | Δ vs floor (spawn → secret, median) | bundle KB (map KB) |',
  );
  log('|---|---:|---:|---:|---:|---:|---:|');
  const floor = median((samples.get(variants[0]?.name ?? '') ?? []).map((s) => s.fromSpawnMs));
  for (const variant of variants) {
    const rows = samples.get(variant.name) ?? [];
    const delta = median(rows.map((s) => s.fromSpawnMs)) - floor;
    const size = variant.bundle
      ? `${kb(variant.bundle.bytes)} (${kb(variant.bundle.mapBytes)})`
      : '—';
    log(
      `| ${variant.name} | ${stat(rows, 'evalMs')} | ${stat(rows, 'topToSecretMs')} | ` +
        `${stat(rows, 'originToSecretMs')} | ${stat(rows, 'fromSpawnMs')} | ${delta >= 0 ? '+' : ''}${fmt(delta)} | ${size} |`,
    );
  }
};

const packageVersion = (name: string): string =>
  (
    JSON.parse(readFileSync(join(ROOT, 'node_modules', name, 'package.json'), 'utf8')) as {
      version: string;
    }
  ).version;

const main = async (): Promise<void> => {
  const load = loadavg().map((value) => value.toFixed(2));
  const nodes = nodeBinaries();
  const dir = await mkdtemp(join(tmpdir(), 'secret-client-bench-'));
  const { server, port, stats } = await startServer();
  try {
    const bundles = {
      sdk: await bundleClient('sdk.cjs', join(dir, 'sdk.bundle.cjs'), []),
      powertools: await bundleClient('powertools.cjs', join(dir, 'powertools.bundle.cjs'), []),
      powertoolsExternal: await bundleClient(
        'powertools.cjs',
        join(dir, 'powertools-external.bundle.cjs'),
        ['@aws-sdk/*'],
      ),
    };
    const variants = variantsFor(port, bundles);

    log('## Secret read at cold start — tools/bench/secret-client.ts');
    log('');
    log(`- ${new Date().toISOString()}, load average at start ${load.join(' ')}`);
    log(
      `- @aws-sdk/client-secrets-manager ${packageVersion('@aws-sdk/client-secrets-manager')}, ` +
        `@aws-lambda-powertools/parameters ${packageVersion('@aws-lambda-powertools/parameters')}, ` +
        `esbuild ${packageVersion('esbuild')}`,
    );
    log(
      `- ${nodes.map((n) => n.label).join(', ')}; ${SAMPLES} rounds, variants round-robin, sequential`,
    );

    // One unmeasured run of every variant on every Node: checks it works (for the SDK from the
    // environment, that AWS_ENDPOINT_URL_SECRETS_MANAGER is honoured) and warms the file cache.
    const failures: string[] = [];
    for (const node of nodes) {
      for (const variant of variants) {
        await runSample(node.path, variant).catch((error: unknown) =>
          failures.push(`${node.label} ${String(error)}`),
        );
      }
    }
    log(
      `- AWS_ENDPOINT_URL_SECRETS_MANAGER honoured by the installed SDK: ${
        failures.some((f) => f.includes('endpoint from env')) ? 'NO' : 'yes'
      }`,
    );
    if (failures.length > 0) throw new Error(`pre-flight failed:\n${failures.join('\n')}`);

    const samples = new Map(nodes.map((node) => [node.label, new Map<string, Sample[]>()]));
    for (let pass = 0; pass < SAMPLES; pass += 1) {
      for (const node of nodes) {
        for (const variant of variants) {
          const sample = await runSample(node.path, variant);
          const byVariant = samples.get(node.label);
          byVariant?.set(variant.name, [...(byVariant.get(variant.name) ?? []), sample]);
        }
      }
    }
    for (const node of nodes)
      printTable(node.label, variants, samples.get(node.label) ?? new Map());

    log('');
    log(
      `Server: ${stats.ok.sdk} signed GetSecretValue requests accepted (AWS4-HMAC-SHA256 ` +
        `Credential=${AKID}/<date>/${REGION}/secretsmanager/aws4_request, X-Amz-Security-Token), ` +
        `${stats.ok.extension} extension requests, ${stats.ok.floor} floor requests, ` +
        `${stats.rejected.length} rejected${stats.rejected.length ? `: ${stats.rejected.slice(0, 3).join('; ')}` : ''}.`,
    );
    log(
      'Columns: module eval = require() of the client module (bundle or node_modules); top of script = ' +
        "performance.now() at the entry script's first line; process origin = performance.now() itself " +
        "(Node's time origin); spawn = the parent's process.hrtime before spawn(). Plain HTTP, 127.0.0.1, " +
        'no TLS or DNS.',
    );
  } finally {
    server.closeAllConnections();
    await new Promise<void>((resolve) =>
      server.close(() => {
        resolve();
      }),
    );
    await rm(dir, { recursive: true, force: true });
  }
};

main().catch((error: unknown) => {
  process.stderr.write(
    `${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
  );
  process.exitCode = 1;
});
