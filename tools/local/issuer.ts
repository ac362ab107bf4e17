/**
 * The local stand-in for the portal's authentication service: an RS256 key pair generated on
 * first use (kept under .data/, never committed), a JWK set served over HTTP, and tokens
 * signed with the private key.
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { dirname } from 'node:path';
import {
  calculateJwkThumbprint,
  exportJWK,
  generateKeyPair,
  importJWK,
  SignJWT,
  type CryptoKey,
  type JSONWebKeySet,
  type JWK,
  type JWTPayload,
} from 'jose';

export const LOCAL_ISSUER = 'https://portal-auth.local';
export const LOCAL_KEY_FILE = '.data/issuer/private-key.jwk.json';
export const KEY_SET_PATH = '/v2/jwks.json';
const ALG = 'RS256';

export interface LocalIssuer {
  readonly issuer: string;
  readonly kid: string;
  readonly publicKeySet: JSONWebKeySet;
  sign(payload: JWTPayload, options?: { expiresIn?: string | number }): Promise<string>;
}

const fromPrivateJwk = async (privateJwk: JWK, issuer: string): Promise<LocalIssuer> => {
  const { d: _d, p: _p, q: _q, dp: _dp, dq: _dq, qi: _qi, ...publicJwk } = privateJwk;
  const kid = privateJwk.kid ?? (await calculateJwkThumbprint(publicJwk));
  const key = (await importJWK(privateJwk, ALG)) as CryptoKey;
  return {
    issuer,
    kid,
    publicKeySet: { keys: [{ ...publicJwk, kid, alg: ALG, use: 'sig' }] },
    sign: (payload, { expiresIn = '1h' } = {}) =>
      new SignJWT(payload)
        .setProtectedHeader({ alg: ALG, kid, typ: 'JWT' })
        .setIssuer(issuer)
        .setIssuedAt()
        .setExpirationTime(expiresIn)
        .sign(key),
  };
};

export const generatePrivateJwk = async (): Promise<JWK> => {
  const { privateKey } = await generateKeyPair(ALG, { extractable: true });
  const jwk = await exportJWK(privateKey);
  return { ...jwk, kid: await calculateJwkThumbprint(jwk), alg: ALG };
};

/** A fresh in-memory issuer (tests). */
export const createIssuer = async (issuer = LOCAL_ISSUER): Promise<LocalIssuer> =>
  fromPrivateJwk(await generatePrivateJwk(), issuer);

/** The issuer whose key lives in `file`, generating and saving the key on first use. */
export const loadOrCreateIssuer = async (
  file = LOCAL_KEY_FILE,
  issuer = LOCAL_ISSUER,
): Promise<LocalIssuer> => {
  let jwk: JWK;
  try {
    jwk = JSON.parse(await readFile(file, 'utf8')) as JWK;
  } catch {
    jwk = await generatePrivateJwk();
    await mkdir(dirname(file), { recursive: true });
    await writeFile(file, JSON.stringify(jwk), { mode: 0o600, flag: 'wx' }).catch(async () => {
      jwk = JSON.parse(await readFile(file, 'utf8')) as JWK; // another process won the race
    });
  }
  return fromPrivateJwk(jwk, issuer);
};

export interface KeySetServer {
  readonly url: string;
  readonly close: () => Promise<void>;
}

/**
 * Serves `keySet()` at KEY_SET_PATH on 127.0.0.1 (port 0: any free port); over HTTPS with `tls`
 * (a certificate for 127.0.0.1 and its key), as a deployed key set is served.
 */
export const serveKeySet = async (
  keySet: () => JSONWebKeySet,
  port = 0,
  tls?: { readonly cert: string; readonly key: string },
): Promise<KeySetServer> => {
  const answer = (request: IncomingMessage, response: ServerResponse) => {
    if (request.method === 'GET' && request.url === KEY_SET_PATH) {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify(keySet()));
      return;
    }
    response.writeHead(404).end();
  };
  const server = tls ? createHttpsServer(tls, answer) : createServer(answer);
  server.keepAliveTimeout = 1000;
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  const { port: bound } = server.address() as AddressInfo;
  return {
    url: `${tls ? 'https' : 'http'}://127.0.0.1:${bound}${KEY_SET_PATH}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => {
          resolve();
        });
      }),
  };
};
