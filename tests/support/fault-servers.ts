/**
 * A key-set host that tests can break on purpose ("Faults / Key-set host"): a real
 * HTTP server on 127.0.0.1 that serves a JSON Web Key set at the spec's `v2` path and, when
 * told, fails the way a real host does — too slow, silent, HTTP 500, not JSON, oversized, redirecting,
 * an empty set — while counting every request it receives. Its key set can be swapped at any
 * time (key rotation). `unreachableKeySetUrl` names a port nothing listens on.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { JSONWebKeySet } from 'jose';
import { freePort } from './processes';

export const KEY_SET_PATH = '/v2/jwks.json';
/** Where the `redirect` fault sends the client: a valid key set, which must never be read. */
export const REDIRECT_TARGET_PATH = '/moved/v2/jwks.json';
/** The service's cap on a key-set body (shared/auth/key-set.ts). */
export const KEY_SET_LIMIT_BYTES = 64 * 1024;

export type KeySetFault =
  /** Serves the key set. */
  | 'none'
  /** Answers only after `slowMs` (beyond the service's 2 s timeout). */
  | 'slow'
  /** Takes the request and never answers nor closes the connection. */
  | 'silent'
  /** HTTP 500, with a valid key set as its body (the status alone must fail it). */
  | 'http-500'
  /** HTTP 200 with an HTML maintenance page. */
  | 'not-json'
  /** A valid key set padded past 64 KiB, with a Content-Length that says so. */
  | 'oversized'
  /** The same, chunked, without a Content-Length: only counting the bytes finds it. */
  | 'oversized-chunked'
  /** 302 to REDIRECT_TARGET_PATH on the same host, which serves a valid key set. */
  | 'redirect'
  /** `{"keys":[]}`. */
  | 'empty-set';

export const KEY_SET_FAULTS: readonly Exclude<KeySetFault, 'none'>[] = [
  'slow',
  'silent',
  'http-500',
  'not-json',
  'oversized',
  'oversized-chunked',
  'redirect',
  'empty-set',
];

export interface KeySetServerOptions {
  /** How long the `slow` fault waits before answering. */
  readonly slowMs?: number;
}

export interface KeySetFaultServer {
  readonly url: string;
  /** The current fault; `none` serves the key set. */
  fault: KeySetFault;
  /** The key set served (swap it to rotate keys). */
  keySet: JSONWebKeySet;
  /** Path of every request received, in order. */
  readonly requests: readonly string[];
  /** Requests for the key set itself (KEY_SET_PATH). */
  readonly keySetRequests: () => number;
  readonly close: () => Promise<void>;
}

const body = (keySet: JSONWebKeySet, padTo = 0): string => {
  const text = JSON.stringify(keySet);
  return text + ' '.repeat(Math.max(0, padTo - Buffer.byteLength(text)));
};

const sendJson = (response: ServerResponse, status: number, text: string, chunked = false) => {
  if (chunked) {
    response.writeHead(status, { 'content-type': 'application/json' });
    const half = Math.floor(text.length / 2);
    response.write(text.slice(0, half));
    response.end(text.slice(half));
    return;
  }
  response.writeHead(status, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(text),
  });
  response.end(text);
};

export const startKeySetServer = async (
  initial: JSONWebKeySet,
  { slowMs = 3_000 }: KeySetServerOptions = {},
): Promise<KeySetFaultServer> => {
  const requests: string[] = [];
  const timers = new Set<NodeJS.Timeout>();
  const state: { fault: KeySetFault; keySet: JSONWebKeySet } = { fault: 'none', keySet: initial };
  let origin = '';

  const handle = (request: IncomingMessage, response: ServerResponse): void => {
    const path = request.url ?? '';
    requests.push(path);
    if (path === REDIRECT_TARGET_PATH) {
      sendJson(response, 200, body(state.keySet));
      return;
    }
    if (path !== KEY_SET_PATH) {
      response.writeHead(404).end();
      return;
    }
    const oversized = body(state.keySet, KEY_SET_LIMIT_BYTES + 1);
    switch (state.fault) {
      case 'none':
        sendJson(response, 200, body(state.keySet));
        return;
      case 'slow': {
        const timer = setTimeout(() => {
          timers.delete(timer);
          if (!response.destroyed) sendJson(response, 200, body(state.keySet));
        }, slowMs);
        timers.add(timer);
        return;
      }
      case 'silent':
        return;
      case 'http-500':
        sendJson(response, 500, body(state.keySet));
        return;
      case 'not-json':
        response.writeHead(200, { 'content-type': 'text/html' });
        response.end('<html><body>Down for maintenance</body></html>');
        return;
      case 'oversized':
        sendJson(response, 200, oversized);
        return;
      case 'oversized-chunked':
        sendJson(response, 200, oversized, true);
        return;
      case 'redirect':
        response.writeHead(302, { location: `${origin}${REDIRECT_TARGET_PATH}` }).end();
        return;
      case 'empty-set':
        sendJson(response, 200, body({ keys: [] }));
        return;
    }
  };

  const server = createServer(handle);
  server.keepAliveTimeout = 500;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  origin = `http://127.0.0.1:${port}`;
  let closed: Promise<void> | undefined;

  return {
    url: `${origin}${KEY_SET_PATH}`,
    get fault() {
      return state.fault;
    },
    set fault(fault: KeySetFault) {
      state.fault = fault;
    },
    get keySet() {
      return state.keySet;
    },
    set keySet(keySet: JSONWebKeySet) {
      state.keySet = keySet;
    },
    requests,
    keySetRequests: () => requests.filter((path) => path === KEY_SET_PATH).length,
    close: () =>
      (closed ??= new Promise<void>((resolve) => {
        for (const timer of timers) clearTimeout(timer);
        timers.clear();
        server.closeAllConnections();
        server.close(() => {
          resolve();
        });
      })),
  };
};

/** A key-set URL on 127.0.0.1 where nothing listens: the connection is refused. */
export const unreachableKeySetUrl = async (): Promise<string> =>
  `http://127.0.0.1:${await freePort()}${KEY_SET_PATH}`;
