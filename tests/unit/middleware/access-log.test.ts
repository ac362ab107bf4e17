import { accessLog } from '../../../middleware/access-log';
import { baseChain } from '../../../middleware/compose';
import { forbidden } from '../../../shared/errors';
import { lambdaContext, restEvent } from '../../support/events';
import { collectingLogger, okHandler, ORDERS_ROUTE } from './fixtures';

const TOKEN = 'eyJhbGciOiJSUzI1NiJ9.eyJlbWFpbCI6Im93bmVyQGV4YW1wbGUuY29tIn0.c2ln';

const chainLogging = () => {
  const log = collectingLogger();
  return { log, base: baseChain({ logger: log.logger }) };
};

describe('accessLog', () => {
  it('writes one line per request with its id, route, method, status, latency and cold start', async () => {
    const log = collectingLogger();
    const times = [100, 112.34, 200, 203];
    const access = accessLog({ logger: log.logger, now: () => times.shift() ?? 0 });
    const { default: middy } = await import('@middy/core');
    const lambda = middy(access.plugin).use(access.middleware).handler(okHandler());
    const event = restEvent({
      resource: ORDERS_ROUTE,
      pathParameters: { id: 'R-1001' },
      headers: { Authorization: `Bearer ${TOKEN}` },
      query: { from: '2026-01-01', to: '2026-01-02' },
    });

    await lambda(event, lambdaContext());
    await lambda(event, lambdaContext());

    expect(log.untimed()).toEqual([
      {
        level: 'info',
        message: 'request',
        requestId: event.requestContext.requestId,
        awsRequestId: expect.any(String) as unknown,
        route: `GET ${ORDERS_ROUTE}`,
        method: 'GET',
        status: 200,
        latencyMs: 12.3,
        coldStart: true,
      },
      expect.objectContaining({ status: 200, latencyMs: 3, coldStart: false }) as unknown,
    ]);
    expect(log.lines.join('\n')).not.toMatch(/R-1001|2026-01-01|eyJ|owner@example\.com/);
  });

  it('logs a preflight that CORS answered early, and the code of a refusal', async () => {
    const { log, base } = chainLogging();
    const refusing = base.handler(() => Promise.reject(forbidden()));

    await refusing(restEvent({ method: 'OPTIONS', resource: ORDERS_ROUTE }), lambdaContext());
    await refusing(restEvent({ resource: ORDERS_ROUTE }), lambdaContext());

    const lines = log.entries().filter((entry) => entry.message === 'request');
    expect(lines.map(({ method, status, code }) => ({ method, status, code }))).toEqual([
      { method: 'OPTIONS', status: 200, code: undefined },
      { method: 'GET', status: 403, code: 'FORBIDDEN' },
    ]);
  });
});
