/**
 * Stand-in key sets for unit tests: a fixed list of published keys, imported and selected
 * exactly as createKeySet does (keys.ts), without any fetching.
 */
import type { KeySet, KeysRemovedListener } from '../../shared/auth/key-set';
import {
  importVerificationKey,
  selectKeys,
  type Jwk,
  type KeyLookup,
} from '../../shared/auth/keys';

/** A KeySet's `keysFor` over these keys: an empty list when none fits. */
export const localKeysFor = (jwks: readonly Jwk[]): KeyLookup => {
  const keys = jwks.flatMap((jwk) => importVerificationKey(jwk) ?? []);
  return (alg, kid) => Promise.resolve(selectKeys(keys, alg, kid));
};

export interface LocalKeySet extends KeySet {
  /** Drops the keys with these kids, as a key-set refresh would, and tells the listeners. */
  remove(kids: readonly string[]): void;
}

/** A whole KeySet over these keys, held from the start; `remove` plays a refresh. */
export const localKeySet = (jwks: readonly Jwk[]): LocalKeySet => {
  let held = [...jwks];
  let keysFor = localKeysFor(held);
  const listeners = new Set<KeysRemovedListener>();
  return {
    keysFor: (alg, kid) => keysFor(alg, kid),
    prefetch: () => Promise.resolve(), // the keys are held from the start
    onKeysRemoved(listener) {
      listeners.add(listener);
      return () => {
        listeners.delete(listener);
      };
    },
    remove(kids) {
      held = held.filter((key) => typeof key.kid !== 'string' || !kids.includes(key.kid));
      keysFor = localKeysFor(held);
      const removed = { kids: new Set(kids), withoutKid: false };
      for (const listener of listeners) listener(removed);
    },
  };
};
