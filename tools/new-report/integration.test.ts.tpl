/**
 * __PATH__ through its real handler, with API Gateway events, against the run's database and
 * key-set server: the answer, and the contract every endpoint keeps (spec 4.3, 7).
 */
import type { APIGatewayProxyResult } from 'aws-lambda';
import { handler } from '../../../functions/__NAME__';
import { SAMPLE_OWNERS, type SampleOwner } from '../../../tools/db/sample-data';
import { addDays, todayIn } from '../../../tools/dates';
import { closeContainerDependencies } from '../../../shared/runtime';
import { jsonBody, lambdaContext, restEvent } from '../../support/events';
import { tokenFor } from '../../support/tokens';

const [owner1] = SAMPLE_OWNERS as [SampleOwner];
const RESOURCE = '__PATH__';
type Handler = (event: unknown, context: unknown) => Promise<APIGatewayProxyResult>;
const invoke = (event: unknown) => (handler as Handler)(event, lambdaContext());
const week = () => {
  const today = todayIn('Asia/Dubai');
  return { from: addDays(today, -6), to: today };
};
const request = (id: string, headers: Record<string, string>, query: Record<string, string>) =>
  restEvent({ resource: RESOURCE, pathParameters: { id }, headers, query });

afterAll(closeContainerDependencies);

describe('GET __PATH__', () => {
  it("answers the owner with the restaurant's rows", async () => {
    const token = await tokenFor(owner1);

    const result = await invoke(request('R-1001', { Authorization: `Bearer ${token}` }, week()));

    expect(result.statusCode).toBe(200);
    expect((jsonBody(result) as { data: unknown[] }).data.length).toBeGreaterThan(0);
  });

  it('answers OPTIONS with 200 and the CORS headers of spec 4.3', async () => {
    const result = await invoke(restEvent({ method: 'OPTIONS', resource: RESOURCE, pathParameters: { id: 'R-1001' } }));

    expect(result.statusCode).toBe(200);
    expect(result.headers).toMatchObject({
      'Access-Control-Allow-Origin': '*',
      'Access-Control-Allow-Headers': 'Content-Type,Authorization',
      'Access-Control-Allow-Methods': 'OPTIONS,GET',
      'Access-Control-Allow-Credentials': 'false',
    });
  });

  it.each([
    ['no token', 'R-1001', false, week, 401, 'TOKEN_INVALID'],
    ["another owner's restaurant", 'R-2001', true, week, 403, 'FORBIDDEN'],
    ['missing dates', 'R-1001', true, () => ({}), 400, 'VALIDATION_ERROR'],
  ] as const)('refuses %s with the spec error body and the CORS header', async (_case, id, withToken, query, status, code) => {
    const headers: Record<string, string> = withToken ? { Authorization: `Bearer ${await tokenFor(owner1)}` } : {};

    const result = await invoke(request(id, headers, query()));

    expect(result.statusCode).toBe(status);
    expect(result.headers).toMatchObject({ 'Access-Control-Allow-Origin': '*' });
    expect(jsonBody(result)).toMatchObject({ state: 'ERROR', code });
  });
});
