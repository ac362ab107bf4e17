/** Verified claims (shared/auth/claims.ts) as the auth and middleware unit tests hand them on. */
import type { PortalClaims, RestaurantGrant } from '../../shared/auth/claims';

/**
 * A restaurant on these platforms, each `[platformId, restaurantId, platformKey]`, the key the
 * platformId itself unless given.
 */
export const grant = (
  id: string,
  platforms: readonly (readonly [platformId: string, restaurantId: string, platformKey?: string])[],
): RestaurantGrant => ({
  id,
  platforms: platforms.map(([platformId, restaurantId, platformKey = platformId]) => ({
    restaurantId,
    platformId,
    platformKey,
  })),
});

/** owner-1's claims, granting these restaurants, expiring at `exp`. */
export const claimsOf = (
  restaurants: readonly RestaurantGrant[],
  exp = 1_800_000_000,
): PortalClaims => ({ sub: 'owner-1', exp, restaurants });
