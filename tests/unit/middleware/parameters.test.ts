/**
 * The parameter step with the day-range parser (spec 4.1, 7, 8), as every day-range report
 * uses it: query strings of REST and HTTP API events in, the parsed range handed on or the
 * spec's 400 body out.
 */
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { errorHandler } from '../../../middleware/error-handler';
import { parameters } from '../../../middleware/parameters';
import type { GatewayEvent } from '../../../shared/http/event';
import { parseDayRange } from '../../../shared/reports/parameters';
import { httpApiEvent, lambdaContext, restEvent, type RequestSpec } from '../../support/events';
import { chain, collectingLogger, errorBody, ORDERS_ROUTE, stateEcho } from './fixtures';

const JSON_HEADERS = { 'Content-Type': 'application/json' } as const;

type Query = RequestSpec['query'];

const setup = (compare = true) => {
  const handler = stateEcho('parameters');
  const lambda = chain()
    .use(errorHandler({ logger: collectingLogger().logger }))
    .use(parameters((read) => parseDayRange(read, { compare })))
    .handler(handler);
  return { handler, lambda };
};

const withQuery = (query?: Query): RequestSpec => ({
  resource: ORDERS_ROUTE,
  pathParameters: { id: 'R-1001' },
  ...(query ? { query } : {}),
});

const versions: [string, (spec: RequestSpec) => GatewayEvent][] = [
  ['REST v1', restEvent],
  ['HTTP API v2', httpApiEvent],
];

const parsed = (query: unknown) => ({
  statusCode: 200,
  headers: JSON_HEADERS,
  body: JSON.stringify({ parameters: query }),
});

const invalid = (errors: { field: string; code: string; message: string }[]) => ({
  statusCode: 400,
  headers: JSON_HEADERS,
  body: errorBody('VALIDATION_ERROR', 'Error', errors),
});

const OUT_OF_RANGE = {
  statusCode: 400,
  headers: JSON_HEADERS,
  body: '{"state":"ERROR","code":"OUT_OF_RANGE","message":"Only 31 days can be selected"}',
};

const empty = (field: string) => ({
  field,
  code: 'FIELD_CANNOT_BE_EMPTY',
  message: `${field} cannot be empty`,
});

describe('parameters with the day range: accepted ranges (spec 4.1)', () => {
  it.each(versions)('hands (%s) the range forward on the state', async (_v, build) => {
    // Prepare
    const { lambda, handler } = setup();

    // Act
    const response = await lambda(
      build(withQuery({ from: '2026-01-01', to: '2026-01-07' })),
      lambdaContext(),
    );

    // Assess
    expect(response).toStrictEqual(parsed({ range: { from: '2026-01-01', to: '2026-01-07' } }));
    expect(handler).toHaveBeenCalledTimes(1);
  });

  it.each(versions)('reads (%s) compare[from] and compare[to] as flat keys', async (_v, build) => {
    // Prepare
    const { lambda } = setup();
    const query = {
      from: '2026-01-08',
      to: '2026-01-14',
      'compare[from]': '2026-01-01',
      'compare[to]': '2026-01-07',
    };

    // Act
    const response = await lambda(build(withQuery(query)), lambdaContext());

    // Assess
    expect(response).toStrictEqual(
      parsed({
        range: { from: '2026-01-08', to: '2026-01-14' },
        compare: { from: '2026-01-01', to: '2026-01-07' },
      }),
    );
  });

  it('reads compare keys from an HTTP API raw query string with unencoded brackets', async () => {
    // Prepare
    const { lambda } = setup();
    const event: APIGatewayProxyEventV2 = {
      ...httpApiEvent(withQuery()),
      rawQueryString:
        'from=2026-01-08&to=2026-01-14&compare[from]=2026-01-01&compare[to]=2026-01-07',
    };

    // Act
    const response = await lambda(event, lambdaContext());

    // Assess
    expect(response).toStrictEqual(
      parsed({
        range: { from: '2026-01-08', to: '2026-01-14' },
        compare: { from: '2026-01-01', to: '2026-01-07' },
      }),
    );
  });

  it.each(versions)('accepts (%s) a range of exactly 31 days', async (_v, build) => {
    // Prepare
    const { lambda } = setup();

    // Act
    const response = await lambda(
      build(withQuery({ from: '2026-01-01', to: '2026-01-31' })),
      lambdaContext(),
    );

    // Assess
    expect(response).toStrictEqual(parsed({ range: { from: '2026-01-01', to: '2026-01-31' } }));
  });

  it.each(versions)(
    'ignores (%s) compare parameters on a report that does not compare',
    async (_v, build) => {
      // Prepare
      const { lambda } = setup(false);
      const query = {
        from: '2026-01-01',
        to: '2026-01-07',
        'compare[from]': 'not-a-date',
        'compare[to]': ['2025-01-01', '2025-12-31'],
      };

      // Act
      const response = await lambda(build(withQuery(query)), lambdaContext());

      // Assess
      expect(response).toStrictEqual(parsed({ range: { from: '2026-01-01', to: '2026-01-07' } }));
    },
  );
});

