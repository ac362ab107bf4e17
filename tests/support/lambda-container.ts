/**
 * One Lambda execution environment, for the local Lambda of tests/support/deploy-servers.ts: a
 * child process (`node --import tsx tests/support/lambda-container.ts <handler file>`) started
 * with the function's environment. It loads the handler module at once, as Lambda's INIT does
 * (the module reads its configuration when loaded), then runs the invocations its parent sends
 * over IPC, one at a time, with a context whose getRemainingTimeInMillis counts down to the
 * deadline the parent gives. Each answer is what Lambda's runtime makes of the handler's
 * outcome: its result, or a function error `{ errorType, errorMessage, trace }` (an error at
 * INIT answers every invocation so).
 */
import { pathToFileURL } from 'node:url';
import { resolve } from 'node:path';

/** What the parent sends: one invocation. */
export interface ContainerInvocation {
  readonly id: number;
  readonly event: unknown;
  readonly requestId: string;
  readonly functionArn: string;
  /** Epoch milliseconds at which the function times out. */
  readonly deadline: number;
}

/** What the child answers. */
export type ContainerAnswer =
  | { readonly id: number; readonly result: unknown }
  | {
      readonly id: number;
      readonly error: { errorType: string; errorMessage: string; trace: string[] };
    };

type Handler = (event: unknown, context: unknown) => Promise<unknown>;

const errorPayload = (error: unknown) => {
  const { name, message, stack } =
    error instanceof Error ? error : new Error(`non-error thrown: ${String(error)}`);
  return { errorType: name, errorMessage: message, trace: (stack ?? '').split('\n') };
};

// Only as a child with an IPC channel: imported by a test for its types, it does nothing.
if (process.send !== undefined && process.argv[2] !== undefined) {
  const send = (answer: ContainerAnswer): void => {
    process.send?.(answer);
  };
  const loaded: Promise<Handler> = import(pathToFileURL(resolve(process.argv[2])).href).then(
    (module: { handler?: unknown }) => {
      if (typeof module.handler !== 'function') throw new TypeError('the module has no handler');
      return module.handler as Handler;
    },
  );
  loaded.catch(() => undefined);
  let queue = Promise.resolve();
  process.on('message', (message: ContainerInvocation) => {
    queue = queue.then(async () => {
      try {
        const handler = await loaded;
        const [, , , region = '', account = ''] = message.functionArn.split(':');
        const result = await handler(message.event, {
          awsRequestId: message.requestId,
          functionName: process.env.AWS_LAMBDA_FUNCTION_NAME,
          functionVersion: process.env.AWS_LAMBDA_FUNCTION_VERSION,
          invokedFunctionArn: message.functionArn,
          memoryLimitInMB: '512',
          logGroupName: `/aws/lambda/${process.env.AWS_LAMBDA_FUNCTION_NAME ?? ''}`,
          logStreamName: `${region}/${account}`,
          callbackWaitsForEmptyEventLoop: false,
          getRemainingTimeInMillis: () => Math.max(message.deadline - Date.now(), 0),
        });
        send({ id: message.id, result: result ?? null });
      } catch (error) {
        send({ id: message.id, error: errorPayload(error) });
      }
    });
  });
}
