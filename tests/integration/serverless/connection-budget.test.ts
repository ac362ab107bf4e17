/**
 * The connection budget through a real `serverless package` (offline): each function's
 * reserved concurrency reaches its CloudFormation function (RESERVED_CONCURRENCY, and
 * RESERVED_CONCURRENCY_<FUNCTION> for one function), DB_PREPARE reaches every function's
 * environment, and a budget over DB_MAX_CONNECTIONS fails packaging with the arithmetic.
 * The arithmetic itself is unit-tested (tests/unit/generators/serverless.test.ts). cfn-lint finds no
 * error in the template packaged (skipped, and shown as skipped, when cfn-lint is not on PATH).
 */
import { lambdaLogicalId } from '../../../tools/generators/serverless';
import { catalogue } from '../../../shared/catalogue';
import { expectLintPasses, withCfnLint } from '../../support/cfn-lint';
import {
  expectPackaged,
  expectRefused,
  packageService,
  removeTemporary,
  type Packaged,
} from '../../support/packaging';

afterAll(removeTemporary);

/** The package within budget, made once, by whichever of its tests runs first. */
let withinBudget: Promise<Packaged> | undefined;
const packageWithinBudget = () => {
  // 6 functions × 5 + 12, × 2 connections = 84 ≤ 84
  const others = catalogue.length - 1;
  withinBudget ??= packageService({
    env: {
      RESERVED_CONCURRENCY: '5',
      RESERVED_CONCURRENCY_ORDERS_PER_DAY: '12',
      DB_MAX_CONNECTIONS_PRODUCTION: String((others * 5 + 12) * 2),
      DB_PREPARE: 'false',
    },
  });
  return withinBudget;
};

describe('serverless package: the connection budget', () => {
  it('gives every function its reserved concurrency and DB_PREPARE, within DB_MAX_CONNECTIONS', async () => {
    // Act
    const packaged = await packageWithinBudget();

    // Assess
    expectPackaged(packaged);
    const template = packaged.template();
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
      const packaged = await packageWithinBudget();
      expectPackaged(packaged);

      expectLintPasses(packaged.templatePath, 'eu-west-1');
    },
    // Packaging, if the test above did not, and cfn-lint (about 4 s a template).
    120_000,
  );

  it('fails, naming DB_MAX_CONNECTIONS and showing the arithmetic, when the functions could hold more connections', async () => {
    // Act: the defaults, 10 per function × 2 connections
    const packaged = await packageService({ env: { DB_MAX_CONNECTIONS_PRODUCTION: '100' } });

    // Assess
    expectRefused(
      packaged,
      `DB_MAX_CONNECTIONS_PRODUCTION is 100, but ${catalogue.length} functions × 10 reserved concurrency × 2 connections per container (DB_POOL_MAX) = ${catalogue.length * 20} connections`,
    );
  });
});
