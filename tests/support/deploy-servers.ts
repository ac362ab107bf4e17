/**
 * Local stand-ins for the services a release's pre-traffic hook speaks to, each in its service's
 * own protocol, for the real SDK clients pointed at them through AWS_ENDPOINT_URL_<SERVICE>:
 *
 * - Lambda, REST-JSON: POST /2015-03-31/functions/{FunctionName}/invocations (a name or an ARN,
 *   qualified in the ARN or by ?Qualifier), RequestResponse only. It answers the function's
 *   payload with X-Amz-Executed-Version, and X-Amz-Function-Error: Unhandled with
 *   `{ errorType, errorMessage, trace }` when the function failed; an unknown function or
 *   version is a 404 ResourceNotFoundException (x-amzn-errortype). Each published version is a
 *   runner: a real handler module in an execution environment of its own
 *   (`handlerEnvironment`, a child process: tests/support/lambda-container.ts), or a stand-in
 *   (`standIn`) for a version that answers what no real handler would.
 * - CodeDeploy, JSON 1.1 (X-Amz-Target CodeDeploy_20141006.<operation>):
 *   PutLifecycleEventHookExecutionStatus, recording each status reported; and GetDeployment of a
 *   deployment a test registered (`register`: its function and target version), answering the
 *   AppSpec as CloudFormation writes it for a `live` alias's release, an unknown id a 400
 *   DeploymentDoesNotExistException, a denied one (`deny`) a 400 AccessDeniedException, a silenced
 *   one (`silence`) nothing at all.
 *
 * Each refuses a request signed for another service (SigV4's credential scope) and records
 * every call, as tests/support/aws-servers.ts does.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createHash, randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { readBody, scopeOf } from './aws-servers';
import type { ContainerAnswer, ContainerInvocation } from './lambda-container';
import { ROOT } from './processes';

const ACCOUNT_ID = '123456789012';
/** The functions' timeout (serverless.yml `provider.timeout`). */
export const FUNCTION_TIMEOUT_SECONDS = 20;

/** The dummy credentials and region of a process whose SDK clients call these servers. */
export const SDK_ENV = {
  AWS_ACCESS_KEY_ID: 'AKIDDEPLOYTEST',
  AWS_SECRET_ACCESS_KEY: 'deploy-test-secret-key',
  AWS_SESSION_TOKEN: '',
  AWS_PROFILE: '',
  AWS_REGION: 'eu-west-1',
  AWS_DEFAULT_REGION: '',
  AWS_ENDPOINT_URL: '',
  AWS_EC2_METADATA_DISABLED: 'true',
  AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
} as const;

interface Answer {
  readonly status: number;
  readonly headers: Record<string, string>;
  readonly body: string;
}

const jsonAnswer = (
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
  type = 'application/json',
): Answer => ({
  status,
  headers: { 'content-type': type, ...headers },
  body: JSON.stringify(body),
});

