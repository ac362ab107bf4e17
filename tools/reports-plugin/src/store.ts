/**
 * A value many parts of the plugin read and one part writes, with observers (spec 9.1: the
 * current restaurant lives in one central store that the SDK observer updates).
 */
export interface Store<T> {
  get(): T;
  set(value: T): void;
  /** Calls `listener` on every later change; returns the function that removes it. */
  subscribe(listener: (value: T) => void): () => void;
}

export const createStore = <T>(initial: T): Store<T> => {
  let value = initial;
  const listeners = new Set<(value: T) => void>();
  return {
    get: () => value,
    set(next) {
      if (Object.is(next, value)) return;
      value = next;
      for (const listener of [...listeners]) listener(value);
    },
    subscribe(listener) {
      listeners.add(listener);
      return () => {
        listeners.delete(listener);
      };
    },
  };
};
