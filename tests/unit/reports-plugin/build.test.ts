import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { gzipSync } from 'node:zlib';
import { buildReportsPlugin, parseArguments, USAGE } from '../../../tools/plugin/build';
import { currencyPath, pluginReports, probeRange } from '../../../tools/plugin/reports';
import { catalogue } from '../../../tools/catalogue';
import { MAX_RANGE_DAYS, parseDayRange } from '../../../shared/reports/parameters';
import { MAX_RANGE_MONTHS, parseMonthRange } from '../../../shared/reports/revenue';
import { run } from '../../support/processes';
import MESSAGES_EN from '../../../tools/reports-plugin/messages/en.json' with { type: 'json' };
import { LANGUAGES, type ReportSpec } from '../../../tools/reports-plugin/src/reports';
import { BUDGET, budgetProblems, ownerLoads } from '../../../tools/plugin/budget';

const TSX = createRequire(import.meta.url).resolve('tsx/cli');

/** A report as `npm run new:report -- orders-by-state` scaffolds it (tools/new-report/). */
const SCAFFOLDED: ReportSpec = {
  id: 'orders-by-state',
  title: 'Orders by state',
  path: '/v1/restaurants/{id}/reports/orders-by-state',
  properties: [
    { key: 'state', name: 'State', type: 'string' },
    { key: 'orderCount', name: 'Orders', type: 'integer' },
    { key: 'revenue', name: 'Sales', type: 'number', unit: 'CURRENCY' },
  ],
  range: { granularity: 'day', max: MAX_RANGE_DAYS },
  compare: false,
};

describe('the reports the plugin offers, read from the catalogue', () => {
  it('are every report of the catalogue, with its /v1 path, properties, limit and compare', () => {
    const reports = pluginReports();
    const ids = catalogue.flatMap((e) =>
      e.answers.kind === 'report' ? [e.answers.report.id] : [],
    );

    expect(reports.map((report) => report.id)).toEqual(ids);
    // The reference reports; a report added with npm run new:report is read the same way.
    expect(
      Object.fromEntries(
        reports.map(({ id, path, range, compare }) => [id, { path, range, compare }]),
      ),
    ).toMatchObject({
      'orders-per-day': {
        path: '/v1/restaurants/{id}/reports/orders/day',
        range: { granularity: 'day', max: MAX_RANGE_DAYS },
        compare: true,
      },
      dishes: {
        path: '/v1/restaurants/{id}/reports/dishes',
        range: { granularity: 'day', max: MAX_RANGE_DAYS },
        compare: false,
      },
      revenue: {
        path: '/v1/restaurants/{id}/reports/revenue',
        range: { granularity: 'month', max: MAX_RANGE_MONTHS },
        compare: false,
      },
      'orders-today': { path: '/v1/restaurants/{id}/orders/today', range: null, compare: false },
    });
    const revenue = reports.find((report) => report.id === 'revenue');
    expect(revenue?.title).toBe('Revenue per month');
    expect(revenue?.properties).toEqual([
      {
        key: 'month',
        name: 'Month',
        type: 'string',
        unit: 'DATE_MONTH',
      },
      {
        key: 'year',
        name: 'Year',
        type: 'string',
        unit: 'DATE_YEAR',
      },
      {
        key: 'orderCount',
        name: 'Orders',
        type: 'integer',
      },
      {
        key: 'revenue',
        name: 'Sales',
        type: 'number',
        unit: 'CURRENCY',
      },
    ]);
  });

  it('finds a limit by asking the validation the API runs', () => {
    expect(probeRange((read) => parseDayRange(read, { compare: true }))).toEqual({
      granularity: 'day',
      max: 31,
    });
    expect(probeRange(parseMonthRange)).toEqual({ granularity: 'month', max: 12 });
    expect(probeRange(() => ({}))).toEqual({ granularity: 'day', max: null });
  });

  it('takes the restaurant currency from the dashboard', () => {
    expect(currencyPath()).toBe('/v1/restaurants/{id}/dashboard');
  });
});

