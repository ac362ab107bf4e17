import type {
  APIGatewayProxyEvent,
  APIGatewayProxyEventHeaders,
  APIGatewayProxyEventV2,
} from 'aws-lambda';
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

/** An HTTP API (v2) event built fresh for each test. */
const httpApi = (overrides: Partial<APIGatewayProxyEventV2> = {}): APIGatewayProxyEventV2 => ({
  ...httpApiEvent({ resource: RESOURCE, pathParameters: { id: 'R-1001' } }),
  ...overrides,
});

/** A v2 event as API Gateway sends it when rawQueryString is not there. */
const httpApiWithoutRawQuery = (
  queryStringParameters: Record<string, string>,
): APIGatewayProxyEventV2 => {
  const { rawQueryString: _raw, ...event } = httpApi({ queryStringParameters });
  return event as APIGatewayProxyEventV2;
};

describe('headerValues', () => {
  describe('REST API (v1)', () => {
    it.each(['X-Platform-Id', 'x-platform-id', 'X-PLATFORM-ID'])(
      'finds a header asked for as %s, whatever case it was sent in',
      (asked) => {
        // Prepare
        const event = rest({
          headers: { 'x-PlatForm-id': 'TB_AE' },
          multiValueHeaders: { 'x-PlatForm-id': ['TB_AE'] },
        });

        // Act / Assess
        expect(headerValues(event, asked)).toEqual(['TB_AE']);
      },
    );

    it('keeps every value of a header repeated in multiValueHeaders', () => {
      // Prepare
      const event = rest({
        headers: { 'X-Platform-Id': 'TB_KW' },
        multiValueHeaders: { 'X-Platform-Id': ['TB_AE', 'TB_KW'] },
      });

      // Act / Assess
      expect(headerValues(event, 'x-platform-id')).toEqual(['TB_AE', 'TB_KW']);
    });

    it('keeps the values of two case-variants of a name in multiValueHeaders', () => {
      // Prepare
      const event = rest({
        headers: { 'X-Platform-Id': 'TB_AE', 'x-platform-id': 'TB_KW' },
        multiValueHeaders: { 'X-Platform-Id': ['TB_AE'], 'x-platform-id': ['TB_KW'] },
      });

      // Act / Assess
      expect(headerValues(event, 'X-Platform-Id')).toEqual(['TB_AE', 'TB_KW']);
    });

    it('keeps the values of two case-variants of a name when only headers is given', () => {
      // Prepare
      const event = rest({
        headers: { Authorization: 'Bearer a.b.c', authorization: 'Bearer d.e.f' },
        multiValueHeaders: {},
      });

      // Act / Assess
      expect(headerValues(event, 'Authorization')).toEqual(['Bearer a.b.c', 'Bearer d.e.f']);
    });

    it('falls back to headers when multiValueHeaders is null', () => {
      // Prepare
      const event = rest({
        headers: { Authorization: 'Bearer a.b.c' },
        multiValueHeaders: null as unknown as APIGatewayProxyEvent['multiValueHeaders'],
      });

      // Act / Assess
      expect(headerValues(event, 'authorization')).toEqual(['Bearer a.b.c']);
    });

    it('tolerates `headers: null`, as API Gateway sends for a request without headers', () => {
      // Prepare
      const event = rest({
        headers: null as unknown as APIGatewayProxyEventHeaders,
        multiValueHeaders: null as unknown as APIGatewayProxyEvent['multiValueHeaders'],
      });

      // Act / Assess
      expect(headerValues(event, 'authorization')).toEqual([]);
    });

    it('gives no values for a header that was not sent', () => {
      // Prepare
      const event = rest({
        headers: { Accept: 'application/json' },
        multiValueHeaders: { Accept: ['application/json'] },
      });

      // Act / Assess
      expect(headerValues(event, 'X-Platform-Id')).toEqual([]);
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
      const event = httpApi({ headers: null as unknown as APIGatewayProxyEventV2['headers'] });

      // Act / Assess
      expect(headerValues(event, 'authorization')).toEqual([]);
    });
  });
});

