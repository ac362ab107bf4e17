import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LOCAL_FUNCTION } from '../../../shared/metrics';
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

describe('loadConfig', () => {
  it('fills every optional setting with its default', () => {
    // Act
    const config = loadConfig(minimalEnv());

    // Assess
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
      DB_CONNECT_TIMEOUT_SECONDS: '60',
      DB_PREPARE: 'false',
      DB_TLS: 'require',
      LOG_LEVEL: 'debug',
      METRICS_NAMESPACE: ' Portal/Reports ',
      METRICS_SERVICE: 'portal-service-api-production',
    };

    // Act
    const config = loadConfig(env);

    // Assess
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
    // Act
    const config = loadConfig({ ...minimalEnv(), JWT_ISSUER: issuer });

    // Assess
    expect(config).not.toHaveProperty('issuer');
  });

  it('reads JWT_AUDIENCE trimmed, and treats it blank as not set', () => {
    // Act
    const set = loadConfig({ ...minimalEnv(), JWT_AUDIENCE: ' portal-reports ' });
    const blank = loadConfig({ ...minimalEnv(), JWT_AUDIENCE: '  ' });

    // Assess
    expect(set.audience).toBe('portal-reports');
    expect(blank).not.toHaveProperty('audience');
    expect(loadConfig(minimalEnv())).not.toHaveProperty('audience');
  });

  it('reads process.env when no environment is passed', () => {
    // Prepare
    const saved = { ...process.env };
    Object.assign(process.env, minimalEnv(), { LOG_LEVEL: 'warn', DB_POOL_MAX: '7' });

    try {
      // Act
      const config = loadConfig();

      // Assess
      expect(config.jwksUrl.href).toBe(JWKS_URL);
      expect(config.database).toMatchObject({ url: DATABASE_URL, poolMax: 7 });
      expect(config.logLevel).toBe('warn');
    } finally {
      for (const key of Object.keys(process.env)) {
        if (!(key in saved)) Reflect.deleteProperty(process.env, key);
      }
      Object.assign(process.env, saved);
    }
  });

  it('does not change the environment it reads', () => {
    // Prepare
    const env = { ...minimalEnv(), LOG_LEVEL: 'warn' };
    const before = { ...env };

    // Act
    loadConfig(env);

    // Assess
    expect(env).toEqual(before);
  });

  describe('JWKS_URL', () => {
    it.each([undefined, '', '   '])('refuses a missing JWKS_URL (%j)', (value) => {
      // Act
      const error = configErrorOf({ ...minimalEnv(), JWKS_URL: value });

      // Assess
      expect(error.message).toBe('JWKS_URL is not set');
    });

    it.each(['not a url', '/.well-known/jwks.json', 'auth.example.com/jwks.json'])(
      'refuses %j, which is not a URL',
      (value) => {
        // Act
        const error = configErrorOf({ ...minimalEnv(), JWKS_URL: value });

        // Assess
        expect(error.message).toBe('JWKS_URL is not a URL');
      },
    );

    it.each([
      'http://auth.portal.example.com/jwks.json',
      'http://10.0.0.5/jwks.json',
      'http://localhost.example.com/jwks.json',
      'http://127.0.0.1.nip.io/jwks.json',
      'ftp://localhost/jwks.json',
      'file:///etc/jwks.json',
    ])('refuses %s: plain HTTP only for this machine, nothing but HTTP(S)', (value) => {
      // Act
      const error = configErrorOf({ ...minimalEnv(), JWKS_URL: value });

      // Assess
      expect(error.message).toMatch(/^JWKS_URL /);
      expect(error.message).toContain('https');
    });

    it.each([
      'http://localhost:3001/.well-known/jwks.json',
      'http://127.0.0.1:3001/.well-known/jwks.json',
      'http://[::1]:3001/.well-known/jwks.json',
    ])('accepts plain HTTP from the local issuer at %s', (value) => {
      // Act
      const config = loadConfig({ ...minimalEnv(), JWKS_URL: value });

      // Assess
      expect(config.jwksUrl.href).toBe(value);
    });
  });

  describe('DATABASE_URL', () => {
    it.each([undefined, '', '  '])('refuses a missing DATABASE_URL (%j)', (value) => {
      // Act
      const error = configErrorOf({ ...minimalEnv(), DATABASE_URL: value });

      // Assess
      expect(error.message).toBe('DATABASE_URL is not set');
    });
  });

  describe('DB_TLS and DB_CA', () => {
    let dir = '';
    beforeAll(() => {
      dir = mkdtempSync(join(tmpdir(), 'portal-config-'));
      writeFileSync(
        join(dir, 'ca.pem'),
        '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n',
      );
      writeFileSync(join(dir, 'empty.pem'), '');
    });
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

    it('verifies a remote database by default, and leaves one on this machine plain', () => {
      // Act
      const remote = loadConfig({ ...minimalEnv(), DB_CA: '' });
      const local = loadConfig({ ...minimalEnv(), DATABASE_URL: 'postgres://u@127.0.0.1/x' });

      // Assess
      expect(remote.database.tls).toEqual({ mode: 'verify-full', ca: 'rds', region: 'eu-west-1' });
      expect(local.database.tls).toEqual({ mode: 'disable' });
    });

    it('takes the RDS CAs region from an RDS host name, needing no AWS_REGION', () => {
      // Act
      const config = loadConfig({
        JWKS_URL,
        DATABASE_URL: 'postgres://u@orders.c0abcdef1234.sa-east-1.rds.amazonaws.com/x',
      });

      // Assess
      expect(config.database.tls).toEqual({ mode: 'verify-full', ca: 'rds' });
    });

    it('refuses DB_CA=rds for a host that names no region without AWS_REGION, naming both', () => {
      // Act
      const error = configErrorOf({ JWKS_URL, DATABASE_URL });

      // Assess
      expect(error.message).toMatch(/^DB_CA=rds needs the database region: .*AWS_REGION$/);
    });

    it.each(['verify-full', ' require ', 'disable'])(
      'reads DB_TLS %j, whatever the host',
      (value) => {
        // Act
        const config = loadConfig({
          ...minimalEnv(),
          DATABASE_URL: 'postgres://u@localhost/x',
          DB_TLS: value,
        });

        // Assess
        expect(config.database.tls.mode).toBe(value.trim());
      },
    );

    it.each(['verify-ca', 'prefer', 'true', 'VERIFY-FULL'])(
      'refuses %j, naming DB_TLS',
      (value) => {
        expect(configErrorOf({ ...minimalEnv(), DB_TLS: value }).message).toBe(
          'DB_TLS must be one of verify-full, require, disable',
        );
      },
    );

    it.each(['rds', ' rds-proxy ', 'node'])('reads DB_CA %j as a named list', (value) => {
      expect(loadConfig({ ...minimalEnv(), DB_CA: value }).database.tls).toEqual({
        mode: 'verify-full',
        ca: value.trim(),
        region: 'eu-west-1',
      });
    });

    it('reads a DB_CA holding a / as the path of a PEM file', () => {
      expect(loadConfig({ ...minimalEnv(), DB_CA: join(dir, 'ca.pem') }).database.tls).toEqual({
        mode: 'verify-full',
        ca: { file: join(dir, 'ca.pem') },
        region: 'eu-west-1',
      });
    });

    it('reads DB_CA only to verify', () => {
      expect(
        loadConfig({ ...minimalEnv(), DB_TLS: 'require', DB_CA: 'missing' }).database.tls,
      ).toEqual({ mode: 'require' });
    });

    it.each([
      ['RDS', 'DB_CA must be one of rds, rds-proxy, node or a path to a PEM file'],
      ['ca.pem', 'DB_CA must be one of rds, rds-proxy, node or a path to a PEM file'],
      ['/no/such/ca.pem', 'DB_CA is not a readable file'],
      ['/', 'DB_CA is not a readable file'],
    ])('refuses DB_CA=%j, naming it', (value, message) => {
      expect(configErrorOf({ ...minimalEnv(), DB_CA: value }).message).toBe(message);
    });

    it('refuses a DB_CA file without a certificate', () => {
      expect(configErrorOf({ ...minimalEnv(), DB_CA: join(dir, 'empty.pem') }).message).toBe(
        'DB_CA holds no PEM certificate',
      );
    });
  });

  describe('DB_PREPARE', () => {
    it.each([
      ['true', true],
      [' false ', false],
      ['', true],
      [undefined, true],
    ] as const)('reads %j as %s', (value, prepare) => {
      // Act
      const config = loadConfig({ ...minimalEnv(), DB_PREPARE: value });

      // Assess
      expect(config.database.prepare).toBe(prepare);
    });

    it.each(['yes', 'TRUE', '0', '1', 'off'])('refuses %j, naming DB_PREPARE', (value) => {
      // Act
      const error = configErrorOf({ ...minimalEnv(), DB_PREPARE: value });

      // Assess
      expect(error.message).toBe('DB_PREPARE must be true or false');
    });
  });

  describe('DB_STATEMENT_TIMEOUT_VIA', () => {
    it.each(['ROLE', 'session', 'off', 'none'])(
      'refuses %j, naming DB_STATEMENT_TIMEOUT_VIA',
      (value) => {
        // Act
        const error = configErrorOf({ ...minimalEnv(), DB_STATEMENT_TIMEOUT_VIA: value });

        // Assess
        expect(error.message).toBe('DB_STATEMENT_TIMEOUT_VIA must be one of startup, role');
      },
    );
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
        // Act
        const error = configErrorOf({ ...minimalEnv(), [name]: value });

        // Assess
        expect(error.message).toBe(`${name} must be a whole number from ${min} to ${max}`);
      },
    );

    it(`accepts both ends of ${min}..${max}, spaces trimmed`, () => {
      // Act
      const ends = [min, max].map((value) =>
        read(loadConfig({ ...minimalEnv(), [name]: ` ${value} ` })),
      );

      // Assess
      expect(ends).toEqual([min, max]);
    });
  });

  describe('LEGACY_PLATFORM_KEYS', () => {
    it.each(['TBLEGACY_KW', 'TBLEGACY_KW=tb_kw', '=TB_KW', 'A=TB_KW=TB_AE'])(
      'refuses the malformed list %j, naming LEGACY_PLATFORM_KEYS',
      (value) => {
        // Act
        const error = configErrorOf({ ...minimalEnv(), LEGACY_PLATFORM_KEYS: value });

        // Assess
        expect(error.message).toMatch(/^LEGACY_PLATFORM_KEYS: /);
      },
    );

    it.each(['2026-02-30', '2026-6-30', '30.06.2026', 'tomorrow', '2026-06-30T00:00:00Z'])(
      'refuses the sunset %j, which is not a YYYY-MM-DD date',
      (value) => {
        // Act
        const error = configErrorOf({ ...minimalEnv(), LEGACY_PLATFORM_KEYS_SUNSET: value });

        // Assess
        expect(error.message).toBe('LEGACY_PLATFORM_KEYS_SUNSET must be a date in YYYY-MM-DD form');
      },
    );

    it('treats a blank sunset as no sunset', () => {
      // Act
      const config = loadConfig({ ...minimalEnv(), LEGACY_PLATFORM_KEYS_SUNSET: ' ' });

      // Assess
      expect(config.legacyPlatforms).toEqual({ aliases: new Map() });
    });
  });

  describe('LOG_LEVEL', () => {
    it.each(['debug', 'info', 'warn', 'error'])('accepts %s', (level) => {
      // Act
      const config = loadConfig({ ...minimalEnv(), LOG_LEVEL: level });

      // Assess
      expect(config.logLevel).toBe(level);
    });

    it.each(['verbose', 'INFO', 'trace', 'fatal'])('refuses %j, naming LOG_LEVEL', (level) => {
      // Act
      const error = configErrorOf({ ...minimalEnv(), LOG_LEVEL: level });

      // Assess
      expect(error.message).toBe('LOG_LEVEL must be one of debug, info, warn, error');
    });
  });

  describe('METRICS_NAMESPACE and METRICS_SERVICE', () => {
    it.each(['', '   '])('treat %j as not set: their defaults', (blank) => {
      // Act
      const config = loadConfig({
        ...minimalEnv(),
        METRICS_NAMESPACE: blank,
        METRICS_SERVICE: blank,
      });

      // Assess
      expect(config.metrics).toEqual({
        namespace: 'PortalServiceApi',
        service: 'portal-service-api',
        ...LOCAL_FUNCTION,
      });
    });

    it('accept 255 characters, and a service name in any script', () => {
      // Act
      const config = loadConfig({
        ...minimalEnv(),
        METRICS_NAMESPACE: 'N'.repeat(255),
        METRICS_SERVICE: `رابط-${'s'.repeat(250)}`,
      });

      // Assess
      expect(config.metrics).toEqual({
        namespace: 'N'.repeat(255),
        service: `رابط-${'s'.repeat(250)}`,
        ...LOCAL_FUNCTION,
      });
    });

    it.each<[string, string, string]>([
      ['METRICS_NAMESPACE', 'N'.repeat(256), 'METRICS_NAMESPACE must be at most 255 characters'],
      ['METRICS_SERVICE', 's'.repeat(256), 'METRICS_SERVICE must be at most 255 characters'],
      ['METRICS_NAMESPACE', 'Portal\nApi', 'METRICS_NAMESPACE must not hold control characters'],
      ['METRICS_SERVICE', 'portal\u0000api', 'METRICS_SERVICE must not hold control characters'],
      ['METRICS_SERVICE', 'portal\u0085api', 'METRICS_SERVICE must not hold control characters'],
      ['METRICS_SERVICE', 'portal\u007fapi', 'METRICS_SERVICE must not hold control characters'],
      ['METRICS_NAMESPACE', 'Portal\u00e9', 'METRICS_NAMESPACE must be printable ASCII'],
      [
        'METRICS_NAMESPACE',
        'AWS/Lambda',
        'METRICS_NAMESPACE must not start with AWS/ (the namespaces of AWS)',
      ],
    ])('refuse %s=%j, naming the variable', (name, value, message) => {
      // Act
      const error = configErrorOf({ ...minimalEnv(), [name]: value });

      // Assess
      expect(error.message).toBe(message);
    });

    it('are read by loadMetricsConfig alone, without the other settings', () => {
      // Act
      const metrics = loadMetricsConfig({ METRICS_SERVICE: ' svc-dev ' });

      // Assess
      expect(metrics).toEqual({
        namespace: 'PortalServiceApi',
        service: 'svc-dev',
        ...LOCAL_FUNCTION,
      });
    });

    it("take Lambda's function name and version as the FunctionName and Version", () => {
      // Act
      const metrics = loadMetricsConfig({
        AWS_LAMBDA_FUNCTION_NAME: 'portal-service-api-production-ordersPerDay',
        AWS_LAMBDA_FUNCTION_VERSION: '12',
      });

      // Assess
      expect(metrics).toMatchObject({
        functionName: 'portal-service-api-production-ordersPerDay',
        version: '12',
      });
    });

    it('are read by loadMetricsConfig from process.env when no environment is passed', () => {
      // Prepare
      const saved = { ...process.env };
      Object.assign(process.env, { METRICS_NAMESPACE: 'Ops', METRICS_SERVICE: 'svc-dev' });

      try {
        // Act
        const metrics = loadMetricsConfig();

        // Assess
        expect(metrics).toMatchObject({ namespace: 'Ops', service: 'svc-dev' });
      } finally {
        for (const key of Object.keys(process.env)) {
          if (!(key in saved)) Reflect.deleteProperty(process.env, key);
        }
        Object.assign(process.env, saved);
      }
    });
  });

  it('throws a ConfigError, a kind of TypeError, with its own name', () => {
    // Act
    const error = configErrorOf({});

    // Assess
    expect(error).toBeInstanceOf(TypeError);
    expect(error.name).toBe('ConfigError');
  });
});

