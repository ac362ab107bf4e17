/**
 * The reports plugin's summary cards, presets and settling in headless Chromium, against
 * `npm start`: each card the sum of its column over the rows the page received and the change
 * (a − b) / b, formatted here with Node's Intl for the locale; the presets on the restaurant's
 * day (Asia/Dubai) in a browser whose day is another; one request for a date typed key by key;
 * the saved CSV read back as each locale's Excel reads it.
 */
import { readFile } from 'node:fs/promises';
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

type Pair = { value: number; compare: number };

const signedIn = async (
  locale: string,
  timezoneId = RESTAURANT_ZONE,
  before?: (page: Page) => void,
  width = 1280,
): Promise<Page> => {
  const context = await browser.newContext({
    locale,
    timezoneId,
    viewport: { width, height: 900 },
  });
  contexts.push(context);
  const page = await context.newPage();
  await page.goto(service.ready.previewUrl);
  before?.(page);
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
    'in %s: the cards total the rows, the average order value sales / orders, each change (a − b) / b; the Today card is the dashboard’s',
    async (locale) => {
      // Prepare
      let dashboardAnswer: Promise<unknown> | undefined;
      const page = await signedIn(locale, RESTAURANT_ZONE, (p) => {
        dashboardAnswer = p
          .waitForResponse((response) => isReport(response, '/dashboard'))
          .then((response) => response.json());
      });
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
          '[data-testid="reports-cards"] [data-key="sales"] [data-testid="reports-card-value"]',
        )
        .filter({ hasText: revenueText })
        .waitFor();

      // Assess: orders and sales are sums, the average order value sales / orders.
      const percent = new Intl.NumberFormat(locale, {
        style: 'percent',
        maximumFractionDigits: 1,
        signDisplay: 'exceptZero',
      });
      const figures = (side: 'data' | 'compare') => {
        const orders = sum(rows, 'orderCount', side);
        const sales = sum(rows, 'revenue', side);
        return { orders, sales, average: orders ? sales / orders : 0 };
      };
      const [period, base] = [figures('data'), figures('compare')];
      for (const [key, digits] of [
        ['orders', 0],
        ['sales', MINOR_UNITS],
        ['average', MINOR_UNITS],
      ] as const) {
        const number = new Intl.NumberFormat(locale, {
          minimumFractionDigits: digits,
          maximumFractionDigits: digits,
        });
        const [a, b] = [period[key], base[key]];
        const card = page.getByTestId('reports-cards').locator(`[data-key="${key}"]`);
        expect(await card.getByTestId('reports-card-value').textContent()).toBe(number.format(a));
        expect(await card.getByTestId('reports-card-compare').textContent()).toContain(
          number.format(b),
        );
        const arrow = b === 0 || a === b ? '' : a > b ? '▲ ' : '▼ ';
        expect(await card.getByTestId('reports-card-change').textContent()).toBe(
          b === 0 ? '–' : arrow + percent.format((a - b) / b),
        );
      }
      // Screen readers hear the figures, not the arrows.
      const spoken = await page.getByTestId('reports-cards').ariaSnapshot();
      expect(spoken).not.toMatch(/[▲▼]/);
      expect(spoken.replace(/\s+/g, ' ')).toContain(
        percent.format((period.orders - base.orders) / base.orders).replace(/\s+/g, ' '),
      );

      // The Today card: the dashboard's figures against the same weekday last week.
      expect(dashboardAnswer).toBeDefined();
      const dashboard = (await dashboardAnswer) as { data: Record<string, Pair | string> };
      for (const [key, field] of [
        ['orders', 'orders'],
        ['sales', 'revenue'],
        ['average', 'averageOrderValue'],
        ['cancelled', 'cancellationRate'],
      ] as const) {
        const { value, compare } = dashboard.data[field] as Pair;
        const text =
          key === 'cancelled'
            ? new Intl.NumberFormat(locale, { style: 'percent', maximumFractionDigits: 1 }).format(
                value,
              )
            : new Intl.NumberFormat(locale, {
                minimumFractionDigits: key === 'orders' ? 0 : MINOR_UNITS,
                maximumFractionDigits: key === 'orders' ? 0 : MINOR_UNITS,
              }).format(value);
        const card = page.getByTestId('reports-today').locator(`[data-key="${key}"]`);
        expect(await card.getByTestId('reports-card-value').textContent()).toBe(text);
        expect(await card.getByTestId('reports-card-change').textContent()).toContain(
          compare === 0 ? '–' : percent.format((value - compare) / compare),
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

/** How Excel set to a locale reads a CSV: its list separator, decimal mark and date order. */
const EXCEL = {
  'en-US': { separator: ',', decimal: '.', date: /^(?<m>\d\d)\/(?<d>\d\d)\/(?<y>\d{4})$/ },
  'de-DE': { separator: ';', decimal: ',', date: /^(?<d>\d\d)\.(?<m>\d\d)\.(?<y>\d{4})$/ },
  'es-ES': { separator: ';', decimal: ',', date: /^(?<d>\d\d)\/(?<m>\d\d)\/(?<y>\d{4})$/ },
  'ar-AE': { separator: ',', decimal: '.', date: /^(?<d>\d\d)\/(?<m>\d\d)\/(?<y>\d{4})$/ },
} as const;

/** RFC 4180 cells with `separator`, each typed as Excel would: a number, a date (ISO), or text. */
const readCsv = (text: string, excel: (typeof EXCEL)[keyof typeof EXCEL]) => {
  const lines: string[][] = [];
  let cells: string[] = [];
  let cell = '';
  let quoted = false;
  for (let i = 0; i < text.length; i += 1) {
    const c = text[i] ?? '';
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') [cell, i] = [cell + '"', i + 1];
      else if (c === '"') quoted = false;
      else cell += c;
    } else if (c === '"') quoted = true;
    else if (c === excel.separator) [cells, cell] = [[...cells, cell], ''];
    else if (c === '\r' && text[i + 1] === '\n') {
      lines.push([...cells, cell]);
      [cells, cell, i] = [[], '', i + 1];
    } else cell += c;
  }
  const number = new RegExp(`^-?\\d+(\\${excel.decimal}\\d+)?$`);
  const typed = (value: string): string | number => {
    const date = excel.date.exec(value)?.groups;
    if (date) return `${date.y}-${date.m}-${date.d}`;
    return number.test(value) ? Number(value.replace(excel.decimal, '.')) : value;
  };
  const [header = [], ...rows] = lines;
  return { header, rows: rows.map((row) => row.map(typed)) };
};

describe('the saved CSV', () => {
  it.each(Object.keys(EXCEL) as (keyof typeof EXCEL)[])(
    "in %s: the locale's Excel reads its columns, translated headers, numbers and dates",
    async (locale) => {
      // Prepare
      const page = await signedIn(locale);
      const answered = page.waitForResponse(
        (response) =>
          isReport(response, '/reports/orders/day') && response.url().includes('compare'),
      );
      await page.getByTestId('reports-compare-toggle').check();
      const rows = ((await (await answered).json()) as { data: Row[] }).data;
      await page.getByTestId('reports-header').nth(5).waitFor();
      await page
        .getByTestId('reports-header')
        .filter({ hasText: /AED|د\.إ/ })
        .first()
        .waitFor();
      const headers = await page.getByTestId('reports-header').allTextContents();

      // Act
      const [download] = await Promise.all([
        page.waitForEvent('download', { timeout: 20_000 }),
        page.getByTestId('reports-download').click(),
      ]);
      const saved = await readFile(await download.path(), 'utf8');

      // Assess
      expect(saved.startsWith('\uFEFF')).toBe(true);
      const file = readCsv(saved.slice(1), EXCEL[locale]);
      // The table sets each comparison column beside its column; the file after them all.
      expect(file.header).toEqual([
        ...headers.filter((_, i) => i % 2 === 0),
        ...headers.filter((_, i) => i % 2 === 1),
      ]);
      expect(file.rows).toEqual(
        rows.map((row) => [
          row.data.date,
          row.data.orderCount,
          row.data.revenue,
          ...(row.compare
            ? [row.compare.date, row.compare.orderCount, row.compare.revenue]
            : ['', '', '']),
        ]),
      );
    },
  );
});

describe('the chart labels', () => {
  it.each(
    ['en-US', 'de-DE', 'es-ES', 'ar-AE'].flatMap((locale) => [
      [locale, 1280],
      [locale, 375],
    ]),
  )('in %s at %i px: each lies inside its chart, over 28 and 31 days', async (locale, width) => {
    // Prepare
    const page = await signedIn(locale, RESTAURANT_ZONE, undefined, width);
    const today = todayIn(RESTAURANT_ZONE);
    const fold = page.getByTestId('reports-fold');
    if (width === 375) {
      // On a phone the controls are one line until opened.
      const sticky = await page.getByTestId('reports-controls').boundingBox();
      expect(sticky?.height).toBeLessThan(60);
      expect(
        await page.evaluate<boolean>(
          `(() => { const b = document.querySelector('[data-testid="reports-fold"]');
            return b.scrollWidth <= b.clientWidth && b.getClientRects().length === 1; })()`,
        ),
      ).toBe(true);
      await fold.click();
    }
    for (const days of [28, 31]) {
      const from = addDays(today, 1 - days);
      const asked = page.waitForResponse(
        (response) =>
          isReport(response, '/reports/orders/day') && response.url().includes(`from=${from}&`),
      );

      // Act
      await page.getByTestId('reports-from').fill(from);
      await asked;
      await page
        .getByTestId('reports-row')
        .nth(days - 1)
        .waitFor();

      // Assess: every text's box within its chart's, in CSS pixels.
      const outside = await page.evaluate<string[]>(`[...document.querySelectorAll(
        '[data-testid="reports-chart-image"]')].flatMap((svg) => {
          const box = svg.getBoundingClientRect();
          return [...svg.querySelectorAll('text')].flatMap((text) => {
            const r = text.getBoundingClientRect();
            const inside = r.left >= box.left - 0.5 && r.right <= box.right + 0.5
              && r.top >= box.top - 0.5 && r.bottom <= box.bottom + 0.5;
            return inside ? [] : [text.textContent];
          });
        })`);
      expect({ days, outside }).toEqual({ days, outside: [] });
      expect(
        await page.locator('[data-testid="reports-chart-image"] text').count(),
      ).toBeGreaterThan(4);
    }
  });
});

describe('the best sellers', () => {
  it.each(['en-US', 'ar-AE'])(
    'in %s: the top dishes by sales, each with its share of all sales',
    async (locale) => {
      // Prepare
      const page = await signedIn(locale);
      const answered = page.waitForResponse((response) => isReport(response, '/reports/dishes'));

      // Act
      await page.getByTestId('reports-picker').selectOption('dishes');
      const rows = ((await (await answered).json()) as { data: Row[] }).data;
      await page.getByTestId('reports-seller').first().waitFor();

      // Assess
      const total = sum(rows, 'revenue', 'data');
      const percent = new Intl.NumberFormat(locale, { style: 'percent', maximumFractionDigits: 1 });
      const top = rows.slice(0, 8);
      expect(await page.getByTestId('reports-share').allTextContents()).toEqual(
        top.map((row) => percent.format(Number(row.data.revenue) / total)),
      );
      expect(await page.getByTestId('reports-seller').allTextContents()).toEqual(
        top.map(
          (row) => `${String(row.data.name)}${percent.format(Number(row.data.revenue) / total)}`,
        ),
      );
    },
  );
});
