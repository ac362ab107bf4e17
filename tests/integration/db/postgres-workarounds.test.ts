/**
 * The postgres.js workarounds (shared/db/postgres-workarounds.ts) against the version they were
 * written for: installed and pinned exactly, the upstream faults still present in plain
 * postgres.js (when an upgrade fixes one, its test here fails: the workaround may go), and the
 * workarounds turning each fault into a query that fails at once (when an upgrade breaks one,
 * that test fails).
 */
import { readFileSync } from 'node:fs';
import { createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { join } from 'node:path';
import postgres from 'postgres';
import { createSql } from '../../../shared/db/client';
import {
  DatabaseHangsUpError,
  poolSocket,
  POSTGRES_JS_VERSION,
} from '../../../shared/db/postgres-workarounds';

const ROOT = join(import.meta.dirname, '../../..');
const WAIT_MS = 1500;

/** What a promise has done after `ms`: settled (resolved or rejected) or still pending. */
const stateAfter = async (promise: Promise<unknown>, ms: number) => {
  const outcome = promise.then(
    () => 'resolved' as const,
    (error: unknown) => ({ rejected: error }),
  );
  const timer = new Promise<'pending'>((resolve) =>
    setTimeout(() => {
      resolve('pending');
    }, ms),
  );
  return Promise.race([outcome, timer]);
};

interface HangingUpServer {
  readonly port: number;
  /** Connections accepted so far. */
  accepted(): number;
  /** Stops listening, so that what still reconnects is refused and gives up. */
  close(): Promise<void>;
}

/** A server that accepts every connection and closes it cleanly (FIN) before a word. */
const hangingUpServer = async (): Promise<HangingUpServer> => {
  let accepted = 0;
  const sockets = new Set<Socket>();
  const server: Server = createServer((socket) => {
    accepted += 1;
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    accepted: () => accepted,
    close: () =>
      new Promise((resolve) => {
        server.close(() => {
          resolve();
        });
        for (const socket of sockets) socket.destroy();
      }),
  };
};

let server: HangingUpServer;
beforeEach(async () => {
  server = await hangingUpServer();
});
afterEach(async () => {
  await server.close();
});

const plainOptions = { max: 1, connect_timeout: 1, fetch_types: false, onnotice: () => undefined };

describe('postgres.js, the version the workarounds were written for', () => {
  it('is the version installed, and package.json pins exactly it', () => {
    const installed = JSON.parse(
      readFileSync(join(ROOT, 'node_modules/postgres/package.json'), 'utf8'),
    ) as { version: string };
    const manifest = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
      dependencies: Record<string, string>;
    };

    expect({ installed: installed.version, pinned: manifest.dependencies.postgres }).toEqual({
      installed: POSTGRES_JS_VERSION,
      pinned: POSTGRES_JS_VERSION,
    });
  });
});

describe('porsager/postgres#1193: a server that closes before it answers', () => {
  it("leaves plain postgres.js's query unsettled while it reconnects without end", async () => {
    const sql = postgres({ ...plainOptions, host: '127.0.0.1', port: server.port });

    const query = sql`select 1`;
    const state = await stateAfter(query, WAIT_MS);
    const reconnects = server.accepted();
    await server.close();
    await stateAfter(query, WAIT_MS);
    await stateAfter(sql.end({ timeout: 0 }), WAIT_MS);

    // When this fails, postgres.js settles the query itself and the guard may go.
    expect(state).toBe('pending');
    expect(reconnects).toBeGreaterThan(20);
  });

  it('fails the query at once through the guarded socket, after a few connects', async () => {
    const sql = createSql({
      url: `postgres://portal@127.0.0.1:${server.port}/reports`,
      poolMax: 1,
      statementTimeoutMs: 1000,
      connectTimeoutSeconds: 1,
    });

    const state = await stateAfter(sql`select 1`, WAIT_MS);
    await stateAfter(sql.end({ timeout: 0 }), WAIT_MS);

    expect(state).toEqual({ rejected: expect.any(DatabaseHangsUpError) as unknown });
    expect(server.accepted()).toBeLessThan(10);
  });
});

describe('a socket factory that refuses (a connect that failed)', () => {
  const refused = () =>
    Promise.reject(Object.assign(new Error('refused'), { code: 'ECONNREFUSED' }));

  it("strands plain postgres.js's connection: the next query never settles", async () => {
    const sql = postgres({
      ...plainOptions,
      host: '127.0.0.1',
      port: server.port,
      socket: refused,
    } as never);

    const first = await stateAfter(sql`select 1`, WAIT_MS);
    const second = await stateAfter(sql`select 1`, WAIT_MS);
    await stateAfter(sql.end({ timeout: 0 }), WAIT_MS);

    // When this fails, a rejected factory closes the slot and FailedConnection may go.
    expect(first).toEqual({
      rejected: expect.objectContaining({ code: 'ECONNREFUSED' }) as unknown,
    });
    expect(second).toBe('pending');
  });

  it('fails every query at once when the refusal reaches postgres.js as a failed socket', async () => {
    // The pool's factory, its connects refused (nothing listens on port 9).
    const sql = postgres({
      ...plainOptions,
      host: '127.0.0.1',
      port: 9,
      socket: poolSocket(1000),
    } as never);

    const first = await stateAfter(sql`select 1`, WAIT_MS);
    const second = await stateAfter(sql`select 1`, WAIT_MS);
    await sql.end({ timeout: 0 });

    const refusal = { rejected: expect.objectContaining({ code: 'ECONNREFUSED' }) as unknown };
    expect([first, second]).toEqual([refusal, refusal]);
  });
});
