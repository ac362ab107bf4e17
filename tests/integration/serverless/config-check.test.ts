/**
 * Bad configuration is caught at packaging: the issuer every deployed stage
 * must enforce (tools/serverless/issuer.cjs) and the functions' whole environment checked by
 * the validators they run at initialisation (tools/serverless/config-check.cjs →
 * shared/config.ts). Two real `serverless package` runs prove the failures reach the command
 * naming the variable the user set; the rules are checked by calling the resolvers directly.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { budgetProblem, requestBudget } from '../../../tools/budget';
import { loadConfig } from '../../../shared/config';
import { NO_TOPIC } from '../../../tools/generators/operations';
import { PACKAGING_ENV } from '../../support/packaging';
import { ROOT, run, SERVERLESS } from '../../support/processes';
import { resolverOf, settingsCheckOf } from '../../support/resolvers';

const ISSUER_NAMES = [
  'JWT_ISSUER',
  'JWT_ISSUER_EU_STAGING',
  'JWT_ISSUER_EU_PRODUCTION',
  'JWT_ISSUER_APAC_PRODUCTION',
  'JWT_ISSUER_LATAM_PRODUCTION',
];
const SECRET_ARN =
  'arn:aws:secretsmanager:eu-west-1:123456789012:secret:portal/production/database-AbC123';
/** A production eu-west-1 environment that packages, with nothing leaking in from the caller's. */
const GOOD = {
  ...PACKAGING_ENV,
  ...Object.fromEntries(ISSUER_NAMES.map((name) => [name, ''])),
  JWK_URL_EU_PRODUCTION: 'https://keys.example/eu-production/v2/jwks.json',
  JWT_ISSUER_EU_PRODUCTION: 'https://portal.example/eu-production',
  DATABASE_URL: '',
  DATABASE_URL_PRODUCTION: '',
  DATABASE_SECRET_ARN: '',
  DATABASE_SECRET_ARN_PRODUCTION: SECRET_ARN,
  ALARM_TOPIC_ARN_PRODUCTION: NO_TOPIC,
  DB_POOL_MAX: '',
  DB_TLS: '',
};

const workFolder = `.esbuild-test-config-${process.pid}`;
const outputs: string[] = [];
afterAll(() => {
  for (const path of [join(ROOT, workFolder), ...outputs]) {
    rmSync(path, { recursive: true, force: true });
  }
});

const packageProduction = (env: Record<string, string>) => {
  const out = mkdtempSync(join(tmpdir(), 'portal-config-'));
  outputs.push(out);
  return run(
    [SERVERLESS, 'package', '--stage', 'production', '--region', 'eu-west-1', '--package', out],
    { ...GOOD, ...env, ESBUILD_WORK_FOLDER: workFolder },
  );
};

describe('serverless package: configuration the functions would refuse', () => {
  it('fails on an http key-set URL, naming JWK_URL_EU_PRODUCTION', async () => {
    const result = await packageProduction({
      JWK_URL_EU_PRODUCTION: 'http://keys.example/eu-production/v2/jwks.json',
    });

    expect(result.code).not.toBe(0);
    expect(result.stdout + result.stderr).toContain(
      "JWK_URL_EU_PRODUCTION (the functions' JWKS_URL): JWKS_URL must use https",
    );
  }, 120_000);

  it('fails when one request could wait longer than the function timeout, showing the sum', async () => {
    const result = await packageProduction({ DB_STATEMENT_TIMEOUT_MS: '15000' });

    expect(result.code).not.toBe(0);
    expect(result.stdout + result.stderr).toContain(
      'one request may wait initialisation 6000 ms + secret 2000 ms + connect 4000 ms + ' +
        'query 15500 ms = 27500 ms on its peers, not below the function timeout of 20 s',
    );
  }, 120_000);

  it('fails production without an issuer, naming JWT_ISSUER_EU_PRODUCTION', async () => {
    const result = await packageProduction({ JWT_ISSUER_EU_PRODUCTION: '' });

    expect(result.code).not.toBe(0);
    expect(result.stdout + result.stderr).toContain(
      'JWT_ISSUER_EU_PRODUCTION is not set: the token issuer (the iss claim) of stage "production" in eu-west-1',
    );
  }, 120_000);
});

