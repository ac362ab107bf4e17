/**
 * The key-set request on node:http / node:https (shared/auth/fetch-key-set.ts), against local
 * servers on 127.0.0.1 that each test scripts: what is sent, the one timeout over connect,
 * headers and body, redirects refused, the body cap by Content-Length and by counting, and the
 * protocol chosen from the URL.
 */
import { once } from 'node:events';
import {
  createServer as createHttpServer,
  type IncomingMessage,
  type ServerResponse,
} from 'node:http';
import {
  createServer as createTcpServer,
  type AddressInfo,
  type Server,
  type Socket,
} from 'node:net';
import { fetchKeySetBody, KEY_SET_FETCH_ERRORS } from '../../../../shared/auth/fetch-key-set';

const PATH = '/v2/jwks.json';
const LIMIT = 1024;
const TIMEOUT_MS = 300;
const BODY = JSON.stringify({ keys: [{ kty: 'EC', kid: 'a' }] });

type Handler = (request: IncomingMessage, response: ServerResponse) => void;

interface ScriptedServer {
  readonly url: URL;
  /** Every request received: method, path and headers. */
  readonly requests: IncomingMessage[];
  /** Resolves when the server sees a connection closed (the client gave up or finished). */
  readonly closed: () => Promise<void>;
}

const opened: Server[] = [];
const sockets = new Set<Socket>();

afterEach(async () => {
  for (const socket of sockets) socket.destroy();
  sockets.clear();
  await Promise.all(
    opened.splice(0).map(async (server) => {
      server.close();
      await once(server, 'close');
    }),
  );
});

/** Listens on 127.0.0.1; afterEach destroys every connection it accepted and closes it. */
const listen = async (server: Server): Promise<number> => {
  opened.push(server);
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return (server.address() as AddressInfo).port;
};

const scripted = async (handler: Handler): Promise<ScriptedServer> => {
  const requests: IncomingMessage[] = [];
  let sawClose: () => void = () => undefined;
  const closedOnce = new Promise<void>((resolve) => {
    sawClose = resolve;
  });
  const server = createHttpServer((request, response) => {
    requests.push(request);
    request.socket.once('close', sawClose);
    handler(request, response);
  });
  const port = await listen(server);
  return { url: new URL(`http://127.0.0.1:${port}${PATH}`), requests, closed: () => closedOnce };
};

const rejection = async (promise: Promise<unknown>): Promise<unknown> => {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected a rejection');
};

const timed = async <T>(run: () => Promise<T>): Promise<{ value: T; ms: number }> => {
  const started = performance.now();
  const value = await run();
  return { value, ms: performance.now() - started };
};

