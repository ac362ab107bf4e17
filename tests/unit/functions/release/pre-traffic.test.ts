/**
 * What the pre-traffic hook reads and judges (functions/release/), invoking nothing;
 * its runs against a local Lambda and CodeDeploy are tests/integration/functions/pre-traffic.test.ts.
 */
import { isGatewayEvent } from '../../../../middleware/non-http-event';
import { catalogue } from '../../../../tools/catalogue';
import { headerValues, pathParameter } from '../../../../shared/http/event';
import { preTrafficEvent } from '../../../../shared/release/pre-traffic-contract';
import { preTrafficProblem, unauthenticatedProblem } from '../../../../functions/release/answers';
import {
  DEPLOYMENT_READ_TIMEOUT_MS,
  HOOK_OVERHEAD_MS,
  hookTimeoutSecondsFor,
  invokeTimeoutMsFor,
} from '../../../../functions/release/bounds';
import {
  AppSpecError,
  appSpecOf,
  deployedFunctionName,
  deployedTargets,
  parseAppSpec,
  parseHookEvent,
  selectDeployed,
} from '../../../../functions/release/deployment';
import {
  DEFAULT_ORIGIN,
  hookLogLevel,
  parseInvokeTimeout,
  parseOrigin,
  parseTargets,
  PreTrafficConfigError,
} from '../../../../functions/release/environment';
import { unauthenticatedEvent } from '../../../../functions/release/gateway-event';
import { CORS } from '../../../support/handlers';
import { BODIES } from '../../../support/portal-errors';

const VERSION =
  'arn:aws:lambda:eu-west-1:123456789012:function:portal-service-api-production-ordersPerDay:42';
const TARGET = {
  function: 'ordersPerDay',
  version: VERSION,
  method: 'GET',
  path: '/v1/restaurants/{id}/reports/orders/day',
};

/** PRE_TRAFFIC_TARGETS holding `entries`. */
const targets = (...entries: unknown[]): string => JSON.stringify(entries);

/** PRE_TRAFFIC_TARGETS holding TARGET with `change`, and what is said of its fields. */
const withTarget = (change: object): string => targets({ ...TARGET, ...change });
const ENTRY = 'PRE_TRAFFIC_TARGETS entry 1 (ordersPerDay): ';
const NOT_QUALIFIED = `${ENTRY}"version" is not a qualified version ARN`;
const NOT_A_ROUTE = `${ENTRY}"path" is not a route`;

/** The PreTrafficConfigError message of `act`. */
const configError = (act: () => unknown): string => {
  try {
    act();
  } catch (error) {
    if (error instanceof PreTrafficConfigError) return error.message;
    throw error;
  }
  throw new Error('expected a PreTrafficConfigError');
};

describe('parseHookEvent', () => {
  it('reads the deployment and the hook execution of CodeDeploy’s event', () => {
    expect(
      parseHookEvent({ DeploymentId: 'd-ABCDEF123', LifecycleEventHookExecutionId: 'eyJ' }),
    ).toEqual({ DeploymentId: 'd-ABCDEF123', LifecycleEventHookExecutionId: 'eyJ' });
  });

  it.each([
    ['nothing', undefined],
    ['an array', [{ DeploymentId: 'd-1', LifecycleEventHookExecutionId: 'x' }]],
    ['no execution id', { DeploymentId: 'd-1' }],
    ['an empty deployment id', { DeploymentId: '', LifecycleEventHookExecutionId: 'x' }],
    ['a numeric id', { DeploymentId: 1, LifecycleEventHookExecutionId: 'x' }],
  ])('refuses %s', (_name, event) => {
    expect(() => parseHookEvent(event)).toThrow(TypeError);
  });
});

