/**
 * The environment's published JSON Web Key set (spec 4.5, 5.2), fetched once per container and
 * shared by every invocation it serves.
 *
 * - Keys are fresh for `maxAgeMs` (spec 8: 3600 s); one fetch is in flight at a time. A `kid` we
 *   do not hold refetches at most once per `cooldownMs`, counted from the last attempt, so
 *   random kids cannot make us hammer the key-set host.
 * - A failed refresh keeps the last good set serving for up to `staleMs`; with nothing usable
 *   the set is unavailable (a 500), answered at once for `failureBackoffMs` after the failure.
 * - Only public signature keys of usable strength are held, as a jose `createLocalJWKSet`,
 *   which picks the key for a token's `alg` and `kid`; no key, or several, is the token's fault.
 * - A refresh that drops a key the previous set held (or re-uses its kid for other key
 *   material) tells the `onKeysRemoved` listeners, so caches of verified tokens forget what it
 *   verified.
 * - Each failed fetch writes one `key set fetch failed` line, the only source of the
 *   `KeySetFailures` metric (shared/metrics.ts). The prefetch at initialisation is a head start,
 *   never a verdict (Lambda may freeze the environment past the fetch's timeout): its failure is
 *   one info line with no metric and no back-off, and a lookup waiting for it fetches again.
 */
import {
  createLocalJWKSet,
  errors,
  type CryptoKey,
  type FlattenedJWSInput,
  type JSONWebKeySet,
  type JWSHeaderParameters,
} from 'jose';
import { fetchKeySetBody } from './fetch-key-set';
import { describeError, type Logger } from '../logger';
import type { Metrics } from '../metrics';

export interface KeySetOptions {
  readonly url: URL;
  readonly maxAgeMs?: number;
  readonly staleMs?: number;
  readonly cooldownMs?: number;
  readonly timeoutMs?: number;
  readonly maxBytes?: number;
  readonly failureBackoffMs?: number;
  readonly logger: Logger;
  /** The container's metrics: each failed fetch counts `KeySetFailures`. */
  readonly metrics?: Metrics;
  readonly now?: () => number;
}

export const KEY_SET_DEFAULTS = {
  maxAgeMs: 3_600_000,
  staleMs: 86_400_000,
  cooldownMs: 30_000,
  timeoutMs: 2_000,
  maxBytes: 64 * 1024,
  failureBackoffMs: 5_000,
} as const;

/** Our side failed: no key set could be had. Mapped to 500, never to a 401. */
export class KeySetUnavailableError extends Error {
  override readonly name = 'KeySetUnavailableError';
  readonly code = 'ERR_KEY_SET_UNAVAILABLE';
}

/** A JSON Web Key as parsed from the key set: an object, members not yet checked. */
export type Jwk = Readonly<Record<string, unknown>>;

/** A published JSON Web Key, as parsed (members unchecked beyond being a signature key). */
type PublishedKey = Jwk & { readonly kty: string; readonly kid?: unknown };

/** jose's key resolver (`jwtVerify`'s second argument): the one key for a token's header. */
export type KeyResolver = (
  protectedHeader: JWSHeaderParameters,
  token?: FlattenedJWSInput,
) => Promise<CryptoKey>;

export interface KeySet {
  /**
   * The held key for a token's `alg` and `kid`, chosen by jose's `createLocalJWKSet`; a kid the
   * set does not hold triggers one refetch (outside the cooldown). Rejects with jose's
   * JWKSNoMatchingKey or JWKSMultipleMatchingKeys when none or several fit, and with
   * KeySetUnavailableError when no set is held.
   */
  readonly getKey: KeyResolver;
  /**
   * Starts loading the set if nothing is held yet (container initialisation); resolves once
   * that load has settled, never rejects.
   */
  prefetch(): Promise<void>;
  /**
   * Calls `listener` after each refresh that removed keys (by kid; `withoutKid` when a removed
   * key had none). Returns the unsubscribe function.
   */
  readonly onKeysRemoved: (listener: KeysRemovedListener) => () => void;
  /**
   * Resolves once a usable set is held, fetching it as a request would (the same staleness,
   * cooldown and backoff); rejects with KeySetUnavailableError when none can be: the health
   * check of the release's hook and the heartbeat.
   */
  check(): Promise<void>;
}

export interface RemovedKeys {
  readonly kids: ReadonlySet<string>;
  readonly withoutKid: boolean;
}