describe('fetchKeySetBody', () => {
  it('GETs the URL with accept: application/json and no content coding, and resolves with the body', async () => {
    const server = await scripted((_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json' }).end(BODY);
    });

    const body = await fetchKeySetBody(server.url, TIMEOUT_MS, LIMIT);

    expect(body).toBe(BODY);
    expect(server.requests).toHaveLength(1);
    const [request] = server.requests as [IncomingMessage];
    expect({ method: request.method, url: request.url }).toEqual({ method: 'GET', url: PATH });
    expect(request.headers).toMatchObject({
      accept: 'application/json',
      'accept-encoding': 'identity',
    });
  });

  it('accepts a body of exactly maxBytes, chunked, without a Content-Length', async () => {
    const exact = 'x'.repeat(LIMIT);
    const server = await scripted((_request, response) => {
      response.writeHead(200);
      response.write(exact.slice(0, 100));
      response.end(exact.slice(100));
    });

    await expect(fetchKeySetBody(server.url, TIMEOUT_MS, LIMIT)).resolves.toBe(exact);
  });

  it('times out a server that accepts the request and never answers, and closes the connection', async () => {
    const server = await scripted(() => undefined);

    const { value: error, ms } = await timed(() =>
      rejection(fetchKeySetBody(server.url, TIMEOUT_MS, LIMIT)),
    );

    expect(error).toMatchObject({ name: 'TimeoutError', code: KEY_SET_FETCH_ERRORS.timeout });
    expect(ms).toBeGreaterThanOrEqual(TIMEOUT_MS - 5);
    expect(ms).toBeLessThan(TIMEOUT_MS + 1_000);
    await server.closed();
  });

  it('times out a body that stalls after the headers: the timeout covers the whole body', async () => {
    const server = await scripted((_request, response) => {
      response.writeHead(200, { 'content-length': String(BODY.length) });
      response.write(BODY.slice(0, 5)); // the rest never comes
    });

    const error = await rejection(fetchKeySetBody(server.url, TIMEOUT_MS, LIMIT));

    expect(error).toMatchObject({ name: 'TimeoutError', code: KEY_SET_FETCH_ERRORS.timeout });
    await server.closed();
  });

  it('times out a peer that accepts the connection and never speaks HTTP', async () => {
    const silent = createTcpServer(() => undefined);
    const port = await listen(silent);

    const error = await rejection(
      fetchKeySetBody(new URL(`http://127.0.0.1:${port}${PATH}`), TIMEOUT_MS, LIMIT),
    );

    expect(error).toMatchObject({ name: 'TimeoutError' });
  });

  it.each([301, 302, 303, 307, 308])(
    'refuses a %i redirect without requesting its target',
    async (status) => {
      const server = await scripted((request, response) => {
        if (request.url === PATH) response.writeHead(status, { location: '/moved' }).end();
        else response.writeHead(200).end(BODY);
      });

      const error = await rejection(fetchKeySetBody(server.url, TIMEOUT_MS, LIMIT));

      expect(error).toBeInstanceOf(TypeError);
      expect(error).toMatchObject({
        code: KEY_SET_FETCH_ERRORS.status,
        message: `key set answered HTTP ${status}`,
      });
      expect(server.requests.map((request) => request.url)).toEqual([PATH]);
    },
  );

  it.each([500, 503, 404, 204, 201])('refuses HTTP %i, whatever its body', async (status) => {
    const server = await scripted((_request, response) => {
      response.writeHead(status, { 'content-type': 'application/json' });
      response.end(status === 204 ? undefined : BODY);
    });

    const error = await rejection(fetchKeySetBody(server.url, TIMEOUT_MS, LIMIT));

    expect(error).toBeInstanceOf(TypeError);
    expect(error).toMatchObject({ code: KEY_SET_FETCH_ERRORS.status });
  });

  it('refuses a Content-Length over maxBytes before reading the body, and aborts the request', async () => {
    const server = await scripted((_request, response) => {
      response.writeHead(200, { 'content-length': String(LIMIT + 1) });
      response.write('{'); // then stalls: only the header can have decided
    });

    const { value: error, ms } = await timed(() =>
      rejection(fetchKeySetBody(server.url, TIMEOUT_MS, LIMIT)),
    );

    expect(error).toBeInstanceOf(TypeError);
    expect(error).toMatchObject({
      code: KEY_SET_FETCH_ERRORS.tooLarge,
      message: 'key set response is too large',
    });
    expect(ms).toBeLessThan(TIMEOUT_MS);
    await server.closed();
  });

  it('counts a chunked body without a Content-Length and aborts as soon as it passes maxBytes', async () => {
    const server = await scripted((_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.write('x'.repeat(LIMIT));
      setTimeout(() => {
        if (!response.destroyed) response.write('xx'); // one byte too many; never ends
      }, 20);
    });

    const { value: error, ms } = await timed(() =>
      rejection(fetchKeySetBody(server.url, TIMEOUT_MS, LIMIT)),
    );

    expect(error).toBeInstanceOf(TypeError);
    expect(error).toMatchObject({ code: KEY_SET_FETCH_ERRORS.tooLarge });
    expect(ms).toBeLessThan(TIMEOUT_MS);
    await server.closed();
  });

  it.each(['gzip', ' GZIP ', 'br'])(
    'refuses a body with the content coding %j (it would be misread)',
    async (coding) => {
      // Prepare
      const server = await scripted((_request, response) => {
        response.writeHead(200, { 'content-encoding': coding }).end(BODY);
      });

      // Act
      const error = await rejection(fetchKeySetBody(server.url, TIMEOUT_MS, LIMIT));

      // Assess
      expect(error).toMatchObject({ code: KEY_SET_FETCH_ERRORS.encoding });
    },
  );

  it.each(['identity', ' Identity ', ''])(
    'reads a body whose content coding is %j: none',
    async (coding) => {
      // Prepare
      const server = await scripted((_request, response) => {
        response.writeHead(200, { 'content-encoding': coding }).end(BODY);
      });

      // Act / Assess
      await expect(fetchKeySetBody(server.url, TIMEOUT_MS, LIMIT)).resolves.toBe(BODY);
    },
  );

  it.each([
    ['resets the connection', (socket: Socket) => socket.destroy()],
    ['closes the connection cleanly', (socket: Socket) => socket.end()],
  ])(
    'refuses a body cut short when the server %s, rather than resolving with part of it',
    async (_how, cut) => {
      // Prepare
      const server = await scripted((request, response) => {
        response.writeHead(200, { 'content-length': String(BODY.length) });
        response.write(BODY.slice(0, 5), () => {
          cut(request.socket);
        });
      });

      // Act
      const { value: error, ms } = await timed(() =>
        rejection(fetchKeySetBody(server.url, TIMEOUT_MS, LIMIT)),
      );

      // Assess: at once, not at the timeout
      expect(error).toMatchObject({ code: 'ECONNRESET' });
      expect(ms).toBeLessThan(TIMEOUT_MS);
    },
  );

  it('rejects a refused connection with the network error', async () => {
    const gone = createTcpServer();
    const port = await listen(gone);
    opened.splice(opened.indexOf(gone), 1);
    gone.close();
    await once(gone, 'close');

    const error = await rejection(
      fetchKeySetBody(new URL(`http://127.0.0.1:${port}${PATH}`), TIMEOUT_MS, LIMIT),
    );

    expect(error).toMatchObject({ code: 'ECONNREFUSED' });
  });

  it('refuses a URL that is neither http nor https without connecting', async () => {
    const error = await rejection(
      fetchKeySetBody(new URL('ftp://127.0.0.1/jwks.json'), TIMEOUT_MS, LIMIT),
    );

    expect(error).toBeInstanceOf(TypeError);
    expect(error).toMatchObject({ code: KEY_SET_FETCH_ERRORS.protocol });
  });

  describe('protocol', () => {
    /** A raw TCP server that records the first bytes of each connection, then hangs up. */
    const firstBytesServer = async (): Promise<{ port: number; first: () => Promise<Buffer> }> => {
      let resolveFirst: (bytes: Buffer) => void = () => undefined;
      const first = new Promise<Buffer>((resolve) => {
        resolveFirst = resolve;
      });
      const server = createTcpServer((socket: Socket) => {
        socket.once('data', (bytes: Buffer) => {
          resolveFirst(bytes);
          socket.destroy();
        });
      });
      return { port: await listen(server), first: () => first };
    };

    it('speaks TLS to an https URL (the first bytes are a TLS handshake record)', async () => {
      const server = await firstBytesServer();

      const error = await rejection(
        fetchKeySetBody(new URL(`https://127.0.0.1:${server.port}${PATH}`), TIMEOUT_MS, LIMIT),
      );
      const bytes = await server.first();

      expect(bytes[0]).toBe(0x16); // TLS record type: handshake (a ClientHello)
      expect(bytes.subarray(0, 4).toString('latin1')).not.toBe('GET ');
      expect(error).toMatchObject({ code: 'ECONNRESET' });
    });

    it('speaks plain HTTP to an http URL', async () => {
      const server = await firstBytesServer();

      await rejection(
        fetchKeySetBody(new URL(`http://127.0.0.1:${server.port}${PATH}`), TIMEOUT_MS, LIMIT),
      );
      const bytes = await server.first();

      expect(bytes.toString('latin1').split('\r\n')[0]).toBe(`GET ${PATH} HTTP/1.1`);
    });
  });
});
