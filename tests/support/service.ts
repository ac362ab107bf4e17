/**
 * `npm start` for the suites that test over HTTP (end to end, plugins, browser), with the portal
 * preview on a free port of its own (PREVIEW_PORT; the ready document's `previewUrl`), so that
 * suites running side by side never meet on PORT + 1.
 */
import { freePort, startService as start, type RunningService } from '../../scripts/local/service';

export { freshEnv, TSX, type RunningService } from '../../scripts/local/service';

export const startService = async (
  name: string,
  env: Readonly<Record<string, string>> = {},
): Promise<RunningService> =>
  start({ name: `test-${name}`, env: { PREVIEW_PORT: String(await freePort()), ...env } });
