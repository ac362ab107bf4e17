/**
 * The release's pre-traffic hook (functions/pre-traffic.ts) end to end, its SDK clients pointed
 * at a local Lambda and CodeDeploy; each version is the real handler module in an environment of
 * its own (run's database, key set, a local secrets extension, a test-CA TLS front) or a stand-in.
 * Each run is one deployment, registered with the local CodeDeploy as CloudFormation creates it
 * (one function's `live` alias moved to its new version): the hook checks that version only. All
 * passing is Succeeded; each cause is Failed, named in one line with no payload or secret. A
 * deployment of another version of a function it checks (a rollback's) is Succeeded, unchecked.
 */
import { randomUUID } from 'node:crypto';
import { catalogue, type Endpoint } from '../../../tools/catalogue';
import { describeFailure, type HookOutcome } from '../../../functions/release/hook';
import {
  handlerEnvironment,
  SDK_ENV,
  standIn,
  startCodeDeployServer,
  startLambdaServer,
  type CodeDeployServer,
  type HandlerEnvironment,
  type LambdaServer,
  type Runner,
  versionArn,
} from '../../support/deploy-servers';
import { CORS } from '../../support/handlers';
import { captureLogs } from '../../support/log-capture';
import { BODIES } from '../../support/portal-errors';
import { startPostgresTlsFront, type PostgresTlsFront } from '../../../tools/local/postgres-tls';
import { freePort } from '../../support/processes';
import {
  startLocalSecretsExtension,
  type LocalSecretsExtension,
} from '../../support/secrets-extension';

type Hook = (event: unknown, context?: unknown) => Promise<HookOutcome>;

const SECRET_ARN = 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:portal/test/db-AbC123';
const DENIED_ARN = 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:portal/test/no-XyZ789';
const ORIGIN = 'https://portal.example.com';
/** What the template gives the hook for the functions' 20 s timeout. */
const INVOKE_TIMEOUT_MS = '25000';

const endpointOf = (fn: string): Endpoint => {
  const found = catalogue.find((endpoint) => endpoint.function === fn);
  if (!found) throw new Error(`no endpoint ${fn} in the catalogue`);
  return found;
};
const ORDERS_PER_DAY = endpointOf('ordersPerDay');
const DISHES = endpointOf('dishes');

let lambda: LambdaServer;
let codeDeploy: CodeDeployServer;
let extension: LocalSecretsExtension;
let tlsFront: PostgresTlsFront;
let hook: Hook;
/** The run's database (DATABASE_URL of the global setup). */
let database: URL;
/** The secret's password: the database's, or one it never asks for (trust, PGlite). */
let password = '';
const savedEnv = { ...process.env };

beforeAll(async () => {
  [lambda, codeDeploy, extension] = await Promise.all([
    startLambdaServer(),
    startCodeDeployServer(),
    startLocalSecretsExtension(),
  ]);
  database = new URL(process.env.DATABASE_URL ?? '');
  password = decodeURIComponent(database.password) || 'Unasked-Pa55word!';
  const port = Number(database.port || '5432');
  tlsFront = await startPostgresTlsFront({ host: database.hostname, port });
  extension.put(
    SECRET_ARN,
    JSON.stringify({ username: decodeURIComponent(database.username), password }),
  );
  extension.deny(DENIED_ARN);
  Object.assign(process.env, SDK_ENV, lambda.env, codeDeploy.env, {
    LOG_LEVEL: 'info',
    PRE_TRAFFIC_ORIGIN: ORIGIN,
    PRE_TRAFFIC_INVOKE_TIMEOUT_MS: INVOKE_TIMEOUT_MS,
  });
  // The hook builds its clients and logger when loaded, as on Lambda.
  ({ handler: hook } = (await import('../../../functions/pre-traffic')) as { handler: Hook });
});

afterAll(async () => {
  process.env = savedEnv;
  await Promise.all([lambda.close(), codeDeploy.close(), extension.close(), tlsFront.close()]);
});