describe('npm run build:plugin', () => {
  let out = '';
  beforeAll(async () => {
    out = await mkdtemp(join(tmpdir(), 'reports-plugin-'));
  });
  afterAll(async () => {
    await rm(out, { recursive: true, force: true });
  });

  it('builds index.js, its default export mount, the API URL baked in, and one file per language but English', async () => {
    // Act
    const result = await buildReportsPlugin({ apiUrl: 'https://api.example.com/', outDir: out });

    // Assess
    const code = await readFile(result.file, 'utf8');
    expect(result.file).toBe(join(out, 'index.js'));
    expect(result.bytes).toBe(Buffer.byteLength(code));
    expect(result.gzipBytes).toBe(gzipSync(code, { level: 9 }).length);
    expect(code).toContain('https://api.example.com');
    expect(code).toContain('/v1/restaurants/{id}/reports/orders/day');
    // English is in index.js; each other language is a chunk of its own, imported beside it.
    const chunkOf = (language: string) =>
      result.chunks.find((chunk) => new RegExp(`/${language}-\\w+\\.js$`).test(chunk.file));
    expect(result.chunks).toHaveLength(LANGUAGES.length - 1);
    for (const language of LANGUAGES.filter((spoken) => spoken !== 'en')) {
      const chunk = chunkOf(language);
      expect(chunk).toBeDefined();
      expect(code).toContain(`import("./${basename(chunk?.file ?? '')}")`);
    }
    expect(code).toContain(MESSAGES_EN.title);
    // Nothing else is loaded: no static import, no require, no import() but the languages.
    expect(code).not.toMatch(/\bimport\s*["'{*]|\bfrom\s*["']\.{0,2}\/|\brequire\(/);
    expect(code.match(/\bimport\s*\(/g)).toHaveLength(LANGUAGES.length - 1);
    expect(await readdir(out)).toEqual(
      ['index.js', 'meta.json', ...result.chunks.map((chunk) => basename(chunk.file))].sort(),
    );
    expect(JSON.parse(await readFile(join(out, 'meta.json'), 'utf8'))).toEqual({
      bytes: result.bytes,
      gzipBytes: result.gzipBytes,
      apiUrl: 'https://api.example.com',
      files: ['index.js', ...result.chunks.map((chunk) => basename(chunk.file))],
      chunks: Object.fromEntries(result.chunks.map((chunk) => [basename(chunk.file), chunk.bytes])),
    });

    // Imported as the portal does (import()), in a plain Node without a DOM: nothing runs
    // before mount. A language file is a module whose default export is its messages.
    const arabic = pathToFileURL(chunkOf('ar')?.file ?? '').href;
    const { stdout } = await promisify(execFile)(process.execPath, [
      '--input-type=module',
      '-e',
      `const m = await import(${JSON.stringify(pathToFileURL(result.file).href)});
       console.log(Object.keys(m).join(), typeof m.default.mount, m.default.mount.length);
       console.log(JSON.stringify((await import(${JSON.stringify(arabic)})).default));`,
    ]);
    const [exports, messages] = stdout.trim().split('\n');
    expect(exports).toBe('default function 2');
    expect(JSON.parse(messages ?? '')).toEqual(
      JSON.parse(await readFile('tools/reports-plugin/messages/ar.json', 'utf8')),
    );
  });

  it('stays within its budget with a scaffolded report: index.js and each language file, what one owner loads', async () => {
    // Act
    const result = await buildReportsPlugin({
      apiUrl: 'https://api.example.com',
      outDir: join(out, 'budget'),
      reports: [...pluginReports(), SCAFFOLDED],
    });

    // Assess
    expect(await readFile(result.file, 'utf8')).toContain(SCAFFOLDED.path);
    expect(
      ownerLoads(result)
        .map((load) => load.language)
        .sort(),
    ).toEqual([...LANGUAGES].sort());
    expect(budgetProblems(result)).toEqual([]);
    expect(BUDGET).toEqual({ bytes: 48 * 1024, gzipBytes: 19 * 1024 });
  });

  it('removes the files its previous build wrote and this one did not, and nothing else', async () => {
    // Prepare
    const folder = join(out, 'rebuilt');
    await mkdir(folder);
    await writeFile(join(folder, 'ar-OLDHASH.js'), 'export default {}');
    await writeFile(join(folder, 'upload-notes.txt'), 'mine');
    await writeFile(
      join(folder, 'meta.json'),
      JSON.stringify({ files: ['index.js', 'ar-OLDHASH.js', '../escape.txt'] }),
    );
    await writeFile(join(out, 'escape.txt'), 'outside');

    // Act
    const result = await buildReportsPlugin({ apiUrl: 'https://api.example.com', outDir: folder });

    // Assess
    expect((await readdir(folder)).sort()).toEqual(
      [
        'index.js',
        'meta.json',
        'upload-notes.txt',
        ...result.chunks.map((chunk) => basename(chunk.file)),
      ].sort(),
    );
    expect(await readFile(join(out, 'escape.txt'), 'utf8')).toBe('outside');
  });

  it('reads its flags', () => {
    expect(parseArguments([])).toEqual({
      apiUrl: 'http://localhost:3000',
      outDir: 'dist/plugins/reports',
    });
    expect(parseArguments(['--api-url', 'https://x.example', '--out', 'o'])).toEqual({
      apiUrl: 'https://x.example',
      outDir: 'o',
    });
    expect(parseArguments(['--api-url=https://x.example'])).toMatchObject({
      apiUrl: 'https://x.example',
    });
    expect(parseArguments(['--help'])).toBe('help');
    expect(parseArguments(['-h', '--api-url', 'nope'])).toBe('help');
    expect(() => parseArguments(['--api-url'])).toThrow(
      `Option '--api-url <value>' argument missing\n${USAGE}`,
    );
    expect(() => parseArguments(['--api-url', 'nope'])).toThrow(
      `--api-url: "nope" is not a URL\n${USAGE}`,
    );
    expect(() => parseArguments(['--out='])).toThrow(`--out needs a value\n${USAGE}`);
    expect(() => parseArguments(['--port', '1'])).toThrow(`Unknown option '--port'\n${USAGE}`);
    expect(() => parseArguments(['dist'])).toThrow(/^Unexpected argument 'dist'/);
  });

  it('answers --help and -h with its usage on standard output and exit 0, building nothing', async () => {
    // Arrange
    const folder = join(out, 'help');

    // Act
    const long = await run([TSX, 'tools/plugin/build.ts', '--out', folder, '--help'], {});
    const short = await run([TSX, 'tools/plugin/build.ts', '-h'], {});

    // Assess
    const help = { code: 0, stdout: `${USAGE}\n`, stderr: '' };
    expect(long).toEqual(help);
    expect(short).toEqual(help);
    await expect(readdir(folder)).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('refuses an unknown option with exit 2, naming it on one line before the usage', async () => {
    // Act / Assess
    expect(await run([TSX, 'tools/plugin/build.ts', '--port', '1'], {})).toEqual({
      code: 2,
      stdout: '',
      stderr: `Unknown option '--port'\n${USAGE}\n`,
    });
  });
});
