/**
 * npm run openapi [-- --out DIR]
 * Writes docs/openapi.json, the OpenAPI 3.1 document of every endpoint of tools/catalogue.ts,
 * formatted as the repository formats it and free of timestamps, so it is committed and a test
 * keeps it current.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { format, resolveConfig } from 'prettier';
import { catalogue } from './catalogue';
import { buildOpenApiDocument, type OpenApiDocument } from './generators/openapi';

const ROOT = join(import.meta.dirname, '..');
const FILE = 'openapi.json';

const { values } = parseArgs({ options: { out: { type: 'string', default: join(ROOT, 'docs') } } });
const out = values.out;
const { version } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
  version: string;
};

let document: OpenApiDocument;
try {
  document = buildOpenApiDocument(catalogue, { version });
} catch (error) {
  if (!(error instanceof TypeError)) throw error;
  process.stderr.write(`openapi: the catalogue cannot be documented:\n${error.message}\n`);
  process.exit(1);
}

mkdirSync(out, { recursive: true });
const text = await format(JSON.stringify(document, null, 2), {
  ...(await resolveConfig(join(ROOT, 'docs', FILE))),
  filepath: join(ROOT, 'docs', FILE),
});
writeFileSync(join(out, FILE), text);
process.stdout.write(`wrote ${join(out, FILE)}\n`);
