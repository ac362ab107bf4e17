/**
 * The verified JWT payload (spec 2.2), parsed into the typed claims the service uses. Only
 * what authorisation needs is kept: user details (name, email) are never copied out, so they
 * cannot reach a log or a response.
 */
import { tokenUnverifiable } from '../errors';

/** A verified JWT claims set (jose's JWTPayload is one): members not yet read. */
export type JsonObject = Readonly<Record<string, unknown>>;

export interface PlatformGrant {
  readonly restaurantId: string;
  readonly platformId: string;
  readonly platformKey: string;
}

export interface RestaurantGrant {
  readonly id: string;
  readonly platforms: readonly PlatformGrant[];
}

export interface PortalClaims {
  readonly sub?: string;
  readonly exp: number;
  readonly restaurants: readonly RestaurantGrant[];
}

/** The auth schema of one token may not exceed this many characters once decoded. */
const MAX_AUTH_SCHEMA_LENGTH = 64 * 1024;

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const nonEmptyString = (value: unknown): value is string =>
  typeof value === 'string' && value.length > 0;

const parsePlatform = (value: unknown): PlatformGrant | undefined => {
  if (!isObject(value)) return undefined;
  const { restaurantId, platformId, platformKey } = value;
  if (!nonEmptyString(restaurantId) || !nonEmptyString(platformId)) return undefined;
  if (platformKey !== undefined && typeof platformKey !== 'string') return undefined;
  return { restaurantId, platformId, platformKey: platformKey ?? platformId };
};

const parseRestaurant = (value: unknown): RestaurantGrant | undefined => {
  if (!isObject(value)) return undefined;
  const { id, platforms } = value;
  if (!nonEmptyString(id) || !Array.isArray(platforms)) return undefined;
  const parsed = platforms.map(parsePlatform);
  if (parsed.some((platform) => platform === undefined)) return undefined;
  return { id, platforms: parsed as PlatformGrant[] };
};

const decodeAuthSchema = (value: unknown): unknown => {
  if (typeof value !== 'string') return value;
  if (value.length > MAX_AUTH_SCHEMA_LENGTH) return undefined;
  try {
    return JSON.parse(value) as unknown;
  } catch {
    return undefined;
  }
};

/**
 * Typed claims of a payload whose signature and times were already verified. A payload that
 * does not carry a readable auth schema is refused as an unsupported token (401): it grants
 * nothing we could check.
 */
export const parseClaims = (payload: JsonObject): PortalClaims => {
  const schema = decodeAuthSchema(payload.authSchema);
  const restaurants = isObject(schema) ? schema.restaurants : undefined;
  if (!Array.isArray(restaurants) || typeof payload.exp !== 'number') throw tokenUnverifiable();
  const parsed = restaurants.map(parseRestaurant);
  if (parsed.some((restaurant) => restaurant === undefined)) throw tokenUnverifiable();
  return {
    ...(typeof payload.sub === 'string' ? { sub: payload.sub } : {}),
    exp: payload.exp,
    restaurants: parsed as RestaurantGrant[],
  };
};
