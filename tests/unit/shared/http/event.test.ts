import type { APIGatewayProxyEvent, APIGatewayProxyEventV2 } from 'aws-lambda';
import {
  headerValues,
  httpMethod,
  jsonResult,
  pathParameter,
  queryStringValues,
  requestIdOf,
  routeOf,
} from '../../../../shared/http/event';
import { httpApiEvent, restEvent } from '../../../support/events';

const RESOURCE = '/v1/restaurants/{id}/reports/orders/day';

/** A REST (v1) event built fresh for each test. */
const rest = (overrides: Partial<APIGatewayProxyEvent> = {}): APIGatewayProxyEvent => ({
  ...restEvent({ resource: RESOURCE, pathParameters: { id: 'R-1001' } }),
  ...overrides,
});

/** A REST (v1) event with these headers and multiValueHeaders, null as API Gateway may send. */
const restHeaders = (headers: object | null, multiValueHeaders: object | null) =>
  rest({ headers, multiValueHeaders } as Partial<APIGatewayProxyEvent>);

/** A REST (v1) event with these query string parameters, single and multi-valued. */
const restQuery = (single: object | null, multi: object | null) =>
  rest({
    queryStringParameters: single,
    multiValueQueryStringParameters: multi,
  } as Partial<APIGatewayProxyEvent>);

/** An HTTP API (v2) event built fresh for each test. */
const httpApi = (overrides: Partial<APIGatewayProxyEventV2> = {}): APIGatewayProxyEventV2 => ({
  ...httpApiEvent({ resource: RESOURCE, pathParameters: { id: 'R-1001' } }),
  ...overrides,
});

describe('headerValues', () => {
  describe('REST API (v1)', () => {
    it.each(['X-Platform-Id', 'x-platform-id', 'X-PLATFORM-ID'])(
      'finds a header asked for as %s, whatever case it was sent in',
      (asked) => {
        // Prepare
        const event = restHeaders({ 'x-PlatForm-id': 'TB_AE' }, { 'x-PlatForm-id': ['TB_AE'] });

        // Act / Assess
        expect(headerValues(event, asked)).toEqual(['TB_AE']);
      },
    );

    it.each<[string, object | null, object | null, string, string[]]>([
      [
        'keeps every value of a header repeated in multiValueHeaders',
        { 'X-Platform-Id': 'TB_KW' },
        { 'X-Platform-Id': ['TB_AE', 'TB_KW'] },
        'x-platform-id',
        ['TB_AE', 'TB_KW'],
      ],
      [
        'keeps the values of two case-variants of a name in multiValueHeaders',
        { 'X-Platform-Id': 'TB_AE', 'x-platform-id': 'TB_KW' },
        { 'X-Platform-Id': ['TB_AE'], 'x-platform-id': ['TB_KW'] },
        'X-Platform-Id',
        ['TB_AE', 'TB_KW'],
      ],
      [
        'keeps the values of two case-variants of a name when only headers is given',
        { Authorization: 'Bearer a.b.c', authorization: 'Bearer d.e.f' },
        {},
        'Authorization',
        ['Bearer a.b.c', 'Bearer d.e.f'],
      ],
      [
        'falls back to headers when multiValueHeaders is null',
        { Authorization: 'Bearer a.b.c' },
        null,
        'authorization',
        ['Bearer a.b.c'],
      ],
      [
        'tolerates `headers: null`, as API Gateway sends for a request without headers',
        null,
        null,
        'authorization',
        [],
      ],
      [
        'gives no values for a header that was not sent',
        { Accept: 'application/json' },
        { Accept: ['application/json'] },
        'X-Platform-Id',
        [],
      ],
    ])('%s', (_behaviour, headers, multiValueHeaders, asked, expected) => {
      // Act / Assess
      expect(headerValues(restHeaders(headers, multiValueHeaders), asked)).toEqual(expected);
    });
  });

  describe('HTTP API (v2)', () => {
    it('finds a header in any case', () => {
      // Prepare
      const event = httpApi({ headers: { 'x-platform-id': 'TB_AE' } });

      // Act / Assess
      expect(
        ['X-Platform-Id', 'x-platform-id', 'X-PLATFORM-ID'].map((name) =>
          headerValues(event, name),
        ),
      ).toEqual([['TB_AE'], ['TB_AE'], ['TB_AE']]);
    });

    it('keeps a comma-joined repeated header as the one value API Gateway passed', () => {
      // Prepare: HTTP API joins the values of a repeated header with commas.
      const event = httpApiEvent({
        resource: RESOURCE,
        headers: { 'X-Platform-Id': ['TB_AE', 'TB_KW'] },
      });

      // Act
      const values = headerValues(event, 'X-Platform-Id');

      // Assess: never one of the copies alone, so a caller cannot be led to pick one
      expect(event.headers).toEqual({ 'x-platform-id': 'TB_AE,TB_KW' });
      expect(values).toEqual(['TB_AE,TB_KW']);
    });

    it('tolerates `headers: null`', () => {
      // Prepare
      const event = httpApi({ headers: null } as unknown as Partial<APIGatewayProxyEventV2>);

      // Act / Assess
      expect(headerValues(event, 'authorization')).toEqual([]);
    });
  });
});

