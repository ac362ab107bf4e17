/**
 * The secret reader (shared/db/secrets-extension.ts) against a local Parameters and Secrets
 * extension (tests/support/secrets-extension.ts) over real HTTP: it reads the current
 * SecretString with the session token; it waits out an extension that is not listening or not
 * ready yet, within its time bound; one that accepts the connection and says nothing, or
 * trickles its answer, is given up on within the same bound; and every other answer fails at
 * once as a SecretReadError that carries the status, never the body.
 */
import { once } from 'node:events';
import { createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { SecretReadError, secretsExtensionReader } from '../../../shared/db/secrets-extension';
import { freePort } from '../../support/processes';
import {
  startLocalSecretsExtension,
  type LocalSecretsExtension,
} from '../../support/secrets-extension';

const ARN = 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:rds!db-0123abcd-AbC123';
const SECRET = JSON.stringify({ username: 'reports', password: 'Rotated-Pa55word!' });

let extension: LocalSecretsExtension;
beforeEach(async () => {
  extension = await startLocalSecretsExtension();
  extension.put(ARN, SECRET);
});
afterEach(async () => {
  await extension.close();
});

const reader = (options: { port?: number; token?: string; timeoutMs?: number } = {}) =>
  secretsExtensionReader(ARN, {
    port: options.port ?? extension.port,
    sessionToken: options.token ?? extension.sessionToken,
    timeoutMs: options.timeoutMs ?? 2_000,
  });

describe('secretsExtensionReader', () => {
  it('reads the current SecretString, once per call (no cache of its own)', async () => {
    const read = reader();

    expect(await read()).toBe(SECRET);
    extension.put(ARN, '{"username":"reports","password":"next"}');
    expect(await read()).toBe('{"username":"reports","password":"next"}');
    expect(extension.reads(ARN)).toBe(2);
  });

  it('refuses an ARN that is not a full secret ARN before any request', () => {
    expect(() =>
      secretsExtensionReader('arn:aws:secretsmanager:eu-west-1:123456789012:secret:short', {
        port: extension.port,
        sessionToken: 't',
        timeoutMs: 100,
      }),
    ).toThrow(TypeError);
  });

  it('waits while the extension answers "not ready", then reads', async () => {
    extension.notReadyFor(3);

    expect(await reader()()).toBe(SECRET);
    expect(extension.refused).toBe(3);
  });

  it('waits for an extension that starts listening after the first attempt', async () => {
    // Nothing listens on the port yet; the extension starts there 150 ms later.
    const port = await freePort();
    const late = new Promise<LocalSecretsExtension>((resolve, reject) => {
      setTimeout(() => {
        startLocalSecretsExtension({ port }).then((started) => {
          started.put(ARN, SECRET);
          resolve(started);
        }, reject);
      }, 150);
    });
    const read = secretsExtensionReader(ARN, {
      port,
      sessionToken: 'local-session-token',
      timeoutMs: 2_000,
    });

    const reading = read();
    const started = await late;
    let secret: string;
    try {
      secret = await reading;
    } finally {
      await started.close();
    }

    expect(secret).toBe(SECRET);
    expect(started.reads(ARN)).toBe(1);
  });

  it('gives up when the extension stays unready past the time bound', async () => {
    extension.notReadyFor(1_000);
    const started = Date.now();

    const failure = await reader({ timeoutMs: 300 })().catch((error: unknown) => error);

    expect(failure).toBeInstanceOf(SecretReadError);
    expect(failure).toMatchObject({ status: 400, code: 'ERR_DATABASE_SECRET_READ' });
    expect(Date.now() - started).toBeLessThan(1_500);
  });

  describe('a peer that holds the connection', () => {
    let peer: Server | undefined;
    const held = new Set<Socket>();
    afterEach(async () => {
      for (const socket of held) socket.destroy();
      held.clear();
      if (peer) await new Promise((resolve) => peer?.close(resolve));
      peer = undefined;
    });

    const holding = async (speak: (socket: Socket) => void): Promise<number> => {
      peer = createServer((socket) => {
        held.add(socket);
        socket.on('error', () => undefined);
        speak(socket);
      });
      peer.listen(0, '127.0.0.1');
      await once(peer, 'listening');
      return (peer.address() as AddressInfo).port;
    };

    it.each([
      ['accepts the connection and never answers', (): void => undefined],
      [
        'trickles its answer a byte at a time, never finishing it',
        (socket: Socket): void => {
          socket.write('HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n');
          const timer = setInterval(() => socket.write('{'), 100);
          socket.on('close', () => {
            clearInterval(timer);
          });
        },
      ],
    ])('gives up on one that %s within the time bound', async (_case, speak) => {
      const port = await holding(speak);
      const started = Date.now();

      const failure = await reader({ port, timeoutMs: 400 })().catch((error: unknown) => error);

      expect(failure).toBeInstanceOf(SecretReadError);
      expect(failure).toMatchObject({ code: 'ERR_DATABASE_SECRET_READ' });
      expect(Date.now() - started).toBeGreaterThanOrEqual(350);
      expect(Date.now() - started).toBeLessThan(1_000);
    });
  });

  it.each([
    ['a wrong session token', 401, (x: LocalSecretsExtension) => x, 'not-the-token'],
    [
      'a secret the role may not read',
      400,
      (x: LocalSecretsExtension) => {
        x.deny(ARN);
        return x;
      },
      undefined,
    ],
  ])(
    'fails at once on %s, with the status and not the body',
    async (_case, status, arrange, token) => {
      arrange(extension);
      const started = Date.now();

      const failure = await reader({ token })().catch((error: unknown) => error);

      expect(failure).toBeInstanceOf(SecretReadError);
      expect(failure).toMatchObject({ status });
      expect((failure as Error).message).not.toContain('secretsmanager');
      expect((failure as Error).message).not.toContain('Unauthorized');
      expect(Date.now() - started).toBeLessThan(500);
    },
  );

  it('fails on an unknown secret as on any answer that is not the secret', async () => {
    const failure = await secretsExtensionReader(
      'arn:aws:secretsmanager:eu-west-1:123456789012:secret:nothing-here-AbC123',
      { port: extension.port, sessionToken: extension.sessionToken, timeoutMs: 1_000 },
    )().catch((error: unknown) => error);

    expect(failure).toMatchObject({ name: 'SecretReadError', status: 400 });
  });

  it('fails on a binary secret (no SecretString)', async () => {
    extension.put(ARN, SECRET);
    const binary = await startBinaryAnswer();
    try {
      const failure = await reader({ port: binary.port })().catch((error: unknown) => error);
      expect(failure).toMatchObject({ name: 'SecretReadError', status: 200 });
      expect((failure as Error).message).toBe('the secret holds no SecretString');
    } finally {
      await binary.close();
    }
  });
});

/** An extension that answers a binary secret: SecretBinary, no SecretString. */
const startBinaryAnswer = async () => {
  const { createServer } = await import('node:http');
  const server = createServer((_request, response) => {
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(JSON.stringify({ ARN, SecretBinary: 'AAEC', VersionStages: ['AWSCURRENT'] }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  return {
    port: typeof address === 'object' && address ? address.port : 0,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => {
          resolve();
        });
      }),
  };
};
