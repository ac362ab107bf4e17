/**
 * The CORS middleware's after and onError (middleware/cors.ts) against what they were before
 * the decoration stopped cloning the headers: `@middy/http-cors` configured as the chain
 * configured it (origin `*`, the spec's allowed headers and methods, with and without
 * `exposeHeaders`), then `Access-Control-Allow-Credentials: false` set on the headers. Both see the same sequences
 * of generated responses and events, each its own instance for the whole sequence (the
 * middleware remembers a response's own Access-Control-Allow-Credentials for later ones), and
 * must leave the same response every time, through `after` and through `onError`.
 */
import httpCors from '@middy/http-cors';
import fc from 'fast-check';
import { cors, SPEC_CORS_HEADERS } from '../../../middleware/cors';
import type { PortalRequest } from '../../../middleware/types';

const HEADER_NAMES = [
  'Access-Control-Allow-Credentials',
  'Access-Control-Allow-Headers',
  'Access-Control-Allow-Methods',
  'Access-Control-Allow-Origin',
  'Access-Control-Expose-Headers',
  'Access-Control-Max-Age',
  'Vary',
  'vary',
  'Content-Type',
  'WWW-Authenticate',
] as const;

const headerValue = fc.oneof(
  fc.constantFrom('true', 'false', '*', '', 'Origin', 'Accept', 'https://portal.example.com'),
  fc.string({ maxLength: 12 }),
);

const responseHeaders = fc.dictionary(fc.constantFrom(...HEADER_NAMES), headerValue, {
  maxKeys: 6,
});

const response = fc.oneof(
  fc.constant(undefined),
  fc.constant(null),
  fc.string({ maxLength: 8 }),
  fc.record(
    {
      statusCode: fc.constantFrom(200, 401, 403, 500),
      body: fc.string({ maxLength: 8 }),
      headers: responseHeaders,
    },
    { requiredKeys: [] },
  ),
);

const eventHeaders = fc.oneof(
  fc.constant(null),
  fc.constant(undefined),
  fc.dictionary(
    fc.constantFrom('Origin', 'origin', 'Accept'),
    fc.oneof(
      fc.constant(''),
      fc.constant('https://portal.example.com'),
      fc.string({ maxLength: 8 }),
    ),
    { maxKeys: 3 },
  ),
);

const step = fc.record({
  response,
  headers: eventHeaders,
  method: fc.constantFrom('GET', 'PUT', 'OPTIONS'),
  phase: fc.constantFrom('after', 'onError'),
});

type Step = { response: unknown; headers: unknown; method: string; phase: 'after' | 'onError' };

const requestOf = (s: Step): PortalRequest =>
  ({
    event: { httpMethod: s.method, headers: structuredClone(s.headers) },
    context: {},
    response: structuredClone(s.response),
    error: undefined,
    internal: {},
  }) as unknown as PortalRequest;

describe('cors: after and onError equal @middy/http-cors configured as before', () => {
  it.each([
    ['with exposeHeaders', 'Content-Disposition'],
    ['without exposeHeaders', undefined],
  ])('on every sequence of responses and events (%s)', async (_name, exposeHeaders) => {
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 6 }), async (steps) => {
        // Prepare
        const reference = httpCors({
          origin: '*',
          headers: SPEC_CORS_HEADERS['Access-Control-Allow-Headers'],
          methods: SPEC_CORS_HEADERS['Access-Control-Allow-Methods'],
          ...(exposeHeaders ? { exposeHeaders } : {}),
        });
        const ours = cors(exposeHeaders ? { exposeHeaders } : {});
        const setCredentials = (request: PortalRequest) => {
          const headers = request.response?.headers;
          if (headers) headers['Access-Control-Allow-Credentials'] = 'false';
        };
        for (const s of steps as Step[]) {
          const expected = requestOf(s);
          const actual = requestOf(s);
          // Act
          await reference[s.phase]?.(expected as never);
          setCredentials(expected);
          await ours[s.phase]?.(actual);
          // Assess
          expect(actual.response).toStrictEqual(expected.response);
        }
      }),
      { numRuns: 2000 },
    );
  });
});