describe('parseTargets', () => {
  it('reads one entry per function, in order', () => {
    const dishes = {
      function: 'dishes',
      version: VERSION.replace('ordersPerDay:42', 'dishes:7'),
      method: 'GET',
      path: '/v1/restaurants/{id}/reports/dishes',
    };
    const deploy = {
      function: 'deployPlugin',
      version: 'arn:aws-cn:lambda:cn-north-1:123456789012:function:p-deployPlugin:1',
      method: 'PUT',
      path: '/v1/plugins/{code}',
    };

    expect(parseTargets(targets(TARGET, dishes, deploy))).toEqual([TARGET, dishes, deploy]);
  });

  it('reads every route of the catalogue', () => {
    const entries = catalogue.map((endpoint) => ({
      function: endpoint.function,
      version: VERSION.replace('ordersPerDay', endpoint.function),
      method: endpoint.method,
      path: endpoint.paths[0],
    }));

    expect(parseTargets(JSON.stringify(entries))).toEqual(entries);
  });

  it.each([
    ['unset', undefined, 'PRE_TRAFFIC_TARGETS is not set'],
    ['blank', ' ', 'PRE_TRAFFIC_TARGETS is not set'],
    ['not JSON', '[{', 'PRE_TRAFFIC_TARGETS is not JSON'],
    ['an object', JSON.stringify(TARGET), 'PRE_TRAFFIC_TARGETS is not a non-empty JSON array'],
    ['empty', '[]', 'PRE_TRAFFIC_TARGETS is not a non-empty JSON array'],
    ['a string entry', targets('ordersPerDay'), 'PRE_TRAFFIC_TARGETS entry 1 is not an object'],
    [
      'a function name with a space',
      withTarget({ function: 'orders PerDay' }),
      'PRE_TRAFFIC_TARGETS entry 1: "function" is not a function name',
    ],
    ['an unqualified ARN', withTarget({ version: VERSION.replace(/:42$/, '') }), NOT_QUALIFIED],
    ['$LATEST', withTarget({ version: VERSION.replace(/42$/, '$LATEST') }), NOT_QUALIFIED],
    [
      'a function name instead of an ARN',
      withTarget({ version: 'portal-service-api-production-ordersPerDay:42' }),
      NOT_QUALIFIED,
    ],
    [
      'a lower-case method',
      withTarget({ method: 'get' }),
      `${ENTRY}"method" is not one of GET, PUT`,
    ],
    ['a path without its leading slash', withTarget({ path: 'v1/plugins' }), NOT_A_ROUTE],
    ['a path with a query', withTarget({ path: '/v1/plugins?x=1' }), NOT_A_ROUTE],
    ['a function twice', targets(TARGET, TARGET), 'PRE_TRAFFIC_TARGETS names ordersPerDay twice'],
  ])('refuses %s, naming the entry and its field', (_name, raw, message) => {
    expect(configError(() => parseTargets(raw))).toBe(message);
  });
});

describe('parseOrigin', () => {
  it('is DEFAULT_ORIGIN when unset', () => {
    expect(parseOrigin(undefined)).toBe(DEFAULT_ORIGIN);
    expect(parseOrigin('')).toBe(DEFAULT_ORIGIN);
    expect(new URL(DEFAULT_ORIGIN).origin).toBe(DEFAULT_ORIGIN);
  });

  it('is the origin given', () => {
    expect(parseOrigin('https://portal.example.com')).toBe('https://portal.example.com');
    expect(parseOrigin('http://localhost:3001')).toBe('http://localhost:3001');
  });

  it.each(['portal.example.com', 'https://portal.example.com/', 'ftp://portal.example.com'])(
    'refuses %s',
    (raw) => {
      expect(() => parseOrigin(raw)).toThrow(PreTrafficConfigError);
    },
  );
});

describe('parseInvokeTimeout', () => {
  it('reads whole milliseconds, from 1 s to Lambda’s 900 s', () => {
    expect(parseInvokeTimeout('25000')).toBe(25_000);
    expect(parseInvokeTimeout(' 1000 ')).toBe(1_000);
    expect(parseInvokeTimeout('900000')).toBe(900_000);
  });

  it('refuses it unset', () => {
    expect(configError(() => parseInvokeTimeout(undefined))).toBe(
      'PRE_TRAFFIC_INVOKE_TIMEOUT_MS is not set',
    );
    expect(configError(() => parseInvokeTimeout(' '))).toBe(
      'PRE_TRAFFIC_INVOKE_TIMEOUT_MS is not set',
    );
  });

  it.each(['999', '900001', '25000.5', '25 s', '-25000', '1e4'])('refuses %s', (raw) => {
    expect(configError(() => parseInvokeTimeout(raw))).toBe(
      'PRE_TRAFFIC_INVOKE_TIMEOUT_MS is not a whole number of milliseconds from 1000 to 900000',
    );
  });
});

