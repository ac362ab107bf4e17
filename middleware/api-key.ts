/**
 * API-key authentication of the plugin deployment call (spec 4.6): exactly one `x-api-key`
 * header (any case). The key is SHA-256 hashed and compared in constant time with the stored
 * hashes of the path plugin's non-revoked keys. No key, or a key the registry does not know,
 * is 401 TOKEN_INVALID; a valid key of another plugin is 403 FORBIDDEN. The key itself is
 * never stored, logged or echoed; the authenticated plugin code is handed forward.
 */
import { forbidden, internalError } from '../shared/errors';
import { headerValues, pathParameter } from '../shared/http/event';
import {
  API_KEY_HEADER,
  apiKeyInvalid,
  hashApiKey,
  matchesAny,
  type ApiKeyLookup,
} from '../shared/plugins/api-keys';
import { PLUGIN_CODE } from '../shared/plugins/registry';
import type { PortalContext, PortalMiddleware, PortalRequest } from './types';

export interface ApiKeyOptions {
  readonly lookup: ApiKeyLookup;
  /** Header carrying the key, compared case-insensitively. */
  readonly header?: string;
  /** Path parameter naming the plugin the key must belong to. */
  readonly pathParameter?: string;
  /** Longer keys are refused before hashing. */
  readonly maxKeyLength?: number;
}

const defaults = {
  header: API_KEY_HEADER,
  pathParameter: 'code',
  maxKeyLength: 512,
} satisfies Omit<ApiKeyOptions, 'lookup'>;

/** The invocation's context once the key is checked: the plugin it authenticates. */
export type ApiKeyContext = PortalContext & { apiKey?: { readonly pluginCode: string } };

/** The plugin the request's key was checked against; its absence is a wiring fault. */
export const authenticatedPlugin = (context: PortalContext): string => {
  const { apiKey }: ApiKeyContext = context;
  if (apiKey === undefined) throw internalError(new Error('chain did not check an API key'));
  return apiKey.pluginCode;
};

export const apiKey = (opts: ApiKeyOptions): PortalMiddleware => {
  const options = { ...defaults, ...opts };
  if (typeof options.lookup !== 'object') {
    throw new TypeError('apiKey: lookup is required');
  }
  if (options.header.trim() === '' || options.pathParameter.trim() === '') {
    throw new TypeError('apiKey: header and pathParameter must not be empty');
  }
  if (!Number.isInteger(options.maxKeyLength) || options.maxKeyLength < 1) {
    throw new TypeError('apiKey: maxKeyLength must be a positive whole number');
  }
  const { lookup, header, maxKeyLength } = options;

  const apiKeyBefore = async (request: PortalRequest) => {
    const values = headerValues(request.event, header);
    const [key] = values;
    if (values.length !== 1 || key === undefined || key === '' || key.length > maxKeyLength) {
      throw apiKeyInvalid();
    }
    const pluginCode = pathParameter(request.event, options.pathParameter) ?? '';
    const hash = hashApiKey(key);
    // A code no plugin can have (say, with a NUL byte) has no keys: no query is made for it.
    const keys = PLUGIN_CODE.test(pluginCode) ? await lookup.activeKeyHashes(pluginCode) : [];
    if (matchesAny(hash, keys)) {
      const context: ApiKeyContext = request.context;
      context.apiKey = { pluginCode };
      return;
    }
    if ((await lookup.pluginOfKey(hash)) !== undefined) throw forbidden();
    throw apiKeyInvalid();
  };
  return { before: apiKeyBefore };
};
