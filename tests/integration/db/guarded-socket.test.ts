/**
 * The socket factory behind every database pool, against a local endpoint that accepts
 * connections and closes them at once (a load balancer without a healthy target), answers, or
 * stays silent; a port where nothing listens; and a host name that a failover moves from one
 * address to another.
 */
import { once } from 'node:events';
import {
  createServer,
  type AddressInfo,
  type LookupFunction,
  type Server,
  type Socket,
} from 'node:net';
import {
  DatabaseHangsUpError,
  guardedSocket,
  HANG_UP_LIMIT,
} from '../../../shared/db/postgres-workarounds';
import { freePort } from '../../support/processes';

let server: Server;
let mode: 'hang-up' | 'answer' | 'silent' = 'hang-up';
let accepted = 0;
const open = new Set<Socket>();

beforeAll(async () => {
  server = createServer((socket) => {
    accepted += 1;
    open.add(socket);
    socket.on('close', () => open.delete(socket));
    if (mode === 'hang-up') socket.destroy();
    else if (mode === 'answer') socket.write('R');
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
});

afterAll(async () => {
  for (const socket of open) socket.destroy();
  server.close();
  await once(server, 'close');
});

const target = () => ({ host: ['127.0.0.1'], port: [(server.address() as AddressInfo).port] });

/** Connects, then waits until the connection has either closed or heard from the server. */
const attempt = async (connect: ReturnType<typeof guardedSocket>): Promise<Socket> => {
  const socket = await connect(target());
  await Promise.race([once(socket, 'close'), once(socket, 'data')]);
  socket.destroy();
  return socket;
};

describe('guardedSocket', () => {
  it(`refuses the connect after ${HANG_UP_LIMIT} hang-ups in a row, then tries again`, async () => {
    mode = 'hang-up';
    accepted = 0;
    const connect = guardedSocket(1000);

    for (let i = 0; i < HANG_UP_LIMIT; i += 1) await attempt(connect);
    const refused = connect(target());
    await expect(refused).rejects.toBeInstanceOf(DatabaseHangsUpError);
    mode = 'answer';
    await attempt(connect);

    expect(accepted).toBe(HANG_UP_LIMIT + 1);
  });

  it('counts afresh once the server has answered', async () => {
    const connect = guardedSocket(1000);
    mode = 'hang-up';
    for (let i = 0; i < HANG_UP_LIMIT - 1; i += 1) await attempt(connect);
    mode = 'answer';
    await attempt(connect);
    mode = 'hang-up';

    for (let i = 0; i < HANG_UP_LIMIT; i += 1) await attempt(connect);

    await expect(connect(target())).rejects.toBeInstanceOf(DatabaseHangsUpError);
  });

  it(`does not count refused connects: the ${HANG_UP_LIMIT + 1}th is still attempted`, async () => {
    const nothing = { host: ['127.0.0.1'], port: [await freePort()] };
    const connect = guardedSocket(1_000);

    const outcomes: unknown[] = [];
    for (let i = 0; i <= HANG_UP_LIMIT; i += 1) {
      outcomes.push(await connect(nothing).catch((error: unknown) => error));
    }

    const refused: unknown = expect.objectContaining({ code: 'ECONNREFUSED' });
    expect(outcomes).toEqual(Array.from({ length: HANG_UP_LIMIT + 1 }, () => refused));
  });

  it('does not count connections this side gave up on (a connect timeout over a silent server)', async () => {
    mode = 'silent';
    const connect = guardedSocket(1_000);

    for (let i = 0; i < HANG_UP_LIMIT; i += 1) {
      const socket = await connect(target());
      const closed = once(socket, 'close');
      socket.destroy(); // as postgres.js does when its connect timeout fires
      await closed;
    }
    const next = await connect(target()).then(
      (socket) => {
        socket.destroy();
        return 'connected';
      },
      (error: unknown) => error,
    );

    expect(next).toBe('connected');
  });

  it('looks the host name up again for every connection, so a failover that moves the name is followed', async () => {
    // Two servers on one port at two loopback addresses: the old primary and the new one.
    const reached: string[] = [];
    const serve = async (address: string, port: number): Promise<Server> => {
      const one = createServer((socket) => {
        reached.push(address);
        socket.destroy();
      });
      one.listen(port, address);
      await once(one, 'listening');
      return one;
    };
    const old = await serve('127.0.0.1', 0);
    const port = (old.address() as AddressInfo).port;
    const listening = [old, await serve('127.0.0.2', port)];
    let answer = '127.0.0.1';
    const asked: string[] = [];
    // As dns.lookup answers: a list when Node asks for every address (autoSelectFamily).
    const lookup = ((hostname: string, options: { all?: boolean }, callback: LookupCallback) => {
      asked.push(hostname);
      if (options.all) callback(null, [{ address: answer, family: 4 }]);
      else callback(null, answer, 4);
    }) as LookupFunction;
    const connect = guardedSocket(1000, { lookup });
    const named = { host: ['db.brand.example'], port: [port] };

    try {
      await once(await connect(named), 'close');
      answer = '127.0.0.2';
      await once(await connect(named), 'close');
    } finally {
      await Promise.all(listening.map((one) => new Promise((resolve) => one.close(resolve))));
    }

    expect(asked).toEqual(['db.brand.example', 'db.brand.example']);
    expect(reached).toEqual(['127.0.0.1', '127.0.0.2']);
  });
});

type LookupCallback = (
  error: Error | null,
  address: string | { address: string; family: number }[],
  family?: number,
) => void;
