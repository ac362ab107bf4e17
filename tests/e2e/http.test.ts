/**
 * End to end over HTTP: `npm start` on a free port with its embedded defaults (no
 * DATABASE_URL, no JWKS_URL), then the requests a browser client of the portal sends.
 */
import { createServer, type AddressInfo } from 'node:net';
import { decodeJwt } from 'jose';
import { addDays, todayIn } from '../../tools/dates';
import { catalogue } from '../../shared/catalogue';
import type { IsoDate } from '../../shared/dates';
import { declaredParameters, sampleParameters } from '../support/declarations';
import { browserPreflight, SPEC_CORS, specCorsOf } from '../support/handlers';
import { run } from '../support/processes';
import { freshEnv, startService, TSX, type RunningService } from '../support/service';

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
