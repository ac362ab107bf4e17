/**
 * The plugin deployment call of spec 4.6, as `npm run deploy:plugin` makes it: the arguments,
 * the environment, the bundle URL `<cdn_url>/<region>/reports/<filename>`, and one PUT with
 * `Content-Type: application/json` and `x-api-key`. The key is never printed: every line that
 * leaves this module goes through `maskSecret` first.
 */
import { statSync } from 'node:fs';
import { basename, resolve } from 'node:path';
import { parseArgs } from 'node:util';

export const USAGE =
  'usage: npm run deploy:plugin -- --file <bundle> --region <region> [--portal-version v1|v2]\n' +
  'environment: PLUGIN_UPDATE_URL (the {update_url}), PLUGIN_API_KEY, PLUGIN_CDN_URL';

export const REQUEST_TIMEOUT_MS = 30_000;
export const ENVIRONMENT = ['PLUGIN_UPDATE_URL', 'PLUGIN_API_KEY', 'PLUGIN_CDN_URL'] as const;
const PORTAL_VERSIONS = ['v1', 'v2'];
const LOCAL_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);
const MASK = '***';

/** A refusal before anything is sent: printed with the usage, exit code 2. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

export interface DeployArguments {
  readonly file: string;
  readonly region: string;
  readonly portalVersion: string;
}

export interface DeployEnvironment {
  readonly updateUrl: string;
  readonly apiKey: string;
  readonly cdnUrl: string;
}

export interface DeployIo {
  readonly stdout: (text: string) => void;
  readonly stderr: (text: string) => void;
  readonly fetch: typeof fetch;
  readonly isFile: (path: string) => boolean;
  readonly cwd: string;
  readonly timeoutMs: number;
}

export const nodeIo = (): DeployIo => ({
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
  fetch: (input, init) => fetch(input, init),
  isFile: (path) => statSync(path, { throwIfNoEntry: false })?.isFile() ?? false,
  cwd: process.cwd(),
  timeoutMs: REQUEST_TIMEOUT_MS,
});

/** `--help`, or the checked arguments. */
export const parseDeployArguments = (args: readonly string[]): DeployArguments | 'help' => {
  let parsed;
  try {
    parsed = parseArgs({
      args: [...args],
      options: {
        file: { type: 'string' },
        region: { type: 'string' },
        'portal-version': { type: 'string' },
        help: { type: 'boolean' },
      },
      strict: true,
      allowPositionals: false,
      tokens: true,
    });
  } catch (error) {
    throw new UsageError(textOf(error, 'message') || 'invalid arguments');
  }
  const { values, tokens } = parsed;
  if (values.help) return 'help';
  const names = tokens.flatMap((token) => (token.kind === 'option' ? [token.name] : []));
  const repeated = names.find((name, i) => names.indexOf(name) !== i);
  if (repeated !== undefined) throw new UsageError(`--${repeated} must be given once`);
  const { file = '', region = '', 'portal-version': portalVersion = 'v1' } = values;
  if (file.trim() === '') throw new UsageError('--file is required');
  if (!/^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(region)) {
    throw new UsageError('--region is required: letters, digits, ".", "_" or "-", such as eu');
  }
  if (!PORTAL_VERSIONS.includes(portalVersion)) {
    throw new UsageError('--portal-version must be v1 or v2');
  }
  return { file, region, portalVersion };
};

const parseUrl = (value: string): URL | undefined => {
  try {
    return new URL(value);
  } catch {
    return undefined;
  }
};

const httpUrl = (name: string, value: string, { secure }: { secure: boolean }): URL => {
  const url = parseUrl(value);
  const scheme = url?.protocol;
  const allowed =
    scheme === 'https:' ||
    (scheme === 'http:' && (!secure || LOCAL_HOSTS.has(url?.hostname ?? '')));
  if (url === undefined || !allowed || url.username !== '' || url.password !== '') {
    throw new UsageError(
      secure
        ? `${name} must be an https URL (http only for localhost), without credentials`
        : `${name} must be an http(s) URL, without credentials`,
    );
  }
  return url;
};

