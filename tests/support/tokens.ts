/** Tokens for tests, signed by the issuer whose key set the global setup serves. */
import type { JWTPayload } from 'jose';
import { claimsFor, SAMPLE_OWNER, type SampleOwner } from '../../tools/db/sample-data';
import { loadOrCreateIssuer, LOCAL_ISSUER, type LocalIssuer } from '../../tools/local/issuer';

let issuer: Promise<LocalIssuer> | undefined;

/** The run's issuer (the key behind JWKS_URL). */
export const testIssuer = (): Promise<LocalIssuer> => {
  const file = process.env.TEST_ISSUER_KEY_FILE;
  if (!file) throw new Error('TEST_ISSUER_KEY_FILE is not set: is the Jest global setup running?');
  return (issuer ??= loadOrCreateIssuer(file, LOCAL_ISSUER));
};

export const tokenFor = async (
  owner: SampleOwner = SAMPLE_OWNER,
  extra: JWTPayload = {},
  expiresIn: string | number = '5m',
): Promise<string> => (await testIssuer()).sign({ ...claimsFor(owner), ...extra }, { expiresIn });

/** A token with exactly these restaurants in its auth schema. */
export const tokenWithRestaurants = async (
  restaurants: readonly {
    id: string;
    platforms: readonly { restaurantId: string; platformId: string; platformKey?: string }[];
  }[],
): Promise<string> =>
  (await testIssuer()).sign(
    { sub: 'test-owner', authSchema: JSON.stringify({ restaurants }) },
    { expiresIn: '5m' },
  );
