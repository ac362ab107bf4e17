/**
 * A controllable TCP proxy on 127.0.0.1 in front of a database server, for fault tests.
 *
 * Modes, applied to connections accepted from then on:
 * - `pass`: forward both ways (responses optionally delayed, see `setResponseDelay`);
 * - `refuse`: nothing listens on the port any more (the server is closed): connection refused;
 * - `black-hole`: accept the connection and never forward a byte nor answer;
 * - `hang-up`: accept the connection and close it at once, without a word (no PostgreSQL
 *   error message), as a load balancer with no healthy target or a half-dead proxy does.
 *
 * `dropAll()` closes every open connection at once (both sides), as a network drop or a
 * failover would. `silenceAll()` makes every open connection go silent, as a failover behind a
 * path that keeps them does: bytes accepted from either side, nothing passed on, never closed
 * (not even when the server closes its end); `silenceFirst(n)` does that to the n connections
 * accepted first that are still open, as a route lost to one backend does. The proxy counts the connections it accepted, those open now, the most that
 * were open at once, and remembers the local port of every upstream socket, which is the
 * `client_port` PostgreSQL shows in pg_stat_activity for the backend behind it.
 */
import { connect, createServer, type Server, type Socket } from 'node:net';

export type ProxyMode = 'pass' | 'refuse' | 'black-hole' | 'hang-up';

export interface TcpProxyOptions {
  readonly targetHost: string;
  readonly targetPort: number;
  /** Fixed listening port; by default a free one is chosen. */
  readonly port?: number;
}

export interface ProxyStats {
  /** Connections accepted since the proxy started. */
  readonly accepted: number;
  /** Client connections open now. */
  readonly open: number;
  /** The most client connections that were open at the same time. */
  readonly peakOpen: number;
}

export interface TcpProxy {
  readonly port: number;
  readonly mode: () => ProxyMode;
  /** Switches the mode for connections accepted from now on ('refuse' stops listening). */
  readonly setMode: (mode: ProxyMode) => Promise<void>;
  /** Holds every chunk from the server this long before passing it on (order is kept). */
  readonly setResponseDelay: (ms: number) => void;
  /** Closes every open connection, client and server side, now. */
  readonly dropAll: () => void;
  /** Every open connection passes nothing on from now on, and is never closed by the proxy. */
  readonly silenceAll: () => void;
  /** The same for the `count` open connections accepted first; returns their upstream ports. */
  readonly silenceFirst: (count: number) => number[];
  readonly stats: () => ProxyStats;
  /** Local ports of every upstream socket opened so far (pg_stat_activity.client_port). */
  readonly upstreamPorts: () => number[];
  /** Stops listening and drops every connection. */
  readonly close: () => Promise<void>;
}

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '::1']);

interface Pair {
  readonly client: Socket;
  upstream?: Socket;
  silent?: boolean;
}

const listen = (server: Server, port: number): Promise<number> =>
  new Promise((resolve, reject) => {
    const onError = (error: Error) => {
      reject(error);
    };
    server.once('error', onError);
    server.listen(port, '127.0.0.1', () => {
      server.off('error', onError);
      const address = server.address();
      resolve(typeof address === 'object' && address ? address.port : port);
    });
  });

const stopListening = (server: Server): Promise<void> =>
  new Promise((resolve) => {
    if (!server.listening) {
      resolve();
      return;
    }
    server.close(() => {
      resolve();
    });
  });

export const startTcpProxy = async ({
  targetHost,
  targetPort,
  port: fixedPort = 0,
}: TcpProxyOptions): Promise<TcpProxy> => {
  if (!LOOPBACK.has(targetHost)) {
    throw new TypeError(`The proxy only forwards to this machine, not to ${targetHost}`);
  }
  let mode: ProxyMode = 'pass';
  let responseDelayMs = 0;
  let accepted = 0;
  let peakOpen = 0;
  const pairs = new Set<Pair>();
  const ports = new Set<number>();

  const closePair = (pair: Pair) => {
    pair.client.destroy();
    pair.upstream?.destroy();
  };

  /** Server → client, each chunk held for the delay, never overtaking an earlier one. */
  const forwardResponses = (upstream: Socket, client: Socket, pair: Pair) => {
    let releaseAt = 0;
    upstream.on('data', (chunk: Buffer) => {
      if (pair.silent) return;
      if (responseDelayMs === 0 && releaseAt <= performance.now()) {
        client.write(chunk);
        return;
      }
      releaseAt = Math.max(releaseAt, performance.now() + responseDelayMs);
      setTimeout(
        () => {
          if (!client.destroyed && !pair.silent) client.write(chunk);
        },
        Math.max(0, releaseAt - performance.now()),
      ).unref();
    });
  };

  const onConnection = (client: Socket) => {
    accepted += 1;
    const pair: Pair = { client };
    pairs.add(pair);
    peakOpen = Math.max(peakOpen, pairs.size);
    client.on('error', () => undefined);
    client.on('close', () => {
      pairs.delete(pair);
      pair.upstream?.destroy();
    });
    if (mode === 'black-hole') {
      client.resume();
      return;
    }
    if (mode === 'hang-up') {
      client.destroy();
      return;
    }
    const upstream = connect({ host: targetHost, port: targetPort });
    pair.upstream = upstream;
    upstream.on('connect', () => {
      if (upstream.localPort !== undefined) ports.add(upstream.localPort);
    });
    upstream.on('error', () => undefined);
    upstream.on('close', () => {
      if (!pair.silent) client.destroy();
    });
    client.on('data', (chunk: Buffer) => {
      if (!pair.silent) upstream.write(chunk);
    });
    forwardResponses(upstream, client, pair);
  };

  const server = createServer(onConnection);
  const port = await listen(server, fixedPort);

  const setMode = async (next: ProxyMode) => {
    if (next === 'refuse') await stopListening(server);
    else if (!server.listening) await listen(server, port);
    mode = next;
  };

  const dropAll = () => {
    for (const pair of [...pairs]) closePair(pair);
  };

  return {
    port,
    mode: () => mode,
    setMode,
    setResponseDelay: (ms) => {
      if (!Number.isFinite(ms) || ms < 0) throw new RangeError('The delay must be 0 ms or more');
      responseDelayMs = ms;
    },
    dropAll,
    silenceAll: () => {
      for (const pair of pairs) pair.silent = true;
    },
    silenceFirst: (count) =>
      [...pairs].slice(0, count).flatMap((pair) => {
        pair.silent = true;
        return pair.upstream?.localPort === undefined ? [] : [pair.upstream.localPort];
      }),
    stats: () => ({ accepted, open: pairs.size, peakOpen }),
    upstreamPorts: () => [...ports],
    close: async () => {
      dropAll();
      await stopListening(server);
    },
  };
};
