/**
 * The body of the deployment call (spec 4.6): a JSON object with `bundleUrl` and
 * `portalVersion`. Read from the raw API Gateway body (base64 or not), at most 16 KiB, sent as
 * `Content-Type: application/json`. Every problem is a 400 VALIDATION_ERROR naming its field.
 */
import { cannotBeEmpty, validationError, type ValidationEntry } from '../errors';
import { invalidPortalVersion } from './parameters';
import { isPortalVersion, type PortalVersion } from './registry';

export const MAX_BODY_BYTES = 16 * 1024;
export const MAX_BUNDLE_URL_LENGTH = 2048;

/**
 * Hosts a bundle may be served from over plain http (local development only), compared with the
 * host exactly as written. `http://127.1/`, `http://2130706433/` or `http://LOCALHOST/` are
 * refused: a URL parser normalises them to a local host, but the string stored and handed to the
 * portal is the one written, not the parser's.
 */
const LOCAL_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

/**
 * Printable ASCII without space, `"`, `'`, backtick, `<`, `>` and `\`: what a URL needs,
 * including a `{bundle}` placeholder, and nothing that can end an HTML attribute value or a
 * JavaScript string (so no whitespace, control or non-ASCII character either).
 */
const URL_CHARACTERS = /^[\x21\x23-\x26\x28-\x3b\x3d\x3f-\x5b\x5d-\x5f\x61-\x7e]+$/;

/**
 * Sequences that become such a character once the URL is placed in HTML or JavaScript source: an
 * HTML character reference (`&#39;`, `&#x27`, `&apos;`, and `&quot` even without its `;`, which
 * HTML still decodes) and a template-literal substitution (`${`).
 */
const DECODED_BREAKOUT = /&(#|[a-z0-9]+;|quot)|\$\{/i;

/** Scheme and authority as written: what follows `//` up to the first `/`, `?` or `#`. */
const AUTHORITY = /^(https?):\/\/([^/?#]*)/i;

/** An authority's host (an IP literal in brackets, or anything up to `:`) and optional port. */
const HOST_AND_PORT = /^(\[[^\]]*\]|[^:]+)(?::\d*)?$/;

export interface DeploymentRequest {
  readonly bundleUrl: string;
  readonly portalVersion: PortalVersion;
}

export interface RawBody {
  readonly body: string | null | undefined;
  readonly isBase64Encoded: boolean;
  /** Every Content-Type header value the request carried. */
  readonly contentTypes: readonly string[];
}

const invalid = (field: string, message: string): ValidationEntry => ({
  field,
  code: 'INVALID_VALUE',
  message,
});

const NOT_A_JSON_OBJECT = invalid('body', 'body must be a JSON object');

const BAD_CHARACTERS_MESSAGE =
  'bundleUrl must contain only printable ASCII characters other than space, \' " ` < > and \\, and no ${ or HTML character reference (&#, &name; or &quot)';
const BAD_URL_MESSAGE = `bundleUrl must be an absolute https URL (http only for localhost) of at most ${MAX_BUNDLE_URL_LENGTH} characters`;

/** The scheme (lower case) and the host exactly as written, when the URL has no userinfo. */
const schemeAndHost = (value: string): { scheme: string; host: string } | undefined => {
  const [, scheme, authority = ''] = AUTHORITY.exec(value) ?? [];
  const [, host] = HOST_AND_PORT.exec(authority) ?? [];
  if (scheme === undefined || host === undefined || authority.includes('@')) return undefined;
  return { scheme: scheme.toLowerCase(), host };
};

/**
 * Why a bundle URL is refused, or undefined when it is valid: an absolute https URL (http only
 * for `localhost`, `127.0.0.1` or `[::1]`, written exactly so) of at most 2048 characters,
 * without credentials (not even an empty `@`), of characters that cannot end an HTML attribute
 * or a JavaScript string. Every check reads the string as sent, which is what is stored: it is
 * kept exactly, so a placeholder such as `{bundle}` is not percent-encoded; the URL parser only
 * confirms that it is a URL.
 */
export const bundleUrlProblem = (value: string): string | undefined => {
  if (!URL_CHARACTERS.test(value) || DECODED_BREAKOUT.test(value)) return BAD_CHARACTERS_MESSAGE;
  if (value.length > MAX_BUNDLE_URL_LENGTH) return BAD_URL_MESSAGE;
  const parts = schemeAndHost(value);
  const allowed =
    parts !== undefined &&
    (parts.scheme === 'https' || (parts.scheme === 'http' && LOCAL_HOSTS.has(parts.host)));
  return allowed && URL.canParse(value) ? undefined : BAD_URL_MESSAGE;
};

const isJsonContentType = (values: readonly string[]): boolean => {
  const [value] = values;
  if (values.length !== 1 || value === undefined) return false;
  const [mediaType = '', ...parameters] = value.split(';').map((part) => part.trim());
  if (mediaType.toLowerCase() !== 'application/json') return false;
  return parameters.every((parameter) => {
    const [name = '', charset = ''] = parameter.split('=').map((part) => part.trim());
    return name.toLowerCase() !== 'charset' || /^"?utf-8"?$/i.test(charset);
  });
};

const decodeBody = ({ body, isBase64Encoded }: RawBody): string => {
  const bytes = Buffer.from(body ?? '', isBase64Encoded ? 'base64' : 'utf8');
  if (bytes.length > MAX_BODY_BYTES) {
    throw validationError([invalid('body', `body must be at most ${MAX_BODY_BYTES} bytes`)]);
  }
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw validationError([NOT_A_JSON_OBJECT]);
  }
};

const parseObject = (text: string): Record<string, unknown> => {
  if (text.trim() === '') return {};
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw validationError([NOT_A_JSON_OBJECT]);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw validationError([NOT_A_JSON_OBJECT]);
  }
  return value as Record<string, unknown>;
};

const isEmpty = (value: unknown): boolean =>
  value === undefined || value === null || (typeof value === 'string' && value.trim() === '');

const readBundleUrl = (value: unknown, entries: ValidationEntry[]): string | undefined => {
  if (isEmpty(value)) entries.push(cannotBeEmpty('bundleUrl'));
  else if (typeof value !== 'string') entries.push(invalid('bundleUrl', BAD_URL_MESSAGE));
  else {
    const problem = bundleUrlProblem(value);
    if (problem === undefined) return value;
    entries.push(invalid('bundleUrl', problem));
  }
  return undefined;
};

const readPortalVersion = (
  value: unknown,
  entries: ValidationEntry[],
): PortalVersion | undefined => {
  if (isEmpty(value)) entries.push(cannotBeEmpty('portalVersion'));
  else if (typeof value === 'string' && isPortalVersion(value)) return value;
  else entries.push(invalidPortalVersion('portalVersion'));
  return undefined;
};

export const parseDeploymentRequest = (raw: RawBody): DeploymentRequest => {
  if (!isJsonContentType(raw.contentTypes)) {
    throw validationError([invalid('Content-Type', 'Content-Type must be application/json')]);
  }
  const fields = parseObject(decodeBody(raw));
  const entries: ValidationEntry[] = [];
  const bundleUrl = readBundleUrl(fields.bundleUrl, entries);
  const portalVersion = readPortalVersion(fields.portalVersion, entries);
  if (bundleUrl === undefined || portalVersion === undefined) throw validationError(entries);
  return { bundleUrl, portalVersion };
};
