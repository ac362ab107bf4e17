/**
 * Every forged, tampered, mis-signed, oversized or misplaced token, sent as a REST event for an
 * owned restaurant through the deployed orders-per-day handler (real key set and database), ends
 * in 401 with the exact spec 2.6 body and CORS `*`. Attacks carry the run issuer's genuine
 * signature wherever it could matter; controls show honest tokens answering 200. No token part
 * or claim value may appear in the debug-level logs.
 */
import type {
  APIGatewayProxyEvent,
  APIGatewayProxyEventV2,
  APIGatewayProxyResult,
} from 'aws-lambda';
import { CompactEncrypt, importJWK, type JWK } from 'jose';
import { reportEndpoint } from '../../middleware/compose';
import { SAMPLE_OWNERS, type SampleOwner } from '../../tools/db/sample-data';
import { createIssuer, serveKeySet, type KeySetServer } from '../../tools/local/issuer';
import { loadConfig } from '../../shared/config';
import { addDays, todayIn } from '../../tools/dates';
import { ordersPerDay } from '../../shared/reports/orders-per-day';
import {
  closeContainerDependencies,
  createDependencies,
  type Dependencies,
} from '../../shared/runtime';
import {
  b64url,
  clockTolerance,
  compactJwe,
  configuredIssuer,
  generateSigningKey,
  handSigned,
  hmacSigned,
  nowSeconds,
  portalPayload,
  publicKeyForms,
  runIssuerKey,
  segment,
  startCountingServer,
  type CountingServer,
  type Digest,
  type SigningKey,
} from '../support/attacks';
import { httpApiEvent, jsonBody, lambdaContext, restEvent } from '../support/events';
import { captureLogs, claimSecrets, type LogCapture } from '../support/log-capture';
import { testIssuer } from '../support/tokens';

const ORDERS_DAY = '/v1/restaurants/{id}/reports/orders/day';
const [OWNER] = SAMPLE_OWNERS as [SampleOwner, ...SampleOwner[]];

/** The three 401 bodies of spec 2.6 / section 7. */
const error = (code: string, message: string) => ({ state: 'ERROR', code, message });
const REFUSED = {
  invalid: error('TOKEN_INVALID', 'The provided token cannot be verified'),
  header: error(
    'TOKEN_INVALID',
    'Authorization header is invalid. Did you forget to add "Bearer "?',
  ),
  expired: error('TOKEN_EXPIRED', 'The provided token has expired'),
} as const;
type Refusal = keyof typeof REFUSED;

type Invoke = (
  event: APIGatewayProxyEvent | APIGatewayProxyEventV2,
) => Promise<APIGatewayProxyResult>;

/** Every token this suite sent: none of them, nor any of their parts, may be logged. */
const sent = new Set<string>();

let logs: LogCapture;
/** The deployed handler, on the run's key set (one RS256 key). */
let deployed: Invoke;
/** The same chain on a key set of three keys: the run key, a second RSA key, an ES256 key. */
let severalKeys: Invoke;
let severalKeysServer: KeySetServer;
let severalKeysDeps: Dependencies;
/** An attacker's key set host, for jku and x5u: it must never be asked for anything. */
let attackerHost: CountingServer;
let issuerKey: SigningKey;
let secondRsa: SigningKey;
let ecKey: SigningKey;
let attacker: SigningKey;

