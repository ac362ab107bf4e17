/**
 * npm run settings:doc
 * Writes docs/configuration.md's table of the settings (tools/generators/settings-doc.ts),
 * formatted as the repository formats it, so that a test keeps the page current.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { format, resolveConfig } from 'prettier';
import { settingsTable, withSettingsTable } from './generators/settings-doc';
import { readReleaseConfig } from './release/regions';

const PAGE = join(import.meta.dirname, '../docs/configuration.md');

const stages = readReleaseConfig().stages as Record<string, unknown>;
const page = withSettingsTable(readFileSync(PAGE, 'utf8'), settingsTable(stages));
const options = (await resolveConfig(PAGE)) ?? {};
writeFileSync(PAGE, await format(page, { ...options, filepath: PAGE }));
process.stdout.write('settings:doc: docs/configuration.md\n');