const load = createRequire(import.meta.url);
const { checkEnvironment } = load('../../../tools/serverless/config-check.cjs') as {
  checkEnvironment: (
    environment: Record<string, string>,
    validate: typeof loadConfig,
    variableOf: (setting: string) => string | undefined,
    budget?: {
      of: typeof requestBudget;
      problem: typeof budgetProblem;
      timeoutSeconds: number;
    },
    region?: string,
  ) => Promise<{ checked: string }>;
};

describe('tools/serverless/issuer.cjs', () => {
  /** The resolvers, as osls calls them for `stage` in `region`, with only `values` of the issuers. */
  const called =
    <T>(script: string) =>
    (stage: string, region: string, values: Record<string, string>) =>
      resolverOf<T>(script, ISSUER_NAMES)(
        { 'sls:stage': stage, 'self:provider.region': region },
        values,
      );
  const issuerFor = called<{ issuer: string; variable: string }>('tools/serverless/issuer.cjs');
  /** custom.settingsCheck: its refusal lists every problem, the issuer's among them. */
  const checkFor = settingsCheckOf(ISSUER_NAMES);

  it.each([
    ['production', 'me-central-1', 'JWT_ISSUER_EU_PRODUCTION'],
    ['production', 'sa-east-1', 'JWT_ISSUER_LATAM_PRODUCTION'],
    ['production', 'ap-southeast-1', 'JWT_ISSUER_APAC_PRODUCTION'],
    ['staging', 'eu-central-1', 'JWT_ISSUER_EU_STAGING'],
  ])('takes %s in %s from %s', async (stage, region, variable) => {
    await expect(
      issuerFor(stage, region, {
        [variable]: 'https://issuer.example',
        JWT_ISSUER_EU_STAGING: stage === 'staging' ? 'https://issuer.example' : 'other',
        JWT_ISSUER_EU_PRODUCTION: stage === 'staging' ? 'other' : 'https://issuer.example',
      }),
    ).resolves.toEqual({ issuer: 'https://issuer.example', variable });
  });

  it.each([
    ['production', 'sa-east-1', 'JWT_ISSUER_LATAM_PRODUCTION'],
    ['staging', 'eu-west-1', 'JWT_ISSUER_EU_STAGING'],
  ])(
    'refuses JWT_ISSUER for %s in %s, even beside %s: it may hold another stage’s issuer',
    async (stage, region, variable) => {
      const message = `JWT_ISSUER is set, but stage "${stage}" reads the issuer of each portal region from custom.issuerVariables.${stage}: JWT_ISSUER may hold another stage's issuer; unset it`;
      await expect(
        checkFor(stage, region, { JWT_ISSUER: 'https://issuer.example' }),
      ).rejects.toThrow(message);
      await expect(
        checkFor(stage, region, {
          JWT_ISSUER: 'https://issuer.example',
          [variable]: 'https://issuer.example',
        }),
      ).rejects.toThrow(message);
    },
  );

  it('fails staging and production without an issuer, naming the region’s variable', async () => {
    // Production's issuer is no staging's.
    const production = { JWT_ISSUER_EU_PRODUCTION: 'https://portal.example/eu-production' };
    await expect(checkFor('staging', 'eu-west-1', production)).rejects.toThrow(
      /\n {4}JWT_ISSUER_EU_STAGING is not set: /,
    );
    await expect(checkFor('production', 'me-central-1', {})).rejects.toThrow(
      /\n {4}JWT_ISSUER_EU_PRODUCTION is not set: /,
    );
  });

  it('passes JWT_ISSUER through for dev and local, empty when unset', async () => {
    await expect(issuerFor('dev', 'eu-west-1', {})).resolves.toEqual({
      issuer: '',
      variable: 'JWT_ISSUER',
    });
    await expect(
      issuerFor('local', 'eu-west-1', {
        JWT_ISSUER: 'https://issuer.example',
        JWT_ISSUER_EU_PRODUCTION: 'https://portal.example/eu-production',
      }),
    ).resolves.toEqual({ issuer: 'https://issuer.example', variable: 'JWT_ISSUER' });
  });
});

