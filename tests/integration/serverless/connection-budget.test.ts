/**
 * The connection budget through a real `serverless package` (offline): each function's
 * reserved concurrency reaches its CloudFormation function (RESERVED_CONCURRENCY, and
 * RESERVED_CONCURRENCY_<FUNCTION> for one function), DB_PREPARE reaches every function's
 * environment, and a budget over DB_MAX_CONNECTIONS fails packaging with the arithmetic: with
 * RESERVED_CONCURRENCY unset, each function's own default (what its routes can fill at
 * API_ROUTE_RATE). No function besides the endpoints' (the heartbeat, the pre-traffic hook) holds
 * a database setting.
 * The arithmetic itself is unit-tested (tests/unit/generators/serverless.test.ts). cfn-lint finds no
 * error in the template packaged (skipped, and shown as skipped, when cfn-lint is not on PATH).
 */
import { lambdaLogicalId } from '../../../tools/generators/serverless';
import { catalogue } from '../../../tools/catalogue';
import { expectLintPasses, withCfnLint } from '../../support/cfn-lint';
import {
  expectPackaged,
  expectRefused,
  ofType,
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

    // Assess: the functions besides the endpoints' (the heartbeat, the pre-traffic hook) hold no
    // database setting
    const others = ofType(template, 'AWS::Lambda::Function')
      .filter(
        ([logicalId]) => !catalogue.some(({ function: fn }) => lambdaLogicalId(fn) === logicalId),
      )
      .map(([logicalId, { Properties }]) => {
        const environment = Properties.Environment as
          { Variables?: Record<string, unknown> } | undefined;
        const names = Object.keys(environment?.Variables ?? {});
        return [logicalId, names.filter((name) => /^(DB|DATABASE)_/.test(name))] as const;
      });
    expect(others.map(([logicalId]) => logicalId)).toContain(lambdaLogicalId('heartbeat'));
    expect(others.filter(([, database]) => database.length > 0)).toEqual([]);
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
    // Act: 10 per function × 2 connections
    const packaged = await packageService({
      env: { RESERVED_CONCURRENCY: '10', DB_MAX_CONNECTIONS_PRODUCTION: '100' },
    });

    // Assess
    expectRefused(
      packaged,
      `DB_MAX_CONNECTIONS_PRODUCTION is 100, but ${catalogue.length} functions × 10 reserved concurrency × 2 connections per container (DB_POOL_MAX) = ${catalogue.length * 20} connections`,
    );
  });

  it('shows each function’s default reservation in the arithmetic when RESERVED_CONCURRENCY is unset', async () => {
    // Arrange: each route, at production's API_ROUTE_RATE of 20, bursts ⌈20 / 2⌉ = 10 and adds
    // 20 × 0.1 s (API_ROUTE_DURATION_MS 100) = 2: 12 containers; each path is two routes (its
    // method and OPTIONS): 24 a path, 48 for a function with a /res alias; 240 in all, × 2 = 480
    const reserved = catalogue.map(
      ({ function: fn, paths }) => [fn, paths.length * 2 * 12] as const,
    );
    const containers = reserved.reduce((sum, [, n]) => sum + n, 0);

    // Act
    const packaged = await packageService({ env: { DB_MAX_CONNECTIONS_PRODUCTION: '100' } });

    // Assess
    expectRefused(
      packaged,
      `DB_MAX_CONNECTIONS_PRODUCTION is 100, but (${reserved.map(([fn, n]) => `${fn} ${n}`).join(' + ')}) reserved concurrency × 2 connections per container (DB_POOL_MAX) = ${containers * 2} connections: lower RESERVED_CONCURRENCY`,
    );
  });
});