/** The three variables; a missing or empty one is named. The key is never echoed. */
export const readDeployEnvironment = (
  env: Readonly<Record<string, string | undefined>>,
): DeployEnvironment => {
  const missing = ENVIRONMENT.filter((name) => (env[name] ?? '').trim() === '');
  if (missing.length > 0) {
    throw new UsageError(`missing environment variable ${missing.join(', ')}`);
  }
  const [updateUrl = '', apiKey = '', cdnUrl = ''] = ENVIRONMENT.map((name) => env[name] ?? '');
  // The key travels in a header: never over plain http to another machine.
  httpUrl('PLUGIN_UPDATE_URL', updateUrl.trim(), { secure: true });
  const cdn = httpUrl('PLUGIN_CDN_URL', cdnUrl.trim(), { secure: false });
  if (cdn.search !== '' || cdn.hash !== '' || /[?#]/.test(cdnUrl)) {
    throw new UsageError('PLUGIN_CDN_URL must have no query or fragment');
  }
  return { updateUrl: updateUrl.trim(), apiKey, cdnUrl: cdnUrl.trim() };
};

/** `<cdn_url>/<region>/reports/<filename>` (spec 4.6), without doubled slashes. */
export const bundleUrlFor = (cdnUrl: string, region: string, file: string): string =>
  [cdnUrl.replace(/\/+$/, ''), region, 'reports', basename(file)]
    .map((part, i) => (i === 0 ? part : encodeURIComponent(part)))
    .join('/');

/** The text with every spelling of the secret a server might echo replaced by `***`. */
export const maskSecret = (text: string, secret: string): string => {
  if (secret === '') return text;
  const spellings = [secret, encodeURIComponent(secret), JSON.stringify(secret).slice(1, -1)];
  return [...new Set(spellings)]
    .sort((a, b) => b.length - a.length)
    .reduce((masked, spelling) => masked.split(spelling).join(MASK), text);
};

/** A property of a thrown value as text (errors may come from another realm: no instanceof). */
const textOf = (error: unknown, key: 'name' | 'message' | 'code'): string => {
  if (typeof error !== 'object' || error === null || !(key in error)) return '';
  const value = (error as Record<string, unknown>)[key];
  return typeof value === 'string' ? value : '';
};

const describeFailure = (error: unknown, timeoutMs: number): string => {
  if (['TimeoutError', 'AbortError'].includes(textOf(error, 'name'))) {
    return `no answer within ${timeoutMs / 1000} s`;
  }
  const message = textOf(error, 'message') || 'request failed';
  const cause =
    typeof error === 'object' && error !== null && 'cause' in error ? error.cause : undefined;
  const code = textOf(cause, 'code');
  return code === '' ? message : `${message} (${code})`;
};

/** The whole command; resolves to its exit code (0 deployed, 1 refused or failed, 2 usage). */
export const runDeploy = async (
  args: readonly string[],
  env: Readonly<Record<string, string | undefined>>,
  io: DeployIo,
): Promise<number> => {
  const secret = env.PLUGIN_API_KEY ?? '';
  const out = (text: string) => {
    io.stdout(maskSecret(text, secret));
  };
  const err = (text: string) => {
    io.stderr(maskSecret(text, secret));
  };
  let request: { url: string; apiKey: string; body: { bundleUrl: string; portalVersion: string } };
  try {
    const parsed = parseDeployArguments(args);
    if (parsed === 'help') {
      out(`${USAGE}\n`);
      return 0;
    }
    const { updateUrl, apiKey, cdnUrl } = readDeployEnvironment(env);
    const path = resolve(env.INIT_CWD ?? io.cwd, parsed.file);
    if (!io.isFile(path)) throw new UsageError(`--file ${parsed.file}: no such file`);
    const bundleUrl = bundleUrlFor(cdnUrl, parsed.region, path);
    request = { url: updateUrl, apiKey, body: { bundleUrl, portalVersion: parsed.portalVersion } };
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    err(`deploy:plugin: ${error.message}\n${USAGE}\n`);
    return 2;
  }

  let status: number;
  let statusText: string;
  let body: string;
  try {
    const response = await io.fetch(request.url, {
      method: 'PUT',
      headers: { 'Content-Type': 'application/json', 'x-api-key': request.apiKey },
      body: JSON.stringify(request.body),
      // A redirect would carry the key elsewhere: it is reported, never followed.
      redirect: 'manual',
      signal: AbortSignal.timeout(io.timeoutMs),
    });
    ({ status, statusText } = response);
    body = await response.text();
  } catch (error) {
    err(`deploy:plugin: PUT ${request.url} failed: ${describeFailure(error, io.timeoutMs)}\n`);
    return 1;
  }
  const line = `PUT ${request.url} -> HTTP ${status}${statusText ? ` ${statusText}` : ''}`;
  if (status < 200 || status > 299) {
    err(`deploy:plugin: ${line}\n${body}\n`);
    return 1;
  }
  err(`deploy:plugin: ${request.body.bundleUrl} (portal ${request.body.portalVersion})\n${line}\n`);
  out(`${body}\n`);
  return 0;
};
