/**
 * The portal preview's server (docs/preview.md): a page on its own origin (another port than the
 * API, so every call the page and its plugins make is cross-origin, as in production), started by
 * `npm start`. It serves:
 *
 * - `GET /`: the page (tools/portal/index.html), with its settings (the API's URL, the sample owners,
 *   whether it can sign in) in a JSON script element;
 * - `GET /preview.js`: tools/portal/preview.ts, bundled with esbuild when the server starts;
 * - `GET /cdn/<region>/reports/<file>`: the emulated CDN, the files of `pluginDir` (the reference
 *   plugin as tools/plugin/build.ts writes it);
 * - `POST /sign-in` `{"sub":"owner-1","restaurant":"R-1002"}`: a token of that sample owner
 *   signed by the local issuer, only when `issuer` is given (the local issuer is in use);
 *   otherwise 404 and the page offers only the pasted-token field. `restaurant` (optional, one
 *   of the owner's) is listed first in the token's authSchema: without X-Platform-Id (which CORS
 *   does not let a browser send) the API takes the token's first platform as the active one
 *   (spec 5, point 5), so the page asks for such a token when the user switches restaurant.
 *   `locale` (optional, `ar_AE` or `ar-AE`) is the token's `user.locale`, the owner's language.
 *
 * It listens on the loopback addresses only (127.0.0.1 and, where there is one, ::1), and answers
 * only requests whose Host is a loopback name with its port (403 otherwise), so that a page
 * elsewhere that rebinds its own host name to 127.0.0.1 cannot read a signed token.
 */
import { readFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { join } from 'node:path';
import { build } from 'esbuild';
import { claimsFor, SAMPLE_OWNERS } from '../db/sample-data';
import type { LocalIssuer } from './issuer';
import { CURL_TOKEN_SECONDS } from './token-lifetime';
import type { PreviewSettings } from '../portal/settings';

const ROOT = join(import.meta.dirname, '../..');
const PAGE = join(ROOT, 'tools/portal/index.html');
const SCRIPT = join(ROOT, 'tools/portal/preview.ts');
/** The marker in tools/portal/index.html that the settings replace. */
const SETTINGS_MARKER = '<!-- preview-settings -->';
/** A sign-in body larger than this is refused (it only ever holds a `sub`). */
const MAX_SIGN_IN_BYTES = 1024;
const CDN_FILE = /^\/cdn\/[A-Za-z0-9][A-Za-z0-9._-]*\/reports\/([A-Za-z0-9][A-Za-z0-9._-]*)$/;

export interface PreviewOptions {
  /** The port to listen on (0: any free one). */
  readonly port: number;
  /** The API the page and the plugins call, `http://localhost:PORT`. */
  readonly apiUrl: string;
  /** The folder the emulated CDN serves (`<region>/reports/<file>` → `<pluginDir>/<file>`). */
  readonly pluginDir: string;
  /** The local issuer, when `npm start` uses it: enables `POST /sign-in`. */
  readonly issuer?: LocalIssuer | undefined;
  /** A sign-in token's lifetime: `npm start` gives that of its curl token (token-lifetime.ts). */
  readonly tokenSeconds?: number;
}

export interface PreviewServer {
  /** `http://localhost:<port>`, without a trailing slash. */
  readonly origin: string;
  readonly port: number;
  readonly close: () => Promise<void>;
}

/** tools/portal/preview.ts as one ES module for the browser. */
export const bundlePreviewScript = async (): Promise<string> => {
  const result = await build({
    entryPoints: [SCRIPT],
    bundle: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    write: false,
    minify: false,
    sourcemap: 'inline',
    logLevel: 'silent',
  });
  const [output] = result.outputFiles;
  if (!output) throw new Error('esbuild wrote no preview script');
  return output.text;
};

/** The settings as JSON that cannot end the script element it sits in. */
const settingsElement = (settings: PreviewSettings) =>
  `<script type="application/json" id="preview-settings">${JSON.stringify(settings).replace(
    /</g,
    '\\u003c',
  )}</script>`;

const send = (
  response: ServerResponse,
  status: number,
  type: string,
  body: string | Buffer,
  extra: Record<string, string> = {},
) => {
  response.writeHead(status, {
    'content-type': type,
    'cache-control': 'no-store',
    'x-content-type-options': 'nosniff',
    ...extra,
  });
  response.end(body);
};

const readBody = (request: IncomingMessage): Promise<string | undefined> =>
  new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    request.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= MAX_SIGN_IN_BYTES) chunks.push(chunk);
    });
    request.on('end', () => {
      resolve(size > MAX_SIGN_IN_BYTES ? undefined : Buffer.concat(chunks).toString('utf8'));
    });
    request.on('error', reject);
  });

/** A locale as tokens carry it: `en_US`, `ar-AE`, `de`. */
const LOCALE = /^[A-Za-z]{2,3}(?:[_-][A-Za-z0-9]{2,8}){0,3}$/;

interface SignInRequest {
  readonly sub: string;
  readonly restaurant?: string;
  readonly locale?: string;
}