export type KeysRemovedListener = (removed: RemovedKeys) => void;

interface Loaded {
  /** The set's usable keys, each imported by jose on first use. */
  readonly resolve: KeyResolver;
  readonly kids: ReadonlySet<string>;
  /** Each key's canonical JSON, with its kid: tells a removed or re-keyed kid apart. */
  readonly fingerprints: ReadonlyMap<string, string | undefined>;
  readonly fetchedAt: number;
}

/** The key's members in sorted order, so the same key always gives the same text. */
const fingerprint = (key: Jwk): string =>
  JSON.stringify(Object.fromEntries(Object.entries(key).sort(([a], [b]) => (a < b ? -1 : 1))));

const removedBetween = (before: Loaded, after: Loaded): RemovedKeys => {
  const kids = new Set<string>();
  let withoutKid = false;
  for (const [print, kid] of before.fingerprints) {
    if (after.fingerprints.has(print)) continue;
    if (kid === undefined) withoutKid = true;
    else kids.add(kid);
  }
  return { kids, withoutKid };
};

const isSigningKey = (key: Jwk): key is PublishedKey =>
  typeof key.kty === 'string' && key.kty !== 'oct' && (key.use === undefined || key.use === 'sig');

/** Members that make a JWK private (or symmetric): such a key never verifies a token. */
const PRIVATE_MEMBERS = ['d', 'p', 'q', 'dp', 'dq', 'qi', 'oth', 'k', 'priv'] as const;

/** RFC 7518 3.3, 3.5: RSA keys under 2048 bits must not verify (jose throws a TypeError). */
const MIN_RSA_BITS = 2048;

/** Bits of a base64url big-endian modulus, leading zero bytes not counted. */
const modulusBits = (n: string): number => {
  const hex = Buffer.from(n, 'base64url').toString('hex');
  return hex === '' ? 0 : BigInt(`0x${hex}`).toString(2).length;
};

/** A public key we may hold: no private members, and an RSA modulus of usable strength. */
const isHeldKey = (key: PublishedKey): boolean =>
  !PRIVATE_MEMBERS.some((member) => Object.hasOwn(key, member)) &&
  (key.kty !== 'RSA' || (typeof key.n === 'string' && modulusBits(key.n) >= MIN_RSA_BITS));

/**
 * jose's resolver over these published keys (the set's own, or a test's). A key that cannot be
 * imported (malformed material) refuses the token as jose's JWKSInvalid.
 */
export const keyResolver = (published: readonly Jwk[]): KeyResolver => {
  const local = createLocalJWKSet({
    keys: published.filter(isSigningKey).filter(isHeldKey),
  } as JSONWebKeySet);
  return async (protectedHeader, token) => {
    try {
      return await local(protectedHeader, token);
    } catch (error) {
      if (error instanceof errors.JOSEError) throw error;
      throw new errors.JWKSInvalid('the key of the set cannot be imported', { cause: error });
    }
  };
};

/**
 * The set's signature keys (a symmetric key must never verify a token); a body without any is
 * a failed fetch.
 */
const parseKeySet = (body: string): readonly PublishedKey[] => {
  const parsed = JSON.parse(body) as unknown;
  const keys = (parsed as { keys?: unknown } | null)?.keys;
  if (!Array.isArray(keys)) throw new TypeError('key set has no keys array');
  // An entry that is no object has no string kty, so isSigningKey refuses it; only null throws.
  const usable = keys.filter(
    (key: unknown): key is PublishedKey => key !== null && isSigningKey(key as Jwk),
  );
  if (usable.length === 0) throw new TypeError('key set has no signature keys');
  return usable;
};

