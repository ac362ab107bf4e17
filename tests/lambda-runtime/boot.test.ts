/**
 * npm run test:lambda: every packaged function booted the way Lambda's managed Node runtime
 * boots it. The functions are packaged by the release code (`npm run package -- --stage dev`),
 * each zip unpacked into its own task folder, and AWS's runtime interface client
 * (aws-lambda-ric, built for the runtime's Node by tools/local/lambda-ric.ts) loads the
 * template's Handler with the template's environment, against a local Runtime API
 * (runtime-api.ts), a Parameters and Secrets extension that is "not ready" until the first event
 * is handed out, a key-set host that answers 500 ms late, and the suite's real database (the
 * global setup's: TEST_DATABASE_URL, else the embedded PGlite) behind the secret's credential.
 *
 * For every function: INIT ends with the runtime asking for an event (no /init/error); a real
 * API Gateway REST request that must succeed is answered 200, and a `{}` event is answered. An
 * INIT that fails (JWKS_URL unset) is reported on /runtime/init/error. And the freeze: Lambda
 * may freeze an environment as soon as INIT has ended, for as long as it likes, so with the
 * process stopped (SIGSTOP) for 5 s once it has asked for its first event, that first request
 * is still answered 200, with no failure counted in the logs (KeySetFailures, DatabaseErrors)
 * and no error line. And a database that goes silent: with the function's connections silenced
 * and new ones never greeted (a TCP proxy), each request is answered the contract's 500 well
 * before the function timeout, and once the proxy passes again the same process answers 200.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import type { JSONWebKeySet } from 'jose';
import { LOCAL_PLUGIN_API_KEY, SAMPLE_PLUGIN_V1_BUNDLE_URL } from '../../tools/db/seed-plugins';
import { LOCAL_ISSUER } from '../../tools/local/issuer';
import { ensureLambdaRuntimeClient, type LambdaRuntimeClient } from '../../tools/local/lambda-ric';
import { catalogue, type Endpoint } from '../../tools/catalogue';
import { EVENTS_DIR, restEvent, sampleEvent } from '../support/events';
import { run } from '../support/processes';
import { testIssuer, tokenFor } from '../support/tokens';
import { startTcpProxy, type TcpProxy } from '../support/tcp-proxy';
import { zipEntries } from '../support/zip';
import type { InvocationResult } from './runtime-api';
import {
  boot,
  type BootOptions,
  type LogLine,
  type PackagedFunction,
  type Sandbox,
} from './sandbox';

const SECRET_ARN =
  'arn:aws:secretsmanager:eu-west-1:123456789012:secret:portal/dev/database-AbC123';
/** INIT's key-set fetch is still in flight when INIT ends (its timeout is 2 s). */
const KEY_SET_DELAY_MS = 500;
const FREEZE_MS = 5_000;
/** From the process's start to its first /next, on a busy machine. */
const INIT_LIMIT_MS = 30_000;

type Template = {
  Resources: Record<string, { Type: string; Properties: Record<string, unknown> }>;
};

/** The functions of a packaged region, as its template declares them. */
const packagedFunctions = (folder: string): PackagedFunction[] => {
  const template = JSON.parse(
    readFileSync(join(folder, 'cloudformation-template-update-stack.json'), 'utf8'),
  ) as Template;
  return Object.values(template.Resources)
    .filter(({ Type }) => Type === 'AWS::Lambda::Function')
    .map(({ Properties: p }) => {
      const functionName = String(p.FunctionName);
      return {
        name: functionName.slice(functionName.lastIndexOf('-') + 1),
        functionName,
        handler: String(p.Handler),
        zip: join(folder, basename((p.Code as { S3Key: string }).S3Key)),
        memorySize: Number(p.MemorySize),
        timeoutSeconds: Number(p.Timeout),
        runtime: String(p.Runtime),
        environment: (p.Environment as { Variables: Record<string, string> }).Variables,
      };
    });
};

