/**
 * npm run new:report -- <name>
 * Creates a report: its definition, its query, its handler, a sample event, its unit and
 * integration tests, its serverless.yml function and its catalogue entry; then regenerates the
 * manifest and the OpenAPI document. The new report passes `npm test` as created and answers
 * under `npm start` at /v1/restaurants/{id}/reports/<name>.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import * as prettier from 'prettier';

const ROOT = join(import.meta.dirname, '..');
const TEMPLATES = join(import.meta.dirname, 'new-report');
const NAME = /^[a-z][a-z0-9]*(?:-[a-z0-9]+)*$/;
const SERVERLESS_MARKER = '  # npm run new:report adds each new report function above this line.';
const CATALOGUE_MARKER = '  // A new report: one reportAt line above this one';

const fail = (message: string): never => {
  process.stderr.write(
    `${message}\nusage: npm run new:report -- <name>   (kebab-case, e.g. orders-by-state)\n`,
  );
  process.exit(2);
};

const name = process.argv[2] ?? fail('name the report');
if (process.argv.length > 3 || !NAME.test(name)) fail(`"${name}" is not a kebab-case report name`);

const words = name.split('-');
const capitalised = (word: string) => `${word.charAt(0).toUpperCase()}${word.slice(1)}`;
const camel = words.map((word, i) => (i === 0 ? word : capitalised(word))).join('');
const pascal = capitalised(camel);
const title = words.join(' ').replace(/^./, (first) => first.toUpperCase());
const path = `/v1/restaurants/{id}/reports/${name}`;

const files = {
  definition: `shared/reports/${name}.ts`,
  query: `shared/reports/queries/${name}.ts`,
  handler: `functions/reports/${name}.ts`,
  event: `events/${name}.json`,
  unitTest: `tests/unit/shared/reports/${name}.test.ts`,
  integrationTest: `tests/integration/functions/${name}.test.ts`,
};

const serverlessFile = join(ROOT, 'serverless.yml');
const catalogueFile = join(ROOT, 'shared/catalogue.ts');
const serverless = await readFile(serverlessFile, 'utf8');
const catalogue = await readFile(catalogueFile, 'utf8');

for (const file of Object.values(files)) {
  if (existsSync(join(ROOT, file))) fail(`${file} exists already`);
}
if (new RegExp(`^  ${camel}:`, 'm').test(serverless))
  fail(`serverless.yml has a function ${camel} already`);
if (!serverless.includes(SERVERLESS_MARKER))
  fail('serverless.yml has lost its new:report marker line');
if (!catalogue.includes(CATALOGUE_MARKER))
  fail('shared/catalogue.ts has lost its new:report marker line');

const fill = (text: string): string =>
  text
    .replaceAll('__NAME__', name)
    .replaceAll('__CAMEL__', camel)
    .replaceAll('__PASCAL__', pascal)
    .replaceAll('__TITLE__', title)
    .replaceAll('__PATH__', path);

const write = async (file: string, text: string) => {
  const target = join(ROOT, file);
  const options = (await prettier.resolveConfig(target)) ?? {};
  await mkdir(dirname(target), { recursive: true });
  await writeFile(target, await prettier.format(text, { ...options, filepath: target }));
  process.stdout.write(`  wrote ${file}\n`);
};

const template = async (file: string) => fill(await readFile(join(TEMPLATES, file), 'utf8'));

await write(files.definition, await template('definition.ts.tpl'));
await write(files.query, await template('query.ts.tpl'));
await write(files.handler, await template('handler.ts.tpl'));
await write(files.unitTest, await template('unit.test.ts.tpl'));
await write(files.integrationTest, await template('integration.test.ts.tpl'));

const sample = (await readFile(join(ROOT, 'events/dishes.json'), 'utf8')).replaceAll(
  '/reports/dishes',
  `/reports/${name}`,
);
await write(files.event, sample);

await write(
  'serverless.yml',
  serverless.replace(
    SERVERLESS_MARKER,
    [
      `  ${camel}:`,
      `    handler: functions/reports/${name}.handler`,
      `    description: ${title}`,
      '    events:',
      `      - http: { path: '${path}', method: get }`,
      `      - http: { path: '${path}', method: options }`,
      SERVERLESS_MARKER,
    ].join('\n'),
  ),
);

const imports = [...catalogue.matchAll(/^import .* from '\.\/reports\/[^']+';$/gm)];
const lastImport = imports.at(-1) ?? fail('shared/catalogue.ts imports no report');
const importEnd = lastImport.index + lastImport[0].length;
await write(
  'shared/catalogue.ts',
  catalogue.slice(0, importEnd) +
    `\nimport { ${camel} } from './reports/${name}';` +
    catalogue
      .slice(importEnd)
      .replace(
        CATALOGUE_MARKER,
        `  reportAt('${camel}', ${camel}, '${path}'),\n${CATALOGUE_MARKER}`,
      ),
);

for (const script of ['scripts/manifest.ts', 'scripts/openapi.ts']) {
  const run = spawnSync(process.execPath, [join(ROOT, 'node_modules/tsx/dist/cli.mjs'), script], {
    cwd: ROOT,
    stdio: 'inherit',
  });
  if (run.status !== 0) fail(`${script} failed`);
}

process.stdout.write(
  `\nReport "${name}" created at ${path}.\n` +
    `Next: adapt ${files.definition} and ${files.query}, then npm test.\n`,
);
