/**
 * The heartbeat (functions/release/heartbeat.ts): not an endpoint of the catalogue, and behind no
 * route. An EventBridge schedule invokes it every minute; it checks each function's `live` alias
 * and writes the `Heartbeat` metric. Its Lambda client is built once per container, its endpoint
 * from the SDK's own settings (AWS_ENDPOINT_URL_LAMBDA), its region from Lambda's AWS_REGION.
 */
import { LambdaClient } from '@aws-sdk/client-lambda';
import { createLogger } from '../shared/logger';
import { hookLogLevel } from './release/environment';
import { heartbeat } from './release/heartbeat';

/** A TCP connect that takes longer is a network fault, not a slow function. */
const CONNECTION_TIMEOUT_MS = 3_000;

export const handler = heartbeat({
  lambda: new LambdaClient({ requestHandler: { connectionTimeout: CONNECTION_TIMEOUT_MS } }),
  logger: createLogger(hookLogLevel(process.env)),
});