beforeAll(async () => {
  process.env.LOG_LEVEL = 'debug';
  logs = captureLogs();
  expect(process.env.JWT_ISSUER).toBeTruthy();
  const issuer = await testIssuer();
  issuerKey = runIssuerKey();
  expect(issuerKey.kid).toBe(issuer.kid);
  secondRsa = generateSigningKey('RS256', 'environment-rsa-2');
  ecKey = generateSigningKey('ES256', 'environment-ec-1');
  attacker = generateSigningKey('RS256', 'attacker-key-1');

  severalKeysServer = await serveKeySet(() => ({
    keys: [...issuer.publicKeySet.keys, secondRsa.publicJwk, ecKey.publicJwk],
  }));
  severalKeysDeps = createDependencies(
    loadConfig({ ...process.env, JWKS_URL: severalKeysServer.url }),
  );
  const chain = reportEndpoint(
    ordersPerDay,
    severalKeysDeps.database.bind(ordersPerDay.queries),
    severalKeysDeps,
  );
  severalKeys = (event) => chain(event, lambdaContext());

  attackerHost = await startCountingServer((path) =>
    path === '/jwks.json' ? { keys: [attacker.publicJwk] } : undefined,
  );

  const { handler } = await import('../../functions/orders-per-day');
  deployed = (event) => handler(event, lambdaContext());
});

afterAll(async () => {
  try {
    const lines = logs.lines();
    expect(lines.some((line) => line.includes('"request refused"'))).toBe(true);
    const tokenParts = [...sent].flatMap((token) => [token, ...token.split('.')]);
    logs.expectClean([...tokenParts, ...SAMPLE_OWNERS.flatMap(claimSecrets)]);
    expect(attackerHost.requests).toEqual([]);
  } finally {
    logs.stop();
    await Promise.all([
      closeContainerDependencies(),
      severalKeysDeps.close(),
      severalKeysServer.close(),
      attackerHost.close(),
    ]);
  }
});

const range = () => {
  const today = todayIn('Asia/Dubai');
  return { from: addDays(today, -6), to: today };
};

/** The portal's request for R-1001 on TB_AE, with these headers and query parameters. */
const reportRequest = (
  headers: Record<string, string | string[]>,
  query: Record<string, string> = {},
) => ({
  resource: ORDERS_DAY,
  pathParameters: { id: 'R-1001' },
  headers: { Origin: 'https://portal.example.com', 'X-Platform-Id': 'TB_AE', ...headers },
  query: { ...range(), ...query },
});

const send = (token: string, handler: Invoke = deployed): Promise<APIGatewayProxyResult> => {
  sent.add(token);
  return handler(restEvent(reportRequest({ Authorization: `Bearer ${token}` })));
};

const outcome = (result: APIGatewayProxyResult) => ({
  status: result.statusCode,
  cors: result.headers?.['Access-Control-Allow-Origin'],
  body: jsonBody(result),
});

const expectRefused = (result: APIGatewayProxyResult, refusal: Refusal): void => {
  expect(outcome(result)).toEqual({ status: 401, cors: '*', body: REFUSED[refusal] });
};

const expectServed = (result: APIGatewayProxyResult): void => {
  expect(result.statusCode).toBe(200);
  expect(result.headers?.['Access-Control-Allow-Origin']).toBe('*');
  expect((jsonBody(result) as { data: unknown[] }).data).toHaveLength(7);
};

const header = (extra: Record<string, unknown> = {}): Record<string, unknown> => ({
  alg: 'RS256',
  kid: issuerKey.kid,
  typ: 'JWT',
  ...extra,
});

/** A token carrying the run issuer's genuine RS256 signature over this header and payload. */
const genuine = (
  headerExtra: Record<string, unknown> = {},
  payloadOverrides: Record<string, unknown> = {},
): string =>
  handSigned(
    JSON.stringify(header(headerExtra)),
    JSON.stringify(portalPayload(OWNER, payloadOverrides)),
    issuerKey.privateKey,
  );

/** The run issuer's signature over exactly this header and payload text. */
const genuineText = (headerText: string, payloadText: string, digest: Digest = 'sha256') =>
  handSigned(headerText, payloadText, issuerKey.privateKey, { digest });

const payloadText = (overrides: Record<string, unknown> = {}) =>
  JSON.stringify(portalPayload(OWNER, overrides));

