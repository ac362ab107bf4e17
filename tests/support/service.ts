/** `npm start` for the suites that test over HTTP (end to end, plugins, browser). */
import { startService as start, type RunningService } from '../../scripts/local/service';

export { freshEnv, TSX, type RunningService } from '../../scripts/local/service';

export const startService = (
  name: string,
  env: Readonly<Record<string, string>> = {},
): Promise<RunningService> => start({ name: `test-${name}`, env });