/** The `sub`, optional `restaurant` and `locale` of a sign-in body; undefined when it is not that. */
const signInRequest = (text: string): SignInRequest | undefined => {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof value !== 'object' || value === null || !('sub' in value)) return undefined;
  const { sub } = value;
  const restaurant = 'restaurant' in value ? value.restaurant : undefined;
  const locale = 'locale' in value ? value.locale : undefined;
  if (typeof sub !== 'string') return undefined;
  if (restaurant !== undefined && typeof restaurant !== 'string') return undefined;
  if (locale !== undefined && (typeof locale !== 'string' || !LOCALE.test(locale))) {
    return undefined;
  }
  return {
    sub,
    ...(restaurant === undefined ? {} : { restaurant }),
    ...(locale === undefined ? {} : { locale }),
  };
};

const listen = (server: Server, port: number, host: string) =>
  new Promise<number>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      const address = server.address();
      resolve(typeof address === 'object' && address ? address.port : port);
    });
  });

const closeServer = (server: Server) =>
  new Promise<void>((resolve) => {
    server.closeAllConnections();
    server.close(() => {
      resolve();
    });
  });

export const startPreview = async (options: PreviewOptions): Promise<PreviewServer> => {
  const settings: PreviewSettings = {
    apiUrl: options.apiUrl,
    signIn: options.issuer !== undefined,
    owners: SAMPLE_OWNERS.map(({ sub, name, restaurants }) => ({
      sub,
      name,
      restaurants: restaurants.map(({ id, name: restaurantName }) => ({
        id,
        name: restaurantName,
      })),
    })),
  };
  const [template, script] = await Promise.all([readFile(PAGE, 'utf8'), bundlePreviewScript()]);
  if (!template.includes(SETTINGS_MARKER)) throw new Error(`${PAGE} has no ${SETTINGS_MARKER}`);
  const page = template.replace(SETTINGS_MARKER, settingsElement(settings));

  const signIn = async (request: IncomingMessage, response: ServerResponse) => {
    const { issuer } = options;
    if (!issuer) {
      send(response, 404, 'text/plain; charset=utf-8', 'no local issuer: paste a token\n');
      return;
    }
    const asked = signInRequest((await readBody(request)) ?? '');
    const owner = SAMPLE_OWNERS.find((candidate) => candidate.sub === asked?.sub);
    const active = owner?.restaurants.find(({ id }) => id === (asked?.restaurant ?? id));
    if (!owner || !active) {
      send(response, 400, 'text/plain; charset=utf-8', 'unknown sample owner or restaurant\n');
      return;
    }
    const restaurants = [active, ...owner.restaurants.filter((other) => other !== active)];
    const claims = claimsFor({ ...owner, restaurants });
    if (asked?.locale !== undefined) {
      claims.user = { ...(claims.user as Record<string, unknown>), locale: asked.locale };
    }
    const expiresIn = `${options.tokenSeconds ?? CURL_TOKEN_SECONDS}s`;
    const token = await issuer.sign(claims, { expiresIn });
    send(response, 200, 'application/json; charset=utf-8', JSON.stringify({ token }));
  };

  const cdn = async (file: string, response: ServerResponse) => {
    let body: Buffer;
    try {
      body = await readFile(join(options.pluginDir, file));
    } catch {
      send(response, 404, 'text/plain; charset=utf-8', 'not on the preview CDN\n');
      return;
    }
    const type = file.endsWith('.js') ? 'text/javascript; charset=utf-8' : 'application/json';
    // A CDN answers any origin; the page loads the bundle from its own origin anyway.
    send(response, 200, type, body, { 'access-control-allow-origin': '*' });
  };

  const handle = async (request: IncomingMessage, response: ServerResponse) => {
    const path = (request.url ?? '/').split('?')[0] ?? '/';
    if (request.method === 'GET' && path === '/') {
      send(response, 200, 'text/html; charset=utf-8', page);
    } else if (request.method === 'GET' && path === '/preview.js') {
      send(response, 200, 'text/javascript; charset=utf-8', script);
    } else if (request.method === 'GET' && path === '/favicon.ico') {
      response.writeHead(204).end();
    } else if (request.method === 'POST' && path === '/sign-in') {
      await signIn(request, response);
    } else {
      const file = request.method === 'GET' ? CDN_FILE.exec(path)?.[1] : undefined;
      if (file === undefined) send(response, 404, 'text/plain; charset=utf-8', 'not found\n');
      else await cdn(file, response);
    }
  };

  const listener = (request: IncomingMessage, response: ServerResponse) => {
    if (!hosts.has((request.headers.host ?? '').toLowerCase())) {
      send(response, 403, 'text/plain; charset=utf-8', 'unknown Host\n');
      return;
    }
    handle(request, response).catch((error: unknown) => {
      if (!response.headersSent) {
        send(response, 500, 'text/plain; charset=utf-8', `${String(error)}\n`);
      } else response.destroy();
    });
  };

  /** The Host headers answered, once the port is known. */
  const hosts = new Set<string>();
  const servers: Server[] = [createServer(listener)];
  const port = await listen(servers[0] as Server, options.port, '127.0.0.1');
  for (const name of ['localhost', '127.0.0.1', '[::1]']) hosts.add(`${name}:${port}`);
  // localhost may resolve to ::1 first: answer there too, where the machine has IPv6.
  const ipv6 = createServer(listener);
  try {
    await listen(ipv6, port, '::1');
    servers.push(ipv6);
  } catch {
    // no IPv6 loopback (or ::1:port taken by someone else): 127.0.0.1 only
  }
  for (const server of servers) server.keepAliveTimeout = 1000;
  return {
    origin: `http://localhost:${port}`,
    port,
    close: async () => {
      await Promise.all(servers.map(closeServer));
    },
  };
};