describe('controls: the same request with an honest token is served', () => {
  it('answers 200 to a token the run issuer signed with jose', async () => {
    const token = await (await testIssuer()).sign(portalPayload(OWNER), { expiresIn: '5m' });

    expectServed(await send(token));
  });

  it('answers 200 to a hand-built token with the run key’s signature (the forger is sound)', async () => {
    expectServed(await send(genuine()));
  });

  it('answers 200 on the several-key set to an ES256 token its EC key signed', async () => {
    const token = handSigned(
      JSON.stringify({ alg: 'ES256', kid: ecKey.kid }),
      payloadText(),
      ecKey.privateKey,
    );

    expectServed(await send(token, severalKeys));
  });
});

/** Every upper/lower-case spelling of "none". */
const NONE_CASINGS = Array.from({ length: 16 }, (_, bits) =>
  ['n', 'o', 'n', 'e']
    .map((letter, i) => ((bits >> i) & 1 ? letter.toUpperCase() : letter))
    .join(''),
);

describe('alg none', () => {
  it.each(NONE_CASINGS)(
    'refuses alg "%s" without a signature and with the run key’s signature',
    async (alg) => {
      const headerText = JSON.stringify({ alg, kid: issuerKey.kid, typ: 'JWT' });
      const unsigned = `${b64url(headerText)}.${b64url(payloadText())}`;

      expectRefused(await send(`${unsigned}.`), 'invalid');
      expectRefused(await send(genuineText(headerText, payloadText())), 'invalid');
    },
  );

  it('refuses alg none without a kid and without a signature', async () => {
    expectRefused(await send(`${segment({ alg: 'none' })}.${b64url(payloadText())}.`), 'invalid');
  });
});

describe('another spelling of a genuine token', () => {
  it.each([
    ['two = after it', 'invalid', (token: string) => `${token}==`],
    ['one = after it', 'invalid', (token: string) => `${token}=`],
    // The bearer syntax (RFC 6750) allows = only at the end: the header itself is refused.
    ['= padding its header', 'header', (token: string) => token.replace('.', '=.')],
    [
      'its signature in standard base64',
      'invalid',
      (token: string) => {
        const [head, body, signature = ''] = token.split('.');
        return `${head}.${body}.${Buffer.from(signature, 'base64url').toString('base64')}`;
      },
    ],
  ] as const)(
    'refuses a genuine token with %s, and still serves the token itself',
    async (_what, refusal, respell) => {
      // Arrange: the genuine token, served (and so cached) first.
      const token = genuine();
      expectServed(await send(token));

      // Act
      const variant = await send(respell(token));

      // Assess
      expectRefused(variant, refusal);
      expectServed(await send(token));
    },
  );
});

describe('missing or borrowed signature', () => {
  it.each([
    ['whose signature was emptied', '.'],
    ['cut to its header and payload', ''],
  ])('refuses a genuine token %s', async (_what, end) => {
    const [head, body] = genuine().split('.');

    expectRefused(await send(`${head}.${body}${end}`), 'invalid');
  });

  it('refuses a payload granting another owner’s restaurants under a signature of another token', async () => {
    const [head, , signature] = genuine().split('.');
    const stolen = portalPayload(SAMPLE_OWNERS[1] as SampleOwner);

    expectRefused(await send(`${head}.${segment(stolen)}.${signature}`), 'invalid');
  });
});

describe('key confusion: RS256 → HS* keyed with the published public key', () => {
  it.each(
    (['HS256', 'HS384', 'HS512'] as const).flatMap((alg) =>
      (['PEM', 'DER', 'JWK'] as const).map((form) => [alg, form] as const),
    ),
  )('refuses %s keyed with the public key as %s text', async (alg, form) => {
    const secret = publicKeyForms(issuerKey.publicJwk)[form];
    const token = hmacSigned(alg, header(), portalPayload(OWNER), secret);

    expectRefused(await send(token), 'invalid');
  });

  it.each([
    ['with the real kid', () => header()],
    ['without a kid', () => ({ typ: 'JWT' })],
  ])('refuses HS256 keyed with an empty secret %s', async (_what, head) => {
    expectRefused(await send(hmacSigned('HS256', head(), portalPayload(OWNER), '')), 'invalid');
  });
});

