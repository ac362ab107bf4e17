/**
 * npm run manifest [-- --out DIR]
 * Writes the manifest for the portal team (spec 1, last bullet) from tools/catalogue.ts:
 * docs/portal-manifest.json and docs/portal-manifest.md, formatted as the repository formats
 * them and free of timestamps, so they are committed and a test keeps them current. Fails
 * (exit 1) naming the report and property when a report cannot be integrated.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { format, resolveConfig } from 'prettier';
import { catalogue } from './catalogue';
import { buildManifest, renderManifestMarkdown, type Manifest } from './generators/manifest';

const ROOT = join(import.meta.dirname, '..');

const formatted = async (file: string, text: string): Promise<string> =>
  format(text, { ...(await resolveConfig(join(ROOT, file))), filepath: file });

const { values } = parseArgs({ options: { out: { type: 'string', default: join(ROOT, 'docs') } } });
const out = values.out;

let manifest: Manifest;
try {
  manifest = buildManifest(catalogue);
} catch (error) {
  if (!(error instanceof TypeError)) throw error;
  process.stderr.write(
    `manifest: the catalogue cannot be handed to the portal team:\n${error.message}\n`,
  );
  process.exit(1);
}

mkdirSync(out, { recursive: true });
const files = {
  'portal-manifest.json': JSON.stringify(manifest, null, 2),
  'portal-manifest.md': renderManifestMarkdown(manifest),
};
for (const [name, text] of Object.entries(files)) {
  writeFileSync(join(out, name), await formatted(join('docs', name), text));
  process.stdout.write(`wrote ${join(out, name)}\n`);
}
