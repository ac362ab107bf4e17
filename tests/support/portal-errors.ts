/**
 * What the unit tests of the shared steps expect of a refusal: the PortalError a step throws,
 * and the spec 2.6 bodies and validation entries it carries.
 */
import { PortalError, type ErrorBody, type ValidationEntry } from '../../shared/errors';

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