/** The order n of the P-256 group. */
const P256_ORDER = Buffer.from(
  'FFFFFFFF00000000FFFFFFFFFFFFFFFFBCE6FAADA7179E84F3B9CAC2FC632551',
  'hex',
);

describe('ECDSA signatures out of range (on a set holding an ES256 key)', () => {
  it.each([
    ['the psychic signature r = s = 0', () => new Uint8Array(64)],
    ['r = s = 0 in DER form', () => Buffer.from('3006020100020100', 'hex')],
    ['r = s = n, the group order', () => Buffer.concat([P256_ORDER, P256_ORDER])],
  ])('refuses an ES256 token carrying %s', async (_what, signature) => {
    const input = `${segment({ alg: 'ES256', kid: ecKey.kid })}.${b64url(payloadText())}`;

    expectRefused(await send(`${input}.${b64url(signature())}`, severalKeys), 'invalid');
  });
});

describe('an algorithm that does not match the key', () => {
  it.each([
    ['ES256 naming the RSA key, RSA-signed', { alg: 'ES256' }, {}],
    ['PS256 on a key published for RS256, PSS-signed by it', { alg: 'PS256' }, { pss: true }],
    ['RS512 on a key published for RS256, signed by it', { alg: 'RS512' }, { digest: 'sha512' }],
    ['EdDSA naming the RSA key', { alg: 'EdDSA' }, {}],
  ] as const)('refuses %s', async (_what, head, options) => {
    const token = handSigned(
      JSON.stringify(header(head)),
      payloadText(),
      issuerKey.privateKey,
      options,
    );

    expectRefused(await send(token), 'invalid');
  });

  it('refuses RS256 naming the EC key of the set, RSA-signed', async () => {
    const token = genuineText(JSON.stringify({ alg: 'RS256', kid: ecKey.kid }), payloadText());

    expectRefused(await send(token, severalKeys), 'invalid');
  });

  it('refuses ES384 naming the P-256 key, signed by that key with SHA-384', async () => {
    const token = handSigned(
      JSON.stringify({ alg: 'ES384', kid: ecKey.kid }),
      payloadText(),
      ecKey.privateKey,
      { digest: 'sha384' },
    );

    expectRefused(await send(token, severalKeys), 'invalid');
  });
});

describe('keys the token names itself', () => {
  const attackerSigned = (head: Record<string, unknown>) =>
    handSigned(JSON.stringify({ alg: 'RS256', ...head }), payloadText(), attacker.privateKey);

  it.each([
    ['the attacker’s kid', () => attacker.kid],
    ['the real kid', () => issuerKey.kid],
    ['no kid', () => undefined],
  ])('ignores an embedded jwk header (attacker key) with %s', async (_what, kid) => {
    expectRefused(await send(attackerSigned({ kid: kid(), jwk: attacker.publicJwk })), 'invalid');
  });

  it.each(
    (['jku', 'x5u'] as const).flatMap((member) =>
      (
        [
          ['the attacker’s kid', () => attacker.kid],
          ['the real kid', () => issuerKey.kid],
        ] as const
      ).map(([what, kid]) => [member, what, kid] as const),
    ),
  )('never fetches %s at the attacker’s host (%s)', async (member, _what, kid) => {
    const url = `${attackerHost.origin}/${member === 'jku' ? 'jwks.json' : 'cert.pem'}`;

    expectRefused(await send(attackerSigned({ kid: kid(), [member]: url })), 'invalid');
    expect(attackerHost.requests).toEqual([]);
  });

  it('ignores an x5c certificate chain with the real kid', async () => {
    const x5c = [Buffer.from('attacker certificate').toString('base64')];

    expectRefused(await send(attackerSigned({ kid: issuerKey.kid, x5c })), 'invalid');
  });
});