/** A server on 127.0.0.1 that answers requests signed for `signingName` with `handle`. */
const startSigned = async (
  signingName: string,
  handle: (request: IncomingMessage, body: string, region: string) => Promise<Answer>,
): Promise<{ url: string; close: () => Promise<void> }> => {
  const server: Server = createServer((request: IncomingMessage, response: ServerResponse) => {
    void readBody(request).then(async (body) => {
      const scope = scopeOf(request);
      const answer =
        scope?.service === signingName
          ? await handle(request, body, scope.region)
          : jsonAnswer(403, {
              __type: 'InvalidSignatureException',
              message: `signed for ${scope?.service ?? 'nothing'}, not ${signingName}`,
            });
      if (response.destroyed) return;
      response.writeHead(answer.status, { ...answer.headers, 'x-amzn-requestid': randomUUID() });
      response.end(answer.body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${String((server.address() as AddressInfo).port)}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => {
          resolve();
        });
      }),
  };
};

// --- Lambda -----------------------------------------------------------------------------------

/** One invocation as the runner gets it. */
export interface Invocation {
  readonly event: unknown;
  readonly requestId: string;
  /** The qualified ARN invoked. */
  readonly functionArn: string;
}

/**
 * What a runner answers: a result (the payload is its JSON), a function error, or a payload as
 * is (what a custom runtime may post, JSON or not).
 */
export type RunnerAnswer =
  | { readonly result: unknown }
  | { readonly error: { errorType: string; errorMessage: string; trace?: string[] } }
  | { readonly payload: string };

/** A published version's code. */
export interface Runner {
  run(invocation: Invocation): Promise<RunnerAnswer>;
  /** Ends what it holds (a child process). */
  stop(): Promise<void>;
}

export interface LambdaCall {
  readonly region: string;
  readonly functionName: string;
  readonly qualifier: string;
  readonly event: unknown;
}

export interface LambdaServer {
  /** AWS_ENDPOINT_URL_LAMBDA. */
  readonly env: Readonly<Record<string, string>>;
  /** Every invocation received, in order. */
  readonly calls: LambdaCall[];
  /** Publishes `runner` as version `version` of `name`; its qualified ARN. */
  publish(name: string, version: string, runner: Runner): string;
  /** Stops every runner and the server. */
  close(): Promise<void>;
}

/** The qualified ARN of version `version` of function `name` in `region`. */
export const versionArn = (
  name: string,
  version: string,
  region: string = SDK_ENV.AWS_REGION,
): string => `arn:aws:lambda:${region}:${ACCOUNT_ID}:function:${name}:${version}`;

/** `{FunctionName}` of the path and ?Qualifier: the function's name and qualifier. */
const functionOf = (raw: string, qualifier: string | null) => {
  const name = decodeURIComponent(raw);
  const parts = name.startsWith('arn:') ? name.split(':') : ['', '', '', '', '', '', name];
  return { functionName: parts[6] ?? '', qualifier: parts[7] ?? qualifier ?? '$LATEST' };
};

const lambdaError = (status: number, type: string, message: string): Answer =>
  jsonAnswer(status, { Type: 'User', message }, { 'x-amzn-errortype': type });

export const startLambdaServer = async (): Promise<LambdaServer> => {
  const versions = new Map<string, Runner>();
  const calls: LambdaCall[] = [];
  const server = await startSigned('lambda', async (request, body, region) => {
    const url = new URL(request.url ?? '/', 'http://lambda');
    const path = /^\/2015-03-31\/functions\/([^/]+)\/invocations$/.exec(url.pathname);
    if (request.method !== 'POST' || !path) {
      return lambdaError(404, 'UnknownOperationException', `${request.method} ${url.pathname}`);
    }
    const { functionName, qualifier } = functionOf(path[1]!, url.searchParams.get('Qualifier'));
    const invocationType = request.headers['x-amz-invocation-type'] ?? 'RequestResponse';
    if (invocationType !== 'RequestResponse') {
      return lambdaError(400, 'InvalidParameterValueException', 'RequestResponse only here');
    }
    let event: unknown;
    try {
      event = JSON.parse(body || 'null');
    } catch {
      return lambdaError(400, 'InvalidRequestContentException', 'Could not parse request body');
    }
    calls.push({ region, functionName, qualifier, event });
    const runner = versions.get(`${functionName}:${qualifier}`);
    if (!runner) {
      return lambdaError(404, 'ResourceNotFoundException', `Function not found: ${functionName}`);
    }
    const answer = await runner.run({
      event,
      requestId: randomUUID(),
      functionArn: versionArn(functionName, qualifier, region),
    });
    const headers = { 'x-amz-executed-version': qualifier };
    if ('payload' in answer) {
      return {
        status: 200,
        headers: { 'content-type': 'application/json', ...headers },
        body: answer.payload,
      };
    }
    return 'error' in answer
      ? jsonAnswer(200, answer.error, { ...headers, 'x-amz-function-error': 'Unhandled' })
      : jsonAnswer(200, answer.result, headers);
  });
  return {
    env: { AWS_ENDPOINT_URL_LAMBDA: server.url },
    calls,
    publish: (name, version, runner) => {
      versions.set(`${name}:${version}`, runner);
      return versionArn(name, version);
    },
    close: async () => {
      await Promise.all([...versions.values()].map((runner) => runner.stop()));
      await server.close();
    },
  };
};

/** A version whose code is `answer`: what no real handler would do. */
export const standIn = (answer: (invocation: Invocation) => Promise<RunnerAnswer>): Runner => ({
  run: answer,
  stop: () => Promise.resolve(),
});

const CONTAINER = join(ROOT, 'tests/support/lambda-container.ts');

export interface HandlerEnvironment extends Runner {
  /** What the function wrote to stdout and stderr (its log lines). */
  output(): string;
}

/**
 * A version whose code is the real handler module `handlerFile` (relative to the repository),
 * with the function's environment `env`: one execution environment, started by its first
 * invocation (a cold start), reused by the next ones. An invocation still running after
 * `timeoutSeconds` answers Lambda's Sandbox.Timedout, and the environment is discarded.
 */
export const handlerEnvironment = (
  handlerFile: string,
  env: Readonly<Record<string, string>>,
  { timeoutSeconds = FUNCTION_TIMEOUT_SECONDS }: { timeoutSeconds?: number } = {},
): HandlerEnvironment => {
  let child: ChildProcess | undefined;
  let output = '';
  let next = 0;
  const waiting = new Map<number, (answer: RunnerAnswer) => void>();

  const start = (): ChildProcess => {
    const started = spawn(process.execPath, ['--import', 'tsx', CONTAINER, handlerFile], {
      cwd: ROOT,
      env: {
        PATH: process.env.PATH ?? '',
        ...(process.env.HOME ? { HOME: process.env.HOME } : {}),
        ...(process.env.TMPDIR ? { TMPDIR: process.env.TMPDIR } : {}),
        TZ: 'UTC',
        AWS_REGION: SDK_ENV.AWS_REGION,
        AWS_LAMBDA_FUNCTION_TIMEOUT: String(timeoutSeconds),
        ...env,
      },
      stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
    });
    started.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    started.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    started.on('message', (answer: ContainerAnswer) => {
      const settle = waiting.get(answer.id);
      waiting.delete(answer.id);
      settle?.('error' in answer ? { error: answer.error } : { result: answer.result });
    });
    started.on('exit', () => {
      if (child === started) child = undefined;
      for (const [id, settle] of waiting) {
        waiting.delete(id);
        settle({
          error: { errorType: 'Runtime.ExitError', errorMessage: 'the runtime exited' },
        });
      }
    });
    return started;
  };

  const stop = async (): Promise<void> => {
    const running = child;
    child = undefined;
    if (!running || running.exitCode !== null || running.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => {
      running.once('exit', () => {
        resolve();
      });
    });
    running.kill('SIGKILL');
    await exited;
  };

  return {
    run: ({ event, requestId, functionArn }) => {
      child ??= start();
      const id = (next += 1);
      const invocation: ContainerInvocation = {
        id,
        event,
        requestId,
        functionArn,
        deadline: Date.now() + timeoutSeconds * 1000,
      };
      return new Promise<RunnerAnswer>((resolve) => {
        const timer = setTimeout(() => {
          waiting.delete(id);
          resolve({
            error: {
              errorType: 'Sandbox.Timedout',
              errorMessage: `Task timed out after ${timeoutSeconds.toFixed(2)} seconds`,
            },
          });
          void stop();
        }, timeoutSeconds * 1000);
        waiting.set(id, (answer) => {
          clearTimeout(timer);
          resolve(answer);
        });
        child?.send(invocation);
      });
    },
    stop,
    output: () => output,
  };
};

// --- CodeDeploy -------------------------------------------------------------------------------

export interface HookStatusReport {
  readonly region: string;
  readonly deploymentId: string;
  readonly lifecycleEventHookExecutionId: string;
  readonly status: string;
}

/** A release of a function's alias, as CloudFormation hands it to CodeDeploy. */
export interface LambdaDeploymentSpec {
  /** The AppSpec's `Name`: the function's name or its unqualified ARN. */
  readonly functionName: string;
  readonly targetVersion: string;
  /** The version before; the target's predecessor when unset. */
  readonly currentVersion?: string;
  readonly alias?: string;
}

export interface CodeDeployServer {
  /** AWS_ENDPOINT_URL_CODEDEPLOY. */
  readonly env: Readonly<Record<string, string>>;
  /** Every status reported, in order. */
  readonly reports: HookStatusReport[];
  /** Every call, by operation, in order (refused ones included). */
  readonly calls: string[];
  /**
   * Registers deployment `deploymentId`: GetDeployment answers its AppSpec as CloudFormation
   * writes it, or `appSpec` as it is.
   */
  register(deploymentId: string, deployment: LambdaDeploymentSpec | { appSpec: string }): void;
  /** GetDeployment of `deploymentId` is refused, as IAM refuses a role without it. */
  deny(deploymentId: string): void;
  /** GetDeployment of `deploymentId` never answers. */
  silence(deploymentId: string): void;
  close(): Promise<void>;
}

const JSON_11 = 'application/x-amz-json-1.1';
const HOOK_STATUSES = ['Pending', 'InProgress', 'Succeeded', 'Failed', 'Skipped', 'Unknown'];
/** The hook the AppSpecs name. */
const HOOK_FUNCTION = 'portal-service-api-test-preTraffic';

/** `portal-service-api-test-ordersPerDay` → `OrdersPerDayLambdaFunction`, as osls names it. */
const logicalIdOf = (functionName: string): string => {
  const name = functionName.split(/[:-]/).at(-1) ?? functionName;
  return `${name.charAt(0).toUpperCase()}${name.slice(1)}LambdaFunction`;
};

/**
 * The AppSpec CloudFormation writes for the release of a function's alias (its `version` 0.0, a
 * number written as such).
 */
export const lambdaAppSpec = ({
  functionName,
  targetVersion,
  currentVersion = String(Math.max(Number(targetVersion) - 1, 1)),
  alias = 'live',
}: LambdaDeploymentSpec): string => {
  const resources = [
    {
      [logicalIdOf(functionName)]: {
        Type: 'AWS::Lambda::Function',
        Properties: {
          Name: functionName,
          Alias: alias,
          CurrentVersion: currentVersion,
          TargetVersion: targetVersion,
        },
      },
    },
  ];
  const hooks = [{ BeforeAllowTraffic: HOOK_FUNCTION }];
  return `{"version":0.0,"Resources":${JSON.stringify(resources)},"Hooks":${JSON.stringify(hooks)}}`;
};

/** GetDeployment's answer for a deployment of `appSpec`, as CodeDeploy gives it mid-release. */
const deploymentInfo = (deploymentId: string, appSpec: string) => ({
  deploymentInfo: {
    applicationName: 'portal-service-api-test',
    deploymentGroupName: 'portal-service-api-test-OrdersPerDayDeploymentGroup-AbC123',
    deploymentConfigName: 'CodeDeployDefault.LambdaCanary10Percent5Minutes',
    deploymentId,
    status: 'InProgress',
    creator: 'CloudFormation',
    computePlatform: 'Lambda',
    createTime: Date.now() / 1000,
    revision: {
      revisionType: 'AppSpecContent',
      appSpecContent: {
        content: appSpec,
        sha256: createHash('sha256').update(appSpec).digest('hex'),
      },
    },
  },
});

export const startCodeDeployServer = async (): Promise<CodeDeployServer> => {
  const reports: HookStatusReport[] = [];
  const calls: string[] = [];
  const deployments = new Map<string, string>();
  const denied = new Set<string>();
  const silenced = new Set<string>();
  const error = (type: string, message: string): Answer =>
    jsonAnswer(400, { __type: type, message }, {}, JSON_11);

  const getDeployment = (input: Record<string, unknown>): Promise<Answer> => {
    const { deploymentId } = input;
    if (typeof deploymentId !== 'string' || deploymentId === '') {
      return Promise.resolve(error('DeploymentIdRequiredException', 'deploymentId is required'));
    }
    if (silenced.has(deploymentId)) return new Promise<never>(() => undefined);
    if (denied.has(deploymentId)) {
      return Promise.resolve(
        error('AccessDeniedException', 'not authorized to perform: codedeploy:GetDeployment'),
      );
    }
    const appSpec = deployments.get(deploymentId);
    if (appSpec === undefined) {
      return Promise.resolve(
        error(
          'DeploymentDoesNotExistException',
          `The deployment ${deploymentId} could not be found`,
        ),
      );
    }
    return Promise.resolve(jsonAnswer(200, deploymentInfo(deploymentId, appSpec), {}, JSON_11));
  };

  const server = await startSigned('codedeploy', (request, body, region) => {
    const [prefix, operation = ''] = String(request.headers['x-amz-target'] ?? '').split('.');
    calls.push(operation);
    const known = ['PutLifecycleEventHookExecutionStatus', 'GetDeployment'];
    if (prefix !== 'CodeDeploy_20141006' || !known.includes(operation)) {
      return Promise.resolve(error('UnknownOperationException', `unknown operation ${operation}`));
    }
    const input = JSON.parse(body || '{}') as Record<string, unknown>;
    if (operation === 'GetDeployment') return getDeployment(input);
    const { deploymentId, lifecycleEventHookExecutionId, status } = input;
    if (typeof deploymentId !== 'string' || deploymentId === '') {
      return Promise.resolve(error('DeploymentIdRequiredException', 'deploymentId is required'));
    }
    if (typeof lifecycleEventHookExecutionId !== 'string' || !lifecycleEventHookExecutionId) {
      return Promise.resolve(
        error('LifecycleEventHookExecutionIdRequiredException', 'hook execution id is required'),
      );
    }
    if (typeof status !== 'string' || !HOOK_STATUSES.includes(status)) {
      return Promise.resolve(
        error('InvalidLifecycleEventHookExecutionStatusException', 'invalid status'),
      );
    }
    reports.push({ region, deploymentId, lifecycleEventHookExecutionId, status });
    return Promise.resolve(jsonAnswer(200, { lifecycleEventHookExecutionId }, {}, JSON_11));
  });
  return {
    env: { AWS_ENDPOINT_URL_CODEDEPLOY: server.url },
    reports,
    calls,
    register: (deploymentId, deployment) => {
      deployments.set(
        deploymentId,
        'appSpec' in deployment ? deployment.appSpec : lambdaAppSpec(deployment),
      );
    },
    deny: (deploymentId) => denied.add(deploymentId),
    silence: (deploymentId) => silenced.add(deploymentId),
    close: server.close,
  };
};
