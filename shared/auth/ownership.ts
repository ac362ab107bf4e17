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
  /** Every platform identifier the request sent (X-Platform-Id values, path platformId). */
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

const requestedPlatform = (
  claims: PortalClaims,
  sent: readonly string[],
  rules: OwnershipRules,
): string | undefined => {
  if (sent.length === 0) return claims.restaurants[0]?.platforms[0]?.platformId;
  const today = rules.today();
  const named = sent.map((value) => resolvePlatformId(value, rules.legacy, today));
  if (named.includes(undefined)) return undefined; // a legacy key past its sunset
  const distinct = new Set(named);
  // Header and path disagree, or a repeated header names two platforms.
  return distinct.size === 1 ? named[0] : undefined;
};

export const authorize = (
  claims: PortalClaims,
  request: AccessRequest,
  rules: OwnershipRules,
): Access => {
  const platformId = requestedPlatform(claims, request.platformsSent, rules);
  if (platformId === undefined || platformId === '') throw forbidden();
  const candidates = claims.restaurants.flatMap((restaurant) =>
    restaurant.platforms
      .filter((platform) => platform.platformId === platformId)
      .map((platform) => ({ restaurant, platform })),
  );
  // The brand's own id wins over a platform's restaurantId when both could match.
  const match =
    candidates.find(({ restaurant }) => restaurant.id === request.restaurantId) ??
    candidates.find(({ platform }) => platform.restaurantId === request.restaurantId);
  if (!match) throw forbidden();
  return {
    restaurantId: match.restaurant.id,
    platformId,
    platformRestaurantId: match.platform.restaurantId,
  };
};
