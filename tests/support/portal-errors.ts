/**
 * What the tests expect of a refusal: the PortalError a step throws, and the spec 2.6 bodies
 * and validation entries it carries, in the spec's words.
 */
import {
  PortalError,
  type ErrorBody,
  type ErrorCode,
  type ValidationEntry,
} from '../../shared/errors';

/** The PortalError `act` throws; fails the test when it throws nothing or anything else. */
export const portalErrorOf = (act: () => unknown): PortalError => {
  try {
    act();
  } catch (error) {
    if (error instanceof PortalError) return error;
    throw error;
  }
  throw new Error('expected a PortalError, but nothing was thrown');
};

/** The codes of spec section 7, in its order. */
export const SPEC_CODES: readonly ErrorCode[] = [
  'OUT_OF_RANGE',
  'VALIDATION_ERROR',
  'TOKEN_INVALID',
  'TOKEN_EXPIRED',
  'FORBIDDEN',
  'INTERNAL_ERROR',
];

const errorBody = (code: ErrorCode, message: string): ErrorBody => ({
  state: 'ERROR',
  code,
  message,
});

/** The spec 2.6 body of each refusal but VALIDATION_ERROR. */
export const BODIES = {
  bearerMissing: errorBody(
    'TOKEN_INVALID',
    'Authorization header is invalid. Did you forget to add "Bearer "?',
  ),
  unverifiable: errorBody('TOKEN_INVALID', 'The provided token cannot be verified'),
  expired: errorBody('TOKEN_EXPIRED', 'The provided token has expired'),
  forbidden: errorBody('FORBIDDEN', 'Forbidden'),
  daysOutOfRange: errorBody('OUT_OF_RANGE', 'Only 31 days can be selected'),
  monthsOutOfRange: errorBody('OUT_OF_RANGE', 'Only 12 months can be selected'),
  internal: errorBody('INTERNAL_ERROR', 'Unknown error'),
} as const;

/** A VALIDATION_ERROR body with these entries. */
export const validation = (...errors: ValidationEntry[]): ErrorBody => ({
  state: 'ERROR',
  code: 'VALIDATION_ERROR',
  message: 'Error',
  errors,
});

export const emptyField = (field: string): ValidationEntry => ({
  field,
  code: 'FIELD_CANNOT_BE_EMPTY',
  message: `${field} cannot be empty`,
});

export const repeatedField = (field: string): ValidationEntry => ({
  field,
  code: 'FIELD_REPEATED',
  message: `${field} must be given once`,
});
