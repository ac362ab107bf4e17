/**
 * Bearer extraction (spec 5.1): exactly one `Authorization: Bearer <token>` header, name and
 * scheme in any case. Anything else is 401 TOKEN_INVALID asking whether Bearer was forgotten.
 * Tokens are never read from the query string or a cookie.
 */
import { headerInvalid, tokenUnverifiable } from '../shared/errors';
import { headerValues } from '../shared/http/event';
import { stateOf, type PortalMiddleware, type PortalRequest } from './types';

export interface BearerOptions {
  /** Longer tokens are refused before any parsing (API Gateway caps headers near 10 KB). */
  readonly maxTokenLength?: number;
}

const defaults = { maxTokenLength: 16 * 1024 } satisfies BearerOptions;

const SPACE = 0x20;
const EQUALS = 0x3d;

/** RFC 6750 b64token characters: A–Z a–z 0–9 - . _ ~ + / (padding `=` only at its end). */
const B64TOKEN = new Uint8Array(128);
for (const char of 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~+/') {
  B64TOKEN[char.charCodeAt(0)] = 1;
}

/**
 * The token of `Bearer <b64token>`: the scheme in any case, one or more spaces, the token (its
 * `=` padding only at the end), then only spaces — the one shape accepted, read with one pass
 * over the header and no regular expression. Anything else gives undefined.
 */
export const bearerToken = (header: string): string | undefined => {
  const { length } = header;
  // "Bearer", ASCII letters in any case: | 0x20 folds A–Z onto a–z and nothing else onto them.
  if (
    length < 8 ||
    (header.charCodeAt(0) | 0x20) !== 0x62 || // b
    (header.charCodeAt(1) | 0x20) !== 0x65 || // e
    (header.charCodeAt(2) | 0x20) !== 0x61 || // a
    (header.charCodeAt(3) | 0x20) !== 0x72 || // r
    (header.charCodeAt(4) | 0x20) !== 0x65 || // e
    (header.charCodeAt(5) | 0x20) !== 0x72 || // r
    header.charCodeAt(6) !== SPACE
  ) {
    return undefined;
  }
  let start = 7;
  while (start < length && header.charCodeAt(start) === SPACE) start += 1;
  let end = start;
  while (end < length) {
    const code = header.charCodeAt(end);
    if (code >= 128 || B64TOKEN[code] !== 1) break;
    end += 1;
  }
  if (end === start) return undefined; // at least one token character
  while (end < length && header.charCodeAt(end) === EQUALS) end += 1;
  let rest = end;
  while (rest < length && header.charCodeAt(rest) === SPACE) rest += 1;
  if (rest !== length) return undefined;
  return header.slice(start, end);
};

export const bearer = (opts: BearerOptions = {}): PortalMiddleware => {
  const maxTokenLength = opts.maxTokenLength ?? defaults.maxTokenLength;
  if (!Number.isInteger(maxTokenLength) || maxTokenLength < 1) {
    throw new TypeError('bearer: maxTokenLength must be a positive whole number');
  }
  const bearerBefore = (request: PortalRequest) => {
    const values = headerValues(request.event, 'authorization');
    const [header] = values;
    if (values.length !== 1 || header === undefined) throw headerInvalid();
    const token = bearerToken(header);
    if (token === undefined) throw headerInvalid();
    if (token.length > maxTokenLength) throw tokenUnverifiable();
    stateOf(request.context).token = token;
  };
  return { before: bearerBefore };
};