describe('whole-number settings', () => {
  it.each(['0x14', '1e1', '2.0', '+2'])(
    'refuses DB_POOL_MAX=%s, which is not written as a whole number',
    (raw) => {
      const env = {
        JWKS_URL: 'https://keys.example/jwks.json',
        DATABASE_URL: 'postgres://db/x',
        DB_POOL_MAX: raw,
      };

      expect(() => loadConfig(env)).toThrow(
        new ConfigError('DB_POOL_MAX must be a whole number from 1 to 20'),
      );
    },
  );
});

describe('loadConfig with DATABASE_SECRET_ARN', () => {
  const SECRET_ARN =
    'arn:aws:secretsmanager:eu-central-1:123456789012:secret:rds!db-0123abcd-4567-89ef-0123-456789abcdef-AbC123';
  const SESSION_TOKEN = 'session-token-of-the-function';
  const PASSWORD = 'Zq9!distinctive-PASSWORD-7781';
  const verifyFull = { mode: 'verify-full', ca: 'rds', region: 'eu-central-1' };

  /** The smallest environment the service starts with on a secret. */
  const secretEnv = (): Env => ({
    JWKS_URL,
    DATABASE_SECRET_ARN: SECRET_ARN,
    AWS_SESSION_TOKEN: SESSION_TOKEN,
    AWS_REGION: 'eu-central-1',
  });

  it('fails on a DATABASE_URL beside the secret that does not decode, naming DATABASE_URL', () => {
    expect(() =>
      loadConfig({ ...secretEnv(), DATABASE_URL: 'postgres://db.internal/%zz' }),
    ).toThrow(new ConfigError('DATABASE_URL is not a valid URL'));
  });

  it('reads the secret through the extension on its defaults, verifying TLS', () => {
    // Act
    const config = loadConfig(secretEnv());

    // Assess
    expect(config.database).toEqual({
      secretArn: SECRET_ARN,
      location: {},
      secretsExtension: { port: 2773, sessionToken: SESSION_TOKEN, timeoutMs: 2000 },
      poolMax: 2,
      statementTimeoutMs: 5000,
      statementTimeoutVia: 'startup',
      connectTimeoutSeconds: 2,
      prepare: true,
      tls: verifyFull,
    });
    expect(config.database).not.toHaveProperty('url');
  });

  it('trims the ARN and takes DB_TLS when it is given', () => {
    // Act
    const config = loadConfig({
      ...secretEnv(),
      DATABASE_SECRET_ARN: ` ${SECRET_ARN} `,
      DB_TLS: 'require',
    });

    // Assess
    expect(config.database).toMatchObject({ secretArn: SECRET_ARN, tls: { mode: 'require' } });
  });

  it('reads PARAMETERS_SECRETS_EXTENSION_HTTP_PORT and DB_SECRET_TIMEOUT_MS', () => {
    // Act
    const config = loadConfig({
      ...secretEnv(),
      PARAMETERS_SECRETS_EXTENSION_HTTP_PORT: ' 2800 ',
      DB_SECRET_TIMEOUT_MS: '10000',
    });

    // Assess
    expect(config.database).toMatchObject({
      secretsExtension: { port: 2800, sessionToken: SESSION_TOKEN, timeoutMs: 10000 },
    });
  });

  describe.each([
    { name: 'PARAMETERS_SECRETS_EXTENSION_HTTP_PORT', min: 1, max: 65535, key: 'port' },
    { name: 'DB_SECRET_TIMEOUT_MS', min: 100, max: 30000, key: 'timeoutMs' },
  ] as const)('$name', ({ name, min, max, key }) => {
    it.each([String(min - 1), String(max + 1), '2.5', 'ten', '-1'])(
      `refuses %j, which is not a whole number from ${min} to ${max}`,
      (value) => {
        // Act
        const error = configErrorOf({ ...secretEnv(), [name]: value });

        // Assess
        expect(error.message).toBe(`${name} must be a whole number from ${min} to ${max}`);
      },
    );

    it(`accepts both ends of ${min}..${max}`, () => {
      // Act
      const ends = [min, max].map((value) => {
        const { database } = loadConfig({ ...secretEnv(), [name]: String(value) });
        return 'secretsExtension' in database ? database.secretsExtension[key] : undefined;
      });

      // Assess
      expect(ends).toEqual([min, max]);
    });
  });

  it.each([undefined, '', '  '])(
    'refuses a missing AWS_SESSION_TOKEN (%j), which the extension requires',
    (value) => {
      // Act
      const error = configErrorOf({ ...secretEnv(), AWS_SESSION_TOKEN: value });

      // Assess
      expect(error.message).toBe('AWS_SESSION_TOKEN is not set');
    },
  );

  it.each([
    'portal/db',
    'arn:aws:secretsmanager:eu-central-1:123456789012:secret:portal/db',
    'arn:aws:ssm:eu-central-1:123456789012:parameter/portal/db',
    'arn:aws:secretsmanager:eu-central-1:1234:secret:portal/db-AbC123',
  ])('refuses the malformed ARN %j, naming DATABASE_SECRET_ARN', (value) => {
    // Act
    const error = configErrorOf({ ...secretEnv(), DATABASE_SECRET_ARN: value });

    // Assess
    expect(error.message).toMatch(/^DATABASE_SECRET_ARN must be a full secret ARN/);
  });

  it.each([
    `postgres://reports:${PASSWORD}@db.internal:5432/reports`,
    `postgres://:${PASSWORD}@db.internal/reports`,
    'postgres://reports@db.internal/reports',
  ])('refuses a DATABASE_URL that carries a user or password beside the secret', (url) => {
    // Act
    const error = configErrorOf({ ...secretEnv(), DATABASE_URL: url });

    // Assess
    expect(error.message).toMatch(/^DATABASE_URL must not carry a user or password/);
    expect(error.message).not.toContain(PASSWORD);
  });

  it.each(['mysql://db.internal/reports', 'https://db.internal/reports', 'db.internal:5432'])(
    'refuses %j beside the secret, which is not a postgres:// URL',
    (url) => {
      // Act
      const error = configErrorOf({ ...secretEnv(), DATABASE_URL: url });

      // Assess
      expect(error.message).toMatch(/^DATABASE_URL /);
    },
  );

  it('takes a password-less DATABASE_URL as where to connect', () => {
    // Act
    const config = loadConfig({
      ...secretEnv(),
      DATABASE_URL: ' postgresql://proxy.internal:6543/reports ',
    });

    // Assess
    expect(config.database).toMatchObject({
      secretArn: SECRET_ARN,
      location: { host: 'proxy.internal', port: 6543, database: 'reports' },
      tls: verifyFull,
    });
    expect(config.database).not.toHaveProperty('url');
  });

  it.each([
    ['postgres://127.0.0.1:5432/reports', { host: '127.0.0.1', port: 5432, database: 'reports' }],
    ['postgres://localhost/reports', { host: 'localhost', database: 'reports' }],
    ['postgres://[::1]/reports', { host: '::1', database: 'reports' }],
  ])('leaves TLS off for %s beside the secret, a database on this machine', (url, location) => {
    // Act
    const config = loadConfig({ ...secretEnv(), DATABASE_URL: url });

    // Assess
    expect(config.database).toMatchObject({ location, tls: { mode: 'disable' } });
  });

  describe('without a secret', () => {
    it.each([undefined, '', '  '])(
      'still requires DATABASE_URL when DATABASE_SECRET_ARN is %j',
      (arn) => {
        // Act
        const error = configErrorOf({ JWKS_URL, DATABASE_SECRET_ARN: arn });

        // Assess
        expect(error.message).toBe('DATABASE_URL is not set');
      },
    );

    it.each(['mysql://u:p@db.internal/x', 'http://db.internal/x', 'db.internal:5432/x'])(
      'refuses %j, which is not a postgres:// or postgresql:// URL',
      (url) => {
        // Act
        const error = configErrorOf({ JWKS_URL, DATABASE_URL: url });

        // Assess
        expect(error.message).toMatch(/^DATABASE_URL /);
      },
    );

    it.each(['postgres://u:p@db.internal/x', 'postgresql://u:p@db.internal/x'])(
      'accepts %s',
      (url) => {
        expect(loadConfig({ ...minimalEnv(), DATABASE_URL: url }).database).toMatchObject({ url });
      },
    );

    it('does not need AWS_SESSION_TOKEN', () => {
      expect(loadConfig(minimalEnv()).database).not.toHaveProperty('secretsExtension');
    });
  });
});
