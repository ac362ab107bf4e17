/**
 * npm run new:report -- <id>
 * Creates a report from its id (kebab-case): its own files — the definition
 * shared/reports/<id>.ts, its SQL shared/reports/<id>.sql.ts, its handler functions/<id>.ts, a
 * sample event events/<id>.json, its unit and integration tests — and one line in the
 * catalogue (with the import it needs), placed by the TypeScript parser after the last report;
 * then regenerates the manifest, the OpenAPI document and docs/configuration.md's settings (the
 * function's own RESERVED_CONCURRENCY_<FUNCTION>). serverless.yml's function and routes
 * follow from the catalogue. The new report passes `npm test` as created and answers under
 * `npm start` at /v1/restaurants/{id}/reports/<id>.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { parseArgs } from 'node:util';
import * as prettier from 'prettier';
import ts from 'typescript';
import { camelCase, catalogue } from './catalogue';
import { argumentComplaint } from './argument-error';

const ROOT = join(import.meta.dirname, '..');
const TEMPLATES = join(import.meta.dirname, 'new-report');
const CATALOGUE = 'tools/catalogue.ts';
const NAME = /^[a-z][a-z0-9]*(?:-[a-z0-9]+)*$/;

const USAGE = 'usage: npm run new:report -- <id>   (kebab-case, e.g. orders-by-state)';

const fail = (message: string): never => {
  process.stderr.write(`${message}\n${USAGE}\n`);
  process.exit(2);
};

const parse = () =>
  parseArgs({
    options: { help: { type: 'boolean', short: 'h' } },
    strict: true,
    allowPositionals: true,
  });

let parsed: ReturnType<typeof parse>;
try {
  parsed = parse();
} catch (error) {
  parsed = fail(argumentComplaint(error));
}
if (parsed.values.help) {
  process.stdout.write(`${USAGE}\n`);
  process.exit(0);
}
const [id = fail('name the report'), ...others] = parsed.positionals;
if (others.length > 0) fail(`one report at a time: ${[id, ...others].join(' ')}`);
if (!NAME.test(id)) fail(`"${id}" is not a kebab-case report name`);

const camel = camelCase(id);
const pascal = `${camel.charAt(0).toUpperCase()}${camel.slice(1)}`;
const title = id
  .split('-')
  .join(' ')
  .replace(/^./, (first) => first.toUpperCase());
const path = `/v1/restaurants/{id}/reports/${id}`;

const files = {
  definition: `shared/reports/${id}.ts`,
  sql: `shared/reports/${id}.sql.ts`,
  handler: `functions/${id}.ts`,
  event: `events/${id}.json`,
  unitTest: `tests/unit/shared/reports/${id}.test.ts`,
  integrationTest: `tests/integration/functions/${id}.test.ts`,
};

for (const endpoint of catalogue) {
  if (endpoint.id === id || endpoint.function === camel) {
    fail(`the catalogue has an endpoint ${endpoint.id} (${endpoint.function}) already`);
  }
}
// The report's name becomes a declaration: it must not be a reserved word, nor a name the
// catalogue already declares or imports.
if (ts.identifierToKeywordKind(ts.factory.createIdentifier(camel)) !== undefined)
  fail(`"${id}" would name the report ${camel}, a reserved word`);

for (const file of Object.values(files)) {
  if (existsSync(join(ROOT, file))) fail(`${file} exists already`);
}

/**
 * The catalogue with the report's import after the last import of a report and its line
 * after the last `report(...)` of the `catalogue` array, both found by the TypeScript parser.
 */
const withReport = (source: string): string => {
  const file = ts.createSourceFile(CATALOGUE, source, ts.ScriptTarget.Latest, true);
  const reportImports = file.statements.filter(
    (statement): statement is ts.ImportDeclaration =>
      ts.isImportDeclaration(statement) &&
      ts.isStringLiteral(statement.moduleSpecifier) &&
      statement.moduleSpecifier.text.startsWith('../shared/reports/'),
  );
  const lastImport = reportImports.at(-1) ?? fail(`${CATALOGUE} imports no report`);
  const declared = new Set<string>();
  const collect = (node: ts.Node): void => {
    if (
      (ts.isImportSpecifier(node) ||
        ts.isVariableDeclaration(node) ||
        ts.isFunctionDeclaration(node) ||
        ts.isInterfaceDeclaration(node) ||
        ts.isTypeAliasDeclaration(node)) &&
      node.name !== undefined &&
      ts.isIdentifier(node.name)
    ) {
      declared.add(node.name.text);
    }
    ts.forEachChild(node, collect);
  };
  collect(file);
  if (declared.has(camel)) fail(`"${id}" would name the report ${camel}, a name ${CATALOGUE} has`);
  let list: ts.ArrayLiteralExpression | undefined;
  const find = (node: ts.Node): void => {
    if (
      ts.isVariableDeclaration(node) &&
      ts.isIdentifier(node.name) &&
      node.name.text === 'catalogue' &&
      node.initializer !== undefined &&
      ts.isArrayLiteralExpression(node.initializer)
    ) {
      list = node.initializer;
    }
    ts.forEachChild(node, find);
  };
  find(file);
  const reports = (list?.elements ?? []).filter(
    (element) =>
      ts.isCallExpression(element) &&
      ts.isIdentifier(element.expression) &&
      element.expression.text === 'report',
  );
  const lastReport = reports.at(-1) ?? fail(`${CATALOGUE} has no report(...) line to follow`);
  const importAt = lastImport.getEnd();
  const lineAt = lastReport.getEnd();
  return (
    source.slice(0, importAt) +
    `\nimport { ${camel} } from '../shared/reports/${id}';` +
    source.slice(importAt, lineAt) +
    `,\n  report(${camel}, '${path}')` +
    source.slice(lineAt)
  );
};

const fill = (text: string): string =>
  text
    .replaceAll('__NAME__', id)
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

const updatedCatalogue = withReport(await readFile(join(ROOT, CATALOGUE), 'utf8'));
await write(files.definition, await template('definition.ts.tpl'));
await write(files.sql, await template('sql.ts.tpl'));
await write(files.handler, await template('handler.ts.tpl'));
await write(files.unitTest, await template('unit.test.ts.tpl'));
await write(files.integrationTest, await template('integration.test.ts.tpl'));
const sample = (await readFile(join(ROOT, 'events/dishes.json'), 'utf8')).replaceAll(
  '/reports/dishes',
  `/reports/${id}`,
);
await write(files.event, sample);
await write(CATALOGUE, updatedCatalogue);

for (const script of ['tools/manifest.ts', 'tools/openapi.ts', 'tools/settings-doc.ts']) {
  const run = spawnSync(process.execPath, [join(ROOT, 'node_modules/tsx/dist/cli.mjs'), script], {
    cwd: ROOT,
    stdio: 'inherit',
  });
  if (run.status !== 0) fail(`${script} failed`);
}

process.stdout.write(
  `\nReport "${id}" created at ${path} (function ${camel}).\n` +
    `Next: adapt ${files.definition} and ${files.sql}, then npm test.\n`,
);