/** A request each function must answer 200, as API Gateway sends it. */
const requestFor = async (endpoint: Endpoint): Promise<unknown> => {
  const token = await tokenFor();
  if (existsSync(join(EVENTS_DIR, `${endpoint.id}.json`))) return sampleEvent(endpoint.id, token);
  switch (endpoint.id) {
    case 'plugins':
      return restEvent({
        resource: endpoint.paths[0],
        headers: { Authorization: `Bearer ${token}` },
        query: { portalVersion: 'v1' },
      });
    case 'deploy-plugin':
      // The seeded v1 bundle again: the registry is left as it was.
      return {
        ...restEvent({
          method: 'PUT',
          resource: endpoint.paths[0],
          pathParameters: { code: 'reports' },
          headers: { 'Content-Type': 'application/json', 'x-api-key': LOCAL_PLUGIN_API_KEY },
        }),
        body: JSON.stringify({ bundleUrl: SAMPLE_PLUGIN_V1_BUNDLE_URL, portalVersion: 'v1' }),
      };
    default:
      throw new Error(`no request for ${endpoint.id}: give it one in requestFor`);
  }
};

/** A handler's API Gateway answer, from the runtime's response post. */
const gatewayAnswer = (result: InvocationResult) => {
  if (result.kind !== 'response') return { kind: result.kind, errorType: result.errorType };
  const answer = JSON.parse(result.body) as {
    statusCode?: number;
    headers?: Record<string, string>;
    body?: string;
  } | null;
  return {
    kind: result.kind,
    statusCode: answer?.statusCode,
    headers: answer?.headers ?? {},
    body: answer?.body ?? '',
  };
};

