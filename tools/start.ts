/**
 * npm start: the whole service on this machine. Starts the local stack (embedded database and
 * local issuer unless DATABASE_URL / JWKS_URL point elsewhere), then serverless-offline with
 * the functions on exactly the spec's paths at http://localhost:$PORT, and the portal preview
 * (tools/local/preview.ts, docs/preview.md) on its own origin, http://localhost:$PREVIEW_PORT
 * (default PORT + 1, or PORT + 2 when that is LAMBDA_PORT).
 *
 * What it prints: one line when it starts, and once ready a banner (tools/local/banner.ts:
 * where everything runs, the first request as a curl, the preview's address). Otherwise only
 * warnings and errors, unless `--verbose` or LOG_LEVEL debug or info asks for serverless-offline's
 * route table, its lines per request and the functions' access log (tools/local/verbosity.ts).
 *
 * The preview: once the API answers, the reference reports plugin is built with the API's URL
 * baked in (tools/plugin/build.ts, into a temporary folder of this process that the preview's
 * emulated CDN serves) and deployed for portal v2 through the real deployment call
 * (tools/plugin/deploy.ts, as `npm run deploy:plugin` makes it: PUT to this API's
 * /v1/plugins/reports with the local deployment key, CDN `<preview origin>/cdn`, region eu), so
 * that the registry answers the bundle of this preview's origin whatever the ports. A failed
 * build or deployment is printed and the API stays up; the preview then shows what the registry
 * answers.
 *
 * Ready means answered over HTTP, not a line of serverless-offline's output: `npm start` sends
 * the request of its curl (orders per day of the sample restaurant, with a fresh token of the
 * sample owner) until it is answered 200 — or 401 when JWKS_URL names a key set other than the
 * local issuer's, which cannot know the token — and only then prints the banner. A PORT that
 * something on localhost already accepts connections on is refused up front (exit 2): that
 * something's answers could pass for the service's. The same goes for PREVIEW_PORT.
 *
 * PORTAL_READY_FILE=<path>: for tools and tests that start `npm start` themselves. Once ready,
 * a JSON document (tools/local/ready.ts: url, port, previewUrl, pid, token, tokenExpiresAt,
 * sampleUrl, probeStatus, database, keySetUrl, readyAt) is written to that file atomically (a
 * temporary file in the same folder, then renamed: a reader sees all of it or nothing; the folder
 * must exist, else `npm start` stops with exit 1). A file already there is removed at start, and
 * the file is removed again when `npm start` stops (see Stopping below; not when killed with
 * SIGKILL), so it stands for a service that is up. It holds the curl's bearer token, so it is
 * readable by its owner only. tools/local/service.ts is the reference reader: it waits for the
 * file rather than reading the printed output.
 *
 * The curl's token is signed once ready, valid 12 h, or JWT_MAX_AGE seconds when that is set and
 * shorter (tools/local/token-lifetime.ts): the banner and the readiness file say which.
 *
 * Stopping (SIGINT, SIGTERM, SIGHUP, serverless-offline's exit, or the command that started it
 * gone: tools/local/shutdown.ts): the readiness file is removed first; then serverless-offline's
 * process group is sent SIGTERM and waited for, SIGKILL after GRACE_MS; then esbuild's service,
 * the preview, the plugin's folder and the local stack. A signal while stopping changes nothing;
 * whatever hangs, the process exits after STOP_LIMIT_MS.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { stop as stopEsbuild } from 'esbuild';
import { decodeJwt } from 'jose';
import { claimsFor, SAMPLE_OWNER } from './db/sample-data';
import { LOCAL_PLUGIN_API_KEY } from './db/seed-plugins';
import { addDays, todayIn } from './dates';
import { banner } from './local/banner';
import { accepts } from './local/ports';
import { startPreview, type PreviewServer } from './local/preview';
import { READY_FILE_VARIABLE, removeReadyFile, writeReadyFile } from './local/ready';
import { GRACE_MS, signalGroup, stopGroup, watchLauncher } from './local/shutdown';
import { startLocalStack } from './local/stack';
import { CURL_TOKEN_SECONDS, localMaxAge, tokenLifetime } from './local/token-lifetime';
import { hideRouteTable, offlineLogEnv, startOptions, USAGE } from './local/verbosity';
import { buildReportsPlugin } from './plugin/build';
import { nodeIo, runDeploy } from './plugin/deploy';

/** Pause between two readiness probes. */
const PROBE_INTERVAL_MS = 250;
/** One probe's limit: the first request starts the function and opens its database pool. */
const PROBE_TIMEOUT_MS = 15_000;
/** After this long without readiness, say what the probe gets (and keep trying). */
const SLOW_START_NOTICE_MS = 60_000;
/** The longest a stop takes: then serverless-offline's group is sent SIGKILL and this exits. */
const STOP_LIMIT_MS = 2 * GRACE_MS + 2000;