describe('queryStringValues', () => {
  describe('REST API (v1)', () => {
    it('prefers every value of multiValueQueryStringParameters over the single value', () => {
      // Prepare
      const event = rest({
        queryStringParameters: { from: '2024-01-02' },
        multiValueQueryStringParameters: { from: ['2024-01-01', '2024-01-02'] },
      });

      // Act / Assess
      expect(queryStringValues(event, 'from')).toEqual(['2024-01-01', '2024-01-02']);
    });

    it('falls back to queryStringParameters when the name has no multi-value entry', () => {
      // Prepare
      const event = rest({
        queryStringParameters: { 'compare[from]': '2023-12-01' },
        multiValueQueryStringParameters: null,
      });

      // Act / Assess
      expect(queryStringValues(event, 'compare[from]')).toEqual(['2023-12-01']);
    });

    it('keeps an empty value as one empty string', () => {
      // Prepare
      const event = rest({
        queryStringParameters: { from: '' },
        multiValueQueryStringParameters: { from: [''] },
      });

      // Act / Assess
      expect(queryStringValues(event, 'from')).toEqual(['']);
    });

    it('gives no values for a parameter that was not sent', () => {
      // Prepare
      const withOthers = rest({
        queryStringParameters: { to: '2024-01-31' },
        multiValueQueryStringParameters: { to: ['2024-01-31'] },
      });
      const withNone = rest({ queryStringParameters: null, multiValueQueryStringParameters: null });

      // Act / Assess
      expect([queryStringValues(withOthers, 'from'), queryStringValues(withNone, 'from')]).toEqual([
        [],
        [],
      ]);
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

    it('keeps every value of a repeated key in the order sent', () => {
      // Prepare
      const event = httpApi({
        rawQueryString: 'from=2024-01-02&to=2024-01-31&from=2024-01-01',
        queryStringParameters: { from: '2024-01-02,2024-01-01', to: '2024-01-31' },
      });

      // Act / Assess
      expect(queryStringValues(event, 'from')).toEqual(['2024-01-02', '2024-01-01']);
    });

    it('does not split a value containing a comma when rawQueryString is there', () => {
      // Prepare
      const event = httpApi({
        rawQueryString: 'from=2024-01-01%2C2024-01-02',
        queryStringParameters: { from: '2024-01-01,2024-01-02' },
      });

      // Act / Assess
      expect(queryStringValues(event, 'from')).toEqual(['2024-01-01,2024-01-02']);
    });

    it('gives no values for a parameter missing from rawQueryString', () => {
      // Prepare
      const event = httpApi({ rawQueryString: '' });

      // Act / Assess
      expect(queryStringValues(event, 'from')).toEqual([]);
    });

    it('splits the comma-joined parameters when rawQueryString is missing', () => {
      // Prepare
      const event = httpApiWithoutRawQuery({
        'compare[from]': '2024-01-01,2024-01-02',
        to: '2024-01-31',
      });

      // Act / Assess
      expect(['compare[from]', 'to', 'from'].map((name) => queryStringValues(event, name))).toEqual(
        [['2024-01-01', '2024-01-02'], ['2024-01-31'], []],
      );
    });
  });
});

describe('httpMethod', () => {
  it('reads the method of a REST event, upper-cased', () => {
    // Prepare
    const event = rest({ httpMethod: 'options' });

    // Act / Assess
    expect(httpMethod(event)).toBe('OPTIONS');
  });

  it('reads the method of an HTTP API event from requestContext.http, upper-cased', () => {
    // Prepare
    const base = httpApi();
    const event = httpApi({
      requestContext: {
        ...base.requestContext,
        http: { ...base.requestContext.http, method: 'get' },
      },
    });

    // Act / Assess
    expect(httpMethod(event)).toBe('GET');
  });
});

describe('routeOf', () => {
  it('gives the method and resource template of a REST event, without ids', () => {
    // Prepare
    const event = rest();

    // Act
    const route = routeOf(event);

    // Assess
    expect(route).toBe('GET /v1/restaurants/{id}/reports/orders/day');
    expect(route).not.toContain('R-1001');
  });

  it('gives the routeKey of an HTTP API event, without ids', () => {
    // Prepare
    const event = httpApi();

    // Act
    const route = routeOf(event);

    // Assess
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
    // Act / Assess
    expect(
      jsonResult(401, { state: 'ERROR' }, { 'WWW-Authenticate': 'Bearer error="invalid_token"' }),
    ).toEqual({
      statusCode: 401,
      headers: {
        'Content-Type': 'application/json',
        'WWW-Authenticate': 'Bearer error="invalid_token"',
      },
      body: '{"state":"ERROR"}',
    });
  });
});
