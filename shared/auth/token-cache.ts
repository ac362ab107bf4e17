/**
 * The container's cache of verified tokens: the portal fires several calls with the same token,
 * and a repeat need not pay for a second signature verification.
 *
 * - The key is the SHA-256 of the whole compact token (header, payload and signature), so two
 *   tokens that differ anywhere, the signature included, are different entries, and no one can
 *   craft a collision. The value is only what that token itself carries (its parsed claims),
 *   so nothing is shared between tokens, let alone tenants.
 * - Only successful verifications are stored; a refusal leaves no entry.
 * - An entry is served while `notBefore ≤ now < expiresAt`: the validity window the verifier
 *   computed from the verified payload (jose's arithmetic, the clock tolerance included), cut
 *   short at the insertion time plus `maxAgeMs`. A token outside that window when stored is not
 *   stored; an entry found outside it is dropped.
 * - At most `maxEntries` entries: the least recently inserted one makes room for a new one.
 * - `dropKeys` removes every entry a removed key may have verified (the verifier calls it when a
 *   key-set refresh removes keys); a verification that was under way across such a removal is
 *   not stored.
 */
import { hash } from 'node:crypto';
import type { RemovedKeys } from './key-set';

/** Epoch milliseconds from which a verified token is accepted, and from which it is not. */
export interface ValidityWindow {
  /** The first instant its `nbf` allows (-Infinity without `nbf`). */
  readonly notBefore: number;
  /** The first instant it is expired. */
  readonly expiresAt: number;
}

export interface TokenCacheOptions {
  /** Entries held at most (least recently inserted evicted first). */
  readonly maxEntries?: number;
  /** Longest time an entry is served, whatever the token's own expiry. */
  readonly maxAgeMs?: number;
}

export const TOKEN_CACHE_DEFAULTS = { maxEntries: 1_000, maxAgeMs: 60_000 } as const;

/** What a verification established about a token, besides its claims. */
export interface VerifiedToken {
  /** The `kid` of the token's protected header (undefined when it has none). */
  readonly kid: string | undefined;
  /** Epoch milliseconds in which the verifier accepts the token. */
  readonly window: ValidityWindow;
}

export interface TokenCache<T> {
  /** The cached value for this token, if an entry is live at `now`. */
  get(token: string, now: number): T | undefined;
  /** A marker to take before verifying and hand to `set` (see `dropKeys`). */
  generation(): number;
  /** Stores a verified token's value, unless keys were removed since `generation`. */
  set(token: string, value: T, verified: VerifiedToken, now: number, generation: number): void;
  /** Drops every entry a removed key may have verified. */
  dropKeys(removed: RemovedKeys): void;
  readonly size: () => number;
}

interface Entry<T> {
  readonly value: T;
  readonly kid: string | undefined;
  readonly notBefore: number;
  readonly expiresAt: number;
}

/** SHA-256 of the whole token, in base64 (one-shot `crypto.hash`: no Hash object per call). */
export const tokenKey = (token: string): string => hash('sha256', token, 'base64');

const positiveInteger = (value: number, name: string): number => {
  if (!Number.isSafeInteger(value) || value < 1) {
    throw new TypeError(`${name} must be a positive integer`);
  }
  return value;
};

export const createTokenCache = <T>(options: TokenCacheOptions = {}): TokenCache<T> => {
  const maxEntries = positiveInteger(
    options.maxEntries ?? TOKEN_CACHE_DEFAULTS.maxEntries,
    'maxEntries',
  );
  const maxAgeMs = positiveInteger(options.maxAgeMs ?? TOKEN_CACHE_DEFAULTS.maxAgeMs, 'maxAgeMs');
  const entries = new Map<string, Entry<T>>();
  let generation = 0;

  return {
    get(token, now) {
      const key = tokenKey(token);
      const entry = entries.get(key);
      if (entry === undefined) return undefined;
      if (now < entry.expiresAt && now >= entry.notBefore) return entry.value;
      entries.delete(key);
      return undefined;
    },
    generation: () => generation,
    set(token, value, verified, now, since) {
      if (since !== generation) return;
      const { notBefore } = verified.window;
      const expiresAt = Math.min(now + maxAgeMs, verified.window.expiresAt);
      if (!(now < expiresAt && now >= notBefore)) return;
      const key = tokenKey(token);
      entries.delete(key);
      if (entries.size >= maxEntries) {
        const oldest = entries.keys().next();
        if (oldest.done !== true) entries.delete(oldest.value);
      }
      entries.set(key, { value, kid: verified.kid, notBefore, expiresAt });
    },
    dropKeys(removed) {
      if (removed.kids.size === 0 && !removed.withoutKid) return;
      generation += 1;
      // A token with a kid is verified only by a key with that kid; an entry without one
      // (the verifier stores none: it refuses such tokens) may be any key's.
      for (const [key, entry] of entries) {
        if (entry.kid === undefined || removed.kids.has(entry.kid)) entries.delete(key);
      }
    },
    size: () => entries.size,
  };
};
