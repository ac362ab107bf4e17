import postgres from 'postgres';
import { KeySetUnavailableError } from '../../../shared/auth/key-set';
import { DatabaseHangsUpError } from '../../../shared/db/postgres-workarounds';
import { SecretShapeError } from '../../../shared/db/credentials';
import { SecretReadError } from '../../../shared/db/secrets-extension';
import { createLogger } from '../../../shared/logger';
import {
  createMetrics,
  EMF_LIMITS,
  failureKind,
  metricsNamespaceProblem,
  statusClass,
  type FailureKind,
} from '../../../shared/metrics';
import { emfProblems, parseEmf, requestDirectives } from './emf';

const CONFIG = {
  namespace: 'PortalServiceApi',
  service: 'portal-service-api-production',
  functionName: 'portal-service-api-production-ordersPerDay',
  version: '12',
};
const AT = 1_719_783_000_123;

/** One line written by a real logger on a fixed clock. */
const lineOf = (write: (log: ReturnType<typeof createLogger>) => void): string => {
  const lines: string[] = [];
  write(
    createLogger(
      'debug',
      (line) => lines.push(line),
      () => AT,
    ),
  );
  expect(lines).toHaveLength(1);
  return lines[0]!;
};

describe('createMetrics', () => {
  it('builds the request directives of the contract', () => {
    // Act / Assess
    const metrics = createMetrics(CONFIG);
    expect(metrics.requestDirectives(true, true)).toEqual(requestDirectives());
    expect(metrics.service).toBe('portal-service-api-production');
    expect(metrics.release).toEqual({
      FunctionName: 'portal-service-api-production-ordersPerDay',
      Version: '12',
    });
  });

  it('leaves out what a request line lacks: StatusClass without a status, Latency untimed', () => {
    // Act / Assess
    const metrics = createMetrics(CONFIG);
    const first = (answered: boolean, timed: boolean) =>
      metrics.requestDirectives(answered, timed)[0];
    expect(first(false, true)).toMatchObject({ Dimensions: [['Service']] });
    expect(first(true, false)).toMatchObject({
      Dimensions: [
        ['Service'],
        ['Service', 'Route', 'StatusClass'],
        ['Service', 'FunctionName', 'Version', 'StatusClass'],
      ],
      Metrics: [{ Name: 'Requests', Unit: 'Count' }],
    });
    expect(first(false, false)).toEqual({
      Namespace: 'PortalServiceApi',
      Dimensions: [['Service']],
      Metrics: [{ Name: 'Requests', Unit: 'Count' }],
    });
  });

  it('builds every directive once: each call hands out the same objects', () => {
    // Act / Assess
    const metrics = createMetrics(CONFIG);
    expect(metrics.requestDirectives(true, true)).toBe(metrics.requestDirectives(true, true));
    expect(metrics.requestDirectives(true, true)[1]).toBe(
      metrics.requestDirectives(false, false)[1],
    );
  });

  it('keeps every directive within the specification limits', () => {
    // Act
    const metrics = createMetrics(CONFIG);
    const all = [
      ...[true, false].flatMap((answered) =>
        [true, false].flatMap((timed) => metrics.requestDirectives(answered, timed)),
      ),
      ...metrics.keySetFailure.directives,
    ];

    // Assess
    for (const directive of all) {
      expect(directive.Metrics.length).toBeLessThanOrEqual(EMF_LIMITS.metricsPerDirective);
      for (const set of directive.Dimensions) {
        expect(set.length).toBeLessThanOrEqual(EMF_LIMITS.dimensionsPerSet);
      }
    }
  });

  it.each<[string, 'keySetFailure', string]>([
    ['key set fetch failed', 'keySetFailure', 'KeySetFailures'],
  ])('makes "%s" a valid EMF line counting %s = 1', (message, kind, name) => {
    // Prepare
    const { fields, directives } = createMetrics(CONFIG)[kind];

    // Act
    const line = lineOf((log) => {
      log.log(
        'warn',
        message,
        { errorName: 'Error', errorCode: 'ECONNREFUSED', ...fields },
        directives,
      );
    });

    // Assess
    expect(parseEmf(line)).toEqual({
      level: 'warn',
      message,
      time: new Date(AT).toISOString(),
      errorName: 'Error',
      errorCode: 'ECONNREFUSED',
      Service: 'portal-service-api-production',
      [name]: 1,
      _aws: {
        Timestamp: AT,
        CloudWatchMetrics: [
          {
            Namespace: 'PortalServiceApi',
            Dimensions: [['Service']],
            Metrics: [{ Name: name, Unit: 'Count' }],
          },
        ],
      },
    });
  });
});