export const createKeySet = (options: KeySetOptions): KeySet => {
  const settings = { ...KEY_SET_DEFAULTS, ...options };
  const now = settings.now ?? Date.now;
  const { logger } = settings;
  const failureMetric = settings.metrics?.keySetFailure;
  let loaded: Loaded | undefined;
  let inflight: Promise<Loaded> | undefined;
  /** The fetch in flight is initialisation's prefetch. */
  let prefetching = false;
  let lastAttempt = Number.NEGATIVE_INFINITY;
  let lastFailure = Number.NEGATIVE_INFINITY;
  const listeners = new Set<KeysRemovedListener>();

  const announce = (removed: RemovedKeys): void => {
    if (removed.kids.size === 0 && !removed.withoutKid) return;
    logger.log('info', 'key set removed keys', {
      kids: [...removed.kids].join(','),
      withoutKid: removed.withoutKid,
    });
    for (const listener of listeners) {
      try {
        listener(removed);
      } catch (error) {
        logger.log('error', 'key removal listener failed', describeError(error));
      }
    }
  };

  const load = async (prefetch: boolean): Promise<Loaded> => {
    lastAttempt = now();
    try {
      // GET under fetch-key-set.ts's guarantees (timeout, no redirects, size cap).
      const published = parseKeySet(
        await fetchKeySetBody(settings.url, settings.timeoutMs, settings.maxBytes),
      );
      const kids = new Set(
        published.flatMap((key) => (typeof key.kid === 'string' ? [key.kid] : [])),
      );
      const fingerprints = new Map(
        published.map(
          (key) => [fingerprint(key), typeof key.kid === 'string' ? key.kid : undefined] as const,
        ),
      );
      const previous = loaded;
      const next: Loaded = {
        resolve: keyResolver(published),
        kids,
        fingerprints,
        fetchedAt: now(),
      };
      loaded = next;
      logger.log('info', 'key set loaded', { keys: published.length });
      if (previous) announce(removedBetween(previous, next));
      return next;
    } catch (error) {
      if (prefetch) {
        logger.log('info', 'key set prefetch failed', describeError(error));
        throw new KeySetUnavailableError('key set prefetch failed', { cause: error });
      }
      const usable = loaded !== undefined && now() - loaded.fetchedAt < settings.staleMs;
      logger.log(
        usable ? 'warn' : 'error',
        'key set fetch failed',
        { ...describeError(error), servingStale: usable, ...failureMetric?.fields },
        failureMetric?.directives,
      );
      if (usable && loaded) return loaded;
      lastFailure = now();
      throw new KeySetUnavailableError('no usable key set', { cause: error });
    }
  };

  const refresh = (prefetch = false): Promise<Loaded> => {
    if (inflight === undefined) {
      prefetching = prefetch;
      inflight = load(prefetch).finally(() => {
        inflight = undefined;
        prefetching = false;
      });
    }
    return inflight;
  };

  /** The fetch in flight, as a request awaits it: a failed prefetch is fetched again. */
  const awaitInflight = (pending: Promise<Loaded>): Promise<Loaded> =>
    prefetching ? pending.catch(() => refresh()) : pending;

  const coolingDown = (): boolean => now() - lastAttempt < settings.cooldownMs;

  /** Nothing usable is held: fetch, unless a fetch just failed (then fail at once). */
  const refreshUnlessBackingOff = (): Promise<Loaded> => {
    if (now() - lastFailure < settings.failureBackoffMs) {
      return Promise.reject(new KeySetUnavailableError('key set unavailable (backing off)'));
    }
    return refresh();
  };

  const current = async (): Promise<Loaded> => {
    if (inflight) return awaitInflight(inflight);
    if (!loaded) return refreshUnlessBackingOff();
    const age = now() - loaded.fetchedAt;
    if (age >= settings.staleMs) return refreshUnlessBackingOff();
    if (age >= settings.maxAgeMs && !coolingDown()) return refresh();
    return loaded;
  };

  const getKey: KeyResolver = async (protectedHeader, token) => {
    const set = await current();
    try {
      return await set.resolve(protectedHeader, token);
    } catch (error) {
      const { kid } = protectedHeader;
      const unknownKid = typeof kid === 'string' && !set.kids.has(kid);
      if (!(error instanceof errors.JWKSNoMatchingKey) || !unknownKid) throw error;
      // A newer set may be on its way or already here (another invocation's refetch):
      // use it; start a refetch only outside the cooldown window.
      const newer =
        (inflight && awaitInflight(inflight)) ??
        (loaded && loaded !== set ? Promise.resolve(loaded) : undefined) ??
        (coolingDown() ? undefined : refresh());
      if (newer === undefined) throw error;
      return (await newer).resolve(protectedHeader, token);
    }
  };

  return {
    getKey,
    prefetch() {
      const settled = loaded ? undefined : (inflight ?? refresh(true));
      return (settled ?? Promise.resolve()).then(
        () => undefined,
        () => undefined,
      );
    },
    async check() {
      await current();
    },
    onKeysRemoved(listener) {
      listeners.add(listener);
      return () => {
        listeners.delete(listener);
      };
    },
  };
};
