/**
 * End to end over HTTP: `npm start` on a free port with its embedded defaults (no
 * DATABASE_URL, no JWKS_URL), then the requests a browser client of the portal sends. Last,
 * `npm start` run through npm as a user runs it, stopped as a user stops it.
 */
import { execFile } from 'node:child_process';
import { existsSync, watch } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { dirname } from 'node:path';
import { promisify } from 'node:util';
import { decodeJwt } from 'jose';
import { addDays, todayIn } from '../../tools/dates';
import { catalogue } from '../../tools/catalogue';
import type { IsoDate } from '../../shared/dates';
import { declaredParameters, sampleParameters } from '../support/declarations';
import { browserPreflight, SPEC_CORS, specCorsOf } from '../support/handlers';
import { run } from '../support/processes';
import { freshEnv, startService, TSX, type RunningService } from '../support/service';
import { accepts } from '../../tools/local/ports';
import { startService as startThroughNpm } from '../../tools/local/service';

let service: RunningService;
let base = '';
let curlToken = '';
let curlUrl = '';

beforeAll(async () => {
  service = await startService('e2e');
  ({ base, token: curlToken, curlUrl } = service);
}, 150_000);

afterAll(async () => {
  await service.stop();
});

const get = (path: string, headers: Record<string, string> = {}) =>
  fetch(`${base}${path}`, { headers: { Origin: 'https://portal.example.com', ...headers } });

const week = () => {
  const to = todayIn('Asia/Dubai');
  return `from=${addDays(to, -6)}&to=${to}`;
};

describe('npm start, over HTTP', () => {
  it('prints a ready-to-paste curl whose request returns a non-empty report', async () => {
    expect(curlUrl).toMatch(
      /^http:\/\/localhost:\d+\/v1\/restaurants\/R-1001\/reports\/orders\/day\?from=/,
    );

    const response = await fetch(curlUrl, { headers: { Authorization: `Bearer ${curlToken}` } });

    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toContain('application/json');
    expect(response.headers.get('access-control-allow-origin')).toBe('*');
    const body = (await response.json()) as { data: { data: { orderCount: number } }[] };
    expect(body.data).toHaveLength(7);
    expect(body.data.some((row) => row.data.orderCount > 0)).toBe(true);
  });

  it('is ready once it answers, as its readiness document says, and still prints the curl', () => {
    expect(service.ready).toMatchObject({
      version: 1,
      url: base,
      port: service.port,
      token: curlToken,
      sampleUrl: curlUrl,
      probeStatus: 200,
      database: 'embedded',
    });
    expect(service.output()).toContain(`curl -s -H 'Authorization: Bearer ${curlToken}'`);
    expect(service.output()).toContain(`  '${curlUrl}'\n\nMore tokens: npm run token -- --help\n`);
  });

  it('prints a short banner, without the route table or a line per request', async () => {
    // One more answered request, which prints nothing by default.
    await fetch(curlUrl, { headers: { Authorization: `Bearer ${curlToken}` } });
    // Act
    const output = service.output();

    // Assess
    expect(output).toContain(`portal-service-api is up at ${base}\n  database: embedded PGlite`);
    expect(output).toContain(`Portal preview: ${service.ready.previewUrl} (docs/preview.md)\n`);
    expect(output).not.toContain('┌');
    expect(output).not.toContain('/reports/orders/day (λ: ordersPerDay)');
    expect(output).not.toContain('"message":"request"');
    expect(output.trim().split('\n').length).toBeLessThan(20);
  });

  it('answers a browser preflight with 200 and the spec headers', async () => {
    const response = await browserPreflight(`${base}/v1/restaurants/R-1001/reports/dishes`);

    expect(response.status).toBe(200);
    expect(specCorsOf(response.headers)).toEqual(SPEC_CORS);
  });

  it('serves the dishes report to a token from `npm run token`', async () => {
    const minted = await run(
      [TSX, 'tools/token.ts', '--restaurant', 'R-1001', '--platform', 'TB_AE'],
      freshEnv(),
    );
    const token = minted.stdout.trim();

    const response = await get(`/v1/restaurants/R-1001/reports/dishes?${week()}`, {
      Authorization: `Bearer ${token}`,
    });

    expect(minted.code).toBe(0);
    expect(response.status).toBe(200);
    const body = (await response.json()) as { data: { data: { name: string } }[] };
    expect(body.data.length).toBeGreaterThan(0);
  });

  it('gives `npm run token` no longer than JWT_MAX_AGE by default, and says so', async () => {
    // Act
    const minted = await run([TSX, 'tools/token.ts'], freshEnv({ JWT_MAX_AGE: '60' }));

    // Assess
    const { iat = 0, exp = 0 } = decodeJwt(minted.stdout.trim());
    expect({ code: minted.code, lifetime: exp - iat, stderr: minted.stderr }).toEqual({
      code: 0,
      lifetime: 60,
      stderr: 'npm run token: valid 60 s (JWT_MAX_AGE)\n',
    });
  });

  // Every GET endpoint of the catalogue on each of its paths, with a query made from the
  // parameters its definition declares: a new report is served here without an edit.
  const served = catalogue
    .filter((endpoint) => endpoint.method === 'GET')
    .flatMap((endpoint) =>
      endpoint.paths.map(
        (path, index) =>
          [
            `${endpoint.id}${index === 0 ? '' : ` (alias ${path})`}`,
            endpoint,
            path.replace('{id}', 'R-1001'),
          ] as const,
      ),
    );

  it.each(served)('serves %s with sample data, never empty', async (_name, endpoint, path) => {
    const today = todayIn('Asia/Dubai');
    const month = `${today.slice(0, 7)}-01` as IsoDate;
    const query = sampleParameters(endpoint.id, declaredParameters(endpoint), {
      days: { from: addDays(today, -6), to: today },
      months: { from: `${addDays(month, -60).slice(0, 7)}-01` as IsoDate, to: month },
    });
    const search = new URLSearchParams(query).toString();

    const response = await get(search === '' ? path : `${path}?${search}`, {
      Authorization: `Bearer ${curlToken}`,
    });

    expect(response.status).toBe(200);
    expect(response.headers.get('access-control-allow-origin')).toBe('*');
    const body = (await response.json()) as { data?: unknown } | unknown[];
    const data = Array.isArray(body) ? body : body.data;
    expect(Array.isArray(data) ? data.length : Object.keys(data ?? {}).length).toBeGreaterThan(0);
  });

  it.each([
    ['no token', '/v1/restaurants/R-1001/reports/dishes', {}, 401, 'TOKEN_INVALID'],
    [
      "another owner's restaurant",
      '/v1/restaurants/R-2001/reports/dishes',
      'token',
      403,
      'FORBIDDEN',
    ],
    [
      'a range over 31 days',
      '/v1/restaurants/R-1001/reports/dishes?from=2026-01-01&to=2026-03-01',
      'token',
      400,
      'OUT_OF_RANGE',
    ],
    [
      'missing dates',
      '/v1/restaurants/R-1001/reports/orders/day',
      'token',
      400,
      'VALIDATION_ERROR',
    ],
  ] as const)(
    'refuses %s with the spec error body and the CORS header',
    async (_case, path, auth, status, code) => {
      const headers: Record<string, string> =
        auth === 'token' ? { Authorization: `Bearer ${curlToken}` } : {};
      const query = path.includes('?') || status === 400 ? '' : `?${week()}`;

      const response = await get(`${path}${query}`, headers);

      expect(response.status).toBe(status);
      expect(response.headers.get('access-control-allow-origin')).toBe('*');
      expect(response.headers.get('access-control-allow-credentials')).toBe('false');
      expect(await response.json()).toMatchObject({ state: 'ERROR', code });
    },
  );
});

