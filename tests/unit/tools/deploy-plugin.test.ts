import { jest } from '@jest/globals';
import {
  bundleUrlFor,
  maskSecret,
  parseDeployArguments,
  readDeployEnvironment,
  runDeploy,
  UsageError,
  USAGE,
  type DeployIo,
} from '../../../tools/plugin/deploy';

const KEY = 'sekret-key/with+chars';
const ENV = {
  PLUGIN_UPDATE_URL: 'https://registry.example.com/v1/plugins/reports',
  PLUGIN_API_KEY: KEY,
  PLUGIN_CDN_URL: 'https://cdn.example.com/',
};
const ARGS = ['--file', 'dist/main.3f9a.js', '--region', 'eu'];

type Fetch = typeof fetch;

const testIo = (answer: Fetch = () => Promise.resolve(new Response('{"data":{}}'))) => {
  const output = { stdout: '', stderr: '' };
  const fetchSpy = jest.fn<Fetch>(answer);
  const io: DeployIo = {
    stdout: (text) => {
      output.stdout += text;
    },
    stderr: (text) => {
      output.stderr += text;
    },
    fetch: fetchSpy,
    isFile: (path) => path === '/work/app/dist/main.3f9a.js',
    cwd: '/work/app',
    timeoutMs: 30_000,
  };
  return { io, output, fetchSpy };
};

describe('parseDeployArguments', () => {
  it('reads --file, --region and --portal-version (v1 by default)', () => {
    const parsed = { file: 'dist/main.3f9a.js', region: 'eu', portalVersion: 'v1' };
    expect(parseDeployArguments(ARGS)).toEqual(parsed);
    const v2 = parseDeployArguments([...ARGS, '--portal-version', 'v2']);
    expect(v2).toEqual({ ...parsed, portalVersion: 'v2' });
    expect(parseDeployArguments(['--file=a.js', '--region=eu-west-1'])).toEqual({
      file: 'a.js',
      region: 'eu-west-1',
      portalVersion: 'v1',
    });
  });

  it('answers --help', () => {
    expect(parseDeployArguments(['--help'])).toBe('help');
  });

  it.each([
    ['an unknown flag', [...ARGS, '--force'], "Unknown option '--force'"],
    ['a positional argument', [...ARGS, 'extra'], 'Unexpected argument'],
    ['no --file', ['--region', 'eu'], '--file is required'],
    ['no --region', ['--file', 'a.js'], '--region is required'],
    ['a region with a slash', ['--file', 'a.js', '--region', 'eu/west'], '--region is required'],
    ['portal version v3', [...ARGS, '--portal-version', 'v3'], '--portal-version must be v1 or v2'],
    ['a flag twice', [...ARGS, '--region', 'apac'], '--region must be given once'],
    ['a flag without its value', ['--file'], "Option '--file <value>' argument missing"],
  ])('refuses %s with a usage error', (_name, args, message) => {
    // Act
    const parse = () => parseDeployArguments(args);

    // Assess
    expect(parse).toThrow(UsageError);
    expect(parse).toThrow(message);
  });
});

describe('readDeployEnvironment', () => {
  it('reads the three variables', () => {
    expect(readDeployEnvironment(ENV)).toEqual({
      updateUrl: 'https://registry.example.com/v1/plugins/reports',
      apiKey: KEY,
      cdnUrl: 'https://cdn.example.com/',
    });
  });

  const HTTPS_ONLY =
    'PLUGIN_UPDATE_URL must be an https URL (http only for localhost), without credentials';

  it.each([
    [{ PLUGIN_UPDATE_URL: undefined }, 'missing environment variable PLUGIN_UPDATE_URL'],
    [{ PLUGIN_API_KEY: '' }, 'missing environment variable PLUGIN_API_KEY'],
    [{ PLUGIN_CDN_URL: ' ' }, 'missing environment variable PLUGIN_CDN_URL'],
    [
      { PLUGIN_UPDATE_URL: '', PLUGIN_CDN_URL: undefined },
      'missing environment variable PLUGIN_UPDATE_URL, PLUGIN_CDN_URL',
    ],
    [{ PLUGIN_UPDATE_URL: 'http://registry.example.com/v1/plugins/reports' }, HTTPS_ONLY],
    [{ PLUGIN_UPDATE_URL: 'registry.example.com' }, HTTPS_ONLY],
    [{ PLUGIN_UPDATE_URL: 'https://u:p@registry.example.com/' }, HTTPS_ONLY],
    [
      { PLUGIN_CDN_URL: 'cdn.example.com' },
      'PLUGIN_CDN_URL must be an http(s) URL, without credentials',
    ],
    [
      { PLUGIN_CDN_URL: 'https://cdn.example.com/?v=1' },
      'PLUGIN_CDN_URL must have no query or fragment',
    ],
  ])('refuses %p: %s', (change, message) => {
    // Act / Assess
    expect(() => readDeployEnvironment({ ...ENV, ...change })).toThrow(new UsageError(message));
  });

  it('allows plain http to localhost only', () => {
    // Act
    const env = readDeployEnvironment({
      ...ENV,
      PLUGIN_UPDATE_URL: 'http://localhost:3000/v1/plugins/reports',
    });

    // Assess
    expect(env.updateUrl).toBe('http://localhost:3000/v1/plugins/reports');
  });
});

