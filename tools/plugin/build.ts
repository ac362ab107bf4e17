/**
 * npm run build:plugin -- [--api-url <url>] [--out <dir>]
 * Builds the reference reports plugin (tools/reports-plugin/) into one minified ES module,
 * `<out>/index.js` (default dist/plugins/reports), with the API URL and the reports of the
 * catalogue baked in, and writes `<out>/meta.json` with its size. `buildReportsPlugin` is the
 * same build for scripts (npm start's preview).
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { isAbsolute, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';
import { pluginConfig } from './reports';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
export const DEFAULT_API_URL = 'http://localhost:3000';
export const DEFAULT_OUT_DIR = 'dist/plugins/reports';
const ENTRY = resolve(ROOT, 'tools/reports-plugin/src/index.tsx');

export interface BuildOptions {
  readonly apiUrl: string;
  /** Relative to the repository, or absolute. */
  readonly outDir?: string;
}

export interface BuildResult {
  /** Absolute path of index.js. */
  readonly file: string;
  readonly bytes: number;
  readonly gzipBytes: number;
}

export const buildReportsPlugin = async (options: BuildOptions): Promise<BuildResult> => {
  const apiUrl = new URL(options.apiUrl).href.replace(/\/+$/, '');
  const outDir = resolve(ROOT, options.outDir ?? DEFAULT_OUT_DIR);
  const file = resolve(outDir, 'index.js');
  await mkdir(outDir, { recursive: true });
  await build({
    entryPoints: [ENTRY],
    outfile: file,
    bundle: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2020',
    minify: true,
    legalComments: 'none',
    // Module scripts are always UTF-8: Arabic text costs 2 bytes a letter, not a 6-byte escape.
    charset: 'utf8',
    jsx: 'automatic',
    jsxImportSource: 'preact',
    tsconfig: resolve(ROOT, 'tools/tsconfig.browser.json'),
    define: { __REPORTS_PLUGIN_CONFIG__: JSON.stringify(pluginConfig(apiUrl)) },
    logLevel: 'warning',
  });
  const code = await readFile(file);
  const result = { file, bytes: code.length, gzipBytes: gzipSync(code, { level: 9 }).length };
  await writeFile(
    resolve(outDir, 'meta.json'),
    `${JSON.stringify({ bytes: result.bytes, gzipBytes: result.gzipBytes, apiUrl }, null, 2)}\n`,
  );
  return result;
};

const USAGE = 'usage: npm run build:plugin -- [--api-url <url>] [--out <dir>]';

export const parseArguments = (args: readonly string[]): BuildOptions => {
  let apiUrl = DEFAULT_API_URL;
  let outDir = DEFAULT_OUT_DIR;
  for (let index = 0; index < args.length; index += 2) {
    const [flag, value] = [args[index], args[index + 1]];
    if (value === undefined || value.startsWith('--')) throw new TypeError(USAGE);
    if (flag === '--api-url') apiUrl = value;
    else if (flag === '--out') outDir = value;
    else throw new TypeError(USAGE);
  }
  try {
    new URL(apiUrl);
  } catch {
    throw new TypeError(`--api-url: "${apiUrl}" is not a URL\n${USAGE}`);
  }
  return { apiUrl, outDir };
};

const main = async (): Promise<number> => {
  let options: BuildOptions;
  try {
    options = parseArguments(process.argv.slice(2));
  } catch (error) {
    console.error((error as Error).message);
    return 2;
  }
  const { file, bytes, gzipBytes } = await buildReportsPlugin(options);
  console.log(`${file}: ${bytes} bytes, ${gzipBytes} gzipped (API ${options.apiUrl})`);
  return 0;
};

if (
  isAbsolute(process.argv[1] ?? '') &&
  resolve(process.argv[1] ?? '') === fileURLToPath(import.meta.url)
) {
  process.exitCode = await main();
}
