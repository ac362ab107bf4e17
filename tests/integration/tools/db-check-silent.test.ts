/**
 * npm run db:check (tools/db/check.ts) against a server that accepts the connection and never
 * answers: it gives up after the tools' connect timeout with exit 3 and one line that names the
 * server and says it did not answer.
 */
import { createRequire } from 'node:module';
import { run } from '../../support/processes';
import { startTcpProxy, type TcpProxy } from '../../support/tcp-proxy';

const TSX = createRequire(import.meta.url).resolve('tsx/cli');

let silent: TcpProxy;

beforeAll(async () => {
  const target = new URL(process.env.DATABASE_URL ?? '');
  silent = await startTcpProxy({
    targetHost: target.hostname,
    targetPort: Number(target.port || '5432'),
  });
  await silent.setMode('black-hole');
});

afterAll(async () => {
  await silent.close();
});

describe('db:check against a server that never answers', () => {
  it('exits 3 with one line naming the server and the connect timeout', async () => {
    // Prepare
    const url = new URL(process.env.DATABASE_URL ?? '');
    url.hostname = '127.0.0.1';
    url.port = String(silent.port);

    // Act
    const started = performance.now();
    const finished = await run([TSX, 'tools/db/check.ts'], { DATABASE_URL: url.href });
    const seconds = (performance.now() - started) / 1000;

    // Assess
    expect(finished).toEqual({
      code: 3,
      stdout: '',
      stderr: `cannot connect to the database at 127.0.0.1:${String(silent.port)}: no answer within 10 s (CONNECT_TIMEOUT)\n`,
    });
    expect(silent.stats().accepted).toBeGreaterThan(0);
    expect(seconds).toBeLessThan(30);
  }, 60_000);
});
