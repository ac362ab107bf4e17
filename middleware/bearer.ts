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

/** RFC 6750 b64token, as three dot-separated base64url parts of a compact JWS. */
const BEARER = /^Bearer +([A-Za-z0-9\-._~+/]+=*) *$/i;

export const bearer = (opts: BearerOptions = {}): PortalMiddleware => {
  const maxTokenLength = opts.maxTokenLength ?? defaults.maxTokenLength;
  if (!Number.isInteger(maxTokenLength) || maxTokenLength < 1) {
    throw new TypeError('bearer: maxTokenLength must be a positive whole number');
  }
  const bearerBefore = (request: PortalRequest) => {
    const values = headerValues(request.event, 'authorization');
    const [header] = values;
    if (values.length !== 1 || header === undefined) throw headerInvalid();
    const token = BEARER.exec(header)?.[1];
    if (token === undefined) throw headerInvalid();
    if (token.length > maxTokenLength) throw tokenUnverifiable();
    stateOf(request.context).token = token;
  };
  return { before: bearerBefore };
};
