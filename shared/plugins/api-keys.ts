/**
 * API keys of the plugin deployment call (spec 4.6). A key is never stored: only its SHA-256,
 * as 64 lowercase hex digits. A presented key is hashed and compared with the stored hashes in
 * constant time, so neither the comparison nor the stored value reveals a key.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { MESSAGES, PortalError } from '../errors';

/** The header that carries the key (spec 4.6), compared case-insensitively. */
export const API_KEY_HEADER = 'x-api-key';

/** SHA-256 of a key, as stored in plugin_api_keys.key_sha256. */
export type KeyHash = string;

const HEX_SHA256 = /^[0-9a-f]{64}$/;

/** Where the deployment check finds the keys; backed by the plugin registry. */
export interface ApiKeyLookup {
  /** The hashes of the plugin's keys that are not revoked (none for an unknown plugin). */
  activeKeyHashes(pluginCode: string): Promise<readonly KeyHash[]>;
  /** The plugin a non-revoked key with this hash belongs to, if any. */
  pluginOfKey(keyHash: KeyHash): Promise<string | undefined>;
}

export const hashApiKey = (key: string): KeyHash =>
  createHash('sha256').update(key, 'utf8').digest('hex');

/** Constant-time equality of two hashes; a malformed stored hash never matches. */
export const hashesMatch = (presented: KeyHash, stored: KeyHash): boolean => {
  if (!HEX_SHA256.test(presented) || !HEX_SHA256.test(stored)) return false;
  return timingSafeEqual(Buffer.from(presented, 'hex'), Buffer.from(stored, 'hex'));
};

/**
 * Whether the hash is among the stored ones. Every stored hash is compared, a match or not,
 * so the time taken does not tell which (or whether an early) entry matched.
 */
export const matchesAny = (presented: KeyHash, stored: readonly KeyHash[]): boolean =>
  stored.reduce((found, hash) => hashesMatch(presented, hash) || found, false);

/** A new random key (256 bits, base64url, `ppk_` prefix so it is recognisable in a leak scan). */
export const generateApiKey = (): string => `ppk_${randomBytes(32).toString('base64url')}`;

/**
 * 401 TOKEN_INVALID for a missing or unknown key, with the spec's "cannot be verified" text.
 * The challenge names the key header instead of the Bearer scheme of the portal's token.
 */
export const apiKeyInvalid = (): PortalError =>
  new PortalError(401, 'TOKEN_INVALID', MESSAGES.tokenUnverifiable, undefined, {
    'WWW-Authenticate': `ApiKey header="${API_KEY_HEADER}"`,
  });