/** Lines that count a failure (KeySetFailures, DatabaseErrors) or report an error, in short. */
const failureLines = (logs: readonly LogLine[]) =>
  logs
    .filter(
      (line) => line.KeySetFailures === 1 || line.DatabaseErrors === 1 || line.level === 'error',
    )
    .map(({ level, message, errorName, errorCode, status, KeySetFailures, DatabaseErrors }) => ({
      level,
      message,
      errorName,
      errorCode,
      status,
      KeySetFailures,
      DatabaseErrors,
    }));

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** `promise`'s value, or undefined after `ms`. */
const within = async <T>(promise: Promise<T>, ms: number): Promise<T | undefined> => {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      promise,
      new Promise<undefined>((resolve) => {
        timer = setTimeout(() => {
          resolve(undefined);
        }, ms);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
};

let ric: LambdaRuntimeClient;
let jwks: JSONWebKeySet;
let functions: PackagedFunction[] = [];
let secret = '';
const out = mkdtempSync(join(tmpdir(), 'portal-lambda-runtime-'));
const sandboxes: Sandbox[] = [];

const start = async (
  fn: PackagedFunction,
  environment: BootOptions['environment'] = {},
): Promise<Sandbox> => {
  const sandbox = await boot({
    ric,
    fn,
    secret,
    jwks,
    keySetDelayMs: KEY_SET_DELAY_MS,
    environment,
  });
  sandboxes.push(sandbox);
  return sandbox;
};

/** Resolves once INIT has ended (the first /next); fails on /init/error, an exit or the limit. */
const initialised = async (sandbox: Sandbox): Promise<void> => {
  let timer: NodeJS.Timeout | undefined;
  const failed = (why: string) =>
    new Error(`${sandbox.fn.name}: ${why}; output:\n${sandbox.output().slice(-4000)}`);
  try {
    await Promise.race([
      sandbox.api.initDone,
      sandbox.api.initError.then((error) => {
        throw failed(`INIT failed (${error.errorType}: ${error.body})`);
      }),
      sandbox.exited.then((code) => {
        throw failed(`exited (${String(code)}) during INIT`);
      }),
      new Promise((_, reject) => {
        timer = setTimeout(() => {
          reject(failed(`no /next within ${INIT_LIMIT_MS} ms`));
        }, INIT_LIMIT_MS);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
};

const endpointOf = (fn: PackagedFunction): Endpoint => {
  const endpoint = catalogue.find((entry) => entry.function === fn.name);
  if (!endpoint) throw new Error(`${fn.name} is no endpoint of the catalogue`);
  return endpoint;
};

const packagedFunction = (name: string): PackagedFunction => {
  const fn = functions.find((candidate) => candidate.name === name);
  if (!fn) throw new Error(`${name} was not packaged`);
  return fn;
};

beforeAll(async () => {
  const [client] = await Promise.all([
    ensureLambdaRuntimeClient((line) => process.stdout.write(`test:lambda: ${line}\n`)),
    (async () => {
      jwks = (await testIssuer()).publicKeySet;
    })(),
  ]);
  ric = client;

  // The database of the global setup; its user and password move into the secret.
  const database = new URL(process.env.DATABASE_URL ?? '');
  secret = JSON.stringify({
    username: decodeURIComponent(database.username) || 'postgres',
    password: decodeURIComponent(database.password) || 'unused-by-a-trusting-server',
  });
  database.username = '';
  database.password = '';

  const packaged = await run(
    ['--import', 'tsx', 'tools/release/main.ts', 'package', '--stage', 'dev', '--out', out],
    {
      // Each environment gets its own key-set host (sandbox.ts); nothing listens here.
      JWKS_URL: 'http://127.0.0.1:9/v2/jwks.json',
      JWT_ISSUER: LOCAL_ISSUER,
      DATABASE_URL: database.toString(),
      DATABASE_SECRET_ARN: SECRET_ARN,
      DB_TLS: 'disable',
      LOG_LEVEL: 'info',
      VPC_SUBNET_IDS: '',
      VPC_SECURITY_GROUP_IDS: '',
      PORTAL_SERVERLESS_BIN: '',
    },
    300_000,
  );
  if (packaged.code !== 0) {
    throw new Error(`npm run package failed:\n${packaged.stdout}${packaged.stderr}`);
  }
  functions = packagedFunctions(join(out, 'eu-west-1'));
}, 600_000);

afterAll(async () => {
  await Promise.all(sandboxes.map((sandbox) => sandbox.close()));
  rmSync(out, { recursive: true, force: true });
});

const NAMES = catalogue.map((endpoint) => endpoint.function);

describe('the package', () => {
  it("holds one function per catalogue endpoint, each zip its own bundle and map, on the runtime's Node", () => {
    expect(functions.map((fn) => fn.name).sort()).toEqual([...NAMES].sort());
    for (const fn of functions) {
      const bundle = endpointOf(fn).handlerFile.replace(/\.ts$/, '.cjs');
      expect({ name: fn.name, handler: fn.handler, entries: zipEntries(fn.zip) }).toEqual({
        name: fn.name,
        handler: bundle.replace(/\.cjs$/, '.handler'),
        entries: [bundle, `${bundle}.map`],
      });
      expect(fn.runtime).toBe(`nodejs${ric.nodeVersion.slice(1).split('.')[0] ?? ''}.x`);
      expect(fn.environment).toMatchObject({ DATABASE_SECRET_ARN: SECRET_ARN, DB_TLS: 'disable' });
    }
  });
});

describe('booted by the runtime interface client', () => {
  interface Booted {
    readonly request: ReturnType<typeof gatewayAnswer>;
    readonly empty: InvocationResult;
    readonly initErrors: number;
    readonly logs: LogLine[];
  }
  const outcomes = new Map<string, Promise<Booted>>();

  beforeAll(() => {
    for (const name of NAMES) {
      const outcome = (async (): Promise<Booted> => {
        const fn = packagedFunction(name);
        const sandbox = await start(fn);
        let initErrors = 0;
        void sandbox.api.initError.then(() => (initErrors += 1));
        await initialised(sandbox);
        const request = gatewayAnswer(await sandbox.api.invoke(await requestFor(endpointOf(fn))));
        const empty = await sandbox.api.invoke({});
        return { request, empty, initErrors, logs: sandbox.logs() };
      })();
      outcome.catch(() => undefined);
      outcomes.set(name, outcome);
    }
  });

  it.each(NAMES)(
    '%s: INIT ends in /next, a request is answered 200 and {} is answered, nothing failing',
    async (name) => {
      const booted = await outcomes.get(name);
      expect(booted?.initErrors).toBe(0);
      expect(booted?.request).toMatchObject({ kind: 'response', statusCode: 200 });
      expect(JSON.parse(booted?.request.body ?? '')).toBeTruthy();
      expect(booted?.empty).toMatchObject({ kind: 'response', body: 'null' });
      expect(booted?.logs.filter((line) => line.message === 'non-HTTP event ignored')).toEqual([
        expect.objectContaining({ kind: 'empty' }),
      ]);
      expect(failureLines(booted?.logs ?? [])).toEqual([]);
    },
    120_000,
  );
});

describe('an INIT that fails', () => {
  it('is reported on /runtime/init/error (JWKS_URL unset), and no event is asked for', async () => {
    const fn = packagedFunction(NAMES[0] ?? '');
    const sandbox = await start(fn, { JWKS_URL: undefined });
    let asked = false;
    void sandbox.api.initDone.then(() => (asked = true));

    const error = await within(sandbox.api.initError, INIT_LIMIT_MS);
    const code = await within(sandbox.exited, INIT_LIMIT_MS);

    expect(error?.body).toContain('JWKS_URL');
    expect(error?.errorType).not.toBe('');
    expect(code).toEqual(expect.any(Number));
    expect(code).not.toBe(0);
    expect(asked).toBe(false);
  }, 60_000);
});

describe('frozen right after INIT', () => {
  interface Frozen {
    readonly servedAtFreeze: number;
    readonly request: ReturnType<typeof gatewayAnswer>;
    readonly logs: LogLine[];
  }
  const outcomes = new Map<string, Promise<Frozen>>();

  beforeAll(() => {
    for (const name of NAMES) {
      const outcome = (async (): Promise<Frozen> => {
        const fn = packagedFunction(name);
        const sandbox = await start(fn);
        await initialised(sandbox);
        // The first /next is held; the environment is frozen before any event is handed out.
        sandbox.freeze();
        const servedAtFreeze = sandbox.keySet.served;
        await pause(FREEZE_MS);
        sandbox.thaw();
        const request = gatewayAnswer(await sandbox.api.invoke(await requestFor(endpointOf(fn))));
        // Whatever INIT left running has had its chance to log.
        await pause(200);
        return { servedAtFreeze, request, logs: sandbox.logs() };
      })();
      outcome.catch(() => undefined);
      outcomes.set(name, outcome);
    }
  });

  it.each(NAMES)(
    '%s: the first request after a 5 s freeze is answered 200, and no failure is counted',
    async (name) => {
      const frozen = await outcomes.get(name);
      // The premise: INIT's key-set fetch had not been answered when the freeze began.
      expect(frozen?.servedAtFreeze).toBe(0);
      expect({ request: frozen?.request, failures: failureLines(frozen?.logs ?? []) }).toEqual({
        request: expect.objectContaining({ kind: 'response', statusCode: 200 }) as unknown,
        failures: [],
      });
    },
    120_000,
  );
});

describe('a database that goes silent, then fails over', () => {
  const STATEMENT_TIMEOUT_MS = 1_000;
  let via: TcpProxy | undefined;
  afterAll(async () => {
    await via?.close();
  });

  it('ordersPerDay: each request 500 with CORS within the statement timeout + 1 s, then 200 from the same process within 5 s of the failover', async () => {
    const fn = packagedFunction('ordersPerDay');
    const target = new URL(process.env.DATABASE_URL ?? '');
    via = await startTcpProxy({
      targetHost: target.hostname,
      targetPort: Number(target.port || '5432'),
    });
    const location = new URL(fn.environment.DATABASE_URL ?? '');
    location.port = String(via.port);
    const sandbox = await start(fn, {
      DATABASE_URL: location.toString(),
      DB_STATEMENT_TIMEOUT_MS: String(STATEMENT_TIMEOUT_MS),
      DB_CONNECT_TIMEOUT_SECONDS: '1',
    });
    await initialised(sandbox);
    const request = await requestFor(endpointOf(fn));
    const timed = async () => {
      const started = performance.now();
      const answer = gatewayAnswer(await sandbox.api.invoke(request));
      return { answer, ms: performance.now() - started };
    };
    const warm = await timed();

    via.silenceAll();
    await via.setMode('black-hole');
    const silent = [await timed(), await timed(), await timed()];
    await via.setMode('pass');
    const back = await timed();
    const after = [await timed(), await timed()];

    expect(warm.answer).toMatchObject({ kind: 'response', statusCode: 200 });
    for (const { answer, ms } of silent) {
      expect(answer).toMatchObject({
        kind: 'response',
        statusCode: 500,
        headers: expect.objectContaining({ 'Access-Control-Allow-Origin': '*' }) as unknown,
      });
      expect(JSON.parse(answer.body ?? '')).toEqual({
        state: 'ERROR',
        code: 'INTERNAL_ERROR',
        message: 'Unknown error',
      });
      expect(ms).toBeLessThan(STATEMENT_TIMEOUT_MS + 1_000);
    }
    expect(back.answer).toMatchObject({ kind: 'response', statusCode: 200 });
    expect(back.ms).toBeLessThan(5_000);
    expect(after.map(({ answer }) => answer.statusCode)).toEqual([200, 200]);
    expect(
      failureLines(sandbox.logs())
        .filter((line) => line.message === 'request failed')
        .map((line) => line.errorCode),
    ).toEqual(['ERR_DATABASE_TIMEOUT', 'CONNECT_TIMEOUT', 'CONNECT_TIMEOUT']);
  }, 120_000);
});
