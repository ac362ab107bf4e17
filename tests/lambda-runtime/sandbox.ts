/**
 * One Lambda execution environment for a packaged function, as Lambda's managed Node runtime
 * makes it: the function's zip unpacked into a folder of its own (LAMBDA_TASK_ROOT, /var/task
 * on Lambda), AWS's runtime interface client (aws-lambda-ric, tools/local/lambda-ric.ts) run
 * by the runtime's Node with _HANDLER and the packaged environment, talking to a local Runtime
 * API (runtime-api.ts), and a Parameters and Secrets extension beside it
 * (tests/support/secrets-extension.ts) that, like an extension still starting, answers "not
 * ready" until the first event has been handed out. Each environment has its own key-set host
 * (JWKS_URL), slow enough that INIT's fetch of the key set is still in flight when INIT ends.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { JSONWebKeySet } from 'jose';
import type { LambdaRuntimeClient } from '../../tools/local/lambda-ric';
import {
  startLocalSecretsExtension,
  type LocalSecretsExtension,
} from '../support/secrets-extension';
import { extractZip } from '../support/zip';
import { startRuntimeApi, type RuntimeApi } from './runtime-api';

/** A packaged function: what the template says Lambda runs. */
export interface PackagedFunction {
  /** The serverless function name (`ordersPerDay`). */
  readonly name: string;
  readonly functionName: string;
  /** The template's Handler (`functions/orders-per-day.handler`). */
  readonly handler: string;
  readonly zip: string;
  readonly memorySize: number;
  readonly timeoutSeconds: number;
  readonly runtime: string;
  /** The template's Environment.Variables. */
  readonly environment: Readonly<Record<string, string>>;
}

/** A JSON log line of the function (the service's own lines are JSON on stdout). */
export type LogLine = Readonly<Record<string, unknown>>;

export interface Sandbox {
  readonly fn: PackagedFunction;
  readonly api: RuntimeApi;
  readonly extension: LocalSecretsExtension;
  readonly keySet: SlowKeySet;
  readonly process: ChildProcess;
  /** Resolves with the exit code (or signal) once the process has ended. */
  readonly exited: Promise<number | string | null>;
  /** Every line written on stdout and stderr so far. */
  output(): string;
  /** The JSON lines of stdout so far. */
  logs(): LogLine[];
  /** Freezes (SIGSTOP) and thaws (SIGCONT) the process, as Lambda freezes an environment. */
  freeze(): void;
  thaw(): void;
  close(): Promise<void>;
}

export interface BootOptions {
  readonly ric: LambdaRuntimeClient;
  readonly fn: PackagedFunction;
  /** The database credential the extension serves, as the secret's JSON. */
  readonly secret: string;
  /** The key set this environment's key-set host serves, each answer `keySetDelayMs` late. */
  readonly jwks: JSONWebKeySet;
  readonly keySetDelayMs: number;
  /** Variables to add to or (undefined) remove from the packaged environment. */
  readonly environment?: Readonly<Record<string, string | undefined>>;
}

const SESSION_TOKEN = 'lambda-runtime-test-session-token';