describe('tools/serverless/config-check.cjs', () => {
  /** The environment provider.environment resolved to, as osls hands it over. */
  const FUNCTION_ENV = {
    JWKS_URL: 'https://keys.example/eu-production/v2/jwks.json',
    JWT_ISSUER: 'https://portal.example/eu-production',
    DATABASE_URL: '',
    DATABASE_SECRET_ARN: SECRET_ARN,
    DB_POOL_MAX: '2',
    DB_TLS: 'verify-full',
    DB_CA: '/var/task/certificates/rds-global.pem',
    LOG_LEVEL: 'info',
  };
  /** The check with shared/config.ts's loadConfig, as packaging runs it (there through tsx). */
  const check = (environment: Record<string, string>, variables: Record<string, string> = {}) =>
    checkEnvironment(
      environment,
      loadConfig,
      (setting) => variables[setting],
      undefined,
      'eu-west-1',
    );

  it('accepts what the functions accept, taking the CA file, region and session token as Lambda’s', async () => {
    await expect(check(FUNCTION_ENV)).resolves.toEqual({
      checked: 'the functions accept this environment',
    });
  });

  it.each([
    [{ DB_POOL_MAX: '500' }, 'DB_POOL_MAX must be a whole number from 1 to 20'],
    [{ DB_STATEMENT_TIMEOUT_MS: '5' }, 'DB_STATEMENT_TIMEOUT_MS must be a whole number'],
    [{ DATABASE_SECRET_ARN: '', DATABASE_URL: 'not a url' }, 'DATABASE_URL is not a URL'],
    [{ DATABASE_SECRET_ARN: 'arn:aws:secretsmanager:eu-west-1:1:secret:x' }, 'DATABASE_SECRET_ARN'],
    [{ LOG_LEVEL: 'loud' }, 'LOG_LEVEL must be one of'],
    [{ DB_CA: 'rds-prox' }, 'DB_CA must be one of rds, rds-proxy, node or a path to a PEM file'],
  ])('fails on %j, naming the variable', async (change, message) => {
    await expect(check({ ...FUNCTION_ENV, ...change })).rejects.toThrow(message);
  });

  /** The check with the request budget against a function timeout of `timeoutSeconds`. */
  const checkBudget = (environment: Record<string, string>, timeoutSeconds: number) =>
    checkEnvironment(
      environment,
      loadConfig,
      () => undefined,
      { of: requestBudget, problem: budgetProblem, timeoutSeconds },
      'eu-west-1',
    );

  it('accepts a configuration whose worst request fits below the function timeout', async () => {
    await expect(checkBudget(FUNCTION_ENV, 20)).resolves.toEqual({
      checked: 'the functions accept this environment',
    });
  });

  it.each([
    [
      { DB_CONNECT_TIMEOUT_SECONDS: '5', DB_SECRET_TIMEOUT_MS: '3000' },
      20,
      /= 31500 ms on its peers, not below the function timeout of 20 s/,
    ],
    [
      {},
      10,
      /= 17500 ms on its peers, not below the function timeout of 10 s: lower DB_STATEMENT_TIMEOUT_MS/,
    ],
    [{}, 29, /the function timeout \(29 s\) must be below API Gateway's 29 s/],
  ])('refuses %j with a function timeout of %i s', async (change, timeoutSeconds, message) => {
    await expect(checkBudget({ ...FUNCTION_ENV, ...change }, timeoutSeconds)).rejects.toThrow(
      message,
    );
  });

  it('names the per-stage variable a key-set URL or issuer came from', async () => {
    await expect(
      check(
        { ...FUNCTION_ENV, JWKS_URL: 'http://keys.example/jwks.json' },
        { JWKS_URL: 'JWK_URL_EU_PRODUCTION' },
      ),
    ).rejects.toThrow(
      /^JWK_URL_EU_PRODUCTION \(the functions' JWKS_URL\): JWKS_URL must use https/,
    );
  });
});
