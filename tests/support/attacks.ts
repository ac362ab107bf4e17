/**
 * Token forging for the security suites: hand-built compact JWS and JWE (so a header may repeat
 * members, carry any `kid` or `alg`, or sign with the wrong kind of key), keys an attacker holds,
 * the run issuer's own private key (to give a hostile header a genuine signature), and a
 * counting HTTP server on 127.0.0.1 (a key-set host, or an attacker's).
 */
import {
  constants,
  createHmac,
  createPrivateKey,
  createPublicKey,
  generateKeyPairSync,
  sign,
  type JsonWebKey,
  type KeyObject,
} from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { JWK } from 'jose';
import { claimsFor, type SampleOwner } from '../../tools/db/sample-data';
import { LOCAL_ISSUER } from '../../tools/local/issuer';

export const b64url = (value: string | Uint8Array): string =>
  Buffer.from(value).toString('base64url');

/** One base64url segment holding `value` as JSON. */
export const segment = (value: unknown): string => b64url(JSON.stringify(value));

export const nowSeconds = (): number => Math.floor(Date.now() / 1000);

/** The issuer the service is configured with (JWT_ISSUER of the global setup). */
export const configuredIssuer = (): string => process.env.JWT_ISSUER ?? LOCAL_ISSUER;

/** The clock tolerance the service is configured with. */
export const clockTolerance = (): number =>
  Number(process.env.JWT_CLOCK_TOLERANCE_SECONDS?.trim() || '5');

/**
 * A payload the service accepts for `owner`: its spec 2.2 claims, the configured issuer and an
 * expiry five minutes ahead. An override of `undefined` removes the claim.
 */
export const portalPayload = (
  owner: SampleOwner,
  overrides: Record<string, unknown> = {},
): Record<string, unknown> => ({
  ...claimsFor(owner),
  iss: configuredIssuer(),
  iat: nowSeconds(),
  exp: nowSeconds() + 300,
  ...overrides,
});

export type Digest = 'sha256' | 'sha384' | 'sha512';

export interface SigningKey {
  readonly kid: string;
  readonly privateKey: KeyObject;
  /** The public half as a JWK with kid, alg and use, as a key set publishes it. */
  readonly publicJwk: JWK;
}

/**
 * A compact JWS over exactly this header and payload text (members may repeat), signed with
 * `key`: RSASSA-PKCS1-v1_5, RSASSA-PSS or ECDSA (IEEE P1363 r‖s) as the key and `pss` say.
 */
export const handSigned = (
  headerText: string,
  payloadText: string,
  key: KeyObject,
  options: { digest?: Digest; pss?: boolean; encodePayload?: boolean } = {},
): string => {
  const { digest = 'sha256', pss = false, encodePayload = true } = options;
  const input = `${b64url(headerText)}.${encodePayload ? b64url(payloadText) : payloadText}`;
  const data = Buffer.from(input);
  const signature =
    key.asymmetricKeyType === 'ec'
      ? sign(digest, data, { key, dsaEncoding: 'ieee-p1363' })
      : pss
        ? sign(digest, data, {
            key,
            padding: constants.RSA_PKCS1_PSS_PADDING,
            saltLength: Number(digest.slice(3)) / 8,
          })
        : sign(digest, data, key);
  return `${input}.${b64url(signature)}`;
};

/** A JWS whose MAC is HMAC-SHA-`alg` keyed with `secret` (the key-confusion attack). */
export const hmacSigned = (
  alg: 'HS256' | 'HS384' | 'HS512',
  header: Record<string, unknown>,
  payload: Record<string, unknown>,
  secret: Uint8Array | string,
): string => {
  const input = `${segment({ ...header, alg })}.${segment(payload)}`;
  const mac = createHmac(`sha${alg.slice(2)}`, secret)
    .update(input)
    .digest('base64url');
  return `${input}.${mac}`;
};

/** The public key of `jwk` as an attacker finds it published: PEM text, DER bytes, JWK text. */
export const publicKeyForms = (jwk: JWK): Record<'PEM' | 'DER' | 'JWK', Buffer> => {
  const key = createPublicKey({ key: jwk as JsonWebKey, format: 'jwk' });
  return {
    PEM: Buffer.from(key.export({ type: 'spki', format: 'pem' })),
    DER: key.export({ type: 'spki', format: 'der' }),
    JWK: Buffer.from(JSON.stringify(jwk)),
  };
};

/** A fresh key pair an attacker (or another environment) holds: RS256 or ES256 (P-256). */
export const generateSigningKey = (alg: 'RS256' | 'ES256', kid: string): SigningKey => {
  const { privateKey, publicKey } =
    alg === 'RS256'
      ? generateKeyPairSync('rsa', { modulusLength: 2048 })
      : generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const publicJwk = { ...(publicKey.export({ format: 'jwk' }) as JWK), kid, alg, use: 'sig' };
  return { kid, privateKey, publicJwk };
};

/**
 * The run issuer's own signing key, read from the key file the global setup wrote, so an
 * attack can carry a genuine signature over a hostile header or payload.
 */
export const runIssuerKey = (): SigningKey => {
  const file = process.env.TEST_ISSUER_KEY_FILE;
  if (!file) throw new Error('TEST_ISSUER_KEY_FILE is not set: is the Jest global setup running?');
  const jwk = JSON.parse(readFileSync(file, 'utf8')) as JWK & { kid: string };
  const privateKey = createPrivateKey({ key: jwk as JsonWebKey, format: 'jwk' });
  const publicJwk = createPublicKey(privateKey).export({ format: 'jwk' }) as JWK;
  return { kid: jwk.kid, privateKey, publicJwk: { ...publicJwk, kid: jwk.kid, alg: 'RS256' } };
};

/** Five base64url parts of a compact JWE with this protected header. */
export const compactJwe = (header: Record<string, unknown>): string =>
  [
    segment(header),
    b64url('encrypted-key'),
    b64url('iv-iv-iv-iv'),
    b64url('x'.repeat(64)),
    b64url('tag-tag-tag-tag'),
  ].join('.');

export interface CountingServer {
  readonly origin: string;
  /** Method and path of every request received, in order. */
  readonly requests: string[];
  /** GET requests received for `path`. */
  readonly gets: (path: string) => number;
  readonly close: () => Promise<void>;
}

/**
 * An HTTP server on 127.0.0.1 that records every request and answers `respond(path)` as JSON
 * (404 when it returns undefined), after `delayMs`.
 */
export const startCountingServer = async (
  respond: (path: string) => unknown,
  delayMs = 0,
): Promise<CountingServer> => {
  const requests: string[] = [];
  const server = createServer((request: IncomingMessage, response) => {
    const path = request.url ?? '';
    requests.push(`${request.method ?? ''} ${path}`);
    const answer = () => {
      const body = respond(path);
      if (body === undefined) {
        response.writeHead(404).end();
        return;
      }
      const text = JSON.stringify(body);
      response.writeHead(200, {
        'content-type': 'application/json',
        'content-length': Buffer.byteLength(text),
      });
      response.end(text);
    };
    if (delayMs > 0) setTimeout(answer, delayMs);
    else answer();
  });
  server.keepAliveTimeout = 1000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    requests,
    gets: (path) => requests.filter((line) => line === `GET ${path}`).length,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => {
          resolve();
        });
      }),
  };
};