/** The environment every version of a function has, from the run's stack. */
const functionEnv = (overrides: Record<string, string> = {}): Record<string, string> => ({
  JWKS_URL: process.env.JWKS_URL ?? '',
  JWT_ISSUER: process.env.JWT_ISSUER ?? '',
  LEGACY_PLATFORM_KEYS: process.env.LEGACY_PLATFORM_KEYS ?? '',
  DATABASE_URL: process.env.DATABASE_URL ?? '',
  LOG_LEVEL: 'info',
  ...overrides,
});

/** The database without its user and password (the secret says who), at `host:port`. */
const location = (
  host = database.hostname,
  port: number | string = database.port || '5432',
): string => `postgres://${host}:${port}${database.pathname}`;

/** The secret, through the local extension, for the database at `url`. */
const secretEnv = (arn: string, url: string): Record<string, string> => ({
  DATABASE_URL: url,
  DATABASE_SECRET_ARN: arn,
  ...extension.env,
});

const functionName = (endpoint: Endpoint) => `portal-service-api-test-${endpoint.function}`;
/** Orders per day as production reaches the database: by the secret, over verified TLS. */
const tlsEnv = (extra: Record<string, string> = {}) =>
  functionEnv({
    ...secretEnv(SECRET_ARN, location('127.0.0.1', tlsFront.port)),
    DB_TLS: 'verify-full',
    ...extra,
  });

let published = 0;
/** Publishes `runner` as a new version of `endpoint`'s function: its PRE_TRAFFIC_TARGETS entry. */
const publish = (endpoint: Endpoint, runner: Runner) => {
  published += 1;
  return {
    function: endpoint.function,
    version: lambda.publish(functionName(endpoint), String(published), runner),
    method: endpoint.method,
    path: endpoint.paths[0],
  };
};

const environments: HandlerEnvironment[] = [];
/** The real handler of `endpoint` with `env`, published as a new version. */
const publishHandler = (endpoint: Endpoint, env: Record<string, string>) => {
  const environment = handlerEnvironment(endpoint.handlerFile, {
    AWS_LAMBDA_FUNCTION_NAME: functionName(endpoint),
    AWS_LAMBDA_FUNCTION_VERSION: String(published + 1),
    ...env,
  });
  environments.push(environment);
  return publish(endpoint, environment);
};

let healthy: ReturnType<typeof publish> | undefined;
/** One healthy version of dishes, beside a failing one: it must not be named. */
const healthyDishes = () => (healthy ??= publishHandler(DISHES, functionEnv()));

const ORDERS_PER_DAY_ARN =
  'arn:aws:lambda:eu-west-1:123456789012:function:portal-service-api-test-ordersPerDay';

/** The version of the first entry of PRE_TRAFFIC_TARGETS `targets`, if it has one. */
const firstVersion = (targets: unknown): string | undefined => {
  let entries: unknown = targets;
  if (typeof targets === 'string') {
    try {
      entries = JSON.parse(targets);
    } catch {
      return undefined;
    }
  }
  const [first] = Array.isArray(entries) ? (entries as unknown[]) : [];
  const { version } = (typeof first === 'object' && first !== null ? first : {}) as {
    version?: unknown;
  };
  return typeof version === 'string' ? version : undefined;
};

/** How the local CodeDeploy knows the run's deployment. */
type Deployment = 'registered' | 'unknown' | 'denied' | 'silent' | { readonly appSpec: string };

interface RunOptions {
  /**
   * The qualified ARN of the version the deployment moves `live` to: the first target's by
   * default, else ordersPerDay's version 1.
   */
  readonly deployed?: string;
  readonly deployment?: Deployment;
  readonly remainingMs?: number;
}

/** Registers deployment `deploymentId` with the local CodeDeploy, as `deployment` says. */
const registerDeployment = (deploymentId: string, deployed: string, deployment: Deployment) => {
  if (deployment === 'unknown') return;
  if (typeof deployment === 'object') {
    codeDeploy.register(deploymentId, deployment);
    return;
  }
  const [functionName = '', targetVersion = ''] = deployed.split(':').slice(6);
  codeDeploy.register(deploymentId, { functionName, targetVersion });
  if (deployment === 'denied') codeDeploy.deny(deploymentId);
  if (deployment === 'silent') codeDeploy.silence(deploymentId);
};

type Run = Awaited<ReturnType<typeof runHook>>;
/**
 * Runs the hook for a new deployment, of `deployed`, with PRE_TRAFFIC_TARGETS `targets`.
 */