const options = startOptions(process.argv.slice(2), process.env);
if (options instanceof Error) {
  process.stderr.write(`npm start: ${options.message}\n${USAGE}\n`);
  process.exit(2);
}
const logEnv = offlineLogEnv(options, process.env);

const isPort = (value: number) => Number.isInteger(value) && value >= 1 && value <= 65535;
const port = Number(process.env.PORT ?? '3000');
if (!isPort(port)) {
  process.stderr.write('PORT must be a TCP port number\n');
  process.exit(2);
}
// serverless-offline's Lambda API (serverless.yml: LAMBDA_PORT, default 3002) binds after us.
const lambdaPort = Number(process.env.LAMBDA_PORT || '3002');
const previewPort = Number(
  process.env.PREVIEW_PORT || String(port + 1 === lambdaPort ? port + 2 : port + 1),
);
if (!isPort(previewPort) || previewPort === port || previewPort === lambdaPort) {
  process.stderr.write('PREVIEW_PORT must be a TCP port number other than PORT and LAMBDA_PORT\n');
  process.exit(2);
}
const maxAge = localMaxAge(process.env);
if (maxAge instanceof Error) {
  process.stderr.write(`${maxAge.message}\n`);
  process.exit(2);
}
const lifetime = tokenLifetime(CURL_TOKEN_SECONDS, maxAge);
const readyFile = process.env[READY_FILE_VARIABLE] || undefined;
const fsMessage = (error: unknown) => (error instanceof Error ? error.message : String(error));

// Once whoever reads the output has gone, a write fails (EPIPE): that must not end this process
// before it has stopped what it started.
process.stdout.on('error', () => undefined);
process.stderr.on('error', () => undefined);

/** serverless-offline, the leader of a process group of its own. */
let child: ChildProcess | undefined = undefined;
/** What start-up made, each with what undoes it, in order. */
const made: { readonly what: string; readonly undo: () => Promise<unknown> }[] = [];
/** The start-up step in flight (made): a stop lets it end, so that it undoes what it makes. */
let inFlight: Promise<unknown> = Promise.resolve();
let stopping: Promise<never> | undefined;
/** A function, not the variable: a check after an `await` must not be narrowed by one before. */
const isStopping = () => stopping !== undefined;
/** Never settles: start-up waits on it once stopping, until the stop exits the process. */
const halted = new Promise<never>(() => undefined);

/** Starts `work`, recorded with what undoes its result; once stopping, it never returns. */
const step = async <T>(
  what: string,
  work: () => Promise<T>,
  undo: (result: T) => Promise<unknown>,
): Promise<T> => {
  if (isStopping()) return halted;
  const recorded = work().then((result) => {
    made.push({ what, undo: () => undo(result) });
    return result;
  });
  inFlight = recorded.catch(() => undefined);
  const result = await recorded;
  if (isStopping()) return halted;
  return result;
};

/** Runs `undo`; a failure is printed, and what comes after it is still done. */
const attempt = async (what: string, undo: () => Promise<unknown>) => {
  try {
    await undo();
  } catch (error) {
    process.stderr.write(`npm start: stopping, ${what}: ${fsMessage(error)}\n`);
  }
};

const shutdown = async (code: number): Promise<never> => {
  setTimeout(() => {
    if (child?.pid !== undefined) signalGroup(child.pid, 'SIGKILL');
    process.exit(code === 0 ? 1 : code);
  }, STOP_LIMIT_MS).unref();
  await inFlight;
  if (readyFile) await attempt(`removing ${readyFile}`, () => removeReadyFile(readyFile));
  const offline = child;
  if (offline) await attempt('serverless-offline', () => stopGroup(offline));
  await attempt("esbuild's service", stopEsbuild);
  for (const { what, undo } of [...made].reverse()) await attempt(what, undo);
  process.exit(code);
};
const stop = (code: number): Promise<never> => (stopping ??= shutdown(code));
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
  process.on(signal, () => void stop(0));
}
watchLauncher(() => {
  process.stderr.write('npm start: what started it is gone; stopping\n');
  void stop(0);
});
if (readyFile) {
  try {
    await removeReadyFile(readyFile);
  } catch (error) {
    process.stderr.write(
      `${READY_FILE_VARIABLE}: cannot remove ${readyFile}: ${fsMessage(error)}\n`,
    );
    process.exit(2);
  }
}