describe('queryStringValues', () => {
  describe('REST API (v1)', () => {
    it.each<[string, object | null, object | null, string, string[]]>([
      [
        'prefers every value of multiValueQueryStringParameters over the single value',
        { from: '2024-01-02' },
        { from: ['2024-01-01', '2024-01-02'] },
        'from',
        ['2024-01-01', '2024-01-02'],
      ],
      [
        'falls back to queryStringParameters when the name has no multi-value entry',
        { 'compare[from]': '2023-12-01' },
        null,
        'compare[from]',
        ['2023-12-01'],
      ],
      ['keeps an empty value as one empty string', { from: '' }, { from: [''] }, 'from', ['']],
      [
        'gives no values for a parameter that was not sent',
        { to: '2024-01-31' },
        { to: ['2024-01-31'] },
        'from',
        [],
      ],
      ['gives no values when no parameter was sent', null, null, 'from', []],
    ])('%s', (_behaviour, single, multi, name, expected) => {
      // Act / Assess
      expect(queryStringValues(restQuery(single, multi), name)).toEqual(expected);
    });
  });

  describe('HTTP API (v2)', () => {
    it('reads percent-encoded bracket keys from rawQueryString', () => {
      // Prepare
      const event = httpApi({
        rawQueryString:
          'from=2024-01-08&to=2024-01-14&compare%5Bfrom%5D=2024-01-01&compare%5Bto%5D=2024-01-07',
      });

      // Act / Assess
      expect(
        ['from', 'to', 'compare[from]', 'compare[to]'].map((name) =>
          queryStringValues(event, name),
        ),
      ).toEqual([['2024-01-08'], ['2024-01-14'], ['2024-01-01'], ['2024-01-07']]);
    });

    it.each<[string, string, Record<string, string>, string[]]>([
      [
        'keeps every value of a repeated key in the order sent',
        'from=2024-01-02&to=2024-01-31&from=2024-01-01',
        { from: '2024-01-02,2024-01-01', to: '2024-01-31' },
        ['2024-01-02', '2024-01-01'],
      ],
      [
        'does not split a value containing a comma when rawQueryString is there',
        'from=2024-01-01%2C2024-01-02',
        { from: '2024-01-01,2024-01-02' },
        ['2024-01-01,2024-01-02'],
      ],
      ['gives no values for a parameter missing from rawQueryString', '', {}, []],
    ])('%s', (_behaviour, rawQueryString, queryStringParameters, expected) => {
      // Act / Assess
      expect(queryStringValues(httpApi({ rawQueryString, queryStringParameters }), 'from')).toEqual(
        expected,
      );
    });

    it('splits the comma-joined parameters when rawQueryString is missing', () => {
      // Prepare: a v2 event as API Gateway sends it when rawQueryString is not there.
      const queryStringParameters = { 'compare[from]': '2024-01-01,2024-01-02', to: '2024-01-31' };
      const { rawQueryString: _raw, ...event } = httpApi({ queryStringParameters });

      // Act / Assess
      expect(
        ['compare[from]', 'to', 'from'].map((name) =>
          queryStringValues(event as APIGatewayProxyEventV2, name),
        ),
      ).toEqual([['2024-01-01', '2024-01-02'], ['2024-01-31'], []]);
    });
  });
});

describe('httpMethod', () => {
  it('reads the method of a REST event, upper-cased', () => {
    // Act / Assess
    expect(httpMethod(rest({ httpMethod: 'options' }))).toBe('OPTIONS');
  });

  it('reads the method of an HTTP API event from requestContext.http, upper-cased', () => {
    // Prepare
    const { requestContext } = httpApi();
    const http = { ...requestContext.http, method: 'get' };

    // Act / Assess
    expect(httpMethod(httpApi({ requestContext: { ...requestContext, http } }))).toBe('GET');
  });
});

describe('routeOf', () => {
  it.each([
    ['the method and resource template of a REST event', rest()],
    ['the routeKey of an HTTP API event', httpApi()],
  ])('gives %s, without ids', (_name, event) => {
    // Act / Assess
    const route = routeOf(event);
    expect(route).toBe('GET /v1/restaurants/{id}/reports/orders/day');
    expect(route).not.toContain('R-1001');
  });
});

describe('requestIdOf and pathParameter', () => {
  it('reads the request id and path parameters of both event versions', () => {
    // Prepare
    const events = [rest(), httpApi()];

    // Act / Assess
    expect(
      events.map((event) => ({
        requestId: requestIdOf(event),
        id: pathParameter(event, 'id'),
        other: pathParameter(event, 'platformId'),
      })),
    ).toEqual(
      events.map((event) => ({
        requestId: event.requestContext.requestId,
        id: 'R-1001',
        other: undefined,
      })),
    );
  });

  it('gives undefined when the event has no path parameters', () => {
    // Prepare
    const events = [rest({ pathParameters: null }), httpApiEvent({ resource: '/v1/health' })];

    // Act / Assess
    expect(events.map((event) => pathParameter(event, 'id'))).toEqual([undefined, undefined]);
  });
});

describe('jsonResult', () => {
  it('renders a JSON body with a JSON content type', () => {
    // Act / Assess
    expect(jsonResult(200, { data: [{ data: { name: 'Falafel', orderCount: 2 } }] })).toEqual({
      statusCode: 200,
      headers: { 'Content-Type': 'application/json' },
      body: '{"data":[{"data":{"name":"Falafel","orderCount":2}}]}',
    });
  });

  it('adds the headers it is given beside the content type', () => {
    // Prepare
    const challenge = { 'WWW-Authenticate': 'Bearer error="invalid_token"' };

    // Act / Assess
    expect(jsonResult(401, { state: 'ERROR' }, challenge)).toEqual({
      statusCode: 401,
      headers: { 'Content-Type': 'application/json', ...challenge },
      body: '{"state":"ERROR"}',
    });
  });
});