describe('statusClass', () => {
  it.each([
    [100, '1xx'],
    [200, '2xx'],
    [204, '2xx'],
    [299, '2xx'],
    [301, '3xx'],
    [400, '4xx'],
    [403, '4xx'],
    [499, '4xx'],
    [500, '5xx'],
    [503, '5xx'],
    [599, '5xx'],
    [600, '6xx'],
  ])('puts %i in %s', (status, expected) => {
    expect(statusClass(status)).toBe(expected);
  });
});

describe('failureKind', () => {
  const code = (value: string, name = 'Error') =>
    Object.assign(new Error(`write ${value} 10.0.0.5:5432`), { name, code: value, errno: value });
  const postgresError = (sqlState: string) =>
    new postgres.PostgresError({
      message: 'relation "orders" does not exist',
      code: sqlState,
    } as never);

  it.each<[string, unknown, FailureKind]>([
    ['a KeySetUnavailableError', new KeySetUnavailableError('no usable key set'), 'keySet'],
    [
      'a KeySetUnavailableError caused by a refused connection',
      new KeySetUnavailableError('no usable key set', { cause: code('ECONNREFUSED') }),
      'keySet',
    ],
    [
      'an error from another realm named KeySetUnavailableError',
      { name: 'KeySetUnavailableError' },
      'keySet',
    ],
    ['a PostgresError (an undefined table)', postgresError('42P01'), 'database'],
    ['a PostgresError (the statement timeout)', postgresError('57014'), 'database'],
    ['a PostgresError (a refused password)', postgresError('28P01'), 'database'],
    ["postgres.js's connect timeout", code('CONNECT_TIMEOUT'), 'database'],
    ["postgres.js's closed connection", code('CONNECTION_CLOSED'), 'database'],
    ["postgres.js's ended pool", code('CONNECTION_ENDED'), 'database'],
    ["postgres.js's destroyed connection", code('CONNECTION_DESTROYED'), 'database'],
    ['a refused connection', code('ECONNREFUSED'), 'database'],
    ['a timed-out connection', code('ETIMEDOUT'), 'database'],
    ['a reset connection', code('ECONNRESET'), 'database'],
    ['an unknown host', code('ENOTFOUND'), 'database'],
    ['a certificate for another host', code('ERR_TLS_CERT_ALTNAME_INVALID'), 'database'],
    ['a database that hangs up', new DatabaseHangsUpError('hangs up'), 'database'],
    ['a failed read of the secret', new SecretReadError('no answer'), 'database'],
    ['a malformed secret', new SecretShapeError('not JSON'), 'database'],
    [
      'an error caused by a PostgresError',
      new Error('report failed', { cause: postgresError('42P01') }),
      'database',
    ],
  ])('is %j for %s', (_name, error, expected) => {
    expect(failureKind(error)).toBe(expected);
  });

  const cyclic = new Error('cyclic') as Error & { cause?: unknown };
  cyclic.cause = cyclic;
  let deep: unknown = postgresError('42P01');
  for (let i = 0; i < 4; i += 1) deep = new Error('wrapped', { cause: deep });

  it.each<[string, unknown]>([
    ['a plain Error', new Error('boom')],
    ['a TypeError of a row', new TypeError('row: day is not text')],
    ['a programming error of postgres.js', code('UNDEFINED_VALUE')],
    ['an unwrapped key-set fetch failure', code('ERR_KEY_SET_HTTP_STATUS', 'TypeError')],
    ['a thrown string', 'ECONNREFUSED'],
    ['undefined', undefined],
    ['null', null],
    ['a numeric code', { code: 57014 }],
    ['a cause chain that loops without a classified error', cyclic],
    ['a database error beyond four causes', deep],
  ])('is undefined for %s', (_name, error) => {
    expect(failureKind(error)).toBeUndefined();
  });
});

