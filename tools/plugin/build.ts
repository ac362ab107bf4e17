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
import { parseArgs } from 'node:util';
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';
import { pluginConfig } from './reports';
import { argumentComplaint } from '../argument-error';

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

export const USAGE = 'usage: npm run build:plugin -- [--api-url <url>] [--out <dir>]';

/**
 * `help`, or the options (`--api-url` default http://localhost:3000, `--out` default
 * dist/plugins/reports). A bad command line throws a TypeError: what is wrong, on one line,
 * then the usage.
 */
export const parseArguments = (args: readonly string[]): BuildOptions | 'help' => {
  let values;
  try {
    ({ values } = parseArgs({
      args: [...args],
      options: {
        'api-url': { type: 'string', default: DEFAULT_API_URL },
        out: { type: 'string', default: DEFAULT_OUT_DIR },
        help: { type: 'boolean', short: 'h' },
      },
      strict: true,
      allowPositionals: false,
    }));
  } catch (error) {
    throw new TypeError(`${argumentComplaint(error)}\n${USAGE}`, { cause: error });
  }
  if (values.help) return 'help';
  const { 'api-url': apiUrl, out: outDir } = values;
  try {
    new URL(apiUrl);
  } catch {
    throw new TypeError(`--api-url: "${apiUrl}" is not a URL\n${USAGE}`);
  }
  if (outDir === '') throw new TypeError(`--out needs a value\n${USAGE}`);
  return { apiUrl, outDir };
};

/** The command line; resolves to its exit code (0 built or --help, 2 bad arguments). */
const main = async (): Promise<number> => {
  let options: BuildOptions | 'help';
  try {
    options = parseArguments(process.argv.slice(2));
  } catch (error) {
    console.error((error as Error).message);
    return 2;
  }
  if (options === 'help') {
    console.log(USAGE);
    return 0;
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
