/**
 * The registry's parameters (spec 4.4, 9): `portalVersion`, `v1` or `v2`, `v1` when absent or
 * empty. Any other value, or the parameter sent more than once, is a validation error.
 */
import { validationError, type ValidationEntry } from '../errors';
import type { ParameterReader } from '../http/event';
import { DEFAULT_PORTAL_VERSION, isPortalVersion, type PortalVersion } from './registry';

export interface PluginParameters {
  readonly portalVersion: PortalVersion;
}

export const PORTAL_VERSION_PARAMETER = 'portalVersion';

export const invalidPortalVersion = (field: string): ValidationEntry => ({
  field,
  code: 'INVALID_VALUE',
  message: `${field} must be v1 or v2`,
});

export const parsePluginParameters = (read: ParameterReader): PluginParameters => {
  const values = read(PORTAL_VERSION_PARAMETER);
  if (values.length > 1) {
    throw validationError([
      {
        field: PORTAL_VERSION_PARAMETER,
        code: 'FIELD_REPEATED',
        message: `${PORTAL_VERSION_PARAMETER} must be given once`,
      },
    ]);
  }
  const [value = ''] = values;
  if (value === '') return { portalVersion: DEFAULT_PORTAL_VERSION };
  if (!isPortalVersion(value))
    throw validationError([invalidPortalVersion(PORTAL_VERSION_PARAMETER)]);
  return { portalVersion: value };
};
