/**
 * The silence watch (shared/db/silence.ts) on real loopback sockets: a peer that has spoken and
 * then says nothing while work waits is silent after the bound; one that keeps answering, one
 * still connecting, and a process that was stalled (a frozen environment) are not.
 */
import { once } from 'node:events';
import { connect, createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { createSilenceWatch, DatabaseTimeoutError } from '../../../../shared/db/silence';

const SILENCE_MS = 300;
const servers: Server[] = [];
const sockets: Socket[] = [];

afterEach(async () => {
  for (const socket of sockets.splice(0)) socket.destroy();
  await Promise.all(
    servers.splice(0).map((server) => new Promise((resolve) => server.close(resolve))),
  );
});

/** A peer that greets each connection with one byte, then does what `after` says. */
const peer = async (after: (socket: Socket) => void = () => undefined): Promise<number> => {
  const server = createServer((socket) => {
    sockets.push(socket);
    socket.on('error', () => undefined);
    if (after !== SAY_NOTHING) socket.write('R');
    after(socket);
  });
  servers.push(server);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return (server.address() as AddressInfo).port;
};
const SAY_NOTHING = (): void => undefined;

/** A connected client socket that has received the peer's greeting (if any). */
const client = async (port: number, greeted = true): Promise<Socket> => {
  const socket = connect(port, '127.0.0.1');
  sockets.push(socket);
  socket.on('error', () => undefined);
  await once(socket, 'connect');
  if (greeted) await once(socket, 'data');
  return socket;
};

const watchWith = () => {
  let silences = 0;
  const watch = createSilenceWatch({
    silenceMs: SILENCE_MS,
    onSilent: () => {
      silences += 1;
    },
  });
  return { watch, silences: () => silences };
};

const never = () => new Promise<never>(() => undefined);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('createSilenceWatch', () => {
  it('rejects waiting work with DatabaseTimeoutError once a connection that spoke says nothing for the bound, and tells the owner once', async () => {
    const { watch, silences } = watchWith();
    watch.opened(await client(await peer()));

    const started = performance.now();
    const outcomes = await Promise.allSettled([watch.bound(never), watch.bound(never)]);
    const ms = performance.now() - started;

    expect(outcomes.map((outcome) => outcome.status)).toEqual(['rejected', 'rejected']);
    for (const outcome of outcomes) {
      const reason: unknown = (outcome as PromiseRejectedResult).reason;
      expect(reason).toBeInstanceOf(DatabaseTimeoutError);
      expect(reason).toMatchObject({ code: 'ERR_DATABASE_TIMEOUT' });
    }
    expect(ms).toBeGreaterThanOrEqual(SILENCE_MS - 20);
    expect(ms).toBeLessThan(SILENCE_MS + 400);
    expect(silences()).toBe(1);
  });

  it('lets work finish while the peer keeps sending, however long the whole takes', async () => {
    const { watch, silences } = watchWith();
    const port = await peer((socket) => {
      const timer = setInterval(() => socket.write('.'), SILENCE_MS / 3);
      socket.on('close', () => {
        clearInterval(timer);
      });
    });
    watch.opened(await client(port));

    expect(
      await watch.bound(async () => {
        await sleep(SILENCE_MS * 4);
        return 'answered';
      }),
    ).toBe('answered');
    expect(silences()).toBe(0);
  });

  it('gives no verdict on a connection that never spoke: the connect timeout bounds it', async () => {
    const { watch, silences } = watchWith();
    watch.opened(await client(await peer(SAY_NOTHING), false));

    expect(
      await watch.bound(async () => {
        await sleep(SILENCE_MS * 3);
        return 'still waiting for the connect timeout';
      }),
    ).toBe('still waiting for the connect timeout');
    expect(silences()).toBe(0);
  });

  it('starts the clock again after this process was stalled (a frozen environment), instead of blaming the database', async () => {
    const { watch } = watchWith();
    watch.opened(await client(await peer()));

    const started = performance.now();
    const waiting = watch.bound(never).catch((error: unknown) => ({
      error,
      ms: performance.now() - started,
    }));
    // The event loop held for far longer than the bound, as when Lambda freezes and thaws.
    const holdUntil = performance.now() + SILENCE_MS + 1_500;
    while (performance.now() < holdUntil) {
      /* stalled */
    }
    const stalledMs = performance.now() - started;
    const outcome = await waiting;

    expect(outcome).toMatchObject({ error: expect.any(DatabaseTimeoutError) as unknown });
    expect((outcome as { ms: number }).ms - stalledMs).toBeGreaterThanOrEqual(SILENCE_MS - 120);
  });

  it('passes work through as it settles, and destroys every socket it holds when told', async () => {
    const { watch } = watchWith();
    const socket = await client(await peer());
    watch.opened(socket);

    await expect(watch.bound(() => Promise.resolve(7))).resolves.toBe(7);
    await expect(watch.bound(() => Promise.reject(new RangeError('no')))).rejects.toThrow(
      RangeError,
    );
    watch.destroySockets();

    expect(socket.destroyed).toBe(true);
  });
});
