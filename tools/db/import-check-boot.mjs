// The worker thread of OrderChecker (import-check.ts) starts here: it registers tsx's loader,
// as npm run import runs under tsx, then loads the TypeScript module named in workerData.
import { workerData } from 'node:worker_threads';
import { register } from 'tsx/esm/api';

register();
await import(workerData.module);