/** Whether something already accepts connections on localhost:port (IPv4 or IPv6). */
const portInUse = (port: number): Promise<boolean> => accepts('localhost', port);

// Else the readiness probe could be answered by whatever holds the port.
if (await portInUse(port)) {
  process.stderr.write(`Port ${port} is in use on localhost: stop what uses it, or set PORT\n`);
  process.exit(2);
}
// Else the browser would be given whatever holds it as the preview.
if (await portInUse(previewPort)) {
  process.stderr.write(
    `Port ${previewPort} is in use on localhost: stop what uses it, or set PREVIEW_PORT\n`,
  );
  process.exit(2);
}

const restaurant = SAMPLE_OWNER.restaurants[0];
if (!restaurant) throw new Error('the sample owner has no restaurant');

process.stdout.write(`Starting portal-service-api on http://localhost:${port} …\n`);
const stack = await step(
  'the local stack',
  () =>
    startLocalStack({
      databaseUrl: process.env.DATABASE_URL,
      jwksUrl: process.env.JWKS_URL,
      jwtIssuer: process.env.JWT_ISSUER,
      seed: process.env.SEED === 'true',
    }),
  (started) => started.close(),
);
const url = `http://localhost:${port}`;
/** The folder the preview's CDN serves: this process's own build of the plugin. */
const pluginDir = await step(
  "the plugin's folder",
  () => mkdtemp(join(tmpdir(), 'portal-preview-plugin-')),
  (folder) => rm(folder, { recursive: true, force: true }),
);
let preview: PreviewServer;
try {
  preview = await step(
    'the preview',
    () =>
      startPreview({
        port: previewPort,
        apiUrl: url,
        pluginDir,
        // Signing in needs the issuer whose key set the functions verify with.
        issuer: process.env.JWKS_URL ? undefined : stack.issuer,
        tokenSeconds: lifetime.seconds,
      }),
    (started) => started.close(),
  );
} catch (error) {
  process.stderr.write(
    `portal preview: cannot start on port ${previewPort}: ${fsMessage(error)}\n`,
  );
  preview = await stop(2);
}
const previewUrl = `${preview.origin}/`;
const to = todayIn(restaurant.timeZone);
const sampleUrl = `${url}/v1/restaurants/${restaurant.id}/reports/orders/day?from=${addDays(to, -6)}&to=${to}`;
/** A fresh token of the sample owner, valid for `lifetime` from now. */
const sampleToken = () =>
  stack.issuer.sign(claimsFor(SAMPLE_OWNER), { expiresIn: `${lifetime.seconds}s` });
/** The statuses that mean the function answered the probe (see the header). */
const readyStatuses = new Set(process.env.JWKS_URL ? [200, 401] : [200]);

const serverless = createRequire(import.meta.url).resolve('osls/bin/serverless.js');
if (isStopping()) await halted;
const offline = spawn(
  process.execPath,
  // --noSponsor: a notice (so quiet when quiet) in place of the blank line it prints otherwise.
  [serverless, 'offline', 'start', '--stage', 'local', '--httpPort', String(port), '--noSponsor'],
  {
    env: { ...process.env, ...stack.env, PORT: String(port), ...logEnv },
    stdio: ['ignore', 'pipe', 'pipe'],
    // A process group of its own, stopped as one (tools/local/shutdown.ts).
    detached: true,
  },
);
child = offline;
if (options.verbose) {
  offline.stdout.on('data', (chunk: Buffer) => process.stdout.write(chunk));
} else {
  const filter = hideRouteTable();
  offline.stdout.setEncoding('utf8');
  offline.stdout.on('data', (text: string) => process.stdout.write(filter.push(text)));
  offline.stdout.on('end', () => process.stdout.write(filter.end()));
}
offline.stderr.on('data', (chunk: Buffer) => process.stderr.write(chunk));
offline.on('exit', (code) => void stop(code ?? 1));

