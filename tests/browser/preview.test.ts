/**
 * The portal preview of `npm start` (docs/preview.md) in headless Chromium, with the reference
 * reports plugin (tools/reports-plugin, docs/plugin.md) that `npm start` builds against its API and
 * deploys for portal v2: sign-in, the restaurant switch without a reload, every report rendered
 * in the owner's language (en-US, ar-AE, de-DE, es-MX: the token's user.locale) with its chart,
 * right to left in Arabic, axe-core's audit, keyboard use, a comparison period, the empty state,
 * the CSV download, the 31-day limit and a 403.
 *
 * The expectations are computed here, independently of the plugin's code: the rows from a
 * direct call of the API for the same restaurant and parameters, the words (report and column
 * names too) from the message files, the dates and numbers from Node's Intl for the locale
 * (calendar dates in UTC; a currency with its ISO 4217 minor units from the sample data;
 * integers without decimals), the CSV from a direct fetch. One `npm start` and one browser for
 * the whole file; a fresh context (locale) per test.
 */
import { readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createServer, request as httpRequest, type Server } from 'node:http';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page, Request, Route } from 'playwright-core';
import type { IsoDate } from '../../shared/dates';
import { CURRENCIES, SAMPLE_OWNERS } from '../../tools/db/sample-data';
import { addDays, todayIn } from '../../tools/dates';
import { launchChromium } from '../../tools/local/chromium';
import type { ReportProperty, ReportSpec } from '../../tools/reports-plugin/src/reports';
import { pluginReports } from '../../tools/plugin/reports';
import { freePort } from '../support/processes';
import { startService, type RunningService } from '../support/service';

let service: RunningService;
let browser: Browser;
let api = '';
let preview = '';

beforeAll(async () => {
  service = await startService('preview');
  api = service.base;
  preview = service.ready.previewUrl;
  browser = await launchChromium();
}, 240_000);

afterAll(async () => {
  await browser.close();
  await service.stop();
});

// ---- the page ------------------------------------------------------------------------------

interface Opened {
  readonly context: BrowserContext;
  readonly page: Page;
  /** Page errors, console errors and failed requests seen so far. */
  readonly problems: string[];
  /** Every request the page sent to the API. */
  readonly apiRequests: Request[];
  /** Main-frame navigations (a reload would add one). */
  readonly navigations: string[];
}

const contexts: BrowserContext[] = [];
afterEach(async () => {
  await Promise.all(contexts.splice(0).map((context) => context.close()));
});

const open = async (
  locale: Locale = 'en-US',
  width = 1200,
  colorScheme: 'light' | 'dark' = 'light',
): Promise<Opened> => {
  const context = await browser.newContext({
    locale,
    timezoneId: 'Asia/Dubai',
    colorScheme,
    viewport: { width, height: 800 },
    acceptDownloads: true,
  });
  contexts.push(context);
  const page = await context.newPage();
  const opened: Opened = { context, page, problems: [], apiRequests: [], navigations: [] };
  page.on('pageerror', (error) => opened.problems.push(`pageerror: ${error.message}`));
  page.on('console', (message) => {
    if (message.type() === 'error') opened.problems.push(`console: ${message.text()}`);
  });
  page.on('requestfailed', (request) => {
    const reason = request.failure()?.errorText ?? '';
    // A request the plugin aborts because the selection changed meanwhile is no failure.
    if (reason !== 'net::ERR_ABORTED') opened.problems.push(`failed: ${request.url()} ${reason}`);
  });
  page.on('request', (request) => {
    if (request.url().startsWith(`${api}/`) && request.method() === 'GET') {
      opened.apiRequests.push(request);
    }
  });
  page.on('framenavigated', (frame) => {
    if (frame === page.mainFrame()) opened.navigations.push(frame.url());
  });
  await page.goto(preview);
  return opened;
};

const ready = (page: Page) =>
  page.waitForSelector('[data-testid="portal"][data-state="ready"]', { timeout: 30_000 });

/** Signs in through the local issuer, the token's user.locale `locale`; the reports table shows. */
const signIn = async (page: Page, sub = 'owner-1', locale?: string) => {
  await page.getByTestId('owner-select').selectOption(sub);
  if (locale) await page.getByTestId('locale-select').selectOption(locale.replace('-', '_'));
  await page.getByTestId('sign-in').click();
  await ready(page);
  await page.getByTestId('reports-table').waitFor({ timeout: 30_000 });
};

// ---- the expectations ----------------------------------------------------------------------

const TODAY = () => todayIn('Asia/Dubai');
const restaurantOf = (id: string) => {
  const found = SAMPLE_OWNERS.flatMap((owner) => owner.restaurants).find((r) => r.id === id);
  if (!found) throw new Error(`no sample restaurant ${id}`);
  return found;
};
const minorUnitsOf = (currency: string) => {
  const entry = CURRENCIES.find(([code]) => code === currency);
  if (!entry) throw new Error(`no minor units for ${currency}`);
  return entry[1];
};

type Unit = 'DATE' | 'DATE_MONTH' | 'CURRENCY' | 'INTEGER' | 'NUMBER' | 'TEXT';

/** The owners' locales and the plugin's language for each. */
const LOCALES = { 'en-US': 'en', 'ar-AE': 'ar', 'de-DE': 'de', 'es-MX': 'es' } as const;
type Locale = keyof typeof LOCALES;
type Language = (typeof LOCALES)[Locale];
type Messages = Record<string, string>;
const MESSAGES = Object.fromEntries(
  Object.values(LOCALES).map((language) => [
    language,
    JSON.parse(
      readFileSync(join(process.cwd(), `tools/reports-plugin/messages/${language}.json`), 'utf8'),
    ) as Messages,
  ]),
) as Record<Language, Messages>;
/** A message of the owner's language, its placeholders filled. */
const say = (locale: Locale, key: string, values: Record<string, string | number> = {}) => {
  const text = MESSAGES[LOCALES[locale]][key];
  if (text === undefined) throw new Error(`no message ${key}`);
  return text.replace(/\{(\w+)\}/g, (_whole, name: string) => String(values[name]));
};

/**
 * Every report of the catalogue, as the plugin's build reads it (tools/plugin/reports.ts): its
 * /v1 path, range rule and properties. What each column should show follows from its unit and
 * type (spec 2.4; docs/reports.md); a year beside its month is not shown.
 */
const REPORTS: ReadonlyMap<string, ReportSpec> = new Map(pluginReports().map((r) => [r.id, r]));
type ReportId = string;
const REPORT_IDS: readonly ReportId[] = [...REPORTS.keys()];
const reportOf = (report: ReportId): ReportSpec => {
  const found = REPORTS.get(report);
  if (!found) throw new Error(`no report ${report} in the catalogue`);
  return found;
};
const rangeOf = (report: ReportId): 'day' | 'month' | 'none' =>
  reportOf(report).range?.granularity ?? 'none';
const unitOf = ({ unit, type }: ReportProperty): Unit =>
  unit === 'DATE' || unit === 'DATE_MONTH' || unit === 'CURRENCY'
    ? unit
    : type === 'integer'
      ? 'INTEGER'
      : type === 'number'
        ? 'NUMBER'
        : 'TEXT';
const columnsOf = (report: ReportId): readonly (readonly [string, Unit])[] => {
  const { properties } = reportOf(report);
  const hasMonth = properties.some((p) => p.unit === 'DATE_MONTH');
  return properties
    .filter((p) => !(hasMonth && p.unit === 'DATE_YEAR'))
    .map((p) => [p.key, unitOf(p)] as const);
};
/** A time series (its rows are days or months) shows a chart per measure. */
const axisOf = (report: ReportId) =>
  rangeOf(report) === 'none'
    ? undefined
    : columnsOf(report).find(([, unit]) => unit === 'DATE' || unit === 'DATE_MONTH');