describe('the EMF checker of these tests', () => {
  const valid = {
    Service: 's',
    Requests: 1,
    _aws: {
      Timestamp: AT,
      CloudWatchMetrics: [
        {
          Namespace: 'N',
          Dimensions: [['Service']],
          Metrics: [{ Name: 'Requests', Unit: 'Count' }],
        },
      ],
    },
  };
  const withAws = (aws: object) => ({ ...valid, _aws: { ...valid._aws, ...aws } });
  /** The valid document with its directive changed. */
  const withDirective = (change: object) =>
    withAws({ CloudWatchMetrics: [{ ...valid._aws.CloudWatchMetrics[0], ...change }] });

  it('accepts a valid document', () => {
    expect(emfProblems(JSON.stringify(valid))).toEqual([]);
  });

  it.each<[string, unknown]>([
    ['a metric that is a string', { ...valid, Requests: '1' }],
    ['a missing metric', { ...valid, Requests: undefined }],
    ['a dimension that is a number', { ...valid, Service: 7 }],
    ['a Timestamp in seconds as text', withAws({ Timestamp: '1719783000' })],
    ['an unknown unit', withDirective({ Metrics: [{ Name: 'Requests', Unit: 'ms' }] })],
    [
      'a dimension set of 31 keys',
      withDirective({ Dimensions: [Array.from({ length: 31 }, () => 'Service')] }),
    ],
    ['an extra member in _aws', withAws({ LogGroupName: 'g' })],
    ['no directive', withAws({ CloudWatchMetrics: [] })],
  ])('refuses %s', (_name, document) => {
    expect(emfProblems(JSON.stringify(document))).not.toEqual([]);
  });
});

describe('metricsNamespaceProblem (METRICS_NAMESPACE, for the functions and packaging)', () => {
  it.each(['PortalServiceApi', 'Brand/Portal', 'Brand.Portal-API_v2#1:eu', 'Portal Reports'])(
    'accepts %j: CloudWatch characters',
    (namespace) => {
      expect(metricsNamespaceProblem(namespace)).toBeUndefined();
    },
  );

  it('accepts 255 characters, not 256', () => {
    expect(metricsNamespaceProblem('N'.repeat(255))).toBeUndefined();
    expect(metricsNamespaceProblem('N'.repeat(256))).toBe('must be at most 255 characters');
  });

  it.each(['Portal$Api', 'Portal(Api)', 'Portal\u00e9', 'Portal\nApi', 'Portal\tApi'])(
    'refuses %j: a character CloudWatch does not take in a namespace',
    (namespace) => {
      expect(metricsNamespaceProblem(namespace)).toBe(
        'must hold only letters, digits, spaces and . - _ / # : (a CloudWatch namespace)',
      );
    },
  );

  it.each(['', '   '])('refuses %j: nothing but spaces', (namespace) => {
    expect(metricsNamespaceProblem(namespace)).toBe('must hold a character other than a space');
  });

  it.each(['AWS/Lambda', 'AWS/'])('refuses %j: the namespaces of AWS', (namespace) => {
    expect(metricsNamespaceProblem(namespace)).toBe(
      'must not start with AWS/ (the namespaces of AWS)',
    );
  });
});
