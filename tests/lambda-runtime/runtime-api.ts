/**
 * A local Lambda Runtime API for one execution environment: the endpoints AWS documents for a
 * runtime ("Using the Lambda runtime API for custom runtimes"), on 127.0.0.1.
 *
 * - GET /2018-06-01/runtime/invocation/next waits until an event is queued, then answers it
 *   with Lambda-Runtime-Aws-Request-Id, Lambda-Runtime-Deadline-Ms,
 *   Lambda-Runtime-Invoked-Function-Arn and Lambda-Runtime-Trace-Id.
 * - POST /2018-06-01/runtime/invocation/{id}/response and /{id}/error settle that invocation.
 * - POST /2018-06-01/runtime/init/error records the initialisation's failure.
 *
 * The first /next is the end of INIT: `initDone` resolves then, and events queued before it
 * wait for it, as Lambda hands out no event before the runtime asks.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

const PREFIX = '/2018-06-01/runtime';

export type InvocationResult =
  | { readonly kind: 'response'; readonly requestId: string; readonly body: string }
  | {
      readonly kind: 'error';
      readonly requestId: string;
      readonly errorType: string;
      readonly body: string;
    };

export interface InitError {
  readonly errorType: string;
  readonly body: string;
}

export interface RuntimeApi {
  /** host:port, for AWS_LAMBDA_RUNTIME_API. */
  readonly address: string;
  /** Resolves at the runtime's first GET /next: INIT is over. */
  readonly initDone: Promise<void>;
  /** Resolves when the runtime posts /init/error. */
  readonly initError: Promise<InitError>;
  /** Queues an event; resolves with the runtime's response or error for it. */
  invoke(event: unknown): Promise<InvocationResult>;
  /** Called as each event is handed to the runtime by /next. */
  onHandedOut(listener: (requestId: string) => void): void;
  close(): Promise<void>;
}

interface Pending {
  readonly requestId: string;
  readonly body: string;
  readonly settle: (result: InvocationResult) => void;
}

const readBody = (request: IncomingMessage): Promise<string> =>
  new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      resolve(Buffer.concat(chunks).toString('utf8'));
    });
    request.on('error', reject);
  });

export const startRuntimeApi = async ({
  functionName,
  timeoutMs = 10_000,
}: {
  readonly functionName: string;
  /** The function's timeout: each event's deadline is this long after it is handed out. */
  readonly timeoutMs?: number;
}): Promise<RuntimeApi> => {
  const queue: Pending[] = [];
  const inFlight = new Map<string, Pending>();
  const waiting: ServerResponse[] = [];
  const listeners: ((requestId: string) => void)[] = [];
  let markInitDone: () => void = () => undefined;
  const initDone = new Promise<void>((resolve) => (markInitDone = resolve));
  let markInitError: (error: InitError) => void = () => undefined;
  const initError = new Promise<InitError>((resolve) => (markInitError = resolve));
  const arn = `arn:aws:lambda:eu-west-1:123456789012:function:${functionName}`;

  const handOut = () => {
    while (queue.length > 0 && waiting.length > 0) {
      const response = waiting.shift();
      const next = queue.shift();
      if (!response || !next) return;
      if (response.destroyed) {
        queue.unshift(next);
        continue;
      }
      inFlight.set(next.requestId, next);
      response.writeHead(200, {
        'Content-Type': 'application/json',
        'Lambda-Runtime-Aws-Request-Id': next.requestId,
        'Lambda-Runtime-Deadline-Ms': String(Date.now() + timeoutMs),
        'Lambda-Runtime-Invoked-Function-Arn': arn,
        'Lambda-Runtime-Trace-Id': `Root=1-${Math.floor(Date.now() / 1000).toString(16)}-${randomUUID().replace(/-/g, '').slice(0, 24)};Parent=${randomUUID().replace(/-/g, '').slice(0, 16)};Sampled=0`,
      });
      response.end(next.body);
      for (const listener of listeners) listener(next.requestId);
    }
  };

  const accepted = (response: ServerResponse) => {
    response.writeHead(202, { 'Content-Type': 'application/json' });
    response.end('{"status":"OK"}');
  };

  const server = createServer((request, response) => {
    void (async () => {
      const path = request.url ?? '';
      if (request.method === 'GET' && path === `${PREFIX}/invocation/next`) {
        waiting.push(response);
        markInitDone();
        handOut();
        return;
      }
      const body = await readBody(request);
      if (request.method === 'POST' && path === `${PREFIX}/init/error`) {
        markInitError({
          errorType: String(request.headers['lambda-runtime-function-error-type'] ?? ''),
          body,
        });
        accepted(response);
        return;
      }
      const match = /^\/2018-06-01\/runtime\/invocation\/([^/]+)\/(response|error)$/.exec(path);
      const pending = match ? inFlight.get(decodeURIComponent(match[1] ?? '')) : undefined;
      if (request.method !== 'POST' || !match || !pending) {
        response.writeHead(404, { 'Content-Type': 'application/json' });
        response.end('{"errorType":"InvalidRequestID","errorMessage":"unknown request id"}');
        return;
      }
      inFlight.delete(pending.requestId);
      accepted(response);
      pending.settle(
        match[2] === 'response'
          ? { kind: 'response', requestId: pending.requestId, body }
          : {
              kind: 'error',
              requestId: pending.requestId,
              errorType: String(request.headers['lambda-runtime-function-error-type'] ?? ''),
              body,
            },
      );
    })();
  });
  // A /next is held until an event comes, for as long as a test needs.
  server.requestTimeout = 0;
  server.headersTimeout = 0;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    address: `127.0.0.1:${port}`,
    initDone,
    initError,
    invoke: (event) =>
      new Promise<InvocationResult>((settle) => {
        queue.push({ requestId: randomUUID(), body: JSON.stringify(event), settle });
        handOut();
      }),
    onHandedOut: (listener) => {
      listeners.push(listener);
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
