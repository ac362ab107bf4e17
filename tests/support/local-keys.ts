/**
 * Signing keys and stand-in key sets for the auth tests: a fixed list of published keys, held
 * and resolved exactly as createKeySet does (key-set.ts `keyResolver`: jose's
 * createLocalJWKSet), without any fetching.
 */
import { jest } from '@jest/globals';
import { errors, exportJWK, generateKeyPair, type CryptoKey, type JWK } from 'jose';
import {
  keyResolver,
  type Jwk,
  type KeyResolver,
  type KeySet,
  type KeysRemovedListener,
} from '../../shared/auth/key-set';

/** A signing key of the issuer's and its published JWK (with its kid). */
export interface Signer {
  readonly kid: string;
  readonly privateKey: CryptoKey;
  readonly publicJwk: JWK;
}

export const signer = async (kid: string, alg = 'RS256'): Promise<Signer> => {
  const { privateKey, publicKey } = await generateKeyPair(alg);
  return { kid, privateKey, publicJwk: { ...(await exportJWK(publicKey)), kid, use: 'sig' } };
};

/** A KeySet's `getKey` over these keys. */
export const localGetKey = (jwks: readonly Jwk[]): KeyResolver => keyResolver(jwks);

/**
 * The keys `getKey` offers for a token with this `alg` and `kid`: one, none (jose's
 * JWKSNoMatchingKey) or several (JWKSMultipleMatchingKeys, which lists them). Any other
 * rejection passes through.
 */
export const keysFor = async (
  keySet: Pick<KeySet, 'getKey'>,
  alg: string,
  kid?: unknown,
): Promise<CryptoKey[]> => {
  const header = { alg, ...(kid === undefined ? {} : { kid }) } as Parameters<KeyResolver>[0];
  try {
    return [await keySet.getKey(header)];
  } catch (error) {
    if (error instanceof errors.JWKSNoMatchingKey) return [];
    if (error instanceof errors.JWKSMultipleMatchingKeys) {
      const keys: CryptoKey[] = [];
      for await (const key of error as unknown as AsyncIterable<CryptoKey>) keys.push(key);
      return keys;
    }
    throw error;
  }
};

export interface LocalKeySet extends KeySet {
  /** Drops the keys with these kids, as a key-set refresh would, and tells the listeners. */
  remove(kids: readonly string[]): void;
}

/** A whole KeySet over these keys, held from the start; `remove` plays a refresh. */
export const localKeySet = (jwks: readonly Jwk[]): LocalKeySet => {
  let held = [...jwks];
  let getKey = localGetKey(held);
  const listeners = new Set<KeysRemovedListener>();
  return {
    getKey: (header, token) => getKey(header, token),
    prefetch: () => Promise.resolve(), // the keys are held from the start
    check: () => Promise.resolve(),
    onKeysRemoved(listener) {
      listeners.add(listener);
      return () => {
        listeners.delete(listener);
      };
    },
    remove(kids) {
      held = held.filter((key) => typeof key.kid !== 'string' || !kids.includes(key.kid));
      getKey = localGetKey(held);
      const removed = { kids: new Set(kids), withoutKid: false };
      for (const listener of listeners) listener(removed);
    },
  };
};

type GetKey = KeySet['getKey'];

export interface StubKeySet extends LocalKeySet {
  /** Every key lookup: a lookup means a token was verified (again). */
  readonly lookups: jest.Mock<GetKey>;
}

/** A local key set over these keys that counts its key lookups. */
export const stubKeySet = (keys: readonly Jwk[]): StubKeySet => {
  const local = localKeySet(keys);
  const lookups = jest.fn<GetKey>(local.getKey);
  return { ...local, getKey: lookups, lookups };
};
