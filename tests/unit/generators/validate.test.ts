/**
 * tools/generators/validate.ts, run before anything is generated from the catalogue: an endpoint's
 * bad id, handler file or description, and the catalogue's repeated function, id or route or
 * alias without its /v1 path's parameters. Report properties: manifest.test.ts.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { catalogueProblems, validateCatalogue } from '../../../tools/generators/validate';
import {
  camelCase,
  catalogue,
  custom,
  report,
  service,
  type Endpoint,
} from '../../../tools/catalogue';
import { type CatalogueReport, type CatalogueService } from '../../../shared/answers';
import { ROOT } from '../../support/processes';

const definition = (
  id: string,
  description = 'A report made up for the test.',
): CatalogueReport => ({
  id,
  title: 'Made up',
  description,
  properties: [{ key: 'orderCount', name: 'Orders', type: 'integer' }],
  parameters: [],
});

/** A report of the catalogue's shape whose handler file is `handlerFile` (one that exists). */
const madeUp = (
  id: string,
  {
    description,
    handlerFile = 'functions/revenue.ts',
  }: { description?: string; handlerFile?: string } = {},
): Endpoint => ({
  ...report(definition(id, description), `/v1/restaurants/{id}/reports/${id}`),
  handlerFile,
});

/** What validateCatalogue threw, as [is a TypeError, message]. */
const failureOf = (list: readonly Endpoint[], root?: string): [boolean, string] => {
  try {
    validateCatalogue(list, root);
  } catch (error) {
    return [error instanceof TypeError, error instanceof Error ? error.message : String(error)];
  }
  return [false, 'did not throw'];
};

describe('the catalogue', () => {
  it('validates: no problem at all', () => {
    // Act / Assess
    expect(catalogueProblems(catalogue)).toEqual([]);
    expect(() => {
      validateCatalogue(catalogue);
    }).not.toThrow();
  });

  it('names every endpoint by its kebab-case id: its function the id in camelCase, its handler functions/<id>.ts, which exists', () => {
    // Act / Assess
    expect(
      catalogue.map((endpoint) => ({
        id: endpoint.id,
        function: endpoint.function,
        handlerFile: endpoint.handlerFile,
        exists: existsSync(join(ROOT, endpoint.handlerFile)),
      })),
    ).toEqual(
      catalogue.map(({ id }) => ({
        id,
        function: camelCase(id),
        handlerFile: `functions/${id}.ts`,
        exists: true,
      })),
    );
    expect(catalogue.every(({ id }) => /^[a-z][a-z0-9]*(?:-[a-z0-9]+)*$/.test(id))).toBe(true);
  });

  it('takes its ids from what each endpoint answers', () => {
    // Act / Assess
    expect(
      catalogue.map(({ id, answers }) => [
        id,
        answers.kind === 'report'
          ? answers.report.id
          : answers.kind === 'service'
            ? answers.service.id
            : answers.id,
      ]),
    ).toEqual(catalogue.map(({ id }) => [id, id]));
  });
});

describe('camelCase', () => {
  it.each([
    ['orders-per-day', 'ordersPerDay'],
    ['dishes', 'dishes'],
    ['deploy-plugin', 'deployPlugin'],
    ['top-10-dishes', 'top10Dishes'],
  ])('turns %s into %s', (id, name) => {
    // Act / Assess
    expect(camelCase(id)).toBe(name);
  });
});