/** One GET of the sample request: its status, or why there was none (ECONNREFUSED, …). */
const probe = async (): Promise<number | string> => {
  try {
    // Signed for each probe: a start slower than JWT_MAX_AGE would otherwise never be ready.
    const response = await fetch(sampleUrl, {
      headers: { Authorization: `Bearer ${await sampleToken()}` },
      signal: AbortSignal.timeout(PROBE_TIMEOUT_MS),
    });
    await response.arrayBuffer();
    return response.status;
  } catch (error) {
    const cause = (error as { cause?: { code?: unknown } }).cause;
    if (typeof cause?.code === 'string') return cause.code;
    return error instanceof Error ? error.message : String(error);
  }
};

const untilReady = async (): Promise<number | undefined> => {
  const started = Date.now();
  let noticed = false;
  while (!isStopping()) {
    const result = await probe();
    if (typeof result === 'number' && readyStatuses.has(result)) return result;
    if (!noticed && Date.now() - started >= SLOW_START_NOTICE_MS) {
      noticed = true;
      process.stderr.write(
        `npm start: not ready after ${SLOW_START_NOTICE_MS / 1000} s; GET ${sampleUrl} ` +
          `${typeof result === 'number' ? `answers ${result}` : `fails: ${result}`} (still trying)\n`,
      );
    }
    await sleep(PROBE_INTERVAL_MS);
  }
  return undefined;
};

/**
 * The reference plugin built against this API into the preview's CDN folder, and deployed for
 * portal v2 with the bundle URL of this preview's origin (see the header). Failures are printed.
 */
const deployPreviewPlugin = async (): Promise<void> => {
  let file: string;
  try {
    ({ file } = await buildReportsPlugin({ apiUrl: url, outDir: pluginDir }));
  } catch (error) {
    process.stderr.write(`portal preview: the reports plugin did not build: ${fsMessage(error)}\n`);
    return;
  }
  let output = '';
  const collect = (text: string) => {
    output += text;
  };
  const code = await runDeploy(
    ['--file', file, '--region', 'eu', '--portal-version', 'v2'],
    {
      PLUGIN_UPDATE_URL: `${url}/v1/plugins/reports`,
      PLUGIN_API_KEY: LOCAL_PLUGIN_API_KEY,
      PLUGIN_CDN_URL: `${preview.origin}/cdn`,
    },
    { ...nodeIo(), stdout: collect, stderr: collect },
  );
  if (code !== 0) {
    process.stderr.write(
      `portal preview: deploying the reports plugin for v2 failed (the registry keeps its v2 ` +
        `bundle):\n${output}`,
    );
  }
};

const probeStatus = await untilReady();
if (probeStatus !== undefined) await deployPreviewPlugin();
if (isStopping()) await halted;
if (probeStatus !== undefined) {
  // Signed now, so that it is valid for all of `lifetime` from the banner on.
  const token = await sampleToken();
  const { exp = 0 } = decodeJwt(token);
  if (readyFile) {
    try {
      await step(
        'the readiness file',
        () =>
          writeReadyFile(readyFile, {
            version: 1,
            url,
            port,
            previewUrl,
            pid: process.pid,
            token,
            tokenExpiresAt: new Date(exp * 1000).toISOString(),
            sampleUrl,
            probeStatus,
            database: stack.embedded ? 'embedded' : 'DATABASE_URL',
            keySetUrl: stack.env.JWKS_URL ?? '',
            readyAt: new Date().toISOString(),
          }),
        () => removeReadyFile(readyFile),
      );
    } catch (error) {
      process.stderr.write(
        `${READY_FILE_VARIABLE}: cannot write ${readyFile}: ${fsMessage(error)}\n`,
      );
      await stop(1);
    }
  }
  process.stdout.write(
    `\n${banner({
      url,
      database: stack.embedded ? 'embedded' : 'DATABASE_URL',
      seeded: process.env.SEED === 'true',
      keySetUrl: stack.env.JWKS_URL ?? '',
      localIssuer: !process.env.JWKS_URL,
      logLevel: logEnv.LOG_LEVEL ?? '',
      verbose: options.verbose,
      token,
      tokenLifetime: lifetime,
      sampleUrl,
      probeStatus,
      previewUrl,
    })}`,
  );
}
