/**
 * A fixed set of published keys as a KeySet's `keysFor`, for stand-in key sets in unit tests:
 * imported and selected exactly as createKeySet does, without any fetching.
 */
import { importVerificationKey, JwtVerificationError, selectKeys } from '../../shared/auth/jws';
import type { JsonObject } from '../../shared/auth/jws';
import type { KeySet } from '../../shared/auth/key-set';

export const localKeysFor = (jwks: readonly JsonObject[]): KeySet['keysFor'] => {
  const keys = jwks.flatMap((jwk) => importVerificationKey(jwk) ?? []);
  return (alg, kid) => {
    const held = selectKeys(keys, alg, kid);
    return held.length > 0
      ? Promise.resolve(held)
      : Promise.reject(new JwtVerificationError('ERR_JWKS_NO_MATCHING_KEY', 'no key fits'));
  };
};