describe('npm start on a port something else holds', () => {
  it('exits before it is ready, saying so, rather than report the other server as itself', async () => {
    const holder = createServer();
    await new Promise<void>((resolve) => holder.listen(0, 'localhost', resolve));
    const { port } = holder.address() as AddressInfo;
    try {
      const started = startService('e2e-port-taken', { PORT: String(port) });

      // Prepare / Act / Assess
      await expect(started).rejects.toThrow(
        new RegExp(`exited with 2 before it was ready:[\\s\\S]*Port ${port} is in use`),
      );
    } finally {
      await new Promise((resolve) => holder.close(resolve));
    }
  }, 60_000);
});

interface ProcessRow {
  readonly pid: number;
  readonly ppid: number;
  readonly stat: string;
  readonly args: string;
}

const processTable = async (): Promise<ProcessRow[]> => {
  const { stdout } = await promisify(execFile)('ps', ['-e', '-o', 'pid=,ppid=,stat=,args=']);
  return stdout
    .split('\n')
    .map((line) => /^\s*(\d+)\s+(\d+)\s+(\S+)\s+(.*)$/.exec(line))
    .filter((match) => match !== null)
    .map(([, pid, ppid, stat, args]) => ({
      pid: Number(pid),
      ppid: Number(ppid),
      stat: stat ?? '',
      args: args ?? '',
    }));
};

/** `root` and every process under it. */
const descendants = (table: readonly ProcessRow[], root: number): ProcessRow[] => {
  const found = table.filter(({ pid }) => pid === root);
  for (let i = 0; i < found.length; i += 1) {
    found.push(...table.filter(({ ppid }) => ppid === found[i]?.pid));
  }
  return found;
};

/** Those of `pids` still running (a zombie, exited and not yet reaped, is not). */
const stillRunning = async (pids: ReadonlySet<number>): Promise<ProcessRow[]> =>
  (await processTable()).filter(({ pid, stat }) => pids.has(pid) && !stat.startsWith('Z'));

