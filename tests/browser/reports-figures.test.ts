/**
 * The reports plugin's summary cards, presets and settling in headless Chromium, against
 * `npm start`: each card the sum of its column over the rows the page received and the change
 * (a − b) / b, formatted here with Node's Intl for the locale; the presets on the restaurant's
 * day (Asia/Dubai) in a browser whose day is another; one request for a date typed key by key.
 */
import type { Browser, BrowserContext, Page, Response } from 'playwright-core';
import { addDays, todayIn } from '../../tools/dates';
import { launchChromium } from '../../tools/local/chromium';
import { startService, type RunningService } from '../support/service';

let service: RunningService;
let browser: Browser;

beforeAll(async () => {
  service = await startService('reports-figures');
  browser = await launchChromium();
}, 240_000);

afterAll(async () => {
  await browser.close();
  await service.stop();
});

const contexts: BrowserContext[] = [];
afterEach(async () => {
  await Promise.all(contexts.splice(0).map((context) => context.close()));
});

const RESTAURANT_ZONE = 'Asia/Dubai';
const MINOR_UNITS = 2; // AED, the sample owner's first restaurant

type Row = { data: Record<string, number | string>; compare?: Record<string, number | string> };

const isReport = (response: Response, path: string) =>
  new URL(response.url()).pathname.endsWith(path) && response.request().method() === 'GET';

const signedIn = async (locale: string, timezoneId = RESTAURANT_ZONE): Promise<Page> => {
  const context = await browser.newContext({
    locale,
    timezoneId,
    viewport: { width: 1280, height: 900 },
  });
  contexts.push(context);
  const page = await context.newPage();
  await page.goto(service.ready.previewUrl);
  await page.getByTestId('locale-select').selectOption(locale.replace('-', '_'));
  await page.getByTestId('sign-in').click();
  await page.getByTestId('reports-table').waitFor({ timeout: 30_000 });
  return page;
};

const sum = (rows: readonly Row[], key: string, side: 'data' | 'compare') =>
  rows.reduce((total, row) => {
    const value = row[side]?.[key];
    return typeof value === 'number' ? total + value : total;
  }, 0);

describe('the summary cards', () => {
  it.each(['en-US', 'de-DE', 'es-ES', 'ar-AE'])(
    'in %s: each card is its column summed over the rows, its change (a − b) / b',
    async (locale) => {
      // Prepare
      const page = await signedIn(locale);
      const answered = page.waitForResponse(
        (response) =>
          isReport(response, '/reports/orders/day') && response.url().includes('compare'),
      );

      // Act
      await page.getByTestId('reports-compare-toggle').check();
      const rows = ((await (await answered).json()) as { data: Row[] }).data;
      await page.getByTestId('reports-cell').first().waitFor();
      // The currency comes from the dashboard: the sales card has its decimals once it has.
      const revenueText = new Intl.NumberFormat(locale, {
        minimumFractionDigits: MINOR_UNITS,
        maximumFractionDigits: MINOR_UNITS,
      }).format(sum(rows, 'revenue', 'data'));
      await page
        .locator(
          '[data-testid="reports-card"][data-key="revenue"] [data-testid="reports-card-value"]',
        )
        .filter({ hasText: revenueText })
        .waitFor();

      // Assess
      const percent = new Intl.NumberFormat(locale, {
        style: 'percent',
        maximumFractionDigits: 1,
        signDisplay: 'exceptZero',
      });
      for (const [key, digits] of [
        ['orderCount', 0],
        ['revenue', MINOR_UNITS],
      ] as const) {
        const number = new Intl.NumberFormat(locale, {
          minimumFractionDigits: digits,
          maximumFractionDigits: digits,
        });
        const a = sum(rows, key, 'data');
        const b = sum(rows, key, 'compare');
        const card = page.locator(`[data-testid="reports-card"][data-key="${key}"]`);
        expect(await card.getByTestId('reports-card-value').textContent()).toBe(number.format(a));
        expect(await card.getByTestId('reports-card-compare').textContent()).toContain(
          number.format(b),
        );
        expect(await card.getByTestId('reports-card-change').textContent()).toBe(
          b === 0 ? '–' : percent.format((a - b) / b),
        );
      }
      // The table shows the same rows the cards summed.
      expect(await page.getByTestId('reports-row').count()).toBe(rows.length);
    },
  );
});

describe("the presets, on the restaurant's day", () => {
  it("give ranges ending on the restaurant's today in a browser whose day is another", async () => {
    // Prepare: of 14 hours ahead and 14 behind Dubai, the zone whose date differs now.
    const today = todayIn(RESTAURANT_ZONE);
    const zone = ['Pacific/Kiritimati', 'Pacific/Honolulu'].find((z) => todayIn(z) !== today);
    if (!zone) throw new Error('no zone on another day');
    const page = await signedIn('en-US', zone);

    // Assess: the default (the last 7 days) moves onto the restaurant's day.
    await page.waitForFunction(
      `document.querySelector('[data-testid="reports-to"]')?.value === ${JSON.stringify(today)}`,
      undefined,
      { timeout: 10_000 },
    );
    expect(await page.getByTestId('reports-from').inputValue()).toBe(addDays(today, -6));
    expect(await page.getByTestId('reports-preset').inputValue()).toBe('last7');

    for (const [preset, from, to] of [
      ['yesterday', addDays(today, -1), addDays(today, -1)],
      ['today', today, today],
      ['last30', addDays(today, -29), today],
    ] as const) {
      const asked = page.waitForResponse(
        (response) =>
          isReport(response, '/reports/orders/day') &&
          response.url().includes(`from=${from}&to=${to}`),
      );
      await page.getByTestId('reports-preset').selectOption(preset);
      await asked;
      expect(await page.getByTestId('reports-from').inputValue()).toBe(from);
      expect(await page.getByTestId('reports-to').inputValue()).toBe(to);
    }
    // A comparison on the same weekdays a year earlier: 52 weeks back.
    await page.getByTestId('reports-compare-toggle').check();
    await page.getByTestId('reports-compare-mode').selectOption('weekday');
    expect(await page.getByTestId('reports-compare-from').inputValue()).toBe(
      addDays(addDays(today, -29), -364),
    );
  });
});

describe('a date typed key by key', () => {
  it('is one request, once the typing rests', async () => {
    // Prepare
    const page = await signedIn('en-US');
    const today = todayIn(RESTAURANT_ZONE);
    const target = addDays(today, -12);
    const [year, month, day] = target.split('-');
    const requests: string[] = [];
    page.on('request', (request) => {
      if (new URL(request.url()).pathname.endsWith('/reports/orders/day'))
        requests.push(request.url());
    });
    const asked = page.waitForResponse(
      (response) =>
        isReport(response, '/reports/orders/day') && response.url().includes(`from=${target}`),
    );

    // Act: month, day and year segments of en-US's date input, one key at a time.
    await page.getByTestId('reports-from').focus();
    await page.keyboard.type(`${month}${day}${year}`, { delay: 20 });
    await asked;

    // Assess
    expect(await page.getByTestId('reports-from').inputValue()).toBe(target);
    expect(requests).toHaveLength(1);
  });
});