describe('kid values (the run key’s genuine signature)', () => {
  it.each([
    ['a path traversal', () => '../../../../etc/passwd'],
    ['an encoded path traversal', () => '..%2F..%2F..%2Fetc%2Fpasswd'],
    ['SQL', () => "' OR '1'='1' --"],
    ['SQL with a statement', () => "x'; DROP TABLE orders; --"],
    [
      'shell metacharacters',
      () => '$(curl http://127.0.0.1:9/); `id` | nc 127.0.0.1 9 && rm -rf /',
    ],
    ['a NUL byte before the real kid', () => `\u0000${issuerKey.kid}`],
    ['empty', () => ''],
    ['10,000 characters', () => 'k'.repeat(10_000)],
    ['a number', () => 42],
    ['null', () => null],
    ['a boolean', () => true],
    ['an object holding the real kid', () => ({ kid: issuerKey.kid })],
    ['an array holding the real kid', () => [issuerKey.kid]],
  ])('refuses a kid that is %s', async (_what, kid) => {
    const token = genuine({ kid: kid() });

    expect(token.length).toBeLessThan(16 * 1024);
    expectRefused(await send(token), 'invalid');
  });

  it('refuses a token without kid when several RSA keys of the set could verify it', async () => {
    const token = genuineText(JSON.stringify({ alg: 'RS256', typ: 'JWT' }), payloadText());

    expectRefused(await send(token, severalKeys), 'invalid');
  });

  it('refuses a token without kid on the run key set, whose one key signed it', async () => {
    const token = genuineText(JSON.stringify({ alg: 'RS256', typ: 'JWT' }), payloadText());

    expectRefused(await send(token), 'invalid');
  });

  it('refuses a token without kid that the only key of its algorithm in the several-key set signed', async () => {
    const token = handSigned(JSON.stringify({ alg: 'ES256' }), payloadText(), ecKey.privateKey);

    expectRefused(await send(token, severalKeys), 'invalid');
  });
});

describe('another environment’s key set', () => {
  it('refuses a token signed by a second issuer with the same iss and claims', async () => {
    const other = await createIssuer(configuredIssuer());
    const token = await other.sign(portalPayload(OWNER), { expiresIn: '5m' });

    expect(other.kid).not.toBe(issuerKey.kid);
    expectRefused(await send(token), 'invalid');
  });

  it('refuses a token signed by another environment’s key that reuses our kid', async () => {
    const impostor = generateSigningKey('RS256', issuerKey.kid);
    const token = handSigned(JSON.stringify(header()), payloadText(), impostor.privateKey);

    expectRefused(await send(token), 'invalid');
  });
});

describe('header parameters', () => {
  it.each([
    ['an unknown critical parameter', { crit: ['urn:example:policy'], 'urn:example:policy': 1 }],
    ['an empty crit list', { crit: [] }],
    ['crit that is not a list', { crit: 'exp' }],
  ])('refuses %s', async (_what, head) => {
    expectRefused(await send(genuine(head)), 'invalid');
  });

  /** A payload without any '.', so the unencoded form still makes three compact parts. */
  const dotFree = () =>
    JSON.stringify({
      sub: OWNER.sub,
      exp: nowSeconds() + 300,
      authSchema: {
        restaurants: [
          { id: 'R-1001', platforms: [{ restaurantId: 'tb-ae-5501', platformId: 'TB_AE' }] },
        ],
      },
    });

  it.each([
    ['b64: false, critical', { b64: false, crit: ['b64'] }],
    ['b64: false, not critical', { b64: false }],
  ])(
    'refuses an unencoded JSON payload (%s) with a genuine signature: not a bearer token',
    async (_what, head) => {
      const token = handSigned(JSON.stringify(header(head)), dotFree(), issuerKey.privateKey, {
        encodePayload: false,
      });

      expect(token.split('.')).toHaveLength(3);
      expectRefused(await send(token), 'header');
    },
  );

  it('refuses b64: false (critical) over a genuine base64url payload, which passes the bearer syntax', async () => {
    // The signing input is the usual one, so the signature verifies; the payload is then the
    // base64url text itself, which is no JWT claims set.
    const token = genuine({ b64: false, crit: ['b64'] });

    expectRefused(await send(token), 'invalid');
  });
});

