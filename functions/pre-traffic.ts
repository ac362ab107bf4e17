/**
 * The release's BeforeAllowTraffic hook (functions/release/hook.ts): not an endpoint of the
 * catalogue, and behind no route. CodeDeploy invokes it before moving a `live` alias to a new
 * version; it reads that deployment, checks the new version it moves the alias to, and reports to
 * CodeDeploy. Its clients are built once per container, their endpoints from the SDK's own
 * settings (AWS_ENDPOINT_URL_LAMBDA, AWS_ENDPOINT_URL_CODEDEPLOY), their region from Lambda's
 * AWS_REGION. Each call is bounded by its own abort signal (the deployment's read by
 * DEPLOYMENT_READ_TIMEOUT_MS, each invocation by PRE_TRAFFIC_INVOKE_TIMEOUT_MS, read at each run).
 */
import { CodeDeployClient } from '@aws-sdk/client-codedeploy';
import { LambdaClient } from '@aws-sdk/client-lambda';
import { createLogger } from '../shared/logger';
import { hookLogLevel } from './release/environment';
import { preTrafficHook } from './release/hook';

/** A TCP connect that takes longer is a network fault, not a slow function. */
const CONNECTION_TIMEOUT_MS = 3_000;

export const handler = preTrafficHook({
  lambda: new LambdaClient({ requestHandler: { connectionTimeout: CONNECTION_TIMEOUT_MS } }),
  codeDeploy: new CodeDeployClient({
    requestHandler: { connectionTimeout: CONNECTION_TIMEOUT_MS },
  }),
  logger: createLogger(hookLogLevel(process.env)),
});
