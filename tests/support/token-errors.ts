/**
 * The verifier's refusals as the tests expect them: a PortalError's message is its spec 2.6
 * body, as @middy/http-error-handler sends it.
 */
import { MESSAGES, PortalError } from '../../shared/errors';

const bodyOf = (code: string, message: string): string =>
  JSON.stringify({ state: 'ERROR', code, message });

export const INVALID = {
  statusCode: 401,
  code: 'TOKEN_INVALID',
  message: bodyOf('TOKEN_INVALID', MESSAGES.tokenUnverifiable),
};

export const EXPIRED = {
  statusCode: 401,
  code: 'TOKEN_EXPIRED',
  message: bodyOf('TOKEN_EXPIRED', MESSAGES.tokenExpired),
};

export const INTERNAL = {
  statusCode: 500,
  code: 'INTERNAL_ERROR',
  message: bodyOf('INTERNAL_ERROR', MESSAGES.internal),
};

/** The error a verification was refused with; fails the test when it was not a PortalError. */
export const refusalOf = async (verification: Promise<unknown>): Promise<PortalError> => {
  const outcome = await verification.then(
    () => new Error('the token was accepted'),
    (error: unknown) => error,
  );
  expect(outcome).toBeInstanceOf(PortalError);
  return outcome as PortalError;
};
