/**
 * The worker thread of checkFileInWorker (import-check.ts): reads and checks the file it is
 * given and sends its batches, waiting for each to be taken once `inFlight` are outstanding.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { runFileCheck, type FileCheckMessage, type FileCheckRequest } from './import-check';

const { request, inFlight } = workerData as { request: FileCheckRequest; inFlight: number };

let wake: (() => void) | undefined;
let credits = 0;
parentPort?.on('message', () => {
  credits += 1;
  wake?.();
  wake = undefined;
});
const taken = async (): Promise<void> => {
  while (credits === 0) {
    await new Promise<void>((resolve) => {
      wake = resolve;
    });
  }
  credits -= 1;
};
const send = (message: FileCheckMessage) => {
  parentPort?.postMessage(message);
};

runFileCheck(request, inFlight, send, taken).catch((error: unknown) => {
  send({ kind: 'failed', message: (error as Error).message });
});
