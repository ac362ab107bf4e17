import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { rdsRegionFor } from '../../../shared/db/rds-cas';
import { LOCAL_FUNCTION, metricsNamespaceProblem } from '../../../shared/metrics';
import {
  ConfigError,
  isLoopbackDatabase,
  loadConfig,
  loadMetricsConfig,
  type ServiceConfig,
} from '../../../shared/config';

type Env = Record<string, string | undefined>;

const JWKS_URL = 'https://auth.portal.example.com/v2/.well-known/jwks.json';
const DATABASE_URL = 'postgres://reports:secret@db.internal:5432/reports';

/** The smallest environment the service starts with (Lambda sets AWS_REGION in every function). */
const minimalEnv = (): Env => ({ JWKS_URL, DATABASE_URL, AWS_REGION: 'eu-west-1' });

const configErrorOf = (env: Env): ConfigError => {
  try {
    loadConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
  throw new Error('expected loadConfig to throw a ConfigError');
};

/** Runs `read` with `vars` added to process.env, then puts process.env back as it was. */
const withProcessEnv = <T>(vars: Env, read: () => T): T => {
  const saved = { ...process.env };
  Object.assign(process.env, vars);
  try {
    return read();
  } finally {
    for (const key of Object.keys(process.env)) {
      if (!(key in saved)) Reflect.deleteProperty(process.env, key);
    }
    Object.assign(process.env, saved);
  }
};

/** The settings read from the smallest environment with `extra` added. */
const load = (extra: Env) => loadConfig({ ...minimalEnv(), ...extra });
/** The message of the ConfigError the smallest environment with `extra` added is refused with. */
const refusal = (extra: Env) => configErrorOf({ ...minimalEnv(), ...extra }).message;

describe('loadConfig', () => {
  it('fills every optional setting with its default', () => {
    // Act / Assess
    const config = loadConfig(minimalEnv());
    expect(config.jwksUrl).toBeInstanceOf(URL);
    expect(config.jwksUrl.href).toBe(JWKS_URL);
    expect({ ...config, jwksUrl: config.jwksUrl.href }).toEqual({
      jwksUrl: JWKS_URL,
      clockToleranceSeconds: 5,
      legacyPlatforms: { aliases: new Map() },
      database: {
        url: DATABASE_URL,
        poolMax: 2,
        statementTimeoutMs: 5000,
        statementTimeoutVia: 'startup',
        proxyQueueMs: 0,
        connectTimeoutSeconds: 2,
        prepare: true,
        tls: { mode: 'verify-full', ca: 'rds', region: 'eu-west-1' },
      },
      logLevel: 'info',
      metrics: { namespace: 'PortalServiceApi', service: 'portal-service-api', ...LOCAL_FUNCTION },
    });
    expect(config).not.toHaveProperty('issuer');
    expect(config).not.toHaveProperty('maxAgeSeconds');
    expect(config.legacyPlatforms).not.toHaveProperty('sunset');
  });

  it('reads every setting that is given', () => {
    // Prepare
    const env: Env = {
      JWKS_URL,
      DATABASE_URL,
      JWT_ISSUER: ' https://auth.portal.example.com ',
      JWT_CLOCK_TOLERANCE_SECONDS: '30',
      LEGACY_PLATFORM_KEYS: 'TBLEGACY_KW=TB_KW',
      LEGACY_PLATFORM_KEYS_SUNSET: '2026-06-30',
      DB_POOL_MAX: '20',
      DB_STATEMENT_TIMEOUT_MS: '100',
      DB_STATEMENT_TIMEOUT_VIA: 'role',
      DB_PROXY_QUEUE_MS: '3000',
      DB_CONNECT_TIMEOUT_SECONDS: '60',
      DB_PREPARE: 'false',
      DB_TLS: 'require',
      LOG_LEVEL: 'debug',
      METRICS_NAMESPACE: ' Portal/Reports ',
      METRICS_SERVICE: 'portal-service-api-production',
    };

    // Act / Assess
    const config = loadConfig(env);
    expect({ ...config, jwksUrl: config.jwksUrl.href }).toEqual({
      jwksUrl: JWKS_URL,
      issuer: 'https://auth.portal.example.com',
      clockToleranceSeconds: 30,
      legacyPlatforms: { aliases: new Map([['TBLEGACY_KW', 'TB_KW']]), sunset: '2026-06-30' },
      database: {
        url: DATABASE_URL,
        poolMax: 20,
        statementTimeoutMs: 100,
        statementTimeoutVia: 'role',
        proxyQueueMs: 3000,
        connectTimeoutSeconds: 60,
        prepare: false,
        tls: { mode: 'require' },
      },
      logLevel: 'debug',
      metrics: {
        namespace: 'Portal/Reports',
        service: 'portal-service-api-production',
        ...LOCAL_FUNCTION,
      },
    });
  });

  it.each(['', '   '])('treats JWT_ISSUER %j as not set', (issuer) => {
    // Act / Assess
    expect(load({ JWT_ISSUER: issuer })).not.toHaveProperty('issuer');
  });

  it('reads JWT_AUDIENCE trimmed, and treats it blank as not set', () => {
    // Act
    const set = load({ JWT_AUDIENCE: ' portal-reports ' });
    const blank = load({ JWT_AUDIENCE: '  ' });

    // Assess
    expect(set.audience).toBe('portal-reports');
    expect(blank).not.toHaveProperty('audience');
    expect(loadConfig(minimalEnv())).not.toHaveProperty('audience');
  });

  it('reads process.env when no environment is passed', () => {
    // Prepare
    const extra = { LOG_LEVEL: 'warn', DB_POOL_MAX: '7' };
    const config = withProcessEnv({ ...minimalEnv(), ...extra }, () => loadConfig());

    // Act / Assess
    expect(config.jwksUrl.href).toBe(JWKS_URL);
    expect(config.database).toMatchObject({ url: DATABASE_URL, poolMax: 7 });
    expect(config.logLevel).toBe('warn');
  });

  it('does not change the environment it reads', () => {
    // Prepare
    const env = { ...minimalEnv(), LOG_LEVEL: 'warn' };
    const before = { ...env };

    // Act / Assess
    loadConfig(env);
    expect(env).toEqual(before);
  });

  const CA_NAMES = 'DB_CA must be one of rds, rds-proxy, node or a path to a PEM file';
  /** What shared/metrics.ts finds wrong with a namespace, as loadConfig says it. */
  const namespaceRefusal = (value: string) =>
    `METRICS_NAMESPACE ${String(metricsNamespaceProblem(value))}`;
  /** One row per refused value of one variable, each with the message that names it. */
  const refusals = (name: string, values: (string | undefined)[], message: string) =>
    values.map((value) => [name, value, message] as const);

  it.each([
    ...refusals('JWKS_URL', [undefined, '', '   '], 'JWKS_URL is not set'),
    ...refusals(
      'JWKS_URL',
      ['not a url', '/.well-known/jwks.json', 'auth.example.com/jwks.json'],
      'JWKS_URL is not a URL',
    ),
    ...refusals('DATABASE_URL', [undefined, '', '  '], 'DATABASE_URL is not set'),
    ...refusals(
      'DB_TLS',
      ['verify-ca', 'prefer', 'true', 'VERIFY-FULL'],
      'DB_TLS must be one of verify-full, require, disable',
    ),
    ...refusals('DB_CA', ['RDS', 'ca.pem'], CA_NAMES),
    ...refusals('DB_CA', ['/no/such/ca.pem', '/'], 'DB_CA is not a readable file'),
    ...refusals('DB_PREPARE', ['yes', 'TRUE', '0', '1', 'off'], 'DB_PREPARE must be true or false'),
    ...refusals(
      'DB_STATEMENT_TIMEOUT_VIA',
      ['ROLE', 'session', 'off', 'none'],
      'DB_STATEMENT_TIMEOUT_VIA must be one of startup, role',
    ),
    // Written otherwise than as a whole number, though a number.
    ...refusals(
      'DB_POOL_MAX',
      ['0x14', '1e1', '2.0', '+2'],
      'DB_POOL_MAX must be a whole number from 1 to 20',
    ),
    ...refusals(
      'LEGACY_PLATFORM_KEYS_SUNSET',
      ['2026-02-30', '2026-6-30', '30.06.2026', 'tomorrow', '2026-06-30T00:00:00Z'],
      'LEGACY_PLATFORM_KEYS_SUNSET must be a date in YYYY-MM-DD form',
    ),
    ...refusals(
      'LOG_LEVEL',
      ['verbose', 'INFO', 'trace', 'fatal'],
      'LOG_LEVEL must be one of debug, info, warn, error',
    ),
    ...refusals(
      'METRICS_NAMESPACE',
      ['N'.repeat(256)],
      'METRICS_NAMESPACE must be at most 255 characters',
    ),
    // The namespace's rule is shared/metrics.ts's, which packaging applies too.
    ...['Portal\nApi', 'Portal\u00e9', 'Portal$Api', 'Portal(Api)', 'AWS/Lambda'].map(
      (value) => ['METRICS_NAMESPACE', value, namespaceRefusal(value)] as const,
    ),
    ...refusals(
      'METRICS_SERVICE',
      ['s'.repeat(256)],
      'METRICS_SERVICE must be at most 255 characters',
    ),
    ...refusals(
      'METRICS_SERVICE',
      ['portal\u0000api', 'portal\u0085api', 'portal\u007fapi'],
      'METRICS_SERVICE must not hold control characters',
    ),
  ])('refuses %s=%j: %s', (name, value, message) => {
    expect(refusal({ [name]: value })).toBe(message);
  });

  describe('JWKS_URL', () => {
    // Act / Assess
    it.each([
      'http://auth.portal.example.com/jwks.json',
      'http://10.0.0.5/jwks.json',
      'http://localhost.example.com/jwks.json',
      'http://127.0.0.1.nip.io/jwks.json',
      'ftp://localhost/jwks.json',
      'file:///etc/jwks.json',
    ])('refuses %s: plain HTTP only for this machine, nothing but HTTP(S)', (value) => {
      // Act / Assess
      const message = refusal({ JWKS_URL: value });
      expect(message).toMatch(/^JWKS_URL /);
      expect(message).toContain('https');
    });

    it.each([
      'http://localhost:3001/.well-known/jwks.json',
      'http://127.0.0.1:3001/.well-known/jwks.json',
      'http://[::1]:3001/.well-known/jwks.json',
    ])('accepts plain HTTP from the local issuer at %s', (value) => {
      // Act / Assess
      expect(load({ JWKS_URL: value }).jwksUrl.href).toBe(value);
    });
  });

  describe('DB_TLS and DB_CA', () => {
    const dir = mkdtempSync(join(tmpdir(), 'portal-config-'));
    const [caPem, emptyPem] = [join(dir, 'ca.pem'), join(dir, 'empty.pem')];
    writeFileSync(caPem, '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n');
    writeFileSync(emptyPem, '');
    afterAll(() => {
      rmSync(dir, { recursive: true, force: true });
    });

    it.each([
      ['postgres://u:p@localhost:5432/x', true],
      ['postgres://127.0.0.1/x', true],
      ['postgres://[::1]:5432/x', true],
      ['postgres://db.internal/x', false],
      ['postgres://127.0.0.2/x', false],
      ['postgres://localhost.example.com/x', false],
    ] as const)('counts %s as on this machine: %s', (url, loopback) => {
      expect(isLoopbackDatabase(url)).toBe(loopback);
    });

    const verify = (ca: unknown) => ({ mode: 'verify-full', ca, region: 'eu-west-1' });
    const local = (DB_TLS: string) => ({ DATABASE_URL: 'postgres://u@localhost/x', DB_TLS });
    const LOOPBACK = 'postgres://u@127.0.0.1/x';
    const RDS_HOST = 'postgres://u@orders.c0abcdef1234.sa-east-1.rds.amazonaws.com/x';
    it.each<[string, Env, object]>([
      ['a remote database as verified by default', { DB_CA: '' }, verify('rds')],
      ['a database on this machine as plain', { DATABASE_URL: LOOPBACK }, { mode: 'disable' }],
      [
        'the RDS CAs region from an RDS host name, needing no AWS_REGION',
        { AWS_REGION: undefined, DATABASE_URL: RDS_HOST },
        { mode: 'verify-full', ca: 'rds' },
      ],
      ['DB_TLS "verify-full", whatever the host', local('verify-full'), verify('rds')],
      ['DB_TLS " require ", whatever the host', local(' require '), { mode: 'require' }],
      ['DB_TLS "disable", whatever the host', local('disable'), { mode: 'disable' }],
      ['DB_CA "rds" as a named list', { DB_CA: 'rds' }, verify('rds')],
      ['DB_CA " rds-proxy " as a named list', { DB_CA: ' rds-proxy ' }, verify('rds-proxy')],
      ['DB_CA "node" as a named list', { DB_CA: 'node' }, verify('node')],
      ['a DB_CA holding a / as the path of a PEM file', { DB_CA: caPem }, verify({ file: caPem })],
      ['DB_CA only to verify', { DB_TLS: 'require', DB_CA: 'missing' }, { mode: 'require' }],
    ])('reads %s', (_case, extra, tls) => {
      // Act / Assess
      expect(load(extra).database.tls).toEqual(tls);
    });

    it('refuses DB_CA=rds for a host that names no region without AWS_REGION, naming both', () => {
      // Act / Assess: the rule of shared/db/rds-cas.ts, which the TLS options apply too
      const message = configErrorOf({ JWKS_URL, DATABASE_URL }).message;
      expect(message).toMatch(/^DB_CA=rds needs the database region: .*AWS_REGION$/);
      expect(() => rdsRegionFor('db.internal', undefined)).toThrow(message);
    });

    it('refuses a DB_CA file without a certificate', () => {
      expect(refusal({ DB_CA: emptyPem })).toBe('DB_CA holds no PEM certificate');
    });
  });

  describe('DB_PREPARE', () => {
    it.each([
      ['true', true],
      [' false ', false],
      ['', true],
      [undefined, true],
    ] as const)('reads %j as %s', (value, prepare) => {
      // Act / Assess
      expect(load({ DB_PREPARE: value }).database.prepare).toBe(prepare);
    });
  });

  describe.each([
    { name: 'DB_POOL_MAX', min: 1, max: 20, read: (c: ServiceConfig) => c.database.poolMax },
    {
      name: 'DB_STATEMENT_TIMEOUT_MS',
      min: 100,
      max: 60000,
      read: (c: ServiceConfig) => c.database.statementTimeoutMs,
    },
    {
      name: 'DB_CONNECT_TIMEOUT_SECONDS',
      min: 1,
      max: 60,
      read: (c: ServiceConfig) => c.database.connectTimeoutSeconds,
    },
    {
      name: 'JWT_CLOCK_TOLERANCE_SECONDS',
      min: 0,
      max: 300,
      read: (c: ServiceConfig) => c.clockToleranceSeconds,
    },
    {
      name: 'JWT_MAX_AGE',
      min: 1,
      max: 31_536_000,
      read: (c: ServiceConfig) => c.maxAgeSeconds,
    },
  ])('$name', ({ name, min, max, read }) => {
    it.each([String(min - 1), String(max + 1), '2.5', 'ten', '-', 'NaN', 'Infinity'])(
      `refuses %j, which is not a whole number from ${min} to ${max}`,
      (value) => {
        // Act / Assess
        expect(refusal({ [name]: value })).toBe(
          `${name} must be a whole number from ${min} to ${max}`,
        );
      },
    );

    it(`accepts both ends of ${min}..${max}, spaces trimmed`, () => {
      // Act / Assess
      expect([min, max].map((value) => read(load({ [name]: ` ${value} ` })))).toEqual([min, max]);
    });
  });

  describe('LEGACY_PLATFORM_KEYS', () => {
    it.each(['TBLEGACY_KW', 'TBLEGACY_KW=tb_kw', '=TB_KW', 'A=TB_KW=TB_AE'])(
      'refuses the malformed list %j, naming LEGACY_PLATFORM_KEYS',
      (value) => {
        // Act / Assess
        expect(refusal({ LEGACY_PLATFORM_KEYS: value })).toMatch(/^LEGACY_PLATFORM_KEYS: /);
      },
    );

    it('treats a blank sunset as no sunset', () => {
      // Act / Assess
      expect(load({ LEGACY_PLATFORM_KEYS_SUNSET: ' ' }).legacyPlatforms).toEqual({
        aliases: new Map(),
      });
    });
  });

  describe('LOG_LEVEL', () => {
    it.each(['debug', 'info', 'warn', 'error'])('accepts %s', (level) => {
      // Act / Assess
      expect(load({ LOG_LEVEL: level }).logLevel).toBe(level);
    });
  });

  describe('METRICS_NAMESPACE and METRICS_SERVICE', () => {
    const DEFAULTS = { namespace: 'PortalServiceApi', service: 'portal-service-api' };

    it.each(['', '   '])('treat %j as not set: their defaults', (blank) => {
      // Act / Assess
      expect(load({ METRICS_NAMESPACE: blank, METRICS_SERVICE: blank }).metrics).toEqual({
        ...DEFAULTS,
        ...LOCAL_FUNCTION,
      });
    });

    it.each(['Portal/Reports', 'Brand.Portal-API_v2#1:eu', 'Portal Reports'])(
      'accept the namespace %j, of CloudWatch characters',
      (namespace) => {
        expect(metricsNamespaceProblem(namespace)).toBeUndefined();
        expect(load({ METRICS_NAMESPACE: namespace }).metrics.namespace).toBe(namespace);
      },
    );

    it('accept 255 characters, and a service name in any script', () => {
      // Prepare
      const [namespace, service] = ['N'.repeat(255), `رابط-${'s'.repeat(250)}`];

      // Act / Assess
      expect(load({ METRICS_NAMESPACE: namespace, METRICS_SERVICE: service }).metrics).toEqual({
        namespace,
        service,
        ...LOCAL_FUNCTION,
      });
    });

    it('are read by loadMetricsConfig alone, without the other settings', () => {
      // Act / Assess
      expect(loadMetricsConfig({ METRICS_SERVICE: ' svc-dev ' })).toEqual({
        ...DEFAULTS,
        service: 'svc-dev',
        ...LOCAL_FUNCTION,
      });
    });

    it("take Lambda's function name and version as the FunctionName and Version", () => {
      // Prepare
      const functionName = 'portal-service-api-production-ordersPerDay';

      // Act / Assess
      expect(
        loadMetricsConfig({
          AWS_LAMBDA_FUNCTION_NAME: functionName,
          AWS_LAMBDA_FUNCTION_VERSION: '12',
        }),
      ).toMatchObject({ functionName, version: '12' });
    });

    it('are read by loadMetricsConfig from process.env when no environment is passed', () => {
      // Prepare / Act / Assess
      const vars = { METRICS_NAMESPACE: 'Ops', METRICS_SERVICE: 'svc-dev' };
      expect(withProcessEnv(vars, () => loadMetricsConfig())).toMatchObject({
        namespace: 'Ops',
        service: 'svc-dev',
      });
    });
  });

  it('throws a ConfigError, a kind of TypeError, with its own name', () => {
    // Act / Assess
    const error = configErrorOf({});
    expect(error).toBeInstanceOf(TypeError);
    expect(error.name).toBe('ConfigError');
  });
});

describe('loadConfig with DATABASE_SECRET_ARN', () => {
  const SECRET_ARN =
    'arn:aws:secretsmanager:eu-central-1:123456789012:secret:rds!db-0123abcd-4567-89ef-0123-456789abcdef-AbC123';
  const SESSION_TOKEN = 'session-token-of-the-function';
  const PASSWORD = 'Zq9!distinctive-PASSWORD-7781';
  const verifyFull = { mode: 'verify-full', ca: 'rds', region: 'eu-central-1' };

  /** The smallest environment the service starts with on a secret, with `extra` added. */
  const secretEnv = (extra: Env = {}): Env => ({
    JWKS_URL,
    DATABASE_SECRET_ARN: SECRET_ARN,
    AWS_SESSION_TOKEN: SESSION_TOKEN,
    AWS_REGION: 'eu-central-1',
    ...extra,
  });
  const secretLoad = (extra: Env = {}) => loadConfig(secretEnv(extra));
  const secretRefusal = (extra: Env) => configErrorOf(secretEnv(extra)).message;

  it('fails on a DATABASE_URL beside the secret that does not decode, naming DATABASE_URL', () => {
    expect(() => secretLoad({ DATABASE_URL: 'postgres://db.internal/%zz' })).toThrow(
      new ConfigError('DATABASE_URL is not a valid URL'),
    );
  });

  it('reads the secret through the extension on its defaults, verifying TLS', () => {
    // Act / Assess
    const config = secretLoad();
    expect(config.database).toEqual({
      secretArn: SECRET_ARN,
      location: {},
      secretsExtension: { port: 2773, sessionToken: SESSION_TOKEN, timeoutMs: 2000 },
      poolMax: 2,
      statementTimeoutMs: 5000,
      statementTimeoutVia: 'startup',
      proxyQueueMs: 0,
      connectTimeoutSeconds: 2,
      prepare: true,
      tls: verifyFull,
    });
    expect(config.database).not.toHaveProperty('url');
  });

  it.each<[string, Env, object]>([
    [
      'trims the ARN and takes DB_TLS when it is given',
      { DATABASE_SECRET_ARN: ` ${SECRET_ARN} `, DB_TLS: 'require' },
      { secretArn: SECRET_ARN, tls: { mode: 'require' } },
    ],
    [
      'reads PARAMETERS_SECRETS_EXTENSION_HTTP_PORT and DB_SECRET_TIMEOUT_MS',
      { PARAMETERS_SECRETS_EXTENSION_HTTP_PORT: ' 2800 ', DB_SECRET_TIMEOUT_MS: '10000' },
      { secretsExtension: { port: 2800, sessionToken: SESSION_TOKEN, timeoutMs: 10000 } },
    ],
  ])('%s', (_behaviour, extra, expected) => {
    // Act / Assess
    expect(secretLoad(extra).database).toMatchObject(expected);
  });

  describe.each([
    { name: 'PARAMETERS_SECRETS_EXTENSION_HTTP_PORT', min: 1, max: 65535, key: 'port' },
    { name: 'DB_SECRET_TIMEOUT_MS', min: 100, max: 30000, key: 'timeoutMs' },
  ] as const)('$name', ({ name, min, max, key }) => {
    it.each([String(min - 1), String(max + 1), '2.5', 'ten', '-1'])(
      `refuses %j, which is not a whole number from ${min} to ${max}`,
      (value) => {
        // Act / Assess
        expect(secretRefusal({ [name]: value })).toBe(
          `${name} must be a whole number from ${min} to ${max}`,
        );
      },
    );

    it(`accepts both ends of ${min}..${max}`, () => {
      // Act / Assess
      expect(
        [min, max].map((value) => {
          const { database } = secretLoad({ [name]: String(value) });
          return 'secretsExtension' in database ? database.secretsExtension[key] : undefined;
        }),
      ).toEqual([min, max]);
    });
  });

  it.each([undefined, '', '  '])(
    'refuses a missing AWS_SESSION_TOKEN (%j), which the extension requires',
    (value) => {
      // Act / Assess
      expect(secretRefusal({ AWS_SESSION_TOKEN: value })).toBe('AWS_SESSION_TOKEN is not set');
    },
  );

  it.each([
    'portal/db',
    'arn:aws:secretsmanager:eu-central-1:123456789012:secret:portal/db',
    'arn:aws:ssm:eu-central-1:123456789012:parameter/portal/db',
    'arn:aws:secretsmanager:eu-central-1:1234:secret:portal/db-AbC123',
  ])('refuses the malformed ARN %j, naming DATABASE_SECRET_ARN', (value) => {
    // Act / Assess
    expect(secretRefusal({ DATABASE_SECRET_ARN: value })).toMatch(
      /^DATABASE_SECRET_ARN must be a full secret ARN/,
    );
  });

  it.each([
    `postgres://reports:${PASSWORD}@db.internal:5432/reports`,
    `postgres://:${PASSWORD}@db.internal/reports`,
    'postgres://reports@db.internal/reports',
  ])('refuses a DATABASE_URL that carries a user or password beside the secret', (url) => {
    // Act / Assess
    const message = secretRefusal({ DATABASE_URL: url });
    expect(message).toMatch(/^DATABASE_URL must not carry a user or password/);
    expect(message).not.toContain(PASSWORD);
  });

  it.each(['mysql://db.internal/reports', 'https://db.internal/reports', 'db.internal:5432'])(
    'refuses %j beside the secret, which is not a postgres:// URL',
    (url) => {
      // Act / Assess
      expect(secretRefusal({ DATABASE_URL: url })).toMatch(/^DATABASE_URL /);
    },
  );

  it('takes a password-less DATABASE_URL as where to connect', () => {
    // Act / Assess
    const { database } = secretLoad({ DATABASE_URL: ' postgresql://proxy.internal:6543/reports ' });
    expect(database).toMatchObject({
      secretArn: SECRET_ARN,
      location: { host: 'proxy.internal', port: 6543, database: 'reports' },
      tls: verifyFull,
    });
    expect(database).not.toHaveProperty('url');
  });

  it.each([
    ['postgres://127.0.0.1:5432/reports', { host: '127.0.0.1', port: 5432, database: 'reports' }],
    ['postgres://localhost/reports', { host: 'localhost', database: 'reports' }],
    ['postgres://[::1]/reports', { host: '::1', database: 'reports' }],
  ])('leaves TLS off for %s beside the secret, a database on this machine', (url, location) => {
    // Act / Assess
    expect(secretLoad({ DATABASE_URL: url }).database).toMatchObject({
      location,
      tls: { mode: 'disable' },
    });
  });

  describe('without a secret', () => {
    it.each([undefined, '', '  '])(
      'still requires DATABASE_URL when DATABASE_SECRET_ARN is %j',
      (arn) => {
        // Act / Assess
        expect(configErrorOf({ JWKS_URL, DATABASE_SECRET_ARN: arn }).message).toBe(
          'DATABASE_URL is not set',
        );
      },
    );

    it.each(['mysql://u:p@db.internal/x', 'http://db.internal/x', 'db.internal:5432/x'])(
      'refuses %j, which is not a postgres:// or postgresql:// URL',
      (url) => {
        // Act / Assess
        expect(configErrorOf({ JWKS_URL, DATABASE_URL: url }).message).toMatch(/^DATABASE_URL /);
      },
    );

    it.each(['postgres://u:p@db.internal/x', 'postgresql://u:p@db.internal/x'])(
      'accepts %s',
      (url) => {
        expect(load({ DATABASE_URL: url }).database).toMatchObject({ url });
      },
    );

    it('does not need AWS_SESSION_TOKEN', () => {
      expect(loadConfig(minimalEnv()).database).not.toHaveProperty('secretsExtension');
    });
  });
});