describe('parameters with the day range: refused ranges (spec 4.1, 7, 8)', () => {
  const oneError = (field: string, code: string, message: string) =>
    invalid([{ field, code, message }]);
  const refused: [string, Query, ReturnType<typeof invalid>][] = [
    ['no query at all', undefined, invalid([empty('from'), empty('to')])],
    ['from missing', { to: '2026-01-07' }, invalid([empty('from')])],
    ['to missing', { from: '2026-01-01' }, invalid([empty('to')])],
    ['both empty', { from: '', to: '' }, invalid([empty('from'), empty('to')])],
    ['both blank', { from: '  ', to: ' ' }, invalid([empty('from'), empty('to')])],
    [
      'from given twice',
      { from: ['2026-01-01', '2026-01-02'], to: '2026-01-07' },
      oneError('from', 'FIELD_REPEATED', 'from must be given once'),
    ],
    [
      'to given twice with the same value',
      { from: '2026-01-01', to: ['2026-01-07', '2026-01-07'] },
      oneError('to', 'FIELD_REPEATED', 'to must be given once'),
    ],
    [
      'compare[from] given twice',
      {
        from: '2026-01-08',
        to: '2026-01-14',
        'compare[from]': ['2026-01-01', '2026-01-02'],
        'compare[to]': '2026-01-07',
      },
      oneError('compare[from]', 'FIELD_REPEATED', 'compare[from] must be given once'),
    ],
    [
      'an impossible calendar date',
      { from: '2026-02-30', to: '2026-03-02' },
      oneError('from', 'INVALID_DATE', 'from must be a calendar date in YYYY-MM-DD form'),
    ],
    [
      'from after to',
      { from: '2026-01-07', to: '2026-01-01' },
      oneError('from', 'INVALID_RANGE', 'from must not be after to'),
    ],
    [
      'compare[from] without compare[to]',
      { from: '2026-01-08', to: '2026-01-14', 'compare[from]': '2026-01-01' },
      oneError(
        'compare[to]',
        'FIELD_REQUIRED_WITH',
        'compare[to] is required when compare[from] is given',
      ),
    ],
    ['a range of 32 days', { from: '2026-01-01', to: '2026-02-01' }, OUT_OF_RANGE],
    [
      'a compare range of 32 days',
      {
        from: '2026-02-01',
        to: '2026-02-07',
        'compare[from]': '2026-01-01',
        'compare[to]': '2026-02-01',
      },
      OUT_OF_RANGE,
    ],
  ];
  const cases = versions.flatMap(([v, build]) =>
    refused.map(([name, query, expected]) => [v, name, build, query, expected] as const),
  );

  it.each(cases)(
    'answers (%s) %s with 400 and never reaches the handler',
    async (_v, _n, build, query, expected) => {
      // Prepare
      const { lambda, handler } = setup();

      // Act
      const response = await lambda(build(withQuery(query)), lambdaContext());

      // Assess
      expect(response).toStrictEqual(expected);
      expect(handler).not.toHaveBeenCalled();
    },
  );
});