const runHook = async (
  targets: unknown,
  {
    deployed = firstVersion(targets) ?? `${ORDERS_PER_DAY_ARN}:1`,
    deployment = 'registered',
    remainingMs = 60_000,
  }: RunOptions = {},
) => {
  process.env.PRE_TRAFFIC_TARGETS = typeof targets === 'string' ? targets : JSON.stringify(targets);
  const event = {
    DeploymentId: `d-${randomUUID().slice(0, 9).toUpperCase()}`,
    LifecycleEventHookExecutionId: Buffer.from(randomUUID()).toString('base64'),
  };
  registerDeployment(event.DeploymentId, deployed, deployment);
  const invokedBefore = lambda.calls.length;
  const codeDeployBefore = codeDeploy.calls.length;
  const started = Date.now();
  const context = { getRemainingTimeInMillis: () => started + remainingMs - Date.now() };
  const logs = captureLogs();
  let outcome: HookOutcome;
  try {
    outcome = await hook(event, context);
  } finally {
    logs.stop();
  }
  const entries = logs.lines().map((line) => JSON.parse(line) as Record<string, unknown>);
  return {
    outcome,
    /** The statuses CodeDeploy was told for this run's deployment. */
    reported: codeDeploy.reports
      .filter(
        (report) =>
          report.deploymentId === event.DeploymentId &&
          report.lifecycleEventHookExecutionId === event.LifecycleEventHookExecutionId,
      )
      .map(({ status }) => status),
    /** The hook's failure lines, as `<function>: <check>: <cause>`. */
    failureLines: entries
      .filter(({ message }) => message === 'pre-traffic check failed')
      .map((entry) => describeFailure(entry as unknown as Parameters<typeof describeFailure>[0])),
    summary: entries.find(({ message }) => message === 'pre-traffic hook'),
    lines: logs.lines(),
    elapsedMs: Date.now() - started,
    /** The versions invoked, as `<function>:<version>`, in order. */
    invoked: lambda.calls
      .slice(invokedBefore)
      .map(({ functionName, qualifier }) => `${functionName}:${qualifier}`),
    /** The CodeDeploy operations called, in order. */
    codeDeployCalls: codeDeploy.calls.slice(codeDeployBefore),
  };
};

/** `<function>:<version>` of a qualified version ARN, as `invoked` names it. */
const invokedName = (version: string): string => version.split(':').slice(6).join(':');

/** The JSON lines a function wrote with `message`. */
const linesOf = (environment: HandlerEnvironment, message: string): Record<string, unknown>[] =>
  environment
    .output()
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Record<string, unknown>)
    .filter((entry) => entry.message === message);

/** Expects a Failed run naming exactly `failures`, in one line each, and no secret. */
const expectFailed = (run: Run, failures: readonly string[]): void => {
  expect(run.reported).toEqual(['Failed']);
  expect(run.outcome.status).toBe('Failed');
  expect(run.outcome.failures.map(describeFailure)).toEqual(failures);
  expect(run.failureLines).toEqual(failures);
  expect(run.summary).toMatchObject({
    level: 'error',
    status: 'Failed',
    failures: failures.length,
  });
  const text = run.lines.join('\n');
  for (const secret of [password, extension.sessionToken, SECRET_ARN, 'Bearer']) {
    expect(text.includes(secret) ? secret : '').toBe('');
  }
};