describe('duplicate members: the lexically last one counts, and it is hostile', () => {
  const kid = (): string => JSON.stringify(issuerKey.kid);
  const withDuplicate = (json: string, member: string) => `${json.slice(0, -1)},${member}}`;

  it.each([
    ['header alg RS256 then none', () => `{"alg":"RS256","kid":${kid()},"alg":"none"}`],
    ['header alg RS256 then HS256', () => `{"alg":"RS256","kid":${kid()},"alg":"HS256"}`],
    ['header kid real then unknown', () => `{"alg":"RS256","kid":${kid()},"kid":"unknown-1"}`],
  ])('refuses %s', async (_what, headerText) => {
    expectRefused(await send(genuineText(headerText(), payloadText())), 'invalid');
  });

  it.each([
    [
      'payload iss configured then another',
      (): string => '"iss":"https://evil.example"',
      'invalid',
    ],
    ['payload authSchema granted then garbage', (): string => '"authSchema":"{"', 'invalid'],
    ['payload exp ahead then past', (): string => `"exp":${nowSeconds() - 3600}`, 'expired'],
  ] as const)('refuses %s', async (_what, member, refusal) => {
    const token = genuineText(JSON.stringify(header()), withDuplicate(payloadText(), member()));

    expectRefused(await send(token), refusal);
  });
});

describe('five-part JWE instead of a JWS: refused at once, never decrypted', () => {
  const published = async () => {
    const { alg: _alg, use: _use, ...bare } = issuerKey.publicJwk;
    return importJWK(bare as JWK, 'RSA-OAEP-256');
  };

  it.each([
    [
      'PBES2 with p2c = 2^40',
      () =>
        compactJwe({
          alg: 'PBES2-HS512+A256KW',
          enc: 'A256GCM',
          p2c: 2 ** 40,
          p2s: b64url('saltsaltsalt'),
        }),
    ],
    [
      'PBES2 with p2c = 2^53 − 1',
      () =>
        compactJwe({
          alg: 'PBES2-HS256+A128KW',
          enc: 'A128GCM',
          p2c: Number.MAX_SAFE_INTEGER,
          p2s: b64url('salt'),
        }),
    ],
    [
      'dir + A256GCM naming the real kid',
      () => compactJwe({ alg: 'dir', enc: 'A256GCM', kid: issuerKey.kid }),
    ],
    [
      'RSA-OAEP-256 genuinely encrypted to the published key',
      async () =>
        new CompactEncrypt(new TextEncoder().encode(payloadText()))
          .setProtectedHeader({ alg: 'RSA-OAEP-256', enc: 'A256GCM', kid: issuerKey.kid })
          .encrypt(await published()),
    ],
  ])('refuses a JWE with %s in under 200 ms', async (_what, build) => {
    const token = await build();
    expect(token.split('.')).toHaveLength(5);

    const started = performance.now();
    const result = await send(token);
    const elapsed = performance.now() - started;

    expectRefused(result, 'invalid');
    expect(elapsed).toBeLessThan(200);
  });
});

/** A genuine token padded by a claim of `pad` characters. */
const padded = (pad: number): string => genuine({}, { pad: 'p'.repeat(pad) });

/** The longest genuine token of at most `limit` characters, and the next longer one. */
const aroundLimit = (limit: number): { atMost: string; justOver: string } => {
  let pad = Math.max(0, Math.floor(((limit - padded(0).length) * 3) / 4) - 16);
  let below = padded(pad);
  for (let step = 0; step < 64; step += 1) {
    const next = padded(pad + 1);
    if (next.length > limit) return { atMost: below, justOver: next };
    below = next;
    pad += 1;
  }
  throw new Error(`no genuine token length around ${limit}`);
};

