/**
 * The connection watch (shared/db/watch.ts) on real loopback sockets: work that passes its
 * deadline is rejected, and only the connections it sent on and heard nothing back from are
 * destroyed; one that answers, an idle one, and work that ends in time are left alone; a
 * process that was stalled (a frozen environment) moves a query's own deadline, not a
 * request's.
 */
import { once } from 'node:events';
import { connect, createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import {
  createConnectionWatch,
  DatabaseTimeoutError,
  type Deadline,
  type DeadlineKind,
  type DeadlinePassed,
} from '../../../../shared/db/watch';

const DEADLINE_MS = 300;
const servers: Server[] = [];
const sockets: Socket[] = [];

afterEach(async () => {
  for (const socket of sockets.splice(0)) socket.destroy();
  await Promise.all(
    servers.splice(0).map((server) => new Promise((resolve) => server.close(resolve))),
  );
});

type Behaviour = 'greet and echo' | 'greet, then say nothing' | 'say nothing';

/** A peer that greets each connection with one byte (unless told not to), then `behaviour`. */
const peer = async (behaviour: Behaviour): Promise<number> => {
  const server = createServer((socket) => {
    sockets.push(socket);
    socket.on('error', () => undefined);
    if (behaviour !== 'say nothing') socket.write('R');
    if (behaviour === 'greet and echo') socket.on('data', (data) => socket.write(data));
  });
  servers.push(server);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return (server.address() as AddressInfo).port;
};

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
  const passed: DeadlinePassed[] = [];
  const watch = createConnectionWatch({ onDeadline: (report) => passed.push(report) });
  return { watch, passed };
};

const within = (ms: number, kind: DeadlineKind = 'query'): Deadline => ({
  at: performance.now() + ms,
  kind,
});

/** Work that sends a query on `socket` (then calls `sent`) and waits for ever. */
const sendOn =
  (socket: Socket, sent: () => void = () => undefined) =>
  () => {
    socket.write('Q', sent);
    return new Promise<never>(() => undefined);
  };

/** Work that sends a query on `socket` and resolves with the answer. */
const askOn = (socket: Socket) => async () => {
  socket.write('Q');
  const [answer] = (await once(socket, 'data')) as [Buffer];
  return answer.toString();
};

const failureOf = async (work: Promise<unknown>) => {
  const started = performance.now();
  try {
    await work;
    return { settled: 'resolved' };
  } catch (error) {
    return { error, ms: performance.now() - started };
  }
};

describe('createConnectionWatch', () => {
  it('rejects work at its deadline with DatabaseTimeoutError, destroys the connection it sent on, and keeps one that answers and one that is idle', async () => {
    const { watch, passed } = watchWith();
    const dead = await client(await peer('greet, then say nothing'));
    const live = await client(await peer('greet and echo'));
    const idle = await client(await peer('greet and echo'));
    for (const socket of [dead, live, idle]) watch.opened(socket);

    const [timedOut, answered] = await Promise.all([
      failureOf(watch.bound(sendOn(dead), within(DEADLINE_MS))),
      watch.bound(askOn(live), within(DEADLINE_MS)),
    ]);

    expect(timedOut.error).toBeInstanceOf(DatabaseTimeoutError);
    expect(timedOut.error).toMatchObject({
      code: 'ERR_DATABASE_TIMEOUT',
      deadline: 'query',
      stage: 'query',
    });
    expect(timedOut.ms).toBeGreaterThanOrEqual(DEADLINE_MS - 20);
    expect(timedOut.ms).toBeLessThan(DEADLINE_MS + 400);
    expect(answered).toBe('Q');
    expect([dead.destroyed, live.destroyed, idle.destroyed]).toEqual([true, false, false]);
    expect(passed).toEqual([
      { waitedMs: expect.any(Number) as unknown, deadline: 'query', stage: 'query', dropped: 1 },
    ]);
  });

  it("names the request's deadline when that is the one passed, and a connection never greeted as the connect stage", async () => {
    const { watch, passed } = watchWith();
    const ungreeted = await client(await peer('say nothing'), false);
    watch.opened(ungreeted);

    const outcome = await failureOf(watch.bound(sendOn(ungreeted), within(DEADLINE_MS, 'request')));

    expect(outcome.error).toMatchObject({ deadline: 'request', stage: 'connect' });
    expect(ungreeted.destroyed).toBe(true);
    expect(passed).toMatchObject([{ deadline: 'request', stage: 'connect', dropped: 1 }]);
  });

  it('names the pool when the work never sent on any connection, and destroys none', async () => {
    const { watch, passed } = watchWith();
    const idle = await client(await peer('greet and echo'));
    watch.opened(idle);

    const outcome = await failureOf(
      watch.bound(() => new Promise<never>(() => undefined), within(DEADLINE_MS)),
    );

    expect(outcome.error).toMatchObject({ stage: 'pool' });
    expect(idle.destroyed).toBe(false);
    expect(passed).toMatchObject([{ stage: 'pool', dropped: 0 }]);
  });

  it('leaves a connection alone that was waiting before the work began: it is not this work’s', async () => {
    const { watch } = watchWith();
    const earlier = await client(await peer('greet, then say nothing'));
    watch.opened(earlier);
    let sent: () => void = () => undefined;
    const firstSent = new Promise<void>((resolve) => {
      sent = resolve;
    });
    const firstFailure = failureOf(watch.bound(sendOn(earlier, sent), within(DEADLINE_MS * 4)));

    await firstSent;
    const second = await failureOf(
      watch.bound(() => new Promise<never>(() => undefined), within(DEADLINE_MS)),
    );

    expect(second.error).toMatchObject({ stage: 'pool' });
    expect(earlier.destroyed).toBe(false);
    expect((await firstFailure).error).toMatchObject({ stage: 'query' });
    expect(earlier.destroyed).toBe(true);
  });

  it('passes work through as it settles, and destroys every socket it holds when told', async () => {
    const { watch, passed } = watchWith();
    const socket = await client(await peer('greet and echo'));
    watch.opened(socket);

    await expect(watch.bound(() => Promise.resolve(7), within(DEADLINE_MS))).resolves.toBe(7);
    await expect(
      watch.bound(() => Promise.reject(new RangeError('no')), within(DEADLINE_MS)),
    ).rejects.toThrow(RangeError);
    watch.destroySockets();

    expect(socket.destroyed).toBe(true);
    expect(passed).toEqual([]);
  });

  it("moves a query's own deadline after this process was stalled (a frozen environment), not a request's", async () => {
    const { watch } = watchWith();
    const own = await client(await peer('greet, then say nothing'));
    const request = await client(await peer('greet, then say nothing'));
    watch.opened(own);
    watch.opened(request);

    const started = performance.now();
    const ownFailure = failureOf(watch.bound(sendOn(own), within(DEADLINE_MS)));
    const requestFailure = failureOf(watch.bound(sendOn(request), within(DEADLINE_MS, 'request')));
    // The event loop held for far longer than the bound, as when Lambda freezes and thaws.
    const holdUntil = performance.now() + DEADLINE_MS + 1_500;
    while (performance.now() < holdUntil) {
      /* stalled */
    }
    const stalledMs = performance.now() - started;
    const [ownOutcome, requestOutcome] = await Promise.all([ownFailure, requestFailure]);

    expect(requestOutcome.error).toMatchObject({ deadline: 'request' });
    expect(requestOutcome.ms! - stalledMs).toBeLessThan(300);
    expect(ownOutcome.error).toMatchObject({ deadline: 'query' });
    expect(ownOutcome.ms! - stalledMs).toBeGreaterThanOrEqual(DEADLINE_MS - 120);
  });
});