describe('the hook’s bounds', () => {
  it('waits for an invocation 5 s beyond the functions’ timeout', () => {
    expect(invokeTimeoutMsFor(20)).toBe(25_000);
    expect(invokeTimeoutMsFor(26)).toBe(31_000);
  });

  it('holds two invocations, the report and its own work in its timeout, in whole seconds', () => {
    expect(hookTimeoutSecondsFor(25_000)).toBe(60);
    expect(hookTimeoutSecondsFor(25_001)).toBe(61);
  });

  it('reads its deployment within its own work’s time', () => {
    expect(DEPLOYMENT_READ_TIMEOUT_MS).toBeLessThan(HOOK_OVERHEAD_MS);
  });
});

const FUNCTION = 'portal-service-api-production-ordersPerDay';
const FUNCTION_ARN = `arn:aws:lambda:eu-west-1:123456789012:function:${FUNCTION}`;
/** The properties of a Lambda AppSpec's one resource, as CloudFormation writes them. */
const PROPERTIES = { Name: FUNCTION, Alias: 'live', CurrentVersion: '41', TargetVersion: '42' };
/** A Lambda AppSpec as CloudFormation writes it, with `changes` over its resource's properties. */
const appSpec = (changes: Record<string, unknown> = {}, resource: object = {}): string =>
  JSON.stringify({
    version: 0.0,
    Resources: [
      {
        OrdersPerDayLambdaFunction: {
          Type: 'AWS::Lambda::Function',
          Properties: { ...PROPERTIES, ...changes },
          ...resource,
        },
      },
    ],
    Hooks: [{ BeforeAllowTraffic: 'portal-service-api-production-preTraffic' }],
  });

/** The AppSpecError message of `act`. */
const appSpecError = (act: () => unknown): string => {
  try {
    act();
  } catch (error) {
    if (error instanceof AppSpecError) return error.message;
    throw error;
  }
  throw new Error('expected an AppSpecError');
};

describe('parseAppSpec', () => {
  it('reads the function, its alias and the versions of CloudFormation’s AppSpec', () => {
    expect(parseAppSpec(appSpec())).toEqual({
      name: FUNCTION,
      alias: 'live',
      currentVersion: '41',
      targetVersion: '42',
    });
  });

  it('reads a function named by its ARN, and an alias that pointed at no version', () => {
    expect(parseAppSpec(appSpec({ Name: FUNCTION_ARN, CurrentVersion: undefined }))).toEqual({
      name: FUNCTION_ARN,
      alias: 'live',
      targetVersion: '42',
    });
  });

  it.each([
    ['nothing', undefined, 'the deployment has no AppSpec'],
    ['an empty AppSpec', ' ', 'the deployment has no AppSpec'],
    ['YAML', 'version: 0.0\nResources: []', 'AppSpec is not JSON'],
    ['a list', '[]', 'AppSpec is not a JSON object'],
    [
      'another version',
      appSpec().replace('"version":0', '"version":1'),
      'AppSpec "version" is not 0.0',
    ],
    [
      'no resources',
      JSON.stringify({ version: 0 }),
      'AppSpec "Resources" is not a list of one function',
    ],
    [
      'two functions',
      JSON.stringify({ version: 0, Resources: [{}, {}] }),
      'AppSpec "Resources" is not a list of one function',
    ],
    [
      'an ECS service',
      appSpec({}, { Type: 'AWS::ECS::Service' }),
      'AppSpec resource is not one AWS::Lambda::Function',
    ],
    [
      'two names in its one resource',
      JSON.stringify({
        version: 0,
        Resources: [
          {
            OrdersPerDayLambdaFunction: { Type: 'AWS::Lambda::Function', Properties: PROPERTIES },
            DishesLambdaFunction: { Type: 'AWS::Lambda::Function', Properties: PROPERTIES },
          },
        ],
      }),
      'AppSpec resource is not one AWS::Lambda::Function',
    ],
    ['no Name', appSpec({ Name: undefined }), 'AppSpec "Name" is not a function name or ARN'],
    [
      'a qualified ARN as Name',
      appSpec({ Name: `${FUNCTION_ARN}:42` }),
      'AppSpec "Name" is not a function name or ARN',
    ],
    ['a numeric alias', appSpec({ Alias: '42' }), 'AppSpec "Alias" is not an alias name'],
    [
      'a CurrentVersion that is no number',
      appSpec({ CurrentVersion: '$LATEST' }),
      'AppSpec "CurrentVersion" is not a version number',
    ],
    [
      'no TargetVersion',
      appSpec({ TargetVersion: undefined }),
      'AppSpec "TargetVersion" is not a version number',
    ],
    [
      'the alias as TargetVersion',
      appSpec({ TargetVersion: 'live' }),
      'AppSpec "TargetVersion" is not a version number',
    ],
    [
      'a numeric TargetVersion',
      appSpec({ TargetVersion: 42 }),
      'AppSpec "TargetVersion" is not a version number',
    ],
  ])('refuses %s, without its content', (_name, content, message) => {
    expect(appSpecError(() => parseAppSpec(content))).toBe(message);
  });
});

