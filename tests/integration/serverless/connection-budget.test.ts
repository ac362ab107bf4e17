/**
 * The connection budget through a real `serverless package` (offline): each function's
 * reserved concurrency reaches its CloudFormation function (RESERVED_CONCURRENCY, and
 * RESERVED_CONCURRENCY_<FUNCTION> for one function), DB_PREPARE reaches every function's
 * environment, and a budget over DB_MAX_CONNECTIONS fails packaging with the arithmetic.
 * The arithmetic itself is unit-tested (tests/unit/build/serverless.test.ts). cfn-lint finds no
 * error in the template packaged (skipped, and shown as skipped, when cfn-lint is not on PATH).
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { lambdaLogicalId, reservedConcurrencyVariable } from '../../../build/serverless';
import { catalogue } from '../../../shared/catalogue';
import { CFN_LINT_AVAILABLE, lintTemplate } from '../../support/cfn-lint';
import { ROOT, run, SERVERLESS } from '../../support/processes';

const ENV = {
  // Staging and production read the database credential from this secret (database-secret.test.ts).
  DATABASE_URL: 'postgres://db.example:5432/reports',
  DATABASE_SECRET_ARN:
    'arn:aws:secretsmanager:eu-west-1:123456789012:secret:portal/production/database-AbC123',
  DATABASE_SECRET_ARN_EU_WEST_1: '',
  DATABASE_SECRET_KMS_KEY_ARN: '',
  DATABASE_SECRET_KMS_KEY_ARN_EU_WEST_1: '',
  DATABASE_URL_EU_WEST_1: '',
  JWK_URL_EU_PRODUCTION: 'https://keys.example/eu-production/v2/jwks.json',
  RESERVED_CONCURRENCY: '',
  DB_POOL_MAX: '',
  DB_MAX_CONNECTIONS: '',
  DB_PREPARE: '',
  ...Object.fromEntries(
    catalogue.map((endpoint) => [reservedConcurrencyVariable(endpoint.function), '']),
  ),
};

type Resource = { Type: string; Properties: Record<string, unknown> };
type Template = { Resources: Record<string, Resource> };

const workFolder = `.esbuild-test-budget-${process.pid}`;
const outputs: string[] = [];
afterAll(() => {
  for (const path of [join(ROOT, workFolder), ...outputs]) {
    rmSync(path, { recursive: true, force: true });
  }
});

const packageWith = async (env: Record<string, string>) => {
  const out = mkdtempSync(join(tmpdir(), 'portal-budget-'));
  outputs.push(out);
  const result = await run(
    [SERVERLESS, 'package', '--stage', 'production', '--region', 'eu-west-1', '--package', out],
    { ...ENV, ...env, ESBUILD_WORK_FOLDER: workFolder },
  );
  return { out, result };
};

const templatePath = (out: string) => join(out, 'cloudformation-template-update-stack.json');

/** The package within budget, made once, by whichever of its tests runs first. */
let withinBudget: ReturnType<typeof packageWith> | undefined;
const packageWithinBudget = () => {
  // 6 functions × 5 + 12, × 2 connections = 84 ≤ 84
  const others = catalogue.length - 1;
  withinBudget ??= packageWith({
    RESERVED_CONCURRENCY: '5',
    RESERVED_CONCURRENCY_ORDERS_PER_DAY: '12',
    DB_MAX_CONNECTIONS: String((others * 5 + 12) * 2),
    DB_PREPARE: 'false',
  });
  return withinBudget;
};

/** Runs where cfn-lint is on PATH; elsewhere Jest reports the test as skipped. */
const withCfnLint = CFN_LINT_AVAILABLE ? it : it.skip;

describe('serverless package: the connection budget', () => {
  it('gives every function its reserved concurrency and DB_PREPARE, within DB_MAX_CONNECTIONS', async () => {
    // Act
    const { out, result } = await packageWithinBudget();

    // Assess
    expect({ code: result.code, stderr: result.stderr }).toMatchObject({ code: 0 });
    const template = JSON.parse(readFileSync(templatePath(out), 'utf8')) as Template;
    const functions = catalogue.map(({ function: fn }) => {
      const properties = template.Resources[lambdaLogicalId(fn)]?.Properties ?? {};
      const environment = properties.Environment as { Variables: Record<string, string> };
      return [fn, properties.ReservedConcurrentExecutions, environment.Variables.DB_PREPARE];
    });
    expect(functions).toEqual(
      catalogue.map(({ function: fn }) => [fn, fn === 'ordersPerDay' ? 12 : 5, 'false']),
    );
  });

  withCfnLint(
    'cfn-lint finds no error in the template packaged within budget',
    async () => {
      const { out, result } = await packageWithinBudget();
      expect({ code: result.code, stderr: result.stderr }).toMatchObject({ code: 0 });

      const path = templatePath(out);
      const lint = lintTemplate(path, 'eu-west-1');
      expect({ path, ok: lint.ok, output: lint.output }).toEqual({
        path,
        ok: true,
        output: expect.any(String) as unknown,
      });
    },
    // Packaging, if the test above did not, and cfn-lint (about 4 s a template).
    120_000,
  );

  it('fails, naming DB_MAX_CONNECTIONS and showing the arithmetic, when the functions could hold more connections', async () => {
    // Act: the defaults, 10 per function × 2 connections
    const { result } = await packageWith({ DB_MAX_CONNECTIONS: '100' });

    // Assess
    expect(result.code).not.toBe(0);
    expect(result.stdout + result.stderr).toContain(
      `DB_MAX_CONNECTIONS is 100, but ${catalogue.length} functions × 10 reserved concurrency × 2 connections per container (DB_POOL_MAX) = ${catalogue.length * 20} connections`,
    );
  });
});