/** Unpacks the function's zip and starts its runtime, API and extension; does not wait for INIT. */
export const boot = async ({
  ric,
  fn,
  secret,
  jwks,
  keySetDelayMs,
  environment = {},
}: BootOptions): Promise<Sandbox> => {
  const keySet = await startSlowKeySet(jwks, keySetDelayMs);
  const taskRoot = mkdtempSync(join(tmpdir(), `lambda-task-${fn.name}-`));
  extractZip(fn.zip, taskRoot);
  const api = await startRuntimeApi({
    functionName: fn.functionName,
    timeoutMs: fn.timeoutSeconds * 1000,
  });
  const extension = await startLocalSecretsExtension({ sessionToken: SESSION_TOKEN });
  const secretArn = fn.environment.DATABASE_SECRET_ARN;
  if (secretArn) extension.put(secretArn, secret);
  // Still starting until the first event is handed out.
  extension.notReadyFor(Number.MAX_SAFE_INTEGER);
  api.onHandedOut(() => {
    extension.notReadyFor(0);
  });

  const variables: Record<string, string> = {
    ...fn.environment,
    // What Lambda sets for every function (the ones the runtime and the service read).
    AWS_LAMBDA_RUNTIME_API: api.address,
    LAMBDA_TASK_ROOT: taskRoot,
    LAMBDA_RUNTIME_DIR: dirname(ric.entry),
    _HANDLER: fn.handler,
    AWS_EXECUTION_ENV: `AWS_Lambda_${fn.runtime}`,
    AWS_LAMBDA_FUNCTION_NAME: fn.functionName,
    AWS_LAMBDA_FUNCTION_VERSION: '$LATEST',
    AWS_LAMBDA_FUNCTION_MEMORY_SIZE: String(fn.memorySize),
    AWS_LAMBDA_LOG_GROUP_NAME: `/aws/lambda/${fn.functionName}`,
    AWS_LAMBDA_LOG_STREAM_NAME: '2026/01/01/[$LATEST]0123456789abcdef0123456789abcdef',
    AWS_REGION: 'eu-west-1',
    AWS_DEFAULT_REGION: 'eu-west-1',
    AWS_ACCESS_KEY_ID: 'ASIALOCALTESTKEY0000',
    AWS_SECRET_ACCESS_KEY: 'local-test-secret-access-key',
    AWS_SESSION_TOKEN: SESSION_TOKEN,
    PARAMETERS_SECRETS_EXTENSION_HTTP_PORT: String(extension.port),
    JWKS_URL: keySet.url,
    TZ: ':UTC',
    LANG: 'en_US.UTF-8',
    PATH: `${dirname(ric.node)}:/usr/local/bin:/usr/bin:/bin`,
  };
  for (const [name, value] of Object.entries(environment)) {
    if (value === undefined) Reflect.deleteProperty(variables, name);
    else variables[name] = value;
  }

  // Lambda's bootstrap runs the client with the runtime's Node in the task folder.
  const child = spawn(ric.node, ['--expose-gc', '--max-http-header-size=81920', ric.entry], {
    cwd: taskRoot,
    env: variables,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  let stdout = '';
  child.stdout.on('data', (chunk: Buffer) => {
    output += chunk.toString();
    stdout += chunk.toString();
  });
  child.stderr.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  const exited = new Promise<number | string | null>((resolve) => {
    child.once('exit', (code, signal) => {
      resolve(code ?? signal);
    });
  });
  const signal = (name: NodeJS.Signals) => {
    if (child.exitCode === null && child.signalCode === null) child.kill(name);
  };

  return {
    fn,
    api,
    extension,
    keySet,
    process: child,
    exited,
    output: () => output,
    logs: () =>
      stdout.split('\n').flatMap((line) => {
        if (!line.startsWith('{')) return [];
        try {
          return [JSON.parse(line) as LogLine];
        } catch {
          return [];
        }
      }),
    freeze: () => {
      signal('SIGSTOP');
    },
    thaw: () => {
      signal('SIGCONT');
    },
    close: async () => {
      signal('SIGCONT');
      signal('SIGKILL');
      await exited;
      await Promise.all([api.close(), extension.close(), keySet.close()]);
      rmSync(taskRoot, { recursive: true, force: true });
    },
  };
};

export interface SlowKeySet {
  readonly url: string;
  /** Requests received so far. */
  readonly received: number;
  /** Requests answered so far. */
  readonly served: number;
  close(): Promise<void>;
}

/**
 * The issuer's key set over HTTP, each answer sent `delayMs` after the request: a key-set
 * host far enough away that INIT's fetch is still in flight when INIT ends.
 */
export const startSlowKeySet = async (
  keySet: JSONWebKeySet,
  delayMs: number,
): Promise<SlowKeySet> => {
  let received = 0;
  let served = 0;
  const server = createServer((request, response) => {
    received += 1;
    setTimeout(() => {
      if (request.method !== 'GET' || request.url !== '/v2/jwks.json') {
        response.writeHead(404).end();
        return;
      }
      served += 1;
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify(keySet));
    }, delayMs);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v2/jwks.json`,
    get received() {
      return received;
    },
    get served() {
      return served;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => {
          resolve();
        });
      }),
  };
};
