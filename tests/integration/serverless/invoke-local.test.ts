/**
 * `serverless invoke local -f <function> -p events/<file>.json` on a clean environment: the
 * local-invoke plugin brings up the embedded database and the local issuer, fills the sample
 * event's placeholders, and the function answers 200 with rows.
 */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT, run, SERVERLESS } from '../../support/processes';

const workFolder = `.esbuild-test-invoke-${process.pid}`;
afterAll(() => {
  rmSync(join(ROOT, workFolder), { recursive: true, force: true });
});

const cleanEnv = {
  DATABASE_URL: '',
  JWKS_URL: '',
  JWT_ISSUER: '',
  ESBUILD_WORK_FOLDER: workFolder,
};

/** The JSON result osls prints after any log lines. */
const resultOf = (
  stdout: string,
): { statusCode: number; headers: Record<string, string>; body: unknown } =>
  JSON.parse(stdout.slice(stdout.indexOf('{\n'))) as {
    statusCode: number;
    headers: Record<string, string>;
    body: unknown;
  };

describe('serverless invoke local with the sample events', () => {
  it.each([
    ['ordersPerDay', 'orders-day'],
    ['dishes', 'dishes'],
    ['revenue', 'revenue'],
    ['ordersToday', 'orders-today'],
    ['dashboard', 'dashboard'],
  ])('%s answers events/%s.json with 200 and data, then exits', async (fn, event) => {
    const { code, stdout, stderr } = await run(
      [SERVERLESS, 'invoke', 'local', '-f', fn, '-p', `events/${event}.json`],
      cleanEnv,
      90_000,
    );

    expect({ code, stderr: stderr.includes('Error') ? stderr : '' }).toEqual({
      code: 0,
      stderr: '',
    });
    const result = resultOf(stdout);
    expect(result.statusCode).toBe(200);
    expect(result.headers['Access-Control-Allow-Origin']).toBe('*');
    const { data } = result.body as { data: unknown };
    // Reports answer rows; the dashboard answers one object of figures (spec 2.5).
    expect(Array.isArray(data) ? data.length > 0 : typeof data === 'object' && data !== null).toBe(
      true,
    );
  });
});
