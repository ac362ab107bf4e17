/**
 * The heartbeat (functions/heartbeat.ts) end to end, its Lambda client pointed at a local Lambda
 * whose `live` aliases are the real handler modules, each in an environment of its own (the run's
 * database and key set). Healthy aliases write Heartbeat 1; a planted wrong key-set URL writes
 * Heartbeat 0 with one line naming the function and the cause, and no payload or URL.
 */
import { catalogue, type Endpoint } from '../../../tools/catalogue';
import type { HeartbeatOutcome } from '../../../functions/release/heartbeat';
import {
  handlerEnvironment,
  SDK_ENV,
  startLambdaServer,
  type HandlerEnvironment,
  type LambdaServer,
} from '../../support/deploy-servers';
import { captureLogs } from '../../support/log-capture';

type Heartbeat = (event: unknown, context?: unknown) => Promise<HeartbeatOutcome>;

const endpointOf = (fn: string): Endpoint => {
  const found = catalogue.find((endpoint) => endpoint.function === fn);
  if (!found) throw new Error(`no endpoint ${fn} in the catalogue`);
  return found;
};

let lambda: LambdaServer;
let heartbeat: Heartbeat;
const environments: HandlerEnvironment[] = [];
const savedEnv = { ...process.env };

beforeAll(async () => {
  lambda = await startLambdaServer();
  Object.assign(process.env, SDK_ENV, lambda.env, {
    LOG_LEVEL: 'info',
    HEARTBEAT_INVOKE_TIMEOUT_MS: '25000',
    METRICS_NAMESPACE: 'PortalServiceApi',
    METRICS_SERVICE: 'portal-service-api-test',
  });
  ({ handler: heartbeat } = (await import('../../../functions/heartbeat')) as {
    handler: Heartbeat;
  });
});

afterAll(async () => {
  process.env = savedEnv;
  await lambda.close();
});

/** `endpoint`'s real handler with the run's settings over `overrides`, as its `live` alias. */
const live = (endpoint: Endpoint, overrides: Record<string, string> = {}) => {
  const name = `portal-service-api-test-${endpoint.function}-${environments.length}`;
  const environment = handlerEnvironment(endpoint.handlerFile, {
    AWS_LAMBDA_FUNCTION_NAME: name,
    AWS_LAMBDA_FUNCTION_VERSION: '1',
    JWKS_URL: process.env.JWKS_URL ?? '',
    JWT_ISSUER: process.env.JWT_ISSUER ?? '',
    DATABASE_URL: process.env.DATABASE_URL ?? '',
    LOG_LEVEL: 'info',
    ...overrides,
  });
  environments.push(environment);
  return { function: endpoint.function, alias: lambda.publish(name, 'live', environment) };
};

/** Runs the heartbeat over `targets`: its outcome and its JSON lines. */
const beat = async (targets: readonly { function: string; alias: string }[]) => {
  process.env.HEARTBEAT_TARGETS = JSON.stringify(targets);
  const logs = captureLogs();
  let outcome: HeartbeatOutcome;
  try {
    const started = Date.now();
    outcome = await heartbeat(
      { source: 'aws.events', 'detail-type': 'Scheduled Event' },
      { getRemainingTimeInMillis: () => started + 31_000 - Date.now() },
    );
  } finally {
    logs.stop();
  }
  const lines = logs.lines().map((line) => JSON.parse(line) as Record<string, unknown>);
  return { outcome, lines, text: logs.lines().join('\n') };
};

describe('the heartbeat', () => {
  it('writes Heartbeat 1 when every live alias reaches its database and its key set', async () => {
    const { outcome, lines } = await beat([
      live(endpointOf('ordersPerDay')),
      live(endpointOf('dishes')),
    ]);

    expect(outcome).toEqual({ healthy: true, checked: 2, failures: [] });
    const metric = lines.find((line) => line.message === 'heartbeat');
    expect(metric).toMatchObject({ level: 'info', Heartbeat: 1, checked: 2, failed: 0 });
    expect(metric?._aws).toMatchObject({
      CloudWatchMetrics: [
        {
          Namespace: 'PortalServiceApi',
          Dimensions: [['Service']],
          Metrics: [{ Name: 'Heartbeat', Unit: 'Count' }],
        },
      ],
    });
    expect(metric?.Service).toBe('portal-service-api-test');
  }, 60_000);

  it('writes Heartbeat 0 and names the function whose key-set URL is wrong, and the cause only', async () => {
    const wrongUrl = new URL('/wrong/jwks.json', process.env.JWKS_URL).toString();
    const { outcome, lines, text } = await beat([
      live(endpointOf('ordersPerDay')),
      live(endpointOf('dishes'), { JWKS_URL: wrongUrl }),
    ]);

    expect(outcome.healthy).toBe(false);
    expect(outcome.failures).toEqual([
      {
        function: 'dishes',
        cause: expect.stringMatching(/^key set failed \(KeySetUnavailableError/) as string,
      },
    ]);
    expect(lines.find((line) => line.message === 'heartbeat')).toMatchObject({
      level: 'error',
      Heartbeat: 0,
      failed: 1,
    });
    expect(lines.filter((line) => line.message === 'heartbeat check failed')).toHaveLength(1);
    expect(text).not.toContain('/wrong/');
  }, 60_000);

  it('writes Heartbeat 0 for an alias that does not answer, and for an environment it cannot read', async () => {
    const missing = {
      function: 'revenue',
      alias: 'arn:aws:lambda:eu-west-1:123456789012:function:portal-service-api-test-gone:live',
    };
    const gone = await beat([missing]);
    expect(gone.outcome.failures).toEqual([
      { function: 'revenue', cause: 'invocation failed (ResourceNotFoundException)' },
    ]);

    process.env.HEARTBEAT_INVOKE_TIMEOUT_MS = 'soon';
    try {
      const broken = await beat([missing]);
      expect(broken.outcome).toMatchObject({ healthy: false, checked: 0 });
      expect(broken.lines.find((line) => line.message === 'heartbeat')).toMatchObject({
        Heartbeat: 0,
      });
    } finally {
      process.env.HEARTBEAT_INVOKE_TIMEOUT_MS = '25000';
    }
  }, 60_000);
});
