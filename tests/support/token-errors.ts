/** The verifier's 401s as the tests expect them: a PortalError's message is its spec 2.6 body. */
import { MESSAGES } from '../../shared/errors';

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
