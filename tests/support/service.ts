/**
 * `npm start` for the suites that test over HTTP (end to end, plugins, browser): every port,
 * the portal preview's included (the ready document's `previewUrl`), is a free one.
 */
import { startService as start, type RunningService } from '../../tools/local/service';

export { freshEnv, TSX, type RunningService } from '../../tools/local/service';

export const startService = async (
  name: string,
  env: Readonly<Record<string, string>> = {},
): Promise<RunningService> => start({ name: `test-${name}`, env });