describe('bundleUrlFor: <cdn_url>/<region>/reports/<filename> (spec 4.6)', () => {
  const CDN = 'https://cdn.example.com';

  it.each([
    [CDN, 'eu', 'dist/main.js', '/eu/reports/main.js'],
    [`${CDN}/`, 'eu', '/abs/main.js', '/eu/reports/main.js'],
    [`${CDN}/static//`, 'apac', 'main.js', '/static/apac/reports/main.js'],
    [CDN, 'eu', 'my bundle#1.js', '/eu/reports/my%20bundle%231.js'],
  ])('%s + %s + %s → https://cdn.example.com%s', (cdn, region, file, path) => {
    // Act / Assess
    expect(bundleUrlFor(cdn, region, file)).toBe(`${CDN}${path}`);
  });
});

describe('maskSecret', () => {
  it('masks the key as sent, URL-encoded and JSON-escaped', () => {
    // Prepare
    const echoed = `key ${KEY}, ${encodeURIComponent(KEY)}, ${JSON.stringify({ KEY: 'a"b' + KEY })}`;

    // Act / Assess
    expect(maskSecret(echoed, KEY)).toBe('key ***, ***, {"KEY":"a\\"b***"}');
  });

  it('leaves text alone when there is no key', () => {
    expect(maskSecret('nothing to hide', '')).toBe('nothing to hide');
  });
});