describe('appSpecOf', () => {
  it('reads the AppSpecContent of GetDeployment’s revision, else its String', () => {
    const content = appSpec();
    expect(
      appSpecOf({ revision: { revisionType: 'AppSpecContent', appSpecContent: { content } } }),
    ).toBe(content);
    expect(appSpecOf({ revision: { revisionType: 'String', string: { content } } })).toBe(content);
  });

  it.each([
    ['no deployment', undefined],
    ['no revision', { deploymentId: 'd-ABCDEF123' }],
    ['an S3 revision', { revision: { revisionType: 'S3', s3Location: { bucket: 'b' } } }],
  ])('is undefined for %s', (_name, deploymentInfo) => {
    expect(appSpecOf(deploymentInfo)).toBeUndefined();
  });
});

describe('deployedTargets', () => {
  const dishes = {
    ...TARGET,
    function: 'dishes',
    version: VERSION.replace('ordersPerDay:42', 'dishes:42'),
  };
  const targetsOf = (raw: string) => parseTargets(raw);

  it.each([
    ['its name', FUNCTION],
    ['its ARN', FUNCTION_ARN],
  ])(
    'is the entry of the version the deployment moves to, the function named by %s',
    (_name, name) => {
      const deployment = parseAppSpec(appSpec({ Name: name }));

      expect(deployedTargets(targetsOf(targets(dishes, TARGET)), deployment)).toEqual([TARGET]);
      expect(deployedFunctionName(deployment)).toBe(FUNCTION);
    },
  );

  it.each([
    ['another version of the function', { TargetVersion: '43' }],
    ['its current version', { TargetVersion: '41', CurrentVersion: '40' }],
    ['a function of another name', { Name: `${FUNCTION}-old` }],
    [
      'the function in another account',
      { Name: FUNCTION_ARN.replace('123456789012', '210987654321') },
    ],
  ])('is none for %s', (_name, changes) => {
    const deployment = parseAppSpec(appSpec(changes));

    expect(deployedTargets(targetsOf(targets(TARGET, dishes)), deployment)).toEqual([]);
  });
});

