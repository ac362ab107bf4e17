/**
 * The ownership check (spec 5.4–5.5), written against broken object-level authorisation:
 * the caller may read restaurant `{id}` on platform P only if one restaurant of the token has
 * P among its platforms AND `{id}` is that restaurant's own id or its restaurantId on P.
 * Owning some other restaurant on P is not enough.
 */
import type { IsoDate } from '../dates';
import { forbidden } from '../errors';
import { resolvePlatformId, type LegacyPlatformKeys } from '../platforms';
import type { PortalClaims } from './claims';

export interface AccessRequest {
  /** The restaurant named by the path. */
  readonly restaurantId: string;
  /** Every platform identifier the request sent (its X-Platform-Id values). */
  readonly platformsSent: readonly string[];
}

/** What the caller may read: one restaurant (by our internal id) on one platform. */
export interface Access {
  readonly restaurantId: string;
  readonly platformId: string;
  readonly platformRestaurantId: string;
}

export interface OwnershipRules {
  readonly legacy: LegacyPlatformKeys;
  readonly today: () => IsoDate;
}

/**
 * The one platform the request names: its identifiers resolved (a legacy key to its platformId
 * until the sunset), all naming the same platform; with none sent, the token's first platform.
 * Undefined when a legacy key is past its sunset, or the header and path (or a repeated
 * header) name two platforms.
 */
const requestedPlatform = (
  claims: PortalClaims,
  sent: readonly string[],
  rules: OwnershipRules,
): string | undefined => {
  if (sent.length === 0) return claims.restaurants[0]?.platforms[0]?.platformId;
  const { legacy } = rules;
  let today: IsoDate | undefined;
  let requested: string | undefined;
  for (const value of sent) {
    // An identifier that is no legacy key names itself (platforms.ts): only a legacy key
    // depends on the day, so the clock is read for it alone.
    const named = legacy.aliases.has(value)
      ? resolvePlatformId(value, legacy, (today ??= rules.today()))
      : value;
    if (named === undefined) return undefined; // a legacy key past its sunset
    if (requested !== undefined && named !== requested) return undefined;
    requested = named;
  }
  return requested;
};

export const authorize = (
  claims: PortalClaims,
  request: AccessRequest,
  rules: OwnershipRules,
): Access => {
  const platformId = requestedPlatform(claims, request.platformsSent, rules);
  if (platformId === undefined || platformId === '') throw forbidden();
  // Among the token's restaurants on that platform, the brand's own id wins over a platform's
  // restaurantId when both could match; within each, the first in the token.
  let byOwnId: Access | undefined;
  let byPlatformId: Access | undefined;
  for (const restaurant of claims.restaurants) {
    for (const platform of restaurant.platforms) {
      if (platform.platformId !== platformId) continue;
      if (restaurant.id === request.restaurantId) {
        byOwnId = {
          restaurantId: restaurant.id,
          platformId,
          platformRestaurantId: platform.restaurantId,
        };
        break;
      }
      if (byPlatformId === undefined && platform.restaurantId === request.restaurantId) {
        byPlatformId = {
          restaurantId: restaurant.id,
          platformId,
          platformRestaurantId: platform.restaurantId,
        };
      }
    }
    if (byOwnId !== undefined) break;
  }
  const match = byOwnId ?? byPlatformId;
  if (match === undefined) throw forbidden();
  return match;
};