describe('runDeploy', () => {
  it('sends one PUT with the JSON body and the key, prints the answer, exits 0', async () => {
    // Prepare
    const answer = '{"data":{"code":"reports","portalVersion":"v2","bundleUrl":"x"}}';
    const { io, output, fetchSpy } = testIo(() => Promise.resolve(new Response(answer)));

    // Act / Assess
    expect(await runDeploy([...ARGS, '--portal-version', 'v2'], ENV, io)).toBe(0);
    expect(fetchSpy).toHaveBeenCalledTimes(1);
    const [url, init] = fetchSpy.mock.calls[0]!;
    expect({ ...init, signal: undefined }).toEqual({
      method: 'PUT',
      headers: { 'Content-Type': 'application/json', 'x-api-key': KEY },
      body: JSON.stringify({
        bundleUrl: 'https://cdn.example.com/eu/reports/main.3f9a.js',
        portalVersion: 'v2',
      }),
      redirect: 'manual',
      signal: undefined,
    });
    expect(url).toBe(ENV.PLUGIN_UPDATE_URL);
    expect(init?.signal).toBeInstanceOf(AbortSignal);
    expect(output).toEqual({
      stdout: `${answer}\n`,
      stderr:
        'deploy:plugin: https://cdn.example.com/eu/reports/main.3f9a.js (portal v2)\n' +
        `PUT ${ENV.PLUGIN_UPDATE_URL} -> HTTP 200\n`,
    });
  });

  it('resolves --file against the directory npm was run from (INIT_CWD)', async () => {
    // Prepare
    const { io, fetchSpy } = testIo();
    const env = { ...ENV, INIT_CWD: '/work/app/dist' };

    // Act / Assess
    expect(await runDeploy(['--file', 'main.3f9a.js', '--region', 'eu'], env, io)).toBe(0);
    expect(fetchSpy).toHaveBeenCalledTimes(1);
  });

  it('exits 1 on a non-success answer, showing the status and the body with the key masked', async () => {
    // Prepare
    const body = `{"state":"ERROR","code":"TOKEN_INVALID","message":"bad key ${KEY}"}`;
    const { io, output } = testIo(() =>
      Promise.resolve(new Response(body, { status: 401, statusText: 'Unauthorized' })),
    );

    // Act
    const code = await runDeploy(ARGS, ENV, io);

    // Assess
    expect(code).toBe(1);
    expect(output).toEqual({
      stdout: '',
      stderr:
        `deploy:plugin: PUT ${ENV.PLUGIN_UPDATE_URL} -> HTTP 401 Unauthorized\n` +
        '{"state":"ERROR","code":"TOKEN_INVALID","message":"bad key ***"}\n',
    });
  });

  it('does not follow a redirect: a 3xx is a failure', async () => {
    // Prepare
    const redirect = new Response('', { status: 307, headers: { Location: 'https://elsewhere' } });
    const { io, output } = testIo(() => Promise.resolve(redirect));

    // Act / Assess
    expect(await runDeploy(ARGS, ENV, io)).toBe(1);
    expect(output.stderr).toBe(`deploy:plugin: PUT ${ENV.PLUGIN_UPDATE_URL} -> HTTP 307\n\n`);
  });

  it('exits 1 naming the cause when the registry cannot be reached', async () => {
    // Prepare
    const { io, output } = testIo(() =>
      Promise.reject(
        new TypeError('fetch failed', {
          cause: Object.assign(new Error(KEY), { code: 'ECONNREFUSED' }),
        }),
      ),
    );

    // Act / Assess
    expect(await runDeploy(ARGS, ENV, io)).toBe(1);
    expect(output.stderr).toBe(
      `deploy:plugin: PUT ${ENV.PLUGIN_UPDATE_URL} failed: fetch failed (ECONNREFUSED)\n`,
    );
  });

  it('gives up after the timeout', async () => {
    // Prepare
    const { io, output } = testIo(
      (_url, init) =>
        new Promise((_resolve, reject) => {
          init?.signal?.addEventListener('abort', () => {
            reject(init.signal?.reason as Error);
          });
        }),
    );

    // Act / Assess
    expect(await runDeploy(ARGS, ENV, { ...io, timeoutMs: 20 })).toBe(1);
    expect(output.stderr).toBe(
      `deploy:plugin: PUT ${ENV.PLUGIN_UPDATE_URL} failed: no answer within 0.02 s\n`,
    );
  });

  it.each([
    [
      'a missing variable',
      ARGS,
      { ...ENV, PLUGIN_API_KEY: undefined },
      'missing environment variable PLUGIN_API_KEY',
    ],
    [
      'a missing file',
      ['--file', 'nope.js', '--region', 'eu'],
      ENV,
      '--file nope.js: no such file',
    ],
    ['a bad flag', ['--file'], ENV, "Option '--file <value>' argument missing"],
  ])('exits 2 with the usage on %s, sending nothing', async (_name, args, env, message) => {
    // Prepare
    const { io, output, fetchSpy } = testIo();

    // Act / Assess
    expect(await runDeploy(args, env, io)).toBe(2);
    expect(fetchSpy).not.toHaveBeenCalled();
    expect(output).toEqual({ stdout: '', stderr: `deploy:plugin: ${message}\n${USAGE}\n` });
  });

  it('prints the usage for --help and exits 0', async () => {
    // Prepare
    const { io, output } = testIo();

    // Act / Assess
    expect(await runDeploy(['--help'], {}, io)).toBe(0);
    expect(output).toEqual({ stdout: `${USAGE}\n`, stderr: '' });
  });

  it('never prints the key, whatever the registry answers', async () => {
    // Prepare
    const { io, output } = testIo(() =>
      Promise.resolve(new Response(`echo: ${KEY} ${encodeURIComponent(KEY)}`, { status: 500 })),
    );

    // Act
    await runDeploy(ARGS, ENV, io);

    // Assess
    expect(`${output.stdout}${output.stderr}`).not.toContain(KEY);
    expect(`${output.stdout}${output.stderr}`).not.toContain(encodeURIComponent(KEY));
  });
});
