/**
 * serverless.yml's `functions:`, generated from the catalogue (build/serverless.ts): one
 * function per endpoint, named by its id in camelCase, with its handler functions/<id>.handler,
 * its description, and its method and OPTIONS on each of its paths. serverless.yml holds no
 * per-function block of its own; tests/integration/openapi.test.ts checks that it reads this
 * one through scripts/serverless/functions.cjs.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { answerSummary } from '../../../build/endpoints';
import { serverlessFunctions } from '../../../build/serverless';
import { catalogue, report, type Endpoint } from '../../../shared/catalogue';
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