const measuresOf = (report: ReportId): string[] =>
  axisOf(report) === undefined
    ? []
    : columnsOf(report)
        .filter(([, unit]) => unit !== 'TEXT' && unit !== 'DATE' && unit !== 'DATE_MONTH')
        .map(([key]) => key);

/** A column's or report's name in the owner's language: its messages translate the English. */
const localName = (english: string, locale: Locale) =>
  MESSAGES[LOCALES[locale]][`name.${english}`] ?? english;
const columnName = (report: ReportId, key: string, locale: Locale) => {
  const property = reportOf(report).properties.find((p) => p.key === key);
  if (!property) throw new Error(`no column ${key} in ${report}`);
  return localName(property.name, locale);
};
const reportTitle = (report: ReportId, locale: Locale) => localName(reportOf(report).title, locale);

const utc = (date: string) => {
  const [y, m, d] = date.split('-').map(Number) as [number, number, number];
  return Date.UTC(y, m - 1, d);
};

/** One value as the locale writes it (Node's Intl). */
const expectedValue = (
  unit: Unit,
  value: string | number | undefined,
  locale: Locale,
  currency: string,
  key = '',
): string => {
  if (value === undefined) return '';
  switch (unit) {
    case 'DATE':
      return new Intl.DateTimeFormat(locale, { dateStyle: 'medium', timeZone: 'UTC' }).format(
        utc(String(value)),
      );
    case 'DATE_MONTH':
      return new Intl.DateTimeFormat(locale, {
        month: 'long',
        year: 'numeric',
        timeZone: 'UTC',
      }).format(utc(String(value)));
    case 'CURRENCY': {
      const digits = minorUnitsOf(currency);
      return new Intl.NumberFormat(locale, {
        minimumFractionDigits: digits,
        maximumFractionDigits: digits,
      }).format(Number(value));
    }
    case 'INTEGER':
      return new Intl.NumberFormat(locale, { maximumFractionDigits: 0 }).format(Number(value));
    case 'NUMBER':
      return new Intl.NumberFormat(locale, { maximumFractionDigits: 4 }).format(Number(value));
    case 'TEXT': {
      // A date-time shows the restaurant's wall clock, as the string writes it before its offset;
      // a value the messages name (an order state) shows its word.
      const time = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})/.exec(String(value));
      if (time) {
        const [y, mo, d, h, mi] = time.slice(1).map(Number);
        return new Intl.DateTimeFormat(locale, { timeStyle: 'short', timeZone: 'UTC' }).format(
          Date.UTC(y ?? 0, (mo ?? 1) - 1, d, h, mi),
        );
      }
      return MESSAGES[LOCALES[locale]][`value.${key}.${String(value)}`] ?? String(value);
    }
  }
};

const currencySymbol = (currency: string, locale: Locale) =>
  new Intl.NumberFormat(locale, { style: 'currency', currency })
    .formatToParts(0)
    .find((part) => part.type === 'currency')?.value ?? currency;

interface Table {
  /** data-key → header text. */
  readonly headers: Record<string, string>;
  /** One data-key → cell text map per row. */
  readonly rows: Record<string, string>[];
}

interface ApiRow {
  readonly data: Record<string, string | number>;
  readonly compare?: Record<string, string | number>;
}

/** A column's header: its name, the currency symbol, and for a comparison the message's phrase. */
const expectedHeader = (
  report: ReportId,
  key: string,
  unit: Unit,
  locale: Locale,
  currency: string,
  comparison = false,
) => {
  const name = columnName(report, key, locale);
  if (unit !== 'CURRENCY') return comparison ? say(locale, 'column.compare', { name }) : name;
  return say(locale, comparison ? 'column.compareCurrency' : 'column.currency', {
    name,
    currency: currencySymbol(currency, locale),
  });
};

/** The table the page should show for these rows. */
const expectedTable = (
  report: ReportId,
  rows: readonly ApiRow[],
  locale: Locale,
  currency: string,
  comparing = false,
): Table => {
  const columns = columnsOf(report);
  const headers: Record<string, string> = {};
  for (const [key, unit] of columns) {
    headers[key] = expectedHeader(report, key, unit, locale, currency);
    if (comparing) {
      headers[`${key}:compare`] = expectedHeader(report, key, unit, locale, currency, true);
    }
  }
  return {
    headers,
    rows: rows.map((row) => {
      const cells: Record<string, string> = {};
      for (const [key, unit] of columns) {
        cells[key] = expectedValue(unit, row.data[key], locale, currency, key);
        if (comparing)
          cells[`${key}:compare`] = expectedValue(unit, row.compare?.[key], locale, currency, key);
      }
      return cells;
    }),
  };
};

/** The text alternative of a time series' chart of `key`: its span, total, highest, lowest. */
const expectedChartText = (
  report: ReportId,
  key: string,
  rows: readonly ApiRow[],
  locale: Locale,
  currency: string,
  comparing = false,
) => {
  const columns = columnsOf(report);
  const [axisKey, axisUnit] = axisOf(report)!;
  const unit = columns.find(([k]) => k === key)![1];
  const part = (side: 'data' | 'compare') => {
    const points = rows.map((row) => ({
      at: row[side]![axisKey]!,
      value: Number(row[side]![key]),
    }));
    const max = points.reduce((best, p) => (p.value > best.value ? p : best));
    const min = points.reduce((best, p) => (p.value < best.value ? p : best));
    const value = (n: number) => expectedValue(unit, n, locale, currency);
    const at = (x: string | number) => expectedValue(axisUnit, x, locale, currency);
    return {
      name: expectedHeader(report, key, unit, locale, currency),
      from: at(points[0]!.at),
      to: at(points[points.length - 1]!.at),
      total: value(points.reduce((sum, p) => sum + p.value, 0)),
      max: value(max.value),
      maxAt: at(max.at),
      min: value(min.value),
      minAt: at(min.at),
    };
  };
  const text = say(locale, 'chart.summary', part('data'));
  return comparing ? `${text} ${say(locale, 'chart.compareSummary', part('compare'))}` : text;
};

/** The charts shown: their measure and their image's text alternative. */
const shownCharts = (page: Page) =>
  page.evaluate<{ key: string; role: string | null; label: string | null }[]>(
    `[...document.querySelectorAll('[data-testid="reports-chart"]')].map((figure) => {
      const image = figure.querySelector('[data-testid="reports-chart-image"]');
      return {
        key: figure.getAttribute('data-key'),
        role: image && image.getAttribute('role'),
        label: image && image.getAttribute('aria-label'),
      };
    })`,
  );

/**
 * Where each labelled day's bars stand in the rendered charts: how far, in CSS pixels, the centre
 * of its bars lies from the centre of its label, and whether the period's bar comes first (left)
 * of the comparison's.
 */
const barPlacement = (page: Page) =>
  page.evaluate<{ offset: number; periodLeft: boolean | null }[]>(
    `[...document.querySelectorAll('[data-testid="reports-chart-image"] g')]
      .filter((group) => group.querySelector('text'))
      .map((group) => {
        const box = (element) => element.getBoundingClientRect();
        const label = box(group.querySelector('text'));
        const bars = [...group.querySelectorAll('rect')].map(box);
        const left = Math.min(...bars.map((bar) => bar.left));
        const right = Math.max(...bars.map((bar) => bar.right));
        const period = group.querySelector('.rp-bar');
        const compare = group.querySelector('.rp-bar-compare');
        return {
          offset: Math.abs((left + right) / 2 - (label.left + label.right) / 2),
          periodLeft: compare ? box(period).left < box(compare).left : null,
        };
      })`,
  );

