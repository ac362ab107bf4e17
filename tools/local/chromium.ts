/**
 * A real browser, for the browser suite and `npm run preview:screenshots`: Debian's `chromium`
 * package driven by playwright-core. No browser is ever downloaded; `chromium.launch` gives
 * every launch a fresh temporary user-data directory (deleted again by `close()`), so no cache,
 * cookie or preflight answer survives between runs.
 */
import { existsSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

const ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export const launchChromium = async (): Promise<Browser> => {
  if (!existsSync(CHROMIUM)) {
    throw new Error(
      `${CHROMIUM} not found: install Debian's chromium package (apt-get install chromium)`,
    );
  }
  return chromium.launch({ executablePath: CHROMIUM, args: ARGS, timeout: 60_000 });
};
