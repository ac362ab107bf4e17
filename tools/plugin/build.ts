/**
 * npm run build:plugin -- [--api-url <url>] [--out <dir>]
 * Builds the reference reports plugin (tools/reports-plugin/) into minified ES modules in `<out>`
 * (default dist/plugins/reports): `index.js`, the bundle the portal loads, with the API URL and
 * the reports of the catalogue baked in, and one `<language>-<hash>.js` per language but English,
 * which index.js imports beside itself when an owner speaks it. `<out>/meta.json` gives the sizes
 * and the files; a rebuild removes the files the previous meta.json named and this build did not
 * write, and nothing else. `buildReportsPlugin` is the same build for scripts (npm start).
 */
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { basename, dirname, isAbsolute, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';
import { budgetProblems } from './budget';
import { pluginConfig } from './reports';
import { argumentComplaint } from '../argument-error';
import type { ReportSpec } from '../reports-plugin/src/reports';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
export const DEFAULT_API_URL = 'http://localhost:3000';
export const DEFAULT_OUT_DIR = 'dist/plugins/reports';
const ENTRY = resolve(ROOT, 'tools/reports-plugin/src/index.tsx');

export interface BuildOptions {
  readonly apiUrl: string;
  /** Relative to the repository, or absolute. */
  readonly outDir?: string;
  /** The reports baked in; by default the catalogue's. */
  readonly reports?: readonly ReportSpec[];
}

export interface BuiltFile {
  /** Absolute path. */
  readonly file: string;
  readonly bytes: number;
  readonly gzipBytes: number;
}

/** index.js, and the chunks it may import (one per language but English). */
export interface BuildResult extends BuiltFile {
  readonly chunks: readonly BuiltFile[];
}

const META = 'meta.json';

/** The files a previous build's meta.json names, by name; none when it has no such list. */
const previousFiles = async (outDir: string): Promise<string[]> => {
  try {
    const meta = JSON.parse(await readFile(resolve(outDir, META), 'utf8')) as { files?: unknown };
    return Array.isArray(meta.files)
      ? meta.files.filter(
          (name): name is string => typeof name === 'string' && name === basename(name),
        )
      : [];
  } catch {
    return [];
  }
};

const sized = (file: string, code: Uint8Array): BuiltFile => ({
  file,
  bytes: code.length,
  gzipBytes: gzipSync(code, { level: 9 }).length,
});

export const buildReportsPlugin = async (options: BuildOptions): Promise<BuildResult> => {
  const apiUrl = new URL(options.apiUrl).href.replace(/\/+$/, '');
  const outDir = resolve(ROOT, options.outDir ?? DEFAULT_OUT_DIR);
  const file = resolve(outDir, 'index.js');
  await mkdir(outDir, { recursive: true });
  const before = await previousFiles(outDir);
  const config = pluginConfig(apiUrl);
  const { outputFiles } = await build({
    entryPoints: { index: ENTRY },
    outdir: outDir,
    // Each import() (a language's messages) becomes a file of its own beside index.js.
    splitting: true,
    chunkNames: '[name]-[hash]',
    write: false,
    bundle: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    minify: true,
    legalComments: 'none',
    // Module scripts are always UTF-8: Arabic text costs 2 bytes a letter, not a 6-byte escape.
    charset: 'utf8',
    jsx: 'automatic',
    jsxImportSource: 'preact',
    tsconfig: resolve(ROOT, 'tools/tsconfig.browser.json'),
    define: {
      __REPORTS_PLUGIN_CONFIG__: JSON.stringify({
        ...config,
        reports: options.reports ?? config.reports,
      }),
    },
    logLevel: 'warning',
  });
  const written = outputFiles.map((output) => sized(output.path, output.contents));
  const entry = written.find((output) => output.file === file);
  if (!entry || written.some((output) => dirname(output.file) !== outDir)) {
    throw new Error(`esbuild wrote ${written.map((output) => output.file).join(', ')}`);
  }
  for (const output of outputFiles) await writeFile(output.path, output.contents);
  const names = written.map((output) => basename(output.file));
  for (const stale of before.filter((name) => !names.includes(name))) {
    await rm(resolve(outDir, stale), { force: true });
  }
  const chunks = written.filter((output) => output !== entry);
  await writeFile(
    resolve(outDir, META),
    `${JSON.stringify(
      {
        bytes: entry.bytes,
        gzipBytes: entry.gzipBytes,
        apiUrl,
        files: names,
        chunks: Object.fromEntries(chunks.map((chunk) => [basename(chunk.file), chunk.bytes])),
      },
      null,
      2,
    )}\n`,
  );
  return { ...entry, chunks };
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

/**
 * The command line; resolves to its exit code (0 built or --help, 1 built over the size budget,
 * 2 bad arguments).
 */
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
  const { file, bytes, gzipBytes, chunks } = await buildReportsPlugin(options);
  console.log(`${file}: ${bytes} bytes, ${gzipBytes} gzipped (API ${options.apiUrl})`);
  for (const chunk of chunks) console.log(`${chunk.file}: ${chunk.bytes} bytes`);
  const problems = budgetProblems({ file, bytes, gzipBytes, chunks });
  for (const problem of problems) console.error(`over the size budget: ${problem}`);
  console.log('Upload the whole folder: index.js imports the language files beside it.');
  return problems.length > 0 ? 1 : 0;
};

if (
  isAbsolute(process.argv[1] ?? '') &&
  resolve(process.argv[1] ?? '') === fileURLToPath(import.meta.url)
) {
  process.exitCode = await main();
}
