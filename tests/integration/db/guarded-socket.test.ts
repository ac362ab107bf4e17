/**
 * The socket factory behind every database pool, against a local endpoint that accepts
 * connections and closes them at once (a load balancer without a healthy target).
 */
import { once } from 'node:events';
import { createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { DatabaseHangsUpError, guardedSocket, HANG_UP_LIMIT } from '../../../shared/db/client';

let server: Server;
let mode: 'hang-up' | 'answer' = 'hang-up';
let accepted = 0;

beforeAll(async () => {
  server = createServer((socket) => {
    accepted += 1;
    if (mode === 'hang-up') socket.destroy();
    else socket.write('R');
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
});

afterAll(async () => {
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

  it('rejects at once when nothing listens', async () => {
    const connect = guardedSocket(1000);

    await expect(connect({ host: ['127.0.0.1'], port: [9] })).rejects.toMatchObject({
      code: 'ECONNREFUSED',
    });
  });
});