describe('selectDeployed', () => {
  const dishes = {
    ...TARGET,
    function: 'dishes',
    version: VERSION.replace('ordersPerDay:42', 'dishes:42'),
  };
  const select = (changes: Record<string, unknown>) =>
    selectDeployed(parseTargets(targets(TARGET, dishes)), parseAppSpec(appSpec(changes)));

  it.each([
    ['its name', FUNCTION],
    ['its ARN', FUNCTION_ARN],
  ])('checks the entry of this template’s version, the function named by %s', (_name, name) => {
    expect(select({ Name: name })).toEqual({ action: 'check', targets: [TARGET] });
  });

  it.each([
    [
      'back to its previous version, as a rollback does',
      { TargetVersion: '41', CurrentVersion: '42' },
    ],
    ['to a later version', { TargetVersion: '43' }],
    ['named by its ARN, to another version', { Name: FUNCTION_ARN, TargetVersion: '40' }],
  ])(
    'passes, checking nothing, a function it checks deployed %s: not this release’s',
    (_name, changes) => {
      expect(select(changes)).toEqual({ action: 'pass', templateVersion: '42' });
    },
  );

  it.each([
    ['a function of another name', { Name: `${FUNCTION}-old` }],
    [
      'the function in another account',
      { Name: FUNCTION_ARN.replace('123456789012', '210987654321') },
    ],
    ['a function of another name, to this template’s version number', { Name: 'heartbeat' }],
  ])('fails %s: no entry is of it', (_name, changes) => {
    expect(select(changes)).toEqual({ action: 'fail' });
  });
});

describe('the events the hook sends', () => {
  it('asks for the pre-traffic check by its source', () => {
    expect(preTrafficEvent()).toEqual({ source: 'portal-service-api.pre-traffic' });
  });

  it.each(catalogue.map((endpoint) => [endpoint.function, endpoint] as const))(
    'requests %s’s route without a credential, as API Gateway would',
    (_name, endpoint) => {
      // Act
      const event = unauthenticatedEvent(
        { method: endpoint.method, path: endpoint.paths[0] },
        'https://portal.example.com',
        'req-1',
      );

      // Assess
      expect(isGatewayEvent(event)).toBe(true);
      expect(event.httpMethod).toBe(endpoint.method);
      expect(event.resource).toBe(endpoint.paths[0]);
      expect(event.path).toBe(endpoint.paths[0].replace(/\{\w+\}/g, 'pre-traffic'));
      expect(event.requestContext.requestId).toBe('req-1');
      for (const name of endpoint.paths[0].match(/(?<=\{)\w+(?=\})/g) ?? []) {
        expect(pathParameter(event, name)).toBe('pre-traffic');
      }
      expect(headerValues(event, 'origin')).toEqual(['https://portal.example.com']);
      expect(headerValues(event, 'authorization')).toEqual([]);
      expect(headerValues(event, 'x-api-key')).toEqual([]);
    },
  );
});

describe('preTrafficProblem', () => {
  it.each([
    ['ok', 'ok'],
    ['none', 'none'],
    ['ok', 'none'],
    ['none', 'ok'],
  ])('passes database %s with key set %s', (database, keySet) => {
    for (const issuer of ['set', 'none']) {
      expect(preTrafficProblem({ check: 'pre-traffic', database, keySet, issuer })).toBeUndefined();
    }
  });

  it.each([
    [
      'a failure with a code',
      {
        check: 'pre-traffic',
        database: 'failed',
        error: 'PostgresError',
        code: '28P01',
        keySet: 'ok',
        issuer: 'set',
      },
      'database failed (PostgresError 28P01)',
    ],
    [
      'a failure without one',
      {
        check: 'pre-traffic',
        database: 'failed',
        error: 'DatabaseTimeoutError',
        keySet: 'ok',
        issuer: 'set',
      },
      'database failed (DatabaseTimeoutError)',
    ],
    [
      'a failure naming more than a word',
      {
        check: 'pre-traffic',
        database: 'failed',
        error: 'at db.internal:5432',
        code: 'x y',
        keySet: 'ok',
        issuer: 'set',
      },
      'database failed (Error)',
    ],
    [
      'a key set that cannot be fetched: every token would be refused',
      {
        check: 'pre-traffic',
        database: 'ok',
        keySet: 'failed',
        keySetError: 'KeySetUnavailableError',
        keySetCode: 'ERR_KEY_SET_UNAVAILABLE',
        issuer: 'set',
      },
      'key set failed (KeySetUnavailableError ERR_KEY_SET_UNAVAILABLE)',
    ],
    [
      'both',
      {
        check: 'pre-traffic',
        database: 'failed',
        error: 'DatabaseTimeoutError',
        keySet: 'failed',
        keySetError: 'https://keys.internal/x',
        issuer: 'unset',
      },
      'database failed (DatabaseTimeoutError); key set failed (Error); issuer not set (JWT_ISSUER)',
    ],
    ['nothing (a version without the check)', null, 'not a pre-traffic answer'],
    ['an API Gateway result', { statusCode: 500, body: '' }, 'not a pre-traffic answer'],
    [
      'an unknown state',
      { check: 'pre-traffic', database: 'maybe', keySet: 'ok' },
      'not a pre-traffic answer',
    ],
    [
      'a chain that verifies tokens without JWT_ISSUER: any issuer would verify',
      { check: 'pre-traffic', database: 'ok', keySet: 'ok', issuer: 'unset' },
      'issuer not set (JWT_ISSUER)',
    ],
    [
      'an answer without the key set (a version before its check)',
      { check: 'pre-traffic', database: 'ok' },
      'not a pre-traffic answer',
    ],
  ])('fails %s', (_name, answer, problem) => {
    expect(preTrafficProblem(answer)).toBe(problem);
  });
});