describe('size: API Gateway caps headers, the service refuses tokens over 16 KiB', () => {
  it('serves a genuine token of at most 16 KiB (control)', async () => {
    const token = aroundLimit(16 * 1024).atMost;

    expect(token.length).toBeLessThanOrEqual(16 * 1024);
    expect(token.length).toBeGreaterThan(16 * 1024 - 8);
    expectServed(await send(token));
  });

  it('refuses a genuine token just over 16 KiB', async () => {
    const token = aroundLimit(16 * 1024).justOver;

    expect(token.length).toBeGreaterThan(16 * 1024);
    expect(token.length).toBeLessThan(16 * 1024 + 8);
    expectRefused(await send(token), 'invalid');
  });

  it('refuses a genuine token of 400 KB', async () => {
    const token = genuine({}, { pad: 'p'.repeat(300_000) });

    expect(token.length).toBeGreaterThan(400_000);
    expectRefused(await send(token), 'invalid');
  });

  it('refuses 300 KB of base64url junk in three parts', async () => {
    const junk = 'A'.repeat(100_000);

    expectRefused(await send(`${junk}.${junk}.${junk}`), 'invalid');
  });
});

describe('token times', () => {
  it('refuses a token whose exp passed just beyond the clock tolerance as TOKEN_EXPIRED', async () => {
    const token = genuine({}, { exp: nowSeconds() - clockTolerance() - 2 });

    expectRefused(await send(token), 'expired');
  });

  it('refuses a token the run issuer signed with jose that expired an hour ago as TOKEN_EXPIRED', async () => {
    const token = await (await testIssuer()).sign(portalPayload(OWNER), { expiresIn: -3600 });

    expectRefused(await send(token), 'expired');
  });

  it.each([
    ['a numeric string', () => String(nowSeconds() + 300)],
    ['null', () => null],
    ['missing', () => undefined],
    ['a date string', () => new Date(Date.now() + 300_000).toISOString()],
  ])('refuses exp that is %s', async (_what, exp) => {
    expectRefused(await send(genuine({}, { exp: exp() })), 'invalid');
  });

  it('refuses a token whose nbf lies in the future beyond the tolerance', async () => {
    const token = genuine({}, { nbf: nowSeconds() + clockTolerance() + 120 });

    expectRefused(await send(token), 'invalid');
  });
});

describe('issuer (JWT_ISSUER is configured)', () => {
  it.each([
    ['another issuer', () => 'https://evil.example'],
    ['the issuer with a trailing slash', () => `${configuredIssuer()}/`],
    ['no issuer', () => undefined],
    ['an array holding the right issuer', () => [configuredIssuer()]],
  ])('refuses %s', async (_what, iss) => {
    expectRefused(await send(genuine({}, { iss: iss() })), 'invalid');
  });
});