const AXE = readFileSync(join(process.cwd(), 'node_modules/axe-core/axe.min.js'), 'utf8');

/** axe-core's serious and critical violations in the plugin's parts of the page. */
const axeViolations = async (page: Page) => {
  await page.addScriptTag({ content: AXE });
  const violations = await page.evaluate<
    { id: string; impact: string | null; targets: string[] }[]
  >(
    `axe.run({ include: [['[data-testid="navigation"]'], ['[data-testid="plugins"]']] }, {
      resultTypes: ['violations'],
    }).then((result) => result.violations.map((v) => ({
      id: v.id,
      impact: v.impact,
      targets: v.nodes.map((node) => node.target.join(' ')),
    })))`,
  );
  return violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
};

interface Box {
  readonly left: number;
  readonly right: number;
  readonly top: number;
  readonly bottom: number;
}

/**
 * The contrast (WCAG 2) of each element's `property` colour against the first background behind
 * it, for every element of each selector.
 */
const contrasts = (page: Page, selectors: readonly (readonly [string, 'fill' | 'color'])[]) =>
  page.evaluate<{ what: string; ratio: number }[]>(`((selectors) => {
    const rgb = (text) => (text.match(/[\\d.]+/g) ?? []).map(Number);
    const luminance = ([r, g, b]) => {
      const linear = (c) => ((c /= 255) <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4);
      return 0.2126 * linear(r) + 0.7152 * linear(g) + 0.0722 * linear(b);
    };
    const background = (element) => {
      for (let at = element; at; at = at.parentElement) {
        const [r, g, b, a = 1] = rgb(getComputedStyle(at).backgroundColor);
        if (a > 0) return [r, g, b];
      }
      return [255, 255, 255];
    };
    const ratio = (element, colour) => {
      const [x, y] = [luminance(rgb(colour)), luminance(background(element))];
      return (Math.max(x, y) + 0.05) / (Math.min(x, y) + 0.05);
    };
    return selectors.flatMap(([selector, property]) =>
      [...document.querySelectorAll(selector)].map((element) => ({
        what: selector,
        ratio: ratio(element, getComputedStyle(element)[property]),
      })),
    );
  })(${JSON.stringify(selectors)})`);

/** Each label of the controls with its control's box, and which of the two comes first. */
const labelledControls = (page: Page) =>
  page.evaluate<{ text: string; labelFirst: boolean; label: Box; control: Box }[]>(
    `(() => {
      const box = (e) => {
        const r = e.getBoundingClientRect();
        return { left: r.left, right: r.right, top: r.top, bottom: r.bottom };
      };
      return [...document.querySelectorAll('[data-testid="reports-controls"] label[for]')].map((label) => {
        const control = document.getElementById(label.htmlFor);
        return {
          text: label.textContent,
          labelFirst: Boolean(label.compareDocumentPosition(control) & Node.DOCUMENT_POSITION_FOLLOWING),
          label: box(label),
          control: box(control),
        };
      });
    })()`,
  );

/**
 * Each label beside its own control, on the same line, the first of the two where the reading
 * starts (the right in Arabic), at most a small gap apart.
 */
const expectLabelsBesideControls = async (page: Page, rtl: boolean) => {
  const pairs = await labelledControls(page);
  expect(pairs.length).toBeGreaterThan(0);
  for (const { text, labelFirst, label, control } of pairs) {
    const [first, second] = labelFirst ? [label, control] : [control, label];
    const gap = rtl ? first.left - second.right : second.left - first.right;
    const sameLine = label.top < control.bottom && control.top < label.bottom;
    expect({ text, sameLine, gapOk: gap >= 0 && gap <= 12 }).toEqual({
      text,
      sameLine: true,
      gapOk: true,
    });
  }
  // The whole row mirrors: the first control starts at the reading side of the controls.
  const edges = await page.evaluate<{ controls: Box; first: Box }>(
    `(() => {
      const box = (e) => {
        const r = e.getBoundingClientRect();
        return { left: r.left, right: r.right, top: r.top, bottom: r.bottom };
      };
      const controls = document.querySelector('[data-testid="reports-controls"]');
      return { controls: box(controls), first: box(controls.querySelector('label[for]')) };
    })()`,
  );
  const inset = rtl
    ? edges.controls.right - edges.first.right
    : edges.first.left - edges.controls.left;
  expect(inset).toBeGreaterThanOrEqual(0);
  expect(inset).toBeLessThanOrEqual(24);
};

/** What the page's table shows, by data-key (read in the page: the tests have no DOM types). */
const SHOWN_TABLE = `(() => {
  const keyed = (elements) =>
    Object.fromEntries([...elements].map((e) => [e.getAttribute('data-key') ?? '', e.textContent ?? '']));
  const table = document.querySelector('[data-testid="reports-table"]');
  if (!table) return { headers: {}, rows: [] };
  return {
    headers: keyed(table.querySelectorAll('[data-testid="reports-header"]')),
    rows: [...table.querySelectorAll('[data-testid="reports-row"]')].map((row) =>
      keyed(row.querySelectorAll('[data-testid="reports-cell"]')),
    ),
  };
})()`;
const shownTable = (page: Page): Promise<Table> => page.evaluate<Table>(SHOWN_TABLE);

/** Polls `read` until it equals `expected` (or the time is up); returns the last reading. */
const settle = async <T>(read: () => Promise<T>, expected: T, timeoutMs = 20_000): Promise<T> => {
  const deadline = Date.now() + timeoutMs;
  let last = await read();
  while (JSON.stringify(last) !== JSON.stringify(expected) && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    last = await read();
  }
  return last;
};

/** The same request straight from Node: what the API answers, for the page's token. */
const direct = async (
  restaurantId: string,
  report: ReportId,
  query: string,
  token = service.token,
) => {
  const response = await fetch(
    `${api}/v1/restaurants/${restaurantId}${reportOf(report).path.replace('/v1/restaurants/{id}', '')}${query ? `?${query}` : ''}`,
    { headers: { Authorization: `Bearer ${token}` } },
  );
  return { status: response.status, body: Buffer.from(await response.arrayBuffer()), response };
};
const directRows = async (
  restaurantId: string,
  report: ReportId,
  query: string,
  token?: string,
) => {
  const { status, body } = await direct(restaurantId, report, query, token);
  expect(status).toBe(200);
  return (JSON.parse(body.toString('utf8')) as { data: ApiRow[] }).data;
};

/** A token of `sub` with `restaurantId` first, from the preview's sign-in (the page's own). */
const tokenFor = async (sub: string, restaurantId: string) => {
  const response = await fetch(new URL('/sign-in', preview), {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ sub, restaurant: restaurantId }),
  });
  expect(response.status).toBe(200);
  return ((await response.json()) as { token: string }).token;
};

/** Picks a report and its period in the plugin's sticky controls. */
const choose = async (page: Page, report: ReportId, range?: { from: string; to: string }) => {
  // On a phone the controls are folded to one line first.
  const fold = page.getByTestId('reports-fold');
  if ((await fold.isVisible()) && (await fold.getAttribute('aria-expanded')) === 'false') {
    await fold.click();
  }
  await page.getByTestId('reports-picker').selectOption(report);
  if (!range) return;
  await page.getByTestId('reports-from').fill(range.from);
  await page.getByTestId('reports-to').fill(range.to);
};