describe('unauthenticatedProblem', () => {
  const result = (statusCode: number, body: unknown, headers: Record<string, string> = CORS) => ({
    statusCode,
    headers: { 'Content-Type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });

  it.each([
    ['the bearer’s 401', result(401, BODIES.bearerMissing)],
    ['the API key’s 401', result(401, BODIES.unverifiable)],
    [
      'a 401 whose CORS header is spelt otherwise and multi-valued',
      {
        statusCode: 401,
        multiValueHeaders: { 'access-control-allow-origin': ['*'] },
        body: JSON.stringify(BODIES.bearerMissing),
      },
    ],
  ])('passes %s', (_name, answer) => {
    expect(unauthenticatedProblem(answer)).toBeUndefined();
  });

  it.each([
    ['a 200', result(200, { data: [] }), 'status 200, not 401'],
    ['a 500', result(500, BODIES.internal), 'status 500, not 401'],
    ['a 403', result(403, BODIES.forbidden), 'status 403, not 401'],
    [
      'an expired token’s 401',
      result(401, BODIES.expired),
      "body is not the contract's 401 TOKEN_INVALID",
    ],
    [
      'a 401 with more in its body',
      result(401, { ...BODIES.bearerMissing, detail: 'x' }),
      "body is not the contract's 401 TOKEN_INVALID",
    ],
    [
      'a 401 whose body is no JSON',
      { statusCode: 401, headers: CORS, body: 'Unauthorized' },
      "body is not the contract's 401 TOKEN_INVALID",
    ],
    [
      'a 401 without CORS',
      result(401, BODIES.bearerMissing, {}),
      'no Access-Control-Allow-Origin: * header',
    ],
    [
      'a 401 allowing one origin only',
      result(401, BODIES.bearerMissing, { 'Access-Control-Allow-Origin': 'https://a.example' }),
      'no Access-Control-Allow-Origin: * header',
    ],
    ['nothing', null, 'not an API Gateway result'],
    ['a pre-traffic answer', { check: 'pre-traffic', database: 'ok' }, 'not an API Gateway result'],
  ])('fails %s', (_name, answer, problem) => {
    expect(unauthenticatedProblem(answer)).toBe(problem);
  });
});

describe('hookLogLevel', () => {
  it('is LOG_LEVEL when it names a level, else info', () => {
    expect(hookLogLevel({ LOG_LEVEL: 'debug' })).toBe('debug');
    expect(hookLogLevel({ LOG_LEVEL: ' error ' })).toBe('error');
    expect(hookLogLevel({ LOG_LEVEL: 'verbose' })).toBe('info');
    expect(hookLogLevel({})).toBe('info');
  });
});