describe('validateCatalogue', () => {
  it('accepts an endpoint whose declaration is complete', () => {
    // Act / Assess
    expect(failureOf([madeUp('monthly-test')])).toEqual([false, 'did not throw']);
  });

  it.each([
    ['upper case', 'Monthly-test'],
    ['an underscore', 'monthly_test'],
    ['camel case', 'monthlyTest'],
    ['a leading dash', '-monthly'],
    ['a trailing dash', 'monthly-'],
    ['two dashes in a row', 'monthly--test'],
    ['a leading digit', '1-monthly'],
    ['a space', 'monthly test'],
    ['nothing at all', ''],
  ])('refuses an id with %s, naming it', (_case, id) => {
    // Act / Assess
    expect(failureOf([madeUp(id)])).toEqual([true, `Endpoint id "${id}" is not kebab-case`]);
  });

  it('refuses an endpoint whose handler file does not exist, naming the function and the file', () => {
    // Prepare
    const endpoint = report(
      definition('monthly-test'),
      '/v1/restaurants/{id}/reports/monthly-test',
    );

    // Act
    const failure = failureOf([endpoint]);

    // Assess
    expect(endpoint.handlerFile).toBe('functions/monthly-test.ts');
    expect(failure).toEqual([
      true,
      'monthlyTest: its handler functions/monthly-test.ts does not exist',
    ]);
  });

  it('looks for handler files under the root it is given', () => {
    // Prepare
    const empty = mkdtempSync(join(tmpdir(), 'portal-validate-'));

    try {
      // Act / Assess
      expect(failureOf(catalogue, empty)).toEqual([
        true,
        catalogue
          .map(
            ({ function: fn, handlerFile }) => `${fn}: its handler ${handlerFile} does not exist`,
          )
          .join('\n'),
      ]);
    } finally {
      rmSync(empty, { recursive: true, force: true });
    }
  });

  it.each([
    ['empty', ''],
    ['only whitespace', ' \n\t '],
    ["longer than Lambda's 256 characters", 'x'.repeat(257)],
  ])('refuses a description that is %s', (_case, description) => {
    // Act / Assess
    expect(failureOf([madeUp('monthly-test', { description })])).toEqual([
      true,
      'monthlyTest: its description must have 1 to 256 characters',
    ]);
  });

  it('accepts a description of exactly 256 characters', () => {
    // Prepare
    const endpoint = madeUp('monthly-test', { description: 'x'.repeat(256) });

    // Act / Assess
    expect(failureOf([endpoint])).toEqual([false, 'did not throw']);
  });

  it('checks the description of services and of endpoints with a body of their own too', () => {
    // Prepare
    const long = 'x'.repeat(257);
    const madeUpService: CatalogueService = {
      id: 'service-test',
      title: 'Service test',
      description: long,
      parameters: [],
      dataSchema: { type: 'object' },
    };
    const endpoints = [
      {
        ...service(madeUpService, '/v1/restaurants/{id}/service-test'),
        handlerFile: 'functions/dashboard.ts',
      },
      {
        ...custom(
          {
            kind: 'custom',
            id: 'custom-test',
            title: 'Custom test',
            description: '',
            parameters: [],
            responseSchema: { type: 'object' },
            errorStatuses: [400, 500],
          },
          'PUT',
          'api-key',
          '/v1/custom-test/{code}',
        ),
        handlerFile: 'functions/deploy-plugin.ts',
      },
    ];

    // Act / Assess
    expect(failureOf(endpoints)).toEqual([
      true,
      [
        'serviceTest: its description must have 1 to 256 characters',
        'customTest: its description must have 1 to 256 characters',
      ].join('\n'),
    ]);
  });

  it('refuses two endpoints that answer one id', () => {
    // Prepare
    const first = madeUp('monthly-test');
    const second = {
      ...madeUp('monthly-test'),
      function: 'monthlyTestAgain',
      paths: ['/v1/restaurants/{id}/reports/monthly-test-again'] as const,
    };

    // Act / Assess
    expect(failureOf([first, second])).toEqual([
      true,
      'Two endpoints answer the id "monthly-test"',
    ]);
  });

  it('names every problem of the catalogue, then of each endpoint, at once', () => {
    // Prepare
    const [first] = catalogue;
    const twice: Endpoint = {
      ...report(definition('Monthly_Test', ''), first!.paths[0]),
      function: first!.function,
    };

    // Act / Assess
    expect(failureOf([first!, twice])).toEqual([
      true,
      [
        `Function "${first!.function}" is catalogued twice`,
        `GET ${first!.paths[0]} is catalogued twice`,
        'Endpoint id "Monthly_Test" is not kebab-case',
        `${first!.function}: its handler functions/Monthly_Test.ts does not exist`,
        `${first!.function}: its description must have 1 to 256 characters`,
      ].join('\n'),
    ]);
  });
});

describe('catalogueProblems', () => {
  it('leaves handler files and descriptions to validateCatalogue', () => {
    // Prepare
    const endpoint = report(definition('Monthly_Test', ''), '/v1/restaurants/{id}/reports/x');

    // Act / Assess
    expect(catalogueProblems([endpoint])).toEqual([]);
  });

  it('refuses an alias that does not take the parameters of its /v1 path', () => {
    // Prepare
    const paths = ['/v1/restaurants/{id}/x', '/res/{code}/x'] as const;
    const endpoint = { ...madeUp('monthly-test'), paths };

    // Act / Assess
    expect(catalogueProblems([endpoint])).toEqual([
      'monthlyTest: /res/{code}/x does not take the parameters of its /v1 path',
    ]);
  });
});