describe('garbage authSchema (genuinely signed)', () => {
  const restaurants = () => JSON.parse(String(portalPayload(OWNER).authSchema)) as unknown;
  /** The payload text with this raw JSON as its authSchema member. */
  const withSchemaText = (raw: string) => {
    const text = payloadText({ authSchema: undefined });
    return `${text.slice(0, -1)},"authSchema":${raw}}`;
  };

  it.each([
    ['"{"', () => JSON.stringify('{')],
    ['"null"', () => JSON.stringify('null')],
    ['"[]"', () => JSON.stringify('[]')],
    ['[]', () => '[]'],
    ['42', () => '42'],
    ['null', () => 'null'],
    [
      'a string holding restaurants that is not an array',
      () => JSON.stringify('{"restaurants":{"0":{}}}'),
    ],
    [
      'a JSON string with the restaurants under __proto__',
      () => JSON.stringify(`{"__proto__":${JSON.stringify(restaurants())}}`),
    ],
    [
      'an object with the restaurants under __proto__',
      () => `{"__proto__":${JSON.stringify(restaurants())}}`,
    ],
    [
      'an object with the restaurants under constructor.prototype',
      () => `{"constructor":{"prototype":${JSON.stringify(restaurants())}}}`,
    ],
  ])('refuses authSchema %s', async (_what, raw) => {
    const token = genuineText(JSON.stringify(header()), withSchemaText(raw()));

    expectRefused(await send(token), 'invalid');
    expect(({} as Record<string, unknown>).restaurants).toBeUndefined();
  });

  it('refuses a token without authSchema', async () => {
    expectRefused(await send(genuine({}, { authSchema: undefined })), 'invalid');
  });

  it('refuses a 1 MB authSchema by the size of the token alone', async () => {
    const schema = JSON.stringify({ restaurants: [], filler: 'f'.repeat(1024 * 1024) });
    const token = genuine({}, { authSchema: schema });

    expect(token.length).toBeGreaterThan(1024 * 1024);
    expectRefused(await send(token), 'invalid');
  });
});

describe('where the token travels', () => {
  let honest = '';
  beforeAll(async () => {
    honest = await (await testIssuer()).sign(portalPayload(OWNER), { expiresIn: '5m' });
    sent.add(honest);
  });

  type Sent = [string, () => Record<string, string | string[]>, (() => Record<string, string>)?];
  it.each<Sent>([
    [
      'two Authorization headers, each with the same genuine token',
      () => ({ Authorization: [`Bearer ${honest}`, `Bearer ${honest}`] }),
    ],
    [
      'Authorization and authorization sent side by side',
      () => ({ Authorization: `Bearer ${honest}`, authorization: `Bearer ${honest}` }),
    ],
    [
      'a genuine token sent only in the query string as ?access_token=',
      () => ({}),
      () => ({ access_token: honest }),
    ],
    [
      'a genuine token sent only in the query string as ?token=',
      () => ({}),
      () => ({ token: honest }),
    ],
    [
      'a genuine token sent only in a cookie named access_token',
      () => ({ Cookie: `access_token=${honest}; theme=dark` }),
    ],
    [
      'a genuine token sent only in a cookie named token',
      () => ({ Cookie: `token=${honest}; theme=dark` }),
    ],
    [
      'a genuine token sent only in a cookie named Authorization',
      () => ({ Cookie: `Authorization=${honest}; theme=dark` }),
    ],
    [
      'a genuine token sent in the query string and a cookie, without the header',
      () => ({ Cookie: `access_token=${honest}` }),
      () => ({ access_token: honest }),
    ],
    [
      'an Authorization header holding the bare token, without a scheme',
      () => ({ Authorization: honest }),
    ],
    [
      'an Authorization header holding Basic with the token',
      () => ({ Authorization: `Basic ${honest}` }),
    ],
    [
      'an Authorization header holding Bearer with nothing after it',
      () => ({ Authorization: 'Bearer' }),
    ],
    [
      'an Authorization header holding Bearer with two tokens',
      () => ({ Authorization: `Bearer ${honest} ${honest}` }),
    ],
  ])('refuses %s', async (_what, headers, query = () => ({})) => {
    expectRefused(await deployed(restEvent(reportRequest(headers(), query()))), 'header');
  });

  it('refuses a genuine and a forged Authorization header together', async () => {
    const forged = hmacSigned('HS256', header(), portalPayload(OWNER), '');
    sent.add(forged);

    const event = restEvent(
      reportRequest({ Authorization: [`Bearer ${forged}`, `Bearer ${honest}`] }),
    );
    expectRefused(await deployed(event), 'header');
  });

  it('refuses two Authorization headers joined by a comma in an HTTP API (v2) event', async () => {
    const event = httpApiEvent(
      reportRequest({ Authorization: [`Bearer ${honest}`, `Bearer ${honest}`] }),
    );

    expectRefused(await deployed(event), 'header');
  });
});
