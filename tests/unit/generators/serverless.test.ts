/**
 * tools/generators/serverless.ts: serverless.yml's `functions:` from the catalogue (one per
 * endpoint: handler, description, its method and OPTIONS on each path), and the connection budget.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { answerSummary } from '../../../tools/generators/endpoints';
import {
  connectionBudget,
  lambdaLogicalId,
  reservedConcurrencyExtensions,
  reservedConcurrencyVariable,
  serverlessFunctions,
} from '../../../tools/generators/serverless';
import { catalogue, report, type Endpoint } from '../../../tools/catalogue';
import { revenue } from '../../../shared/reports/revenue';
import { ROOT } from '../../support/processes';

describe('serverlessFunctions', () => {
  it('generates one function per endpoint of the catalogue, by its function name, in its order', () => {
    // Act
    const functions = serverlessFunctions();

    // Assess
    expect(Object.keys(functions)).toEqual(catalogue.map((endpoint) => endpoint.function));
    expect(serverlessFunctions(catalogue)).toEqual(functions);
  });

  it("gives every function its endpoint's handler, description, and its method and OPTIONS on each path", () => {
    // Act
    const functions = serverlessFunctions();

    // Assess
    expect(functions).toEqual(
      Object.fromEntries(
        catalogue.map((endpoint) => [
          endpoint.function,
          {
            handler: `functions/${endpoint.id}.handler`,
            description: answerSummary(endpoint.answers).description,
            events: endpoint.paths.flatMap((path) => [
              { http: { path, method: endpoint.method.toLowerCase() } },
              { http: { path, method: 'options' } },
            ]),
          },
        ]),
      ),
    );
  });

  it('points every handler at a module of the repository that exists', () => {
    // Act
    const modules = Object.values(serverlessFunctions()).map(({ handler }) =>
      handler.replace(/\.handler$/, '.ts'),
    );

    // Assess
    expect(modules).toEqual(catalogue.map((endpoint) => endpoint.handlerFile));
    expect(modules.filter((module) => !existsSync(join(ROOT, module)))).toEqual([]);
  });

  it('routes a report with an alias on both of its paths', () => {
    // Act
    const { revenue: fn } = serverlessFunctions();

    // Assess
    expect(fn).toEqual({
      handler: 'functions/revenue.handler',
      description: revenue.description,
      events: [
        { http: { path: '/v1/restaurants/{id}/reports/revenue', method: 'get' } },
        { http: { path: '/v1/restaurants/{id}/reports/revenue', method: 'options' } },
        { http: { path: '/res/{id}/reports/revenue', method: 'get' } },
        { http: { path: '/res/{id}/reports/revenue', method: 'options' } },
      ],
    });
  });

  it('routes the deployment call by PUT and OPTIONS', () => {
    // Act
    const { deployPlugin } = serverlessFunctions();

    // Assess
    expect(deployPlugin?.handler).toBe('functions/deploy-plugin.handler');
    expect(deployPlugin?.events).toEqual([
      { http: { path: '/v1/plugins/{code}', method: 'put' } },
      { http: { path: '/v1/plugins/{code}', method: 'options' } },
    ]);
  });

  it('refuses an invalid catalogue with a TypeError naming every problem, before generating anything', () => {
    // Prepare
    const missing: Endpoint = report(
      { ...revenue, id: 'no-such-report' },
      '/v1/restaurants/{id}/reports/revenue',
    );

    // Act
    const generate = () => serverlessFunctions([...catalogue, missing]);

    // Assess
    expect(generate).toThrow(TypeError);
    expect(generate).toThrow(
      [
        'GET /v1/restaurants/{id}/reports/revenue is catalogued twice',
        'noSuchReport: its handler functions/no-such-report.ts does not exist',
      ].join('\n'),
    );
  });
});

describe('connectionBudget', () => {
  const functions = catalogue.map((endpoint) => endpoint.function);
  /** The budget of settings read from the variables of their own names. */
  const budgetOf = (values: Readonly<Record<string, string>>) =>
    connectionBudget(
      Object.fromEntries(
        Object.entries(values).map(([name, value]) => [
          name,
          { variable: name, value: value.trim() },
        ]),
      ),
    );

  /**
   * Each function's reserved concurrency when none is set: what its k routes (its method and
   * OPTIONS on each path) fill at API_ROUTE_RATE 2 requests/s, burst ⌈2 / 2⌉ = 1, while a request
   * lasts API_ROUTE_DURATION_MS 100: ⌈k × (1 + 2 × 0.1)⌉ = ⌈6k / 5⌉, so 3 for one path (k = 2)
   * and 5 for two (k = 4).
   */
  const defaultReserved: Record<string, number> = Object.fromEntries(
    catalogue.map(({ function: fn, paths }) => [fn, Math.ceil((6 * (paths.length * 2)) / 5)]),
  );
  /** Their connections at DB_POOL_MAX's default of 2 per container. */
  const defaultConnections = Object.values(defaultReserved).reduce((sum, n) => sum + n, 0) * 2;

  it('reserves for every function what its routes fill at API_ROUTE_RATE, 2 connections per container, by default', () => {
    // Act
    const budget = budgetOf({});

    // Assess
    expect(budget).toEqual({
      reservedConcurrency: defaultReserved,
      poolMax: 2,
      connections: defaultConnections,
    });
    // One path (PUT and OPTIONS): ⌈2 × 1.2⌉ = 3; two (GET and OPTIONS on each): ⌈4 × 1.2⌉ = 5.
    expect(budget.reservedConcurrency).toMatchObject({ deployPlugin: 3, revenue: 5 });
  });

  it('follows API_ROUTE_RATE and API_ROUTE_DURATION_MS where no reserved concurrency is set', () => {
    // Act
    // Production's 15 requests/s: burst ⌈15 / 2⌉ = 8, so ⌈k × (8 + 15 × 0.1)⌉ = ⌈9.5k⌉.
    const production = budgetOf({ API_ROUTE_RATE: '15' });
    // 2 requests/s lasting 500 ms: ⌈k × (1 + 2 × 0.5)⌉ = 2k.
    const slow = budgetOf({ API_ROUTE_DURATION_MS: '500' });

    // Assess
    expect(production.reservedConcurrency).toMatchObject({ deployPlugin: 19, revenue: 38 });
    expect(slow.reservedConcurrency).toMatchObject({ deployPlugin: 4, revenue: 8 });
  });

  it('names the per-function variable after the function, in upper snake case', () => {
    // Assess
    expect(reservedConcurrencyVariable('ordersPerDay')).toBe('RESERVED_CONCURRENCY_ORDERS_PER_DAY');
    expect(reservedConcurrencyVariable('dishes')).toBe('RESERVED_CONCURRENCY_DISHES');
  });

  it('reads the default, one function of its own, DB_POOL_MAX and DB_MAX_CONNECTIONS', () => {
    // Act
    const budget = budgetOf({
      RESERVED_CONCURRENCY: ' 4 ',
      RESERVED_CONCURRENCY_ORDERS_PER_DAY: '20',
      DB_POOL_MAX: '3',
      DB_MAX_CONNECTIONS: '500',
    });

    // Assess
    const others = functions.length - 1;
    expect(budget.reservedConcurrency).toEqual(
      Object.fromEntries(functions.map((fn) => [fn, fn === 'ordersPerDay' ? 20 : 4])),
    );
    expect(budget).toMatchObject({
      poolMax: 3,
      connections: (20 + others * 4) * 3,
      maxConnections: 500,
    });
  });

  it('accepts a budget exactly at DB_MAX_CONNECTIONS', () => {
    // Act
    const budget = budgetOf({ DB_MAX_CONNECTIONS: String(defaultConnections) });

    // Assess
    expect(budget.connections).toBe(budget.maxConnections);
  });

  it('refuses one connection more than DB_MAX_CONNECTIONS, showing the arithmetic', () => {
    // Prepare: RESERVED_CONCURRENCY gives every function the same 10.
    const limit = functions.length * 10 * 2 - 1;

    // Act
    const check = () => budgetOf({ RESERVED_CONCURRENCY: '10', DB_MAX_CONNECTIONS: String(limit) });

    // Assess
    expect(check).toThrow(TypeError);
    expect(check).toThrow(
      `DB_MAX_CONNECTIONS is ${limit}, but ${functions.length} functions × 10 reserved concurrency × 2 connections per container (DB_POOL_MAX) = ${limit + 1} connections`,
    );
  });

  it('shows each function when they differ', () => {
    // Act
    const check = () =>
      budgetOf({
        RESERVED_CONCURRENCY: '1',
        RESERVED_CONCURRENCY_DASHBOARD: '5',
        DB_POOL_MAX: '1',
        DB_MAX_CONNECTIONS: '10',
      });

    // Assess
    expect(check).toThrow(
      `DB_MAX_CONNECTIONS is 10, but (${functions
        .map((fn) => `${fn} ${fn === 'dashboard' ? 5 : 1}`)
        .join(' + ')}) reserved concurrency × 1 connections per container (DB_POOL_MAX) = ${
        functions.length + 4
      } connections`,
    );
  });

  it.each([
    ['RESERVED_CONCURRENCY', '0', 1, 1000],
    ['RESERVED_CONCURRENCY', '1001', 1, 1000],
    ['RESERVED_CONCURRENCY', 'ten', 1, 1000],
    ['RESERVED_CONCURRENCY_DISHES', '2.5', 1, 1000],
    ['DB_POOL_MAX', '21', 1, 20],
    ['DB_MAX_CONNECTIONS', '0', 1, 1000000],
    ['DB_MAX_CONNECTIONS', '-5', 1, 1000000],
  ] as const)('refuses %s=%s, naming the variable and its range', (name, value, min, max) => {
    // Act / Assess
    expect(() => budgetOf({ [name]: value })).toThrow(
      new TypeError(`${name} is "${value}": expected a whole number from ${min} to ${max}`),
    );
  });

  it("sets each function's reserved concurrency on the function osls generates", () => {
    // Act
    // 7, not dishes' default of 3, so that the setting shows.
    const extensions = reservedConcurrencyExtensions(
      budgetOf({ RESERVED_CONCURRENCY_DISHES: '7' }),
    );

    // Assess
    expect(lambdaLogicalId('ordersPerDay')).toBe('OrdersPerDayLambdaFunction');
    expect(extensions).toEqual(
      Object.fromEntries(
        functions.map((fn) => [
          lambdaLogicalId(fn),
          {
            Properties: { ReservedConcurrentExecutions: fn === 'dishes' ? 7 : defaultReserved[fn] },
          },
        ]),
      ),
    );
  });
});
