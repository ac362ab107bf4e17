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

/** Hosts a bundle may be served from over plain http (local development only). */
const LOCAL_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

/**
 * Printable ASCII without space, `"`, `<`, `>`, `\` and backtick: what a URL needs, including a
 * `{bundle}` placeholder, and nothing that could break out of an HTML attribute.
 */
const URL_CHARACTERS = /^[\x21\x23-\x3b\x3d\x3f-\x5b\x5d-\x5f\x61-\x7e]+$/;

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

/**
 * An absolute https URL (http only for localhost) of at most 2048 characters, without
 * credentials; kept exactly as sent, so a placeholder such as `{bundle}` is not percent-encoded.
 */
export const isValidBundleUrl = (value: string): boolean => {
  if (value.length > MAX_BUNDLE_URL_LENGTH || !URL_CHARACTERS.test(value)) return false;
  if (!/^https?:\/\/[^/]/i.test(value)) return false;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return false;
  }
  if (url.username !== '' || url.password !== '' || url.hostname === '') return false;
  return url.protocol === 'https:' || (url.protocol === 'http:' && LOCAL_HOSTS.has(url.hostname));
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
  else if (typeof value === 'string' && isValidBundleUrl(value)) return value;
  else {
    entries.push(
      invalid(
        'bundleUrl',
        `bundleUrl must be an absolute https URL (http only for localhost) of at most ${MAX_BUNDLE_URL_LENGTH} characters`,
      ),
    );
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
