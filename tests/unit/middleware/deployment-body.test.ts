/**
 * The deployment call's body step (spec 4.6): a JSON body with bundleUrl and portalVersion is
 * handed forward on the context; anything else is the spec's 400 body and the handler is not
 * reached; a handler that reads the deployment without the step is a wiring fault (500).
 */
import { deploymentBody, deploymentOf } from '../../../middleware/deployment-body';
import { errorHandler } from '../../../middleware/error-handler';
import { jsonResult, type GatewayEvent } from '../../../shared/http/event';
import { lambdaContext, restEvent } from '../../support/events';
import { chain, collectingLogger, INTERNAL_BODY, okHandler, type TestHandler } from './fixtures';
import { jest } from '@jest/globals';

const JSON_HEADERS = { 'Content-Type': 'application/json' } as const;

const put = (body: string, contentType = 'application/json'): GatewayEvent => ({
  ...restEvent({
    method: 'PUT',
    resource: '/v1/plugins/{code}',
    pathParameters: { code: 'reports' },
    headers: { 'Content-Type': contentType },
  }),
  body,
});

const echo = () =>
  jest.fn<TestHandler>((_event, context) =>
    Promise.resolve(jsonResult(200, { deployment: deploymentOf(context) })),
  );

const withStep = (handler: TestHandler) =>
  chain()
    .use(errorHandler({ logger: collectingLogger().logger }))
    .use(deploymentBody())
    .handler(handler);

describe('deploymentBody', () => {
  it('hands the parsed request forward', async () => {
    const handler = echo();
    const body = { bundleUrl: 'https://cdn.example.com/eu/reports/a.js', portalVersion: 'v2' };

    const result = await withStep(handler)(put(JSON.stringify(body)), lambdaContext());

    expect(result).toEqual({
      statusCode: 200,
      headers: JSON_HEADERS,
      body: JSON.stringify({ deployment: body }),
    });
  });

  it.each([
    ['a body that is not JSON', put('{'), 'body'],
    ['another content type', put('{}', 'text/plain'), 'Content-Type'],
    [
      'a missing portalVersion',
      put('{"bundleUrl":"https://cdn.example.com/a.js"}'),
      'portalVersion',
    ],
  ])(
    'answers %s with 400 VALIDATION_ERROR and does not reach the handler',
    async (_case, event, field) => {
      const handler = okHandler();

      const result = await withStep(handler)(event, lambdaContext());

      expect(result.statusCode).toBe(400);
      expect(JSON.parse(result.body)).toMatchObject({
        state: 'ERROR',
        code: 'VALIDATION_ERROR',
        errors: [expect.objectContaining({ field })],
      });
      expect(handler).not.toHaveBeenCalled();
    },
  );

  it('is a 500 when a handler reads the deployment of a chain without the step', async () => {
    const lambda = chain()
      .use(errorHandler({ logger: collectingLogger().logger }))
      .handler(echo());

    const result = await lambda(put('{}'), lambdaContext());

    expect(result).toMatchObject({ statusCode: 500, body: INTERNAL_BODY });
  });
});
