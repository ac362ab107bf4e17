/**
 * npm run preview:screenshots — the pictures of docs/preview.md, regenerated: `npm start` on free
 * ports (its embedded database and local issuer), the portal preview in headless Chromium
 * (Debian's package, as the browser suite drives it), signed in as the sample owner with the
 * shot's locale in the token, and per language one 1200×800 PNG and one of a 375 px phone in
 * docs/images/, compressed with Debian's pngquant and optipng when installed. The dates in them
 * are those of the day it runs.
 */
import { execFileSync } from 'node:child_process';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { launchChromium } from './chromium';
import { freePort, startService } from './service';

const ROOT = join(import.meta.dirname, '../..');
const OUT_DIR = join(ROOT, 'docs/images');
const DESKTOP = { width: 1200, height: 800 };
const PHONE = { width: 375, height: 812 };

interface Shot {
  readonly file: string;
  readonly locale: string;
  readonly report: string;
  readonly compare: boolean;
  readonly viewport: { readonly width: number; readonly height: number };
}

/** Each language's page, shot on a desktop and on a phone. */
const PAGES = [
  { locale: 'en-US', report: 'orders-per-day', compare: true },
  { locale: 'ar-AE', report: 'orders-per-day', compare: true },
  { locale: 'de-DE', report: 'revenue', compare: false },
  { locale: 'es-MX', report: 'orders-today', compare: false },
] as const;

const SHOTS: readonly Shot[] = PAGES.flatMap((page) => [
  { ...page, file: `preview-${page.locale}.png`, viewport: DESKTOP },
  { ...page, file: `preview-${page.locale}-375.png`, viewport: PHONE },
]);

/** Waits until the table is drawn with its currency header (the currency comes separately). */
/** Shrinks a PNG in place with pngquant (256 colours) then optipng; a tool not installed is skipped. */
const compress = (file: string) => {
  for (const [tool, ...args] of [
    ['pngquant', '--force', '--skip-if-larger', '--speed', '1', '--ext', '.png', '256'],
    ['optipng', '-quiet', '-o5', '-strip', 'all'],
  ] as const) {
    try {
      execFileSync(tool, [...args, file], { stdio: 'inherit' });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
  }
};

const tableDrawn = (page: Page) =>
  page.waitForFunction(
    `(() => {
      const headers = [...document.querySelectorAll('[data-testid="reports-header"]')];
      return headers.length > 0 && headers.some((h) => h.textContent.includes('('))
        && !document.querySelector('[data-testid="reports-loading"]');
    })()`,
    undefined,
    { timeout: 30_000 },
  );

const service = await startService({
  name: 'screenshots',
  env: { PREVIEW_PORT: String(await freePort()) },
});
try {
  const browser = await launchChromium();
  try {
    await mkdir(OUT_DIR, { recursive: true });
    for (const shot of SHOTS) {
      const context = await browser.newContext({
        locale: shot.locale,
        timezoneId: 'Asia/Dubai',
        viewport: shot.viewport,
      });
      const page = await context.newPage();
      await page.goto(service.ready.previewUrl);
      await page.getByTestId('locale-select').selectOption(shot.locale.replace('-', '_'));
      await page.getByTestId('sign-in').click();
      await page.waitForSelector('[data-testid="portal"][data-state="ready"]', {
        timeout: 30_000,
      });
      // On a phone the controls are folded to one line: opened to choose, folded for the shot.
      const fold = page.getByTestId('reports-fold');
      const folded = await fold.isVisible();
      if (folded) await fold.click();
      await page.getByTestId('reports-picker').selectOption(shot.report);
      if (shot.compare) await page.getByTestId('reports-compare-toggle').check();
      if (folded) await fold.click();
      await tableDrawn(page);
      const file = join(OUT_DIR, shot.file);
      await page.screenshot({ path: file });
      compress(file);
      process.stdout.write(`${file}\n`);
      await context.close();
    }
  } finally {
    await browser.close();
  }
} finally {
  await service.stop();
}