/** The first day of the month `months` after this one (in Dubai). */
const firstOfMonth = (months: number) => {
  const [year, month] = TODAY().split('-').map(Number) as [number, number];
  return new Date(Date.UTC(year, month - 1 + months, 1)).toISOString().slice(0, 10);
};
const week = () => ({ from: addDays(TODAY(), -6), to: TODAY() });
const query = ({ from, to }: { from: string; to: string }) => `from=${from}&to=${to}`;

// ---- the tests -----------------------------------------------------------------------------

describe('the portal preview of npm start, in headless Chromium', () => {
  it('is printed by npm start and served on its own origin, so every API call is cross-origin', async () => {
    const { page, problems } = await open();

    const origin = await page.evaluate<string>('location.origin');

    expect(service.output()).toContain(`Portal preview: ${preview}`);
    expect(`${origin}/`).toBe(preview);
    expect(new URL(api).origin).not.toBe(origin);
    expect(await page.getByTestId('owner-select').locator('option').allTextContents()).toEqual(
      SAMPLE_OWNERS.map(
        (owner) => `${owner.name} (${owner.sub}: ${owner.restaurants.map((r) => r.id).join(', ')})`,
      ),
    );
    expect(problems).toEqual([]);
  });

  it("signs in as the sample owner, lists the registry's v2 plugins for the token and mounts the reports bundle of its own CDN under its route", async () => {
    const { page, problems, apiRequests } = await open();
    const bundles: string[] = [];
    page.on('request', (request) => {
      if (request.url().includes('/cdn/')) bundles.push(request.url());
    });

    await signIn(page);
    const registry = await fetch(`${api}/v1/plugins?portalVersion=v2`, {
      headers: { Authorization: `Bearer ${service.token}` },
    });
    const plugins = (await registry.json()) as { code: string; route: string; bundleUrl: string }[];

    // npm start deployed the bundle of this preview's origin for v2 (the real deployment call).
    expect(plugins).toEqual([
      { code: 'reports', route: 'reports', bundleUrl: `${preview}cdn/eu/reports/index.js` },
    ]);
    expect(apiRequests.map((request) => request.url())).toContain(
      `${api}/v1/plugins?portalVersion=v2`,
    );
    expect(bundles).toEqual([`${preview}cdn/eu/reports/index.js`]);
    expect(await page.getByTestId('plugin-nav').locator('a').allTextContents()).toEqual([
      'reports',
    ]);
    expect(await page.getByTestId('nav-reports').getAttribute('href')).toBe('#/reports');
    expect(await page.getByTestId('plugin-reports').isVisible()).toBe(true);
    expect(await page.getByTestId('plugin-reports').getByTestId('reports-root').count()).toBe(1);
    // setNewNavigation: the title and the sticky content, rendered by the portal.
    expect(await page.getByTestId('navigation-title').textContent()).toBe('Reports');
    expect(await page.getByTestId('sticky-content').getByTestId('reports-controls').count()).toBe(
      1,
    );
    expect(
      await page.evaluate<string>(
        `getComputedStyle(document.querySelector('[data-testid="navigation"]')).position`,
      ),
    ).toBe('sticky');
    expect(await page.getByTestId('signed-in-as').textContent()).toBe('Sample Owner');
    expect(
      await page.evaluate<string[]>(
        `[...document.querySelectorAll('[data-testid="restaurant-select"] option')].map((o) => o.value)`,
      ),
    ).toEqual(['R-1001', 'R-1002']);
    expect(problems).toEqual([]);
  });

  it("loads the owner's language file from beside the bundle, and only that one", async () => {
    const { page, problems } = await open('de-DE');
    const files: string[] = [];
    page.on('request', (request) => {
      if (request.url().includes('/cdn/')) files.push(request.url().replace(/^.*\/cdn\//, ''));
    });

    await signIn(page, 'owner-1', 'de-DE');

    expect(files).toEqual([
      'eu/reports/index.js',
      expect.stringMatching(/^eu\/reports\/de-\w+\.js$/),
    ]);
    expect(await page.getByTestId('navigation-title').textContent()).toBe(say('de-DE', 'title'));
    expect(await page.getByTestId('reports-root').getAttribute('lang')).toBe('de-DE');
    expect(problems).toEqual([]);
  });

  it.each([
    ['fails', (route: Route) => route.abort('failed')],
    ['never answers', () => undefined],
  ])(
    'speaks English, left to right, when the language file %s, and says so in the console',
    async (_case, handle) => {
      const { page, problems } = await open('ar-AE');
      const warnings: string[] = [];
      page.on('console', (message) => {
        if (message.type() === 'warning') warnings.push(message.text());
      });
      await page.route(/\/cdn\/eu\/reports\/ar-\w+\.js$/, handle);

      await signIn(page, 'owner-1', 'ar-AE');

      expect(await page.getByTestId('navigation-title').textContent()).toBe(say('en-US', 'title'));
      const root = page.getByTestId('reports-root');
      expect({
        lang: await root.getAttribute('lang'),
        dir: await root.getAttribute('dir'),
      }).toEqual({ lang: 'en', dir: 'ltr' });
      expect(warnings).toEqual([
        expect.stringMatching(
          /^reports plugin: the ar messages did not load \(.+\); English instead$/,
        ),
      ]);
      // Chromium's own lines for the failed file, if any, are the only problems.
      expect(
        problems.filter(
          (problem) =>
            !/ar-\w+\.js/.test(problem) &&
            problem !== 'console: Failed to load resource: net::ERR_FAILED',
        ),
      ).toEqual([]);
    },
  );

  it('takes a pasted token instead of signing in', async () => {
    const { page, problems } = await open();
    const rows = await directRows('R-1001', 'orders-per-day', query(week()));

    await page.getByTestId('token-input').fill(service.token);
    await page.getByTestId('use-token').click();
    await ready(page);
    await choose(page, 'orders-per-day', week());
    const expected = expectedTable('orders-per-day', rows, 'en-US', 'AED');
    const shown = await settle(() => shownTable(page), expected);

    expect(shown).toEqual(expected);
    expect(await page.getByTestId('current-restaurant').getAttribute('data-restaurant-id')).toBe(
      'R-1001',
    );

    // Signing out unmounts the plugin: its view and its sticky content are gone.
    await page.getByTestId('sign-out').click();

    expect(await page.getByTestId('reports-root').count()).toBe(0);
    expect(await page.getByTestId('reports-controls').count()).toBe(0);
    expect(await page.getByTestId('portal').getAttribute('data-state')).toBe('signed-out');
    expect(await page.getByTestId('token-input').isVisible()).toBe(true);
    expect(problems).toEqual([]);
  });

  it("switches restaurants without a reload: the table changes to the other restaurant's rows", async () => {
    const { page, problems, navigations } = await open();
    await signIn(page);
    await choose(page, 'orders-per-day', week());
    const first = expectedTable(
      'orders-per-day',
      await directRows('R-1001', 'orders-per-day', query(week())),
      'en-US',
      'AED',
    );
    expect(await settle(() => shownTable(page), first)).toEqual(first);
    await page.evaluate('window.beforeSwitch = true');
    const navigationsBefore = navigations.length;

    await page.getByTestId('restaurant-select').selectOption('R-1002');
    const second = expectedTable(
      'orders-per-day',
      await directRows(
        'R-1002',
        'orders-per-day',
        query(week()),
        await tokenFor('owner-1', 'R-1002'),
      ),
      'en-US',
      'KWD',
    );
    const shown = await settle(() => shownTable(page), second);

    expect(shown).toEqual(second);
    expect(shown).not.toEqual(first);
    // Kuwaiti dinars: three decimals.
    expect(shown.rows.every((row) => /\.\d{3}$/.test(row.revenue ?? ''))).toBe(true);
    expect(await page.getByTestId('reports-root').getAttribute('data-restaurant')).toBe('R-1002');
    expect(await page.evaluate<unknown>('window.beforeSwitch')).toBe(true);
    expect(navigations.length).toBe(navigationsBefore);
    // And back: the first restaurant's rows again.
    await page.getByTestId('restaurant-select').selectOption('R-1001');
    expect(await settle(() => shownTable(page), first)).toEqual(first);
    expect(problems).toEqual([]);
  });

  describe.each(Object.keys(LOCALES) as Locale[])('in %s', (locale) => {
    const rtl = locale.startsWith('ar');

    it.each(REPORT_IDS)(
      "renders %s in the owner's language, its dates and numbers, its chart, with no serious axe violation",
      async (report) => {
        const { page, problems } = await open(locale);
        await signIn(page, 'owner-1', locale);
        const range =
          rangeOf(report) === 'day'
            ? week()
            : rangeOf(report) === 'month'
              ? { from: firstOfMonth(-2), to: firstOfMonth(0) }
              : undefined;
        const inputRange =
          range && rangeOf(report) === 'month'
            ? { from: range.from.slice(0, 7), to: range.to.slice(0, 7) }
            : range;

        await choose(page, report, inputRange);
        const currency = restaurantOf('R-1001').currency;
        let rows = await directRows('R-1001', report, range ? query(range) : '');
        let expected = expectedTable(report, rows, locale, currency);
        let shown = await settle(() => shownTable(page), expected);
        // A period that holds today grows with the time of day: one more reading if an order came
        // in between.
        if (JSON.stringify(shown) !== JSON.stringify(expected)) {
          rows = await directRows('R-1001', report, '');
          expected = expectedTable(report, rows, locale, currency);
          shown = await settle(() => shownTable(page), expected);
        }

        expect(expected.rows.length).toBeGreaterThan(0);
        expect(shown).toEqual(expected);
        const root = page.getByTestId('reports-root');
        expect(await root.getAttribute('dir')).toBe(rtl ? 'rtl' : 'ltr');
        expect(await page.getByTestId('reports-controls').getAttribute('dir')).toBe(
          rtl ? 'rtl' : 'ltr',
        );
        expect(await root.getAttribute('lang')).toBe(locale);
        // The words: the message files and the catalogue's names.
        expect(await page.getByTestId('navigation-title').textContent()).toBe(say(locale, 'title'));
        expect(await root.locator('h2').textContent()).toBe(reportTitle(report, locale));
        expect(
          await page.getByTestId('reports-picker').locator('option').allTextContents(),
        ).toEqual(REPORT_IDS.map((id) => reportTitle(id, locale)));
        expect(await page.getByTestId('reports-download').textContent()).toBe(
          say(locale, 'download'),
        );
        expect(
          await page.locator('[data-testid="reports-controls"] label[for]').allTextContents(),
        ).toEqual([
          say(locale, 'report'),
          ...(range ? [say(locale, 'preset'), say(locale, 'from'), say(locale, 'to')] : []),
          ...(reportOf(report).compare ? [say(locale, 'compare')] : []),
        ]);
        // A chart per measure of a time series, above the table, with its text alternative.
        const charts = await shownCharts(page);
        if (axisOf(report)) {
          expect(charts).toEqual(
            measuresOf(report).map((key) => ({
              key,
              role: 'img',
              label: expectedChartText(report, key, rows, locale, currency),
            })),
          );
          expect(
            await page.evaluate<boolean>(
              `Boolean(document.querySelector('[data-testid="reports-chart"]').compareDocumentPosition(document.querySelector('[data-testid="reports-table"]')) & Node.DOCUMENT_POSITION_FOLLOWING)`,
            ),
          ).toBe(true);
          // Each day's bar stands on its label, in either direction.
          const placed = await barPlacement(page);
          expect(placed.length).toBeGreaterThan(0);
          expect(placed.filter(({ offset }) => offset > 1)).toEqual([]);
        } else {
          expect(charts).toEqual([]);
        }
        await expectLabelsBesideControls(page, rtl);
        expect(await axeViolations(page)).toEqual([]);
        expect(problems).toEqual([]);
      },
    );

    it('shows one empty state for a period without orders, in every report with a period', async () => {
      const { page, problems } = await open(locale);
      await signIn(page, 'owner-1', locale);
      const days = { from: addDays(TODAY(), -400), to: addDays(TODAY(), -394) };
      const months = { from: firstOfMonth(-15), to: firstOfMonth(-14) };

      for (const report of REPORT_IDS.filter((id) => rangeOf(id) !== 'none')) {
        const range = rangeOf(report) === 'month' ? months : days;
        const rows = await directRows('R-1001', report, query(range));
        await choose(
          page,
          report,
          rangeOf(report) === 'month'
            ? { from: range.from.slice(0, 7), to: range.to.slice(0, 7) }
            : range,
        );
        const empty = page.getByTestId('reports-empty');
        await empty.waitFor({ timeout: 20_000 });

        // A series answers a row of zeros per day or month; any other report no row.
        expect(rows.every((row) => Number(row.data.orderCount) === 0)).toBe(true);
        expect(await empty.textContent()).toBe(say(locale, 'empty'));
        expect(await page.getByTestId('reports-table').count()).toBe(0);
        expect(await page.getByTestId('reports-chart').count()).toBe(0);
      }
      expect(await axeViolations(page)).toEqual([]);
      expect(problems).toEqual([]);
    });
  });

  it.each(Object.keys(LOCALES) as Locale[])(
    'fits a 375 px phone in %s: the page never scrolls sideways, the table scrolls in its own box to its last column, the charts take the full width with readable labels',
    async (locale) => {
      // Prepare: the widest table, a period beside its comparison
      const { page, problems } = await open(locale, 375);
      await signIn(page, 'owner-1', locale);
      await choose(page, 'orders-per-day', week());
      await page.getByTestId('reports-compare-toggle').check();
      await page.locator('[data-testid="reports-header"][data-key="revenue:compare"]').waitFor();

      // Act: the box scrolled to the end of the reading direction
      const layout = await page.evaluate<{
        page: number;
        box: { left: number; right: number; scrolls: boolean };
        last: { left: number; right: number };
        charts: number[];
        root: number;
        labels: { left: number; right: number; size: number }[][];
      }>(`(() => {
        const box = document.querySelector('[data-testid="reports-table-scroll"]');
        box.scrollLeft = getComputedStyle(box).direction === 'rtl' ? -box.scrollWidth : box.scrollWidth;
        const rect = (element) => {
          const { left, right } = element.getBoundingClientRect();
          return { left: Math.round(left), right: Math.round(right) };
        };
        const headers = [...document.querySelectorAll('[data-testid="reports-header"]')];
        return {
          page: document.documentElement.scrollWidth,
          box: { ...rect(box), scrolls: box.scrollWidth > box.clientWidth },
          last: rect(headers[headers.length - 1]),
          charts: [...document.querySelectorAll('[data-testid="reports-chart"]')].map(
            (chart) => Math.round(chart.getBoundingClientRect().width),
          ),
          root: Math.round(document.querySelector('[data-testid="reports-root"]').getBoundingClientRect().width),
          labels: [...document.querySelectorAll('[data-testid="reports-chart-image"]')].map((svg) =>
            [...svg.querySelectorAll('g text')].map((text) => ({
              ...rect(text),
              size: text.getBoundingClientRect().height,
            })),
          ),
        };
      })()`);

      // Assess
      expect(layout.page).toBeLessThanOrEqual(375);
      expect(layout.box.scrolls).toBe(true);
      expect(layout.box.left).toBeGreaterThanOrEqual(0);
      expect(layout.box.right).toBeLessThanOrEqual(375);
      expect(layout.last.left).toBeGreaterThanOrEqual(layout.box.left - 1);
      expect(layout.last.right).toBeLessThanOrEqual(layout.box.right + 1);
      expect(layout.charts).toHaveLength(2);
      expect(layout.charts.filter((width) => width < layout.root - 32)).toEqual([]);
      // Readable: each day's label at least 10 px high, none over another.
      for (const labels of layout.labels) {
        expect(labels.length).toBeGreaterThan(1);
        expect(labels.filter(({ size }) => size < 10)).toEqual([]);
        const across = [...labels].sort((a, b) => a.left - b.left);
        expect(
          across.filter((label, i) => i > 0 && label.left < (across[i - 1]?.right ?? 0)),
        ).toEqual([]);
      }
      expect(await axeViolations(page)).toEqual([]);
      expect(problems).toEqual([]);
    },
  );

  describe.each(['de-DE', 'ar-AE'] as const)('in %s', (locale) => {
    it('shows a comparison period beside the period, as the API answers it, in table and chart', async () => {
      const { page, problems } = await open(locale);
      await signIn(page, 'owner-1', locale);
      const period = week();
      const comparison = { from: addDays(TODAY(), -13), to: addDays(TODAY(), -7) };

      await choose(page, 'orders-per-day', period);
      await page.getByTestId('reports-compare-toggle').check();
      await page.getByTestId('reports-compare-from').fill(comparison.from);
      await page.getByTestId('reports-compare-to').fill(comparison.to);
      const rows = await directRows(
        'R-1001',
        'orders-per-day',
        `${query(period)}&compare[from]=${comparison.from}&compare[to]=${comparison.to}`,
      );
      const expected = expectedTable('orders-per-day', rows, locale, 'AED', true);
      const shown = await settle(() => shownTable(page), expected);

      expect(rows.every((row) => row.compare !== undefined)).toBe(true);
      expect(shown).toEqual(expected);
      expect(shown.rows[0]?.['date:compare']).toBe(
        new Intl.DateTimeFormat(locale, { dateStyle: 'medium', timeZone: 'UTC' }).format(
          utc(comparison.from),
        ),
      );
      expect((await shownCharts(page)).map(({ label }) => label)).toEqual(
        ['orderCount', 'revenue'].map((key) =>
          expectedChartText('orders-per-day', key, rows, locale, 'AED', true),
        ),
      );
      // Each period's bars side by side: as many comparison bars as bars, the pair centred on
      // its label, the period's first in the reading direction.
      expect(await page.locator('.rp-bar-compare').count()).toBe(
        await page.locator('.rp-bar').count(),
      );
      const placed = await barPlacement(page);
      expect(placed.length).toBeGreaterThan(0);
      expect(placed.filter(({ offset }) => offset > 1)).toEqual([]);
      expect(new Set(placed.map(({ periodLeft }) => periodLeft))).toEqual(
        new Set([!locale.startsWith('ar')]),
      );
      // Each period's inputs in a group named by its message.
      expect(
        await page
          .getByRole('group', { name: say(locale, 'comparisonPeriod') })
          .getByTestId('reports-compare-from')
          .count(),
      ).toBe(1);
      expect(
        await page
          .getByRole('group', { name: say(locale, 'period'), exact: true })
          .getByTestId('reports-from')
          .count(),
      ).toBe(1);
      await expectLabelsBesideControls(page, locale === 'ar-AE');
      expect(await axeViolations(page)).toEqual([]);
      expect(problems).toEqual([]);
    });
  });

  it('works by keyboard: every control in reading order, the comparison and the download, the focus kept', async () => {
    const { page, problems } = await open();
    const focused = () =>
      page.evaluate<string>(`document.activeElement?.getAttribute('data-testid') ?? ''`);
    await page.getByTestId('sign-in').focus();
    await page.keyboard.press('Enter');
    await ready(page);
    await page.getByTestId('reports-table').waitFor({ timeout: 30_000 });
    // Signed in from the form: the focus moves to the session's first control, not the page.
    expect(await focused()).toBe('restaurant-select');
    await page.getByTestId('reports-picker').focus();
    const reached: string[] = [];
    for (let step = 0; step < 30 && !reached.includes('reports-download'); step += 1) {
      await page.keyboard.press('Tab');
      const id = await page.evaluate<string>(
        `document.activeElement?.getAttribute('data-testid') ?? ''`,
      );
      if (id !== '' && reached.at(-1) !== id) reached.push(id);
    }

    expect(reached).toEqual([
      'reports-preset',
      'reports-from',
      'reports-to',
      'reports-compare-toggle',
      'reports-download',
    ]);

    await page.getByTestId('reports-compare-toggle').focus();
    await page.keyboard.press('Space');
    await page.getByTestId('reports-compare-from').waitFor();
    expect(await page.getByTestId('reports-compare-toggle').isChecked()).toBe(true);

    await page.getByTestId('reports-download').focus();
    const [download] = await Promise.all([
      page.waitForEvent('download', { timeout: 20_000 }),
      page.keyboard.press('Enter'),
    ]);
    expect(download.suggestedFilename()).toMatch(/^orders-per-day_R-1001_.*\.csv$/);
    // The download over, its button still has the focus.
    await page.locator('[data-testid="reports-download"]:not([aria-disabled])').waitFor();
    expect(await focused()).toBe('reports-download');

    await page.getByTestId('reports-picker').focus();
    await page.keyboard.press('ArrowDown');
    await page.getByTestId('reports-root').and(page.locator('[data-report="dishes"]')).waitFor();
    // Signed out: the focus goes to the sign-in form.
    await page.getByTestId('sign-out').focus();
    await page.keyboard.press('Enter');
    expect(await focused()).toBe('owner-select');
    expect(problems).toEqual([]);
  });

  it("downloads the CSV for a spreadsheet: a byte-order mark, then the API's file with English headers, en-US dates and amounts in the currency's decimals, under the API's file name", async () => {
    const { page, problems } = await open();
    await signIn(page, 'owner-1', 'en-US');
    const period = week();
    await choose(page, 'orders-per-day', period);
    await page.getByTestId('reports-table').waitFor();

    const [download] = await Promise.all([
      page.waitForEvent('download', { timeout: 20_000 }),
      page.getByTestId('reports-download').click(),
    ]);
    const saved = await readFile(await download.path());
    const expected = await direct('R-1001', 'orders-per-day', `${query(period)}&format=csv`);
    const disposition = expected.response.headers.get('content-disposition') ?? '';
    const digits = minorUnitsOf(restaurantOf('R-1001').currency);
    // The API's lines, each date as en-US types it, each sales with the currency's decimals.
    const [header, ...lines] = expected.body.toString('utf8').split('\r\n');
    const withDecimals = lines.map((line) =>
      line
        .replace(/^"(\d{4})-(\d\d)-(\d\d)"/, '"$2/$3/$1"')
        .replace(
          /"(\d+)(?:\.(\d+))?"$/,
          (_whole, units: string, fraction: string | undefined) =>
            `"${units}.${(fraction ?? '').padEnd(digits, '0')}"`,
        ),
    );
    const currency = restaurantOf('R-1001').currency;

    expect(expected.status).toBe(200);
    expect(digits).toBe(2);
    expect([...saved.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    expect(saved.subarray(3).toString('utf8')).toBe(
      [`"Day","Orders","Sales (${currency})"`, ...withDecimals].join('\r\n'),
    );
    expect(header).toBe('day,orders,sales');
    expect(
      withDecimals.slice(0, -1).every((line) => /^"[^"]+","\d+","\d+\.\d{2}"$/.test(line)),
    ).toBe(true);
    expect(download.suggestedFilename()).toBe(/filename="([^"]+)"/.exec(disposition)?.[1]);
    expect(download.suggestedFilename()).toBe(
      `orders-per-day_R-1001_${period.from}_${period.to}.csv`,
    );
    expect(problems).toEqual([]);
  });

  it('enforces the 31-day limit: 32 days are refused before any request, 31 are shown', async () => {
    const { page, problems, apiRequests } = await open();
    await signIn(page);
    const to = addDays(TODAY(), -1);
    const tooLong = { from: addDays(to, -31), to };
    const longest = { from: addDays(to, -30), to };
    const refused = await direct('R-1001', 'orders-per-day', query(tooLong));

    await choose(page, 'orders-per-day', tooLong);
    await page.getByTestId('reports-range-message').waitFor();
    const sentTooLong = apiRequests.filter((request) =>
      request.url().includes(`from=${tooLong.from}&to=${tooLong.to}`),
    );

    // The API refuses it too: the plugin's limit is the API's.
    expect(refused.status).toBe(400);
    expect(JSON.parse(refused.body.toString('utf8'))).toMatchObject({ code: 'OUT_OF_RANGE' });
    expect(sentTooLong).toEqual([]);
    expect(await page.getByTestId('reports-range-message').textContent()).not.toBe('');
    expect(await page.getByTestId('reports-download').isDisabled()).toBe(true);
    expect(await page.getByTestId('reports-table').count()).toBe(0);

    await page.getByTestId('reports-from').fill(longest.from);
    const expected = expectedTable(
      'orders-per-day',
      await directRows('R-1001', 'orders-per-day', query(longest)),
      'en-US',
      'AED',
    );
    const shown = await settle(() => shownTable(page), expected);

    expect(shown.rows).toHaveLength(31);
    expect(shown).toEqual(expected);
    expect(await page.getByTestId('reports-range-message').count()).toBe(0);
    expect(await page.getByTestId('reports-download').isDisabled()).toBe(false);
    expect(problems).toEqual([]);
  });

  it('moves the comparison with the period, a year earlier if chosen, and refuses one of another length before any request', async () => {
    const { page, problems, apiRequests } = await open();
    await signIn(page);
    const period = { from: addDays(TODAY(), -20), to: addDays(TODAY(), -14) };
    const compared = async () => ({
      from: await page.getByTestId('reports-compare-from').inputValue(),
      to: await page.getByTestId('reports-compare-to').inputValue(),
    });
    const sent = (range: { from: string; to: string }) =>
      apiRequests.filter((request) =>
        request.url().includes(`compare%5Bfrom%5D=${range.from}&compare%5Bto%5D=${range.to}`),
      );

    await choose(page, 'orders-per-day', week());
    await page.getByTestId('reports-compare-toggle').check();
    expect(await compared()).toEqual({ from: addDays(TODAY(), -13), to: addDays(TODAY(), -7) });

    await page.getByTestId('reports-from').fill(period.from);
    await page.getByTestId('reports-to').fill(period.to);
    expect(await compared()).toEqual({
      from: addDays(period.from, -7),
      to: addDays(period.from, -1),
    });

    await page.getByTestId('reports-compare-mode').selectOption('year');
    const yearBefore = `${Number(period.from.slice(0, 4)) - 1}${period.from.slice(4)}` as IsoDate;
    const yearly = { from: yearBefore, to: addDays(yearBefore, 6) };
    expect(await compared()).toEqual(yearly);
    await page.locator('[data-testid="reports-header"][data-key="revenue:compare"]').waitFor();
    await settle(() => Promise.resolve(sent(yearly).length > 0), true);

    const longer = { from: addDays(yearly.from, -3), to: yearly.to };
    await page.getByTestId('reports-compare-from').fill(longer.from);
    await page.getByTestId('reports-range-message').waitFor();

    expect(await page.getByTestId('reports-range-message').textContent()).toBe(
      say('en-US', 'range.length', { period: say('en-US', 'comparisonPeriod') }),
    );
    expect(sent(longer)).toEqual([]);
    expect(await page.getByTestId('reports-download').isDisabled()).toBe(true);
    expect(problems).toEqual([]);
  });

  it("words a refusal in the owner's language, the service's English folded behind a details control", async () => {
    const { page } = await open('de-DE');
    await signIn(page, 'owner-1', 'de-DE');
    const refusal = {
      state: 'ERROR',
      code: 'VALIDATION_ERROR',
      message: 'Validation failed',
      errors: [{ field: 'from', code: 'INVALID_DATE', message: 'from must be a calendar date' }],
    };
    await page.route(new RegExp(`^${api}/v1/restaurants/R-1001/reports/orders/day\\?`), (route) =>
      route.fulfill({
        status: 400,
        contentType: 'application/json',
        headers: { 'access-control-allow-origin': '*' },
        body: JSON.stringify(refusal),
      }),
    );

    await choose(page, 'orders-per-day', { from: addDays(TODAY(), -3), to: TODAY() });
    const error = page.getByTestId('reports-error');
    await error.waitFor();
    const details = page.getByTestId('reports-error-details');

    expect(await error.getAttribute('data-kind')).toBe('validation');
    expect(await error.locator('p').textContent()).toBe(say('de-DE', 'error.validation'));
    expect(await details.locator('summary').textContent()).toBe(say('de-DE', 'error.details'));
    expect(await details.locator('li').isVisible()).toBe(false);
    await details.locator('summary').click();
    expect(await details.locator('li').isVisible()).toBe(true);
    expect(await details.locator('li').textContent()).toBe('from: from must be a calendar date');
    expect(await details.locator('ul').getAttribute('lang')).toBe('en');
    expect(await axeViolations(page)).toEqual([]);
  });

  it.each(['light', 'dark'] as const)(
    'follows a %s host: chart labels, table and messages at a contrast of 4.5:1 or more, no serious axe violation',
    async (scheme) => {
      const { page, problems } = await open('de-DE', 1200, scheme);
      await signIn(page, 'owner-1', 'de-DE');
      await choose(page, 'orders-per-day', week());
      await page.getByTestId('reports-compare-toggle').check();
      await page.locator('[data-testid="reports-header"][data-key="revenue:compare"]').waitFor();

      const report = await contrasts(page, [
        ['[data-testid="reports-chart-image"] text', 'fill'],
        ['[data-testid="reports-cell"]', 'color'],
        ['[data-testid="reports-header"]', 'color'],
      ]);
      const reportAxe = await axeViolations(page);
      // A comparison the API would refuse, so that its message shows beside the controls.
      await page.getByTestId('reports-compare-from').fill(addDays(TODAY(), -60));
      await page.getByTestId('reports-range-message').waitFor();
      const message = await contrasts(page, [['[data-testid="reports-range-message"]', 'color']]);

      expect(
        await page.evaluate<string>(`getComputedStyle(document.documentElement).colorScheme`),
      ).toBe('light dark');
      expect(new Set([...report, ...message].map(({ what }) => what)).size).toBe(4);
      expect([...report, ...message].filter(({ ratio }) => !(ratio >= 4.5))).toEqual([]);
      expect(reportAxe).toEqual([]);
      expect(await axeViolations(page)).toEqual([]);
      expect(problems).toEqual([]);
    },
  );

  it('prints the report, not the controls: the period named, the whole table, the charts', async () => {
    const { page, problems } = await open('de-DE');
    await signIn(page, 'owner-1', 'de-DE');
    const period = week();
    await choose(page, 'orders-per-day', period);
    await page.getByTestId('reports-compare-toggle').check();
    await page.locator('[data-testid="reports-header"][data-key="revenue:compare"]').waitFor();
    const shownIn = (testId: string) => page.getByTestId(testId).first().isVisible();
    const day = (date: string) => expectedValue('DATE', date, 'de-DE', 'AED');

    expect(await shownIn('reports-period')).toBe(false);
    await page.emulateMedia({ media: 'print' });

    expect(await shownIn('reports-controls')).toBe(false);
    expect(await shownIn('sign-in-form')).toBe(false);
    expect(await shownIn('reports-table')).toBe(true);
    expect(await shownIn('reports-chart')).toBe(true);
    expect(await page.getByTestId('reports-period').textContent()).toContain(
      `${say('de-DE', 'period')}: ${day(period.from)} – ${day(period.to)}; ${say('de-DE', 'comparisonPeriod')}: `,
    );
    expect(
      await page.evaluate<string>(
        `getComputedStyle(document.querySelector('[data-testid="reports-table-scroll"]')).overflowX`,
      ),
    ).toBe('visible');
    expect(problems).toEqual([]);
  });

  it("renders the API's 403 as a message for a restaurant outside the token", async () => {
    const { page, problems } = await open();
    await signIn(page);
    await choose(page, 'orders-per-day', week());

    await page.getByTestId('other-restaurant-input').fill('R-2001');
    const [answer] = await Promise.all([
      page.waitForResponse(
        (response) =>
          response.url().startsWith(`${api}/v1/restaurants/R-2001/reports/orders/day?`) &&
          response.request().method() === 'GET',
      ),
      page.getByTestId('other-restaurant-apply').click(),
    ]);
    const error = page.getByTestId('reports-error');
    await error.waitFor();

    expect(answer.status()).toBe(403);
    expect(await answer.json()).toEqual({
      state: 'ERROR',
      code: 'FORBIDDEN',
      message: 'Forbidden',
    });
    expect(await error.getAttribute('data-kind')).toBe('forbidden');
    // The sentence alone: the body's bare "Forbidden" adds nothing.
    expect(await error.textContent()).toBe(say('en-US', 'error.forbidden'));
    expect(await page.getByTestId('reports-table').count()).toBe(0);
    expect(await page.getByTestId('reports-root').getAttribute('data-restaurant')).toBe('R-2001');
    // The only console errors are Chromium's lines for the deliberate 403s (report, currency).
    expect(problems.length).toBeGreaterThan(0);
    for (const problem of problems) {
      expect(problem).toMatch(
        /^console: Failed to load resource: the server responded with a status of 403 /,
      );
    }
  });
});

describe("the preview's server", () => {
  it('signs tokens for the sample owners only, with the asked restaurant first', async () => {
    const post = (body: string) =>
      fetch(new URL('/sign-in', preview), {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body,
      });
    const restaurantsOf = (token: string) => {
      const payload = JSON.parse(
        Buffer.from(token.split('.')[1] ?? '', 'base64url').toString('utf8'),
      ) as { sub: string; authSchema: string };
      const schema = JSON.parse(payload.authSchema) as { restaurants: { id: string }[] };
      return { sub: payload.sub, ids: schema.restaurants.map(({ id }) => id) };
    };

    const refused = await Promise.all(
      [
        '{"sub":"owner-9"}',
        '{"sub":"owner-1","restaurant":"R-2001"}',
        '{"sub":1}',
        'not json',
        JSON.stringify({ sub: 'owner-1', pad: 'x'.repeat(2000) }),
      ].map(async (body) => (await post(body)).status),
    );

    expect(refused).toEqual([400, 400, 400, 400, 400]);
    expect(restaurantsOf(await tokenFor('owner-1', 'R-1002'))).toEqual({
      sub: 'owner-1',
      ids: ['R-1002', 'R-1001'],
    });
    expect(restaurantsOf(await tokenFor('owner-3', 'R-3001'))).toEqual({
      sub: 'owner-3',
      ids: ['R-3001', 'R-3002'],
    });
  });

  it('serves the built bundle on its emulated CDN, and nothing outside it', async () => {
    const get = async (path: string) => {
      const response = await fetch(new URL(path, preview));
      return { status: response.status, type: response.headers.get('content-type') };
    };

    expect(await get('/cdn/eu/reports/index.js')).toEqual({
      status: 200,
      type: 'text/javascript; charset=utf-8',
    });
    expect(await get('/cdn/other-region/reports/index.js')).toMatchObject({ status: 200 });
    for (const path of [
      '/cdn/eu/reports/missing.js',
      '/cdn/eu/reports/..%2F..%2Fpackage.json',
      '/cdn/eu/reports/../../package.json',
      '/cdn/eu/orders/index.js',
      '/tools/portal/preview.ts',
    ]) {
      expect({ path, ...(await get(path)) }).toMatchObject({ path, status: 404 });
    }
  });

  it('answers only requests to a loopback host name (no DNS rebinding)', async () => {
    const { port } = new URL(preview);
    const statusFor = (host: string) =>
      new Promise<number | undefined>((resolve, reject) => {
        const request = httpRequest(
          { host: '127.0.0.1', port, path: '/', method: 'GET', headers: { Host: host } },
          (response) => {
            response.resume();
            resolve(response.statusCode);
          },
        );
        request.on('error', reject);
        request.end();
      });

    expect(await statusFor(`localhost:${port}`)).toBe(200);
    expect(await statusFor(`127.0.0.1:${port}`)).toBe(200);
    expect(await statusFor(`attacker.example:${port}`)).toBe(403);
    expect(await statusFor('localhost')).toBe(403);
  });

  it("refuses a PREVIEW_PORT that is serverless-offline's LAMBDA_PORT, before starting anything", async () => {
    const port = await freePort();
    const started = startService('preview-port-lambda', {
      PREVIEW_PORT: String(port),
      LAMBDA_PORT: String(port),
    });

    await expect(started).rejects.toThrow(
      /exited with 2 before it was ready:[\s\S]*PREVIEW_PORT must be a TCP port number other than PORT and LAMBDA_PORT/,
    );
  }, 60_000);

  it('refuses a PREVIEW_PORT something else answers on, before starting anything', async () => {
    const holder: Server = createServer();
    const port = await freePort();
    await new Promise<void>((resolve) => holder.listen(port, 'localhost', resolve));
    try {
      const started = startService('preview-port-taken', { PREVIEW_PORT: String(port) });

      await expect(started).rejects.toThrow(
        new RegExp(
          `exited with 2 before it was ready:[\\s\\S]*Port ${port} is in use on localhost: ` +
            'stop what uses it, or set PREVIEW_PORT',
        ),
      );
    } finally {
      await new Promise<void>((resolve) =>
        holder.close(() => {
          resolve();
        }),
      );
    }
  }, 60_000);
});