/** Waits until `condition` holds, looking every 100 ms, at most `timeoutMs`. */
const until = async (
  condition: () => Promise<boolean>,
  timeoutMs: number,
  what: () => Promise<string> | string,
) => {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`not within ${timeoutMs} ms: ${await what()}`);
    await sleep(100);
  }
};

/** `promise`, or a rejection saying `what` once `timeoutMs` have passed. */
const within = async (promise: Promise<unknown>, timeoutMs: number, what: string) => {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => {
      reject(new Error(`not within ${timeoutMs} ms: ${what}`));
    }, timeoutMs);
  });
  try {
    await Promise.race([promise, late]);
  } finally {
    clearTimeout(timer);
  }
};

/** Resolves once `file` is gone (watching its folder), at most `timeoutMs`. */
const removal = (file: string, timeoutMs: number): Promise<void> =>
  new Promise((resolve, reject) => {
    const watcher = watch(dirname(file));
    const timer = setTimeout(() => {
      watcher.close();
      reject(new Error(`not within ${timeoutMs} ms: ${file} is still there`));
    }, timeoutMs);
    const check = () => {
      if (existsSync(file)) return;
      clearTimeout(timer);
      watcher.close();
      resolve();
    };
    watcher.on('change', check);
    check();
  });

const exitOf = (service: RunningService): Promise<unknown> =>
  service.child.exitCode !== null || service.child.signalCode !== null
    ? Promise.resolve()
    : new Promise((resolve) => service.child.once('exit', resolve));

describe.each([
  ['SIGTERM to npm alone (kill <npm pid>)', 'SIGTERM'],
  ["SIGINT to npm's process group, twice (Ctrl-C in its terminal, again while it stops)", 'SIGINT'],
] as const)('npm start run through npm (JWT_MAX_AGE=60), then %s', (_name, signal) => {
  let npmStart: RunningService;
  /** Every process under npm once ready: npm, sh, tsx, tools/start.ts, serverless-offline, … */
  let started: ProcessRow[] = [];

  beforeAll(async () => {
    npmStart = await startThroughNpm({
      name: `test-e2e-stop-${signal}`,
      env: { JWT_MAX_AGE: '60' },
      viaNpm: true,
    });
    started = descendants(await processTable(), npmStart.child.pid ?? 0);
  }, 150_000);

  afterAll(async () => {
    await npmStart.stop();
    // Whatever the test left running, should it fail.
    for (const { pid } of await stillRunning(new Set(started.map((row) => row.pid)))) {
      process.kill(pid, 'SIGKILL');
    }
  }, 30_000);

  it('says its token is valid for the 60 s JWT_MAX_AGE leaves it, which it is', async () => {
    // Act
    const response = await fetch(npmStart.curlUrl, {
      headers: { Authorization: `Bearer ${npmStart.token}` },
    });

    // Assess
    const { iat = 0, exp = 0 } = decodeJwt(npmStart.token);
    expect(response.status).toBe(200);
    expect(exp - iat).toBe(60);
    expect(npmStart.ready.tokenExpiresAt).toBe(new Date(exp * 1000).toISOString());
    expect(npmStart.output()).toContain(
      'First request (answered 200; token valid 60 s per JWT_MAX_AGE; npm run token for another):',
    );
  });

  it('stops every process it started, frees its ports and removes its readiness file', async () => {
    // Prepare
    expect(started.map(({ args }) => args).join('\n')).toMatch(
      /tools\/start\.ts[\s\S]*serverless\.js offline start/,
    );
    const pids = new Set(started.map(({ pid }) => pid));
    const npmExited = exitOf(npmStart);
    const removed = removal(npmStart.readyFile, 20_000);

    const npm = npmStart.child.pid ?? 0;

    // Act
    process.kill(signal === 'SIGTERM' ? npm : -npm, signal);

    // Assess
    await removed;
    if (signal === 'SIGINT') {
      // The readiness file goes first: it is stopping the rest, unless it is done already.
      try {
        process.kill(-npm, 'SIGINT');
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ESRCH') throw error;
      }
    }
    await within(npmExited, 20_000, 'npm has not exited');
    await until(
      async () => (await stillRunning(pids)).length === 0,
      20_000,
      async () =>
        `still running:\n${(await stillRunning(pids)).map(({ pid, args }) => `${pid} ${args}`).join('\n')}`,
    );
    const ports = [npmStart.port, npmStart.lambdaPort, npmStart.previewPort];
    const listening = await Promise.all(
      ports.flatMap((port) => [accepts('127.0.0.1', port), accepts('::1', port)]),
    );
    expect(listening).toEqual(ports.flatMap(() => [false, false]));
  }, 90_000);
});