describe('the pre-traffic hook', () => {
  it('reports Succeeded for each endpoint’s deployment whose new version passes both checks', async () => {
    // Prepare: every endpoint of the catalogue on the run's database; orders per day as
    // production reaches it, by a secret and verified TLS.
    const firstEnvironment = environments.length;
    const targets = catalogue.map((endpoint) =>
      publishHandler(
        endpoint,
        endpoint === ORDERS_PER_DAY ? tlsEnv({ DB_CA: tlsFront.caFile }) : functionEnv(),
      ),
    );
    const before = lambda.calls.length;
    const secretReads = extension.reads(SECRET_ARN);
    const tlsConnections = tlsFront.passedOn();

    // Act: one deployment per function, as CloudFormation hands each alias's move to CodeDeploy.
    const runs: Run[] = [];
    for (const target of targets) runs.push(await runHook(targets, { deployed: target.version }));

    // Assess
    for (const [index, run] of runs.entries()) {
      const target = targets[index]!;
      expect(run.reported).toEqual(['Succeeded']);
      expect(run.outcome).toEqual({ status: 'Succeeded', failures: [] });
      expect(run.failureLines).toEqual([]);
      expect(run.summary).toMatchObject({ level: 'info', status: 'Succeeded', failures: 0 });
      expect(run.codeDeployCalls).toEqual([
        'GetDeployment',
        'PutLifecycleEventHookExecutionStatus',
      ]);
      // Its own version only, asked twice.
      expect(run.invoked).toEqual([invokedName(target.version), invokedName(target.version)]);
    }
    // Each version was asked twice: the pre-traffic event, then a request without credentials.
    const calls = lambda.calls.slice(before);
    for (const target of targets) {
      const [name, version] = target.version.split(':').slice(6);
      const events = calls
        .filter((call) => call.functionName === name && call.qualifier === version)
        .map(({ event }) => event as Record<string, unknown>);
      expect(events).toHaveLength(2);
      expect(events[0]).toEqual({ source: 'portal-service-api.pre-traffic' });
      const request = events[1]!;
      expect(request).toMatchObject({ httpMethod: target.method, resource: target.path });
      expect(request.headers).toEqual({ Accept: 'application/json', Origin: ORIGIN });
      const names = [...target.path.matchAll(/\{(\w+)\}/g)].map(([, param]) => param!);
      expect(request.pathParameters).toEqual(
        names.length === 0
          ? null
          : Object.fromEntries(names.map((param) => [param, 'pre-traffic'])),
      );
      expect(String(request.path)).not.toMatch(/[{}]/);
    }
    // Orders per day read its secret and reached the database through verified TLS.
    expect(extension.reads(SECRET_ARN)).toBeGreaterThan(secretReads);
    expect(tlsFront.passedOn()).toBeGreaterThan(tlsConnections);
    // The function side: one line, the database checked.
    for (const environment of environments.slice(firstEnvironment)) {
      expect(linesOf(environment, 'pre-traffic check')).toEqual([
        expect.objectContaining({ level: 'info', database: 'ok' }),
      ]);
    }
  });

  it('reports Succeeded for a healthy version beside a failing target, never invoking that one', async () => {
    // Prepare: ordersPerDay's new version fails every check; dishes' is healthy.
    const failing = publish(
      ORDERS_PER_DAY,
      standIn(() =>
        Promise.resolve({ error: { errorType: 'Error', errorMessage: 'should not run' } }),
      ),
    );
    const healthyVersion = healthyDishes();

    // Act: dishes' deployment.
    const run = await runHook([failing, healthyVersion], { deployed: healthyVersion.version });

    // Assess
    expect(run.reported).toEqual(['Succeeded']);
    expect(run.outcome).toEqual({ status: 'Succeeded', failures: [] });
    expect(run.invoked).toEqual([
      invokedName(healthyVersion.version),
      invokedName(healthyVersion.version),
    ]);
    const [name, version] = failing.version.split(':').slice(6);
    expect(
      lambda.calls.filter((call) => call.functionName === name && call.qualifier === version),
    ).toEqual([]);
  });

  it.each([
    ['refuses GetDeployment', 'denied', 'GetDeployment failed (AccessDeniedException)'],
    [
      'does not know the deployment',
      'unknown',
      'GetDeployment failed (DeploymentDoesNotExistException)',
    ],
  ] as const)(
    'reports Failed, invoking nothing, when CodeDeploy %s',
    async (_name, deployment, cause) => {
      const run = await runHook([healthyDishes()], { deployment });

      expectFailed(run, [`deployment: deployment: ${cause}`]);
      expect(run.invoked).toEqual([]);
      expect(run.codeDeployCalls).toEqual([
        'GetDeployment',
        'PutLifecycleEventHookExecutionStatus',
      ]);
      // CodeDeploy's message is not logged.
      expect(run.lines.join('\n')).not.toMatch(/not authorized|could not be found/);
    },
  );

  it('reports Failed within its own time when CodeDeploy never answers GetDeployment', async () => {
    // Prepare: 6.5 s left to the hook, of which the report keeps 5 s: 1.5 s to read and check.
    const run = await runHook([healthyDishes()], { deployment: 'silent', remainingMs: 6_500 });

    // Assess: the read given up on by the deadline, below its own 3 s bound; nothing invoked.
    expect(run.reported).toEqual(['Failed']);
    expect(run.outcome.failures.map(describeFailure)).toEqual([
      expect.stringMatching(/^deployment: deployment: GetDeployment gave no answer within \d+ ms$/),
    ]);
    expect(run.invoked).toEqual([]);
    expect(run.elapsedMs).toBeGreaterThanOrEqual(1_400);
    expect(run.elapsedMs).toBeLessThan(3_000);
  });

  it('reports Failed, invoking nothing, for a deployment of a function PRE_TRAFFIC_TARGETS does not name', async () => {
    const run = await runHook([healthyDishes()], {
      deployed: versionArn(functionName(ORDERS_PER_DAY), '999'),
    });

    expectFailed(run, [
      'portal-service-api-test-ordersPerDay: deployment: no PRE_TRAFFIC_TARGETS entry is of this function (version 999)',
    ]);
    expect(run.invoked).toEqual([]);
  });

  it('reports Succeeded, invoking nothing, for another version of a function it checks: a rollback’s, not this release’s', async () => {
    // Prepare: CloudFormation rolling back moves dishes' alias back to an older version while the
    // hook still holds this release's targets.
    const target = healthyDishes();
    const templateVersion = target.version.split(':').at(-1);

    // Act
    const run = await runHook([target], { deployed: versionArn(functionName(DISHES), '998') });

    // Assess
    expect(run.reported).toEqual(['Succeeded']);
    expect(run.outcome).toEqual({ status: 'Succeeded', failures: [] });
    expect(run.failureLines).toEqual([]);
    expect(run.invoked).toEqual([]);
    expect(run.codeDeployCalls).toEqual(['GetDeployment', 'PutLifecycleEventHookExecutionStatus']);
    const entries = run.lines.map((line) => JSON.parse(line) as Record<string, unknown>);
    const warnings = entries.filter(({ level }) => level === 'warn');
    expect(warnings).toEqual([
      expect.objectContaining({
        message: "pre-traffic hook: not this release's version, not checked",
        function: 'portal-service-api-test-dishes',
        targetVersion: '998',
        templateVersion,
      }),
    ]);
    // What it names, no payload.
    expect(Object.keys(warnings[0] ?? {}).sort()).toEqual([
      'deploymentId',
      'function',
      'level',
      'message',
      'targetVersion',
      'templateVersion',
      'time',
    ]);
    expect(run.summary).toMatchObject({ level: 'info', status: 'Succeeded', failures: 0 });
  });

  it.each([
    ['YAML', 'version: 0.0\nResources: []\n', 'AppSpec is not JSON'],
    [
      'an ECS service’s',
      JSON.stringify({
        version: 0.0,
        Resources: [{ TargetService: { Type: 'AWS::ECS::Service', Properties: {} } }],
      }),
      'AppSpec resource is not one AWS::Lambda::Function',
    ],
  ])(
    'reports Failed, invoking nothing, for an AppSpec that is %s',
    async (_name, appSpec, cause) => {
      const run = await runHook([healthyDishes()], { deployment: { appSpec } });

      expectFailed(run, [`deployment: deployment: ${cause}`]);
      expect(run.invoked).toEqual([]);
    },
  );

  it.each([
    [
      'its database secret cannot be read',
      () => Promise.resolve(secretEnv(DENIED_ARN, location())),
      'SecretReadError ERR_DATABASE_SECRET_READ',
    ],
    [
      'the database refuses connections',
      async () => ({ DATABASE_URL: `postgres://postgres@127.0.0.1:${await freePort()}/reports` }),
      'Error ECONNREFUSED',
    ],
  ])('reports Failed, naming the function, when %s', async (_case, env, cause) => {
    const failing = publishHandler(ORDERS_PER_DAY, functionEnv(await env()));

    const run = await runHook([failing, healthyDishes()]);

    expectFailed(run, [`ordersPerDay: pre-traffic: database failed (${cause})`]);
  });

  it('reports Failed when the database’s certificate cannot be verified', async () => {
    // The TLS front's certificate chains to the test CA only, not to the RDS CAs (DB_CA unset).
    const failing = publishHandler(ORDERS_PER_DAY, tlsEnv());
    const tlsConnections = tlsFront.passedOn();

    const run = await runHook([failing, healthyDishes()]);

    expectFailed(run, [
      'ordersPerDay: pre-traffic: database failed (Error UNABLE_TO_VERIFY_LEAF_SIGNATURE)',
    ]);
    expect(tlsFront.passedOn()).toBe(tlsConnections);
  });

  it('reports Failed for a version whose key-set URL is wrong: it would refuse every token', async () => {
    const wrongUrl = new URL('/wrong/jwks.json', process.env.JWKS_URL).toString();
    const failing = publishHandler(ORDERS_PER_DAY, functionEnv({ JWKS_URL: wrongUrl }));

    const run = await runHook([failing, healthyDishes()]);

    expect(run.failureLines).toEqual([
      expect.stringMatching(
        /^ordersPerDay: pre-traffic: key set failed \(KeySetUnavailableError/,
      ) as string,
    ]);
    expect(run.reported).toEqual(['Failed']);
    expect(run.lines.join('\n')).not.toContain('/wrong/');
  });

  it.each([
    [
      'a 200 to a request without credentials',
      { statusCode: 200, headers: { 'Content-Type': 'application/json', ...CORS }, body: '[]' },
      'status 200, not 401',
    ],
    [
      'a 401 without the CORS header',
      {
        statusCode: 401,
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify(BODIES.bearerMissing),
      },
      'no Access-Control-Allow-Origin: * header',
    ],
    [
      'a 401 with another body',
      { statusCode: 401, headers: { ...CORS }, body: JSON.stringify(BODIES.expired) },
      "body is not the contract's 401 TOKEN_INVALID",
    ],
  ])('reports Failed for a version that answers %s', async (_name, answer, cause) => {
    const failing = publish(
      ORDERS_PER_DAY,
      standIn(({ event }) =>
        Promise.resolve({
          result:
            (event as { source?: unknown }).source === 'portal-service-api.pre-traffic'
              ? { check: 'pre-traffic', database: 'ok', keySet: 'ok', issuer: 'set' }
              : answer,
        }),
      ),
    );

    const run = await runHook([failing, healthyDishes()]);

    expectFailed(run, [`ordersPerDay: unauthenticated: ${cause}`]);
  });

  it('reports Failed for a version whose function errs, without its message', async () => {
    // No JWKS_URL: the handler module throws its ConfigError at INIT.
    const failing = publishHandler(ORDERS_PER_DAY, functionEnv({ JWKS_URL: '' }));

    const run = await runHook([failing, healthyDishes()]);

    expectFailed(run, [
      'ordersPerDay: pre-traffic: function error Unhandled (ConfigError)',
      'ordersPerDay: unauthenticated: function error Unhandled (ConfigError)',
    ]);
    expect(run.lines.join('\n')).not.toContain('JWKS_URL');
  });

  it('reports Failed for a version that answers something other than JSON', async () => {
    const failing = publish(
      ORDERS_PER_DAY,
      standIn(() => Promise.resolve({ payload: '<html>Bad Gateway</html>' })),
    );

    const run = await runHook([failing]);

    expectFailed(run, [
      'ordersPerDay: pre-traffic: answer is not JSON',
      'ordersPerDay: unauthenticated: answer is not JSON',
    ]);
  });

  it('reports Failed for a version Lambda does not know', async () => {
    const unknown = {
      function: DISHES.function,
      version: versionArn('portal-service-api-test-dishes', '999'),
      method: DISHES.method,
      path: DISHES.paths[0],
    };

    const run = await runHook([unknown]);

    expectFailed(run, [
      'dishes: pre-traffic: invocation failed (ResourceNotFoundException)',
      'dishes: unauthenticated: invocation failed (ResourceNotFoundException)',
    ]);
  });

  /** PRE_TRAFFIC_TARGETS of one entry for ordersPerDay (version 1, GET), with these changes. */
  const entry = (changes: Record<string, string | undefined>) =>
    JSON.stringify([
      {
        function: 'ordersPerDay',
        version: `${ORDERS_PER_DAY_ARN}:1`,
        method: 'GET',
        path: '/v1/plugins',
        ...changes,
      },
    ]);

  it.each([
    ['not JSON', '[{"function":', 'PRE_TRAFFIC_TARGETS is not JSON'],
    ['an empty array', '[]', 'PRE_TRAFFIC_TARGETS is not a non-empty JSON array'],
    [
      'an entry without a version',
      entry({ version: undefined }),
      'PRE_TRAFFIC_TARGETS entry 1 (ordersPerDay): "version" is not a qualified version ARN',
    ],
    [
      'the alias, not a version',
      entry({ version: `${ORDERS_PER_DAY_ARN}:live` }),
      'PRE_TRAFFIC_TARGETS entry 1 (ordersPerDay): "version" is not a qualified version ARN',
    ],
    [
      'an unknown method',
      entry({ method: 'DELETE' }),
      'PRE_TRAFFIC_TARGETS entry 1 (ordersPerDay): "method" is not one of GET, PUT',
    ],
  ])(
    'reports Failed, invoking nothing, when PRE_TRAFFIC_TARGETS is %s',
    async (_name, raw, cause) => {
      const before = lambda.calls.length;

      const run = await runHook(raw);

      expectFailed(run, [`environment: configuration: ${cause}`]);
      expect(lambda.calls.length).toBe(before);
    },
  );

  it('reports Failed, invoking nothing, without PRE_TRAFFIC_INVOKE_TIMEOUT_MS', async () => {
    // Prepare
    const before = lambda.calls.length;
    process.env.PRE_TRAFFIC_INVOKE_TIMEOUT_MS = '';

    // Act
    let run: Run;
    try {
      run = await runHook(entry({}));
    } finally {
      process.env.PRE_TRAFFIC_INVOKE_TIMEOUT_MS = INVOKE_TIMEOUT_MS;
    }

    // Assess
    expectFailed(run, ['environment: configuration: PRE_TRAFFIC_INVOKE_TIMEOUT_MS is not set']);
    expect(lambda.calls.length).toBe(before);
  });

  it('gives up each invocation after PRE_TRAFFIC_INVOKE_TIMEOUT_MS, read at each run', async () => {
    // Prepare: a minute left to the hook, but 1.5 s for each invocation.
    const silent = publish(
      ORDERS_PER_DAY,
      standIn(() => new Promise<never>(() => undefined)),
    );
    process.env.PRE_TRAFFIC_INVOKE_TIMEOUT_MS = '1500';

    // Act
    let run: Run;
    try {
      run = await runHook([silent]);
    } finally {
      process.env.PRE_TRAFFIC_INVOKE_TIMEOUT_MS = INVOKE_TIMEOUT_MS;
    }

    // Assess: both checks given up on after their own bound, one after the other.
    expectFailed(run, [
      'ordersPerDay: pre-traffic: no answer within 1500 ms',
      'ordersPerDay: unauthenticated: no answer within 1500 ms',
    ]);
    expect(run.elapsedMs).toBeGreaterThanOrEqual(2_900);
    expect(run.elapsedMs).toBeLessThan(6_000);
  });

  it('reports Failed within its own time when a version never answers', async () => {
    // Prepare: 8 s left to the hook, of which the report keeps 5 s: 3 s for the checks.
    const silent = publish(
      ORDERS_PER_DAY,
      standIn(() => new Promise<never>(() => undefined)),
    );

    // Act
    const run = await runHook([silent], { remainingMs: 8_000 });

    // Assess: both checks given up on by the deadline; reported before the 8 s ran out.
    expect(run.reported).toEqual(['Failed']);
    expect(run.outcome.failures.map(describeFailure)).toEqual([
      expect.stringMatching(/^ordersPerDay: pre-traffic: no answer within \d+ ms$/),
      'ordersPerDay: unauthenticated: no time left to invoke it',
    ]);
    expect(run.elapsedMs).toBeGreaterThanOrEqual(2_900);
    expect(run.elapsedMs).toBeLessThan(6_000);
  });
});
