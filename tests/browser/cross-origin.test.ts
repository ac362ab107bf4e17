/**
 * In a real browser: `npm start` on a free port (its embedded defaults, as in
 * tests/e2e/http.test.ts), and a page served from another origin (a plain node:http server on
 * another 127.0.0.1 port; http://localhost:PORT and http://127.0.0.1:OTHER are different
 * origins). The page's own JavaScript calls every GET endpoint with the `Authorization` header,
 * so headless Chromium applies CORS for real: it sends the preflight, checks the answer, and
 * hands the script only what CORS lets it read.
 *
 * The page never sends `X-Platform-Id`: spec 4.3's Access-Control-Allow-Headers is exactly
 * `Content-Type,Authorization` (docs/authentication.md, CORS). The last test shows what a browser does with it.
 */
import { readFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import type { IsoDate } from '../../shared/dates';
import { catalogue } from '../../tools/catalogue';
import { addDays, todayIn } from '../../tools/dates';
import { launchChromium } from '../../tools/local/chromium';
import { pluginReports } from '../../tools/plugin/reports';
import { startService, type RunningService } from '../support/service';

/** What the page's script could read of a response. */
interface Seen {
  readonly status: number;
  /** Every header JavaScript can read: CORS hides the others. */
  readonly headers: Readonly<Record<string, string>>;
  readonly text: string;
  readonly error?: string;
}

/** The page's script, as seen from the test. */
interface PortalPage {
  readonly portal: {
    get(path: string, authorization: string | null): Promise<Seen>;
    download(path: string, authorization: string): Promise<{ status: number; name: string }>;
  };
}

/** The page another origin serves: a script that calls the API the way the portal would. */
const pageHtml = (api: string) => `<!doctype html>
<html>
  <head><meta charset="utf-8"><link rel="icon" href="data:,"><title>portal</title></head>
  <body>
    <script>
      const API = ${JSON.stringify(api)};
      window.portal = {
        async get(path, authorization) {
          const headers = authorization === null ? {} : { Authorization: authorization };
          try {
            const response = await fetch(API + path, { headers });
            const text = await response.text();
            return { status: response.status, headers: Object.fromEntries(response.headers), text };
          } catch (error) {
            return { status: 0, headers: {}, text: '', error: String(error) };
          }
        },
        async download(path, authorization) {
          const response = await fetch(API + path, { headers: { Authorization: authorization } });
          const disposition = response.headers.get('Content-Disposition') || '';
          const name = /filename="([^"]+)"/.exec(disposition)?.[1] ?? 'unnamed.csv';
          const link = document.createElement('a');
          link.href = URL.createObjectURL(await response.blob());
          link.download = name;
          document.body.append(link);
          link.click();
          link.remove();
          return { status: response.status, name };
        },
      };
    </script>
  </body>
</html>
`;

let service: RunningService;
let pageServer: Server | undefined;
let browser: Browser | undefined;
let context: BrowserContext | undefined;
let page: Page;
let api = '';
let pageOrigin = '';
let token = '';
const consoleMessages: string[] = [];
const pageErrors: string[] = [];
const failedRequests: string[] = [];

beforeAll(async () => {
  // LOG_LEVEL=info: the preflights are confirmed from the service's access log.
  service = await startService('browser', { LOG_LEVEL: 'info' });
  ({ base: api, token } = service);

  pageServer = createServer((request, response) => {
    if (request.method === 'GET' && request.url === '/') {
      response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      response.end(pageHtml(api));
      return;
    }
    response.writeHead(404).end();
  });
  await new Promise<void>((resolve) => pageServer?.listen(0, '127.0.0.1', resolve));
  pageOrigin = `http://127.0.0.1:${(pageServer.address() as AddressInfo).port}`;

  browser = await launchChromium();
  context = await browser.newContext({ acceptDownloads: true });
  page = await context.newPage();
  page.on('console', (message) => consoleMessages.push(`${message.type()}: ${message.text()}`));
  page.on('pageerror', (error) => pageErrors.push(error.message));
  page.on('requestfailed', (request) =>
    failedRequests.push(`${request.method()} ${request.url()}: ${request.failure()?.errorText}`),
  );
  await page.goto(`${pageOrigin}/`);
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await new Promise<void>((resolve) => {
    if (pageServer)
      pageServer.close(() => {
        resolve();
      });
    else resolve();
  });
  await service.stop();
});

const pageGet = (path: string, authorization: string | null): Promise<Seen> =>
  page.evaluate(([p, a]) => (globalThis as unknown as PortalPage).portal.get(p, a), [
    path,
    authorization,
  ] as const);

/** The same request straight from Node, without a browser: what the server really answers. */
const direct = async (path: string) => {
  const response = await fetch(`${api}${path}`, { headers: { Authorization: `Bearer ${token}` } });
  return { status: response.status, text: await response.text() };
};

/** The access-log lines `npm start` printed: one JSON object per request the functions saw. */
const accessLog = (): { route?: string; method?: string; status?: number }[] =>
  service
    .output()
    .split('\n')
    .filter(
      (line) => line.startsWith('{') && line.endsWith('}') && line.includes('"message":"request"'),
    )
    .map((line) => JSON.parse(line) as { route?: string; method?: string; status?: number });

const preflightsOf = (route: string) =>
  accessLog().filter((line) => line.route === `OPTIONS ${route}` && line.status === 200).length;

/** Waits (bounded) until the server's output shows what the browser did. */
const eventually = async (check: () => boolean, timeoutMs = 5000) => {
  const deadline = Date.now() + timeoutMs;
  while (!check() && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return check();
};

const today = () => todayIn('Asia/Dubai');
const week = () => `from=${addDays(today(), -6)}&to=${today()}`;
const months = () => {
  const month = `${today().slice(0, 7)}-01` as IsoDate;
  return `from=${addDays(month, -60).slice(0, 7)}-01&to=${month}`;
};
const fill = (path: string) =>
  path
    .replace(
      'PREVIOUS_WEEK',
      `compare[from]=${addDays(today(), -13)}&compare[to]=${addDays(today(), -7)}`,
    )
    .replace('WEEK', week())
    .replace('MONTHS', months());

/**
 * Every report and other GET of the catalogue behind the owner's token (services have their own
 * test below: their figures are live), at each of its paths, for R-1001: a range report over the
 * last week (or months), and once more with a comparison range where it takes one.
 */
const REPORTS = pluginReports();
const READABLE: readonly (readonly [string, string, string])[] = catalogue
  .filter(
    (endpoint) =>
      endpoint.method === 'GET' &&
      endpoint.authentication === 'bearer' &&
      endpoint.answers.kind !== 'service',
  )
  .flatMap((endpoint) => {
    const report = REPORTS.find((spec) => spec.id === endpoint.id);
    const range = report?.range ? (report.range.granularity === 'day' ? 'WEEK' : 'MONTHS') : '';
    const queries = [range, ...(report?.compare ? [`${range}&PREVIOUS_WEEK`] : [])];
    return endpoint.paths.flatMap((route) =>
      queries.map((query) => {
        const path = route.replace('{id}', 'R-1001');
        return [
          `${endpoint.id} ${path}${query ? `?${query}` : ''}`,
          query ? `${path}?${query}` : path,
          route,
        ] as const;
      }),
    );
  });

/** The response headers CORS lets any cross-origin script read (Fetch standard). */
const SAFELISTED = new Set([
  'cache-control',
  'content-language',
  'content-length',
  'content-type',
  'expires',
  'last-modified',
  'pragma',
]);
/** Headers of a response that the script could read although neither safelisted nor exposed. */
const leaked = (seen: Seen) => Object.keys(seen.headers).filter((name) => !SAFELISTED.has(name));

describe('a page on another origin calling npm start in headless Chromium', () => {
  it('is served from another origin than the API, so the browser applies CORS', async () => {
    const origin = await page.evaluate(
      () => (globalThis as unknown as { location: { origin: string } }).location.origin,
    );

    expect(origin).toBe(pageOrigin);
    expect(new URL(api).origin).not.toBe(origin);
    expect(token).not.toBe('');
  });

  it.each(READABLE)(
    '%s: the browser preflights, the GET succeeds and its JSON is readable from JavaScript',
    async (_name, template, route) => {
      const path = fill(template);
      const preflightsBefore = preflightsOf(route);

      const seen = await pageGet(path, `Bearer ${token}`);
      const expected = await direct(path);

      expect(seen.error).toBeUndefined();
      expect(seen.status).toBe(200);
      expect(leaked(seen)).toEqual([]);
      expect(seen.headers['content-type']).toBe('application/json; charset=utf-8');
      expect(expected.status).toBe(200);
      expect(JSON.parse(seen.text)).toEqual(JSON.parse(expected.text));
      const body = JSON.parse(seen.text) as { data: unknown } | unknown[];
      const data = Array.isArray(body) ? body : body.data;
      expect(Object.keys(data as object).length).toBeGreaterThan(0);
      expect(await eventually(() => preflightsOf(route) > preflightsBefore)).toBe(true);
    },
  );

  it.each([
    ['dashboard', '/v1/restaurants/R-1001/dashboard', '/v1/restaurants/{id}/dashboard'],
    ['dashboard (spec 4.2 alias)', '/res/R-1001/dashboard', '/res/{id}/dashboard'],
  ])(
    '%s: the browser preflights, the GET succeeds and its JSON is readable from JavaScript',
    async (_name, path, route) => {
      const preflightsBefore = preflightsOf(route);
      const figure = {
        value: expect.any(Number) as unknown,
        compare: expect.any(Number) as unknown,
      };

      const seen = await pageGet(path, `Bearer ${token}`);

      expect(seen.error).toBeUndefined();
      expect(seen.status).toBe(200);
      expect(leaked(seen)).toEqual([]);
      // Live figures (up to the current time of day): the shape, exactly; the values are numbers.
      expect(JSON.parse(seen.text)).toEqual({
        data: {
          date: today(),
          compareDate: addDays(today(), -7),
          currency: 'AED',
          orders: figure,
          revenue: figure,
          averageOrderValue: figure,
          cancellationRate: figure,
        },
      });
      expect(await eventually(() => preflightsOf(route) > preflightsBefore)).toBe(true);
    },
  );

  it.each([
    [
      'no Authorization header',
      401,
      '/v1/restaurants/R-1001/reports/dishes?WEEK',
      null,
      {
        state: 'ERROR',
        code: 'TOKEN_INVALID',
        message: 'Authorization header is invalid. Did you forget to add "Bearer "?',
      },
    ],
    [
      'a token that cannot be verified',
      401,
      '/v1/plugins',
      'Bearer not.a.token',
      { state: 'ERROR', code: 'TOKEN_INVALID', message: 'The provided token cannot be verified' },
    ],
    [
      "another owner's restaurant (R-2001)",
      403,
      '/v1/restaurants/R-2001/reports/dishes?WEEK',
      'TOKEN',
      { state: 'ERROR', code: 'FORBIDDEN', message: 'Forbidden' },
    ],
    [
      "another owner's dashboard through the spec 4.2 alias",
      403,
      '/res/R-2001/dashboard',
      'TOKEN',
      { state: 'ERROR', code: 'FORBIDDEN', message: 'Forbidden' },
    ],
    [
      'a date that does not exist',
      400,
      '/v1/restaurants/R-1001/reports/orders/day?from=2026-02-30&to=2026-03-01',
      'TOKEN',
      {
        state: 'ERROR',
        code: 'VALIDATION_ERROR',
        message: 'Error',
        errors: [
          {
            field: 'from',
            code: 'INVALID_DATE',
            message: 'from must be a calendar date in YYYY-MM-DD form',
          },
        ],
      },
    ],
  ] as const)(
    'refuses %s with a %d whose spec body JavaScript can read',
    async (_case, status, template, authorization, body) => {
      const seen = await pageGet(
        fill(template),
        authorization === 'TOKEN' ? `Bearer ${token}` : authorization,
      );

      expect(seen.error).toBeUndefined();
      expect(seen.status).toBe(status);
      expect(JSON.parse(seen.text)).toEqual(body);
      // WWW-Authenticate and the Access-Control-* headers are sent but not exposed to scripts.
      expect(leaked(seen)).toEqual([]);
      expect(seen.headers['content-type']).toBe('application/json; charset=utf-8');
    },
  );

  it('downloads a CSV report: the text is readable and the file name comes from the exposed Content-Disposition', async () => {
    const path = `/v1/restaurants/R-1001/reports/orders/day?${week()}&format=csv`;
    const fileName = `orders-per-day_R-1001_${addDays(today(), -6)}_${today()}.csv`;

    const seen = await pageGet(path, `Bearer ${token}`);
    const expected = await direct(path);
    const [download, clicked] = await Promise.all([
      page.waitForEvent('download', { timeout: 15_000 }),
      page.evaluate(([p, a]) => (globalThis as unknown as PortalPage).portal.download(p, a), [
        path,
        `Bearer ${token}`,
      ] as const),
    ]);
    const saved = await readFile(await download.path(), 'utf8');

    expect(seen.status).toBe(200);
    expect(seen.headers).toEqual({
      'cache-control': 'no-cache',
      'content-disposition': `attachment; filename="${fileName}"`,
      'content-length': String(Buffer.byteLength(expected.text)),
      'content-type': 'text/csv; charset=utf-8',
    });
    expect(seen.text).toBe(expected.text);
    expect(seen.text.startsWith('day,orders,sales\r\n')).toBe(true);
    expect(seen.text.split('\r\n').filter(Boolean)).toHaveLength(8);
    expect(clicked).toEqual({ status: 200, name: fileName });
    expect(download.suggestedFilename()).toBe(fileName);
    expect(saved).toBe(expected.text);
  });

  it('shows no CORS error in the console, no page error and no failed request', () => {
    const corsTrouble = consoleMessages.filter((message) =>
      /cors|access-control|blocked|cross-origin/i.test(message),
    );

    expect(corsTrouble).toEqual([]);
    expect(pageErrors).toEqual([]);
    expect(failedRequests).toEqual([]);
    // What Chromium does log: one line per deliberate refusal above (400, 401, 403).
    for (const message of consoleMessages) {
      expect(message).toMatch(
        /^error: Failed to load resource: the server responded with a status of (400|401|403) /,
      );
    }
  });

  it('would report a CORS error: X-Platform-Id is outside Access-Control-Allow-Headers, so the browser blocks the call', async () => {
    const other = await browser!.newContext();
    const messages: string[] = [];
    try {
      const second = await other.newPage();
      second.on('console', (message) => messages.push(message.text()));
      await second.goto(`${pageOrigin}/`);

      const seen = await second.evaluate(
        ([base, a]) =>
          fetch(`${base}/v1/plugins`, { headers: { Authorization: a, 'X-Platform-Id': 'TB_AE' } })
            .then((response) => `status ${response.status}`)
            .catch((error: unknown) => String(error)),
        [api, `Bearer ${token}`] as const,
      );

      expect(seen).toBe('TypeError: Failed to fetch');
      expect(
        await eventually(() =>
          messages.some((message) =>
            /blocked by CORS policy: Request header field x-platform-id is not allowed by Access-Control-Allow-Headers/.test(
              message,
            ),
          ),
        ),
      ).toBe(true);
    } finally {
      await other.close();
    }
  });
});
