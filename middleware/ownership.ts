/**
 * Ownership (spec 5.4–5.5): the path's restaurant must belong to the caller on the requested
 * platform (X-Platform-Id in any case; otherwise the token's first platform). An empty `{id}`
 * is a validation error, not a 403.
 */
import { authorize, type OwnershipRules } from '../shared/auth/ownership';
import { cannotBeEmpty, validationError } from '../shared/errors';
import { headerValues, pathParameter } from '../shared/http/event';
import { requireState, stateOf, type PortalMiddleware, type PortalRequest } from './types';

export interface OwnershipOptions {
  readonly rules: OwnershipRules;
}

export const PLATFORM_HEADER = 'X-Platform-Id';

/**
 * API Gateway decodes path parameters; one that still holds a `%` not followed by two hex
 * digits came from a malformed percent-encoding the gateway passed through undecoded.
 */
const hasMalformedEscape = (value: string): boolean =>
  value.includes('%') && /%(?![0-9A-Fa-f]{2})/.test(value);

export const ownership = ({ rules }: OwnershipOptions): PortalMiddleware => {
  const ownershipBefore = (request: PortalRequest) => {
    const restaurantId = pathParameter(request.event, 'id') ?? '';
    if (restaurantId.trim() === '') throw validationError([cannotBeEmpty('id')]);
    if (hasMalformedEscape(restaurantId)) {
      throw validationError([
        { field: 'id', code: 'INVALID_ENCODING', message: 'id is not validly percent-encoded' },
      ]);
    }
    // An empty header names no platform: the token's first platform applies (spec 5.5).
    const platformsSent: string[] = [];
    for (const value of headerValues(request.event, PLATFORM_HEADER)) {
      const trimmed = value.trim();
      if (trimmed !== '') platformsSent.push(trimmed);
    }
    stateOf(request.context).access = authorize(
      requireState(request.context, 'claims'),
      { restaurantId, platformsSent },
      rules,
    );
  };
  return { before: ownershipBefore };
};
