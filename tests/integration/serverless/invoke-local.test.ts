/**
 * `serverless invoke local -f <function> -p events/<file>.json` on a clean environment, for
 * every report and service of the catalogue with the sample event of events/ that calls one of
 * its paths: the local-invoke plugin brings up the embedded database and the local issuer,
 * fills the sample event's placeholders, and the function answers 200 with data.
 */
import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { catalogue } from '../../../tools/catalogue';
import { EVENTS_DIR } from '../../support/events';
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

/** The sample events of events/: each file's name, method and route template. */
const SAMPLE_EVENTS = readdirSync(EVENTS_DIR)
  .filter((file) => file.endsWith('.json'))
  .sort()
  .map((file) => {
    const event = JSON.parse(readFileSync(join(EVENTS_DIR, file), 'utf8')) as {
      httpMethod?: string;
      resource?: string;
    };
    return {
      name: file.replace(/\.json$/, ''),
      method: event.httpMethod,
      resource: event.resource,
    };
  });

/**
 * Every report and service of the catalogue (they answer `{ "data": … }`), with the first
 * sample event that calls it by its method on one of its paths.
 */
const INVOCATIONS = catalogue
  .filter((endpoint) => endpoint.answers.kind !== 'custom')
  .map((endpoint): [fn: string, event: string] => [
    endpoint.function,
    SAMPLE_EVENTS.find(
      ({ method, resource }) =>
        method === endpoint.method && resource !== undefined && endpoint.paths.includes(resource),
    )?.name ?? `no sample event calls ${endpoint.id}`,
  ]);

describe('serverless invoke local with the sample events', () => {
  it('has a sample event for every report and service of the catalogue', () => {
    expect(INVOCATIONS.filter(([, event]) => event.startsWith('no sample event'))).toEqual([]);
    expect(INVOCATIONS.length).toBeGreaterThanOrEqual(5);
  });

  it.each(INVOCATIONS)(
    '%s answers events/%s.json with 200 and data, then exits',
    async (fn, event) => {
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
      expect(
        Array.isArray(data) ? data.length > 0 : typeof data === 'object' && data !== null,
      ).toBe(true);
    },
    // Building, starting the local stack and invoking takes 17-29 s on a busy 2-core machine.
    120_000,
  );

  it("answers an empty event -d '{}' with nothing once initialised, and no warning", async () => {
    const { code, stdout, stderr } = await run(
      [SERVERLESS, 'invoke', 'local', '-f', 'ordersPerDay', '-d', '{}'],
      // The tests' own LOG_LEVEL (error) would hide the info lines looked for here.
      { ...cleanEnv, LOG_LEVEL: 'info' },
      90_000,
    );

    const lines = stdout
      .split('\n')
      .filter((line) => line.startsWith('{"level"'))
      .map((line) => JSON.parse(line) as { level: string; message: string; kind?: string });
    expect({ code, stderr: stderr.includes('Error') ? stderr : '' }).toEqual({
      code: 0,
      stderr: '',
    });
    // The key set and the database were ready before the answer: nothing failed afterwards as
    // the local stack stopped.
    expect(lines.map(({ level, message, kind }) => ({ level, message, kind }))).toEqual([
      { level: 'info', message: 'key set loaded', kind: undefined },
      { level: 'info', message: 'non-HTTP event ignored', kind: 'empty' },
    ]);
  }, 120_000);
});
