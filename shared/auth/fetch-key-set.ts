/**
 * The key-set request itself, on `node:http` / `node:https` (chosen by the URL's protocol)
 * rather than the global `fetch()`, whose first call loads undici synchronously: work a cold
 * start would pay before the request even leaves.
 *
 * - one timeout covers everything: DNS, connect, TLS, headers and the whole body;
 * - redirects are never followed: any status but 200 (a 3xx included) is a failure, and its
 *   body is not read;
 * - the body is capped at `maxBytes`: a larger Content-Length fails before any of the body is
 *   read, and the bytes are counted as they stream, the request aborted as soon as they exceed
 *   the cap (a chunked body has no Content-Length to check);
 * - `accept: application/json`, and `accept-encoding: identity`: the body is read as it comes,
 *   so an encoded (compressed) answer is refused rather than misread;
 * - no connection is kept: each fetch opens and closes its own (the set is fetched rarely).
 *
 * Failures are TypeErrors with a stable `code` (ERR_KEY_SET_*), a timeout a `TimeoutError`,
 * network errors Node's own (ECONNREFUSED, …); none carries the body.
 */
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';

export const KEY_SET_FETCH_ERRORS = {
  protocol: 'ERR_KEY_SET_PROTOCOL',
  status: 'ERR_KEY_SET_HTTP_STATUS',
  encoding: 'ERR_KEY_SET_ENCODING',
  tooLarge: 'ERR_KEY_SET_TOO_LARGE',
  timeout: 'ERR_KEY_SET_TIMEOUT',
} as const;

const failure = (message: string, code: string): TypeError =>
  Object.assign(new TypeError(message), { code });

const timeoutError = (timeoutMs: number): Error =>
  Object.assign(new Error(`key set request timed out after ${timeoutMs} ms`), {
    name: 'TimeoutError',
    code: KEY_SET_FETCH_ERRORS.timeout,
  });

/** A Content-Length over the cap; a missing or unreadable one leaves counting to the stream. */
const declaredTooLarge = (response: IncomingMessage, maxBytes: number): boolean => {
  const declared = Number(response.headers['content-length']);
  return Number.isFinite(declared) && declared > maxBytes;
};

/** Node's parser has already trimmed the value's surrounding whitespace. */
const encoded = (response: IncomingMessage): boolean => {
  const encoding = response.headers['content-encoding']?.toLowerCase();
  return encoding !== undefined && encoding !== '' && encoding !== 'identity';
};

/**
 * GETs `url` and resolves with its body as UTF-8 text, under the guarantees above. Rejects
 * (and aborts the request) on the first broken one.
 */
export const fetchKeySetBody = (url: URL, timeoutMs: number, maxBytes: number): Promise<string> =>
  new Promise<string>((resolve, reject) => {
    const send =
      url.protocol === 'https:' ? httpsRequest : url.protocol === 'http:' ? httpRequest : undefined;
    if (!send) {
      reject(failure('key set URL must be http or https', KEY_SET_FETCH_ERRORS.protocol));
      return;
    }
    let settled = false;
    const request = send(
      url,
      {
        method: 'GET',
        agent: false,
        headers: { accept: 'application/json', 'accept-encoding': 'identity' },
      },
      (response) => {
        const status = response.statusCode ?? 0;
        if (status !== 200) {
          fail(failure(`key set answered HTTP ${status}`, KEY_SET_FETCH_ERRORS.status));
          return;
        }
        if (encoded(response)) {
          fail(failure('key set answered with a content encoding', KEY_SET_FETCH_ERRORS.encoding));
          return;
        }
        if (declaredTooLarge(response, maxBytes)) {
          fail(failure('key set response is too large', KEY_SET_FETCH_ERRORS.tooLarge));
          return;
        }
        const chunks: Buffer[] = [];
        let size = 0;
        response.on('data', (chunk: Buffer) => {
          size += chunk.byteLength;
          if (size > maxBytes) {
            fail(failure('key set response is too large', KEY_SET_FETCH_ERRORS.tooLarge));
            return;
          }
          chunks.push(chunk);
        });
        response.on('end', () => {
          succeed(Buffer.concat(chunks, size).toString('utf8'));
        });
        // A body cut short emits 'error' (ECONNRESET) before 'close', on every Node we run.
        response.on('error', fail);
      },
    );
    const timer = setTimeout(() => {
      fail(timeoutError(timeoutMs));
    }, timeoutMs);

    function succeed(body: string): void {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(body);
    }

    function fail(error: Error): void {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      request.destroy();
      reject(error);
    }

    request.on('error', fail);
    request.end();
  });
