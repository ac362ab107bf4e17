import { jest } from '@jest/globals';
import { errorHandler } from '../../../middleware/error-handler';
import { verifyJwt } from '../../../middleware/verify-jwt';
import type { Verifier } from '../../../shared/auth/verifier';
import {
  internalError,
  tokenExpired,
  tokenUnverifiable,
  type PortalError,
} from '../../../shared/errors';
import { claimsOf, grant } from '../../support/claims';
import { lambdaContext, restEvent } from '../../support/events';
import {
  chain,
  collectingLogger,
  INTERNAL_BODY,
  INVALID_TOKEN_CHALLENGE,
  ORDERS_ROUTE,
  presetToken,
  SAMPLE_JWT,
  stateEcho,
  TOKEN_EXPIRED_BODY,
  TOKEN_UNVERIFIABLE_BODY,
} from './fixtures';

const CLAIMS = claimsOf([grant('R-1001', [['TB_AE', 'tb-ae-5501']])]);

const event = () => restEvent({ resource: ORDERS_ROUTE, pathParameters: { id: 'R-1001' } });

const setup = (verifier: Verifier, token: string | null = SAMPLE_JWT) => {
  const handler = stateEcho('claims');
  const base = chain().use(errorHandler({ logger: collectingLogger().logger }));
  const lambda = (token === null ? base : base.use(presetToken(token)))
    .use(verifyJwt({ verifier }))
    .handler(handler);
  return { handler, lambda };
};

describe('verifyJwt', () => {
  it('hands the verified claims forward on the state', async () => {
    // Prepare
    const verifier = jest.fn<Verifier>(() => Promise.resolve(CLAIMS));
    const { lambda } = setup(verifier);
    const context = lambdaContext();

    // Act
    const response = await lambda(event(), context);

    // Assess
    expect(response).toStrictEqual({
      statusCode: 200,
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ claims: CLAIMS }),
    });
    expect(verifier).toHaveBeenCalledTimes(1);
    expect(verifier).toHaveBeenCalledWith(SAMPLE_JWT);
  });

  it.each<[string, () => PortalError, number, Record<string, string>, string]>([
    ['an expired token', tokenExpired, 401, INVALID_TOKEN_CHALLENGE, TOKEN_EXPIRED_BODY],
    [
      'an unverifiable token',
      () => tokenUnverifiable(new Error('signature verification failed')),
      401,
      INVALID_TOKEN_CHALLENGE,
      TOKEN_UNVERIFIABLE_BODY,
    ],
    [
      'an unavailable key set',
      () => internalError(new Error('key set host unreachable')),
      500,
      {},
      INTERNAL_BODY,
    ],
  ])(
    'lets the verifier refusal for %s through unchanged, without reaching the handler',
    async (_name, make, status, headers, body) => {
      // Prepare
      const verifier = jest.fn<Verifier>(() => Promise.reject(make()));
      const { lambda, handler } = setup(verifier);

      // Act
      const response = await lambda(event(), lambdaContext());

      // Assess
      expect(response).toStrictEqual({
        statusCode: status,
        headers: { 'Content-Type': 'application/json', ...headers },
        body,
      });
      expect(handler).not.toHaveBeenCalled();
    },
  );

  it('rethrows the very error object the verifier threw', async () => {
    // Prepare
    const refusal = tokenExpired(new Error('exp'));
    const handler = stateEcho('claims');
    const lambda = chain()
      .use(presetToken(SAMPLE_JWT))
      .use(verifyJwt({ verifier: () => Promise.reject(refusal) }))
      .handler(handler);

    // Act
    const run = lambda(event(), lambdaContext());

    // Assess
    await expect(run).rejects.toBe(refusal);
    expect(handler).not.toHaveBeenCalled();
  });

  it('answers 500 without calling the verifier when no earlier step stored a token', async () => {
    // Prepare
    const verifier = jest.fn<Verifier>(() => Promise.resolve(CLAIMS));
    const { lambda, handler } = setup(verifier, null);

    // Act
    const response = await lambda(event(), lambdaContext());

    // Assess
    expect(response).toStrictEqual({
      statusCode: 500,
      headers: { 'Content-Type': 'application/json' },
      body: INTERNAL_BODY,
    });
    expect(verifier).not.toHaveBeenCalled();
    expect(handler).not.toHaveBeenCalled();
  });
});
