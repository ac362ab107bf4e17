/**
 * tools/generators/settings-doc.ts: docs/configuration.md lists every setting of the registry as
 * the generator writes it, with the stages' defaults of serverless.yml.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { format, resolveConfig } from 'prettier';
import { SETTINGS } from '../../../tools/generators/registry';
import {
  BEGIN,
  END,
  settingsTable,
  withSettingsTable,
} from '../../../tools/generators/settings-doc';
import { readReleaseConfig } from '../../../tools/release/regions';

const PAGE = join(import.meta.dirname, '../../../docs/configuration.md');
const stages = readReleaseConfig().stages as Record<string, unknown>;

describe('the settings of docs/configuration.md', () => {
  it('are the registry’s, as npm run settings:doc writes them', async () => {
    // Prepare
    const page = readFileSync(PAGE, 'utf8');
    const options = (await resolveConfig(PAGE)) ?? {};

    // Act
    const generated = await format(withSettingsTable(page, settingsTable(stages)), {
      ...options,
      filepath: PAGE,
    });

    // Assess
    expect(page).toBe(generated);
  });

  it('name every setting once, with the stages’ own defaults', () => {
    // Act
    const list = settingsTable(stages);

    // Assess: each its own line, or one function's reserved concurrency, named by its suffix
    const perFunction = list
      .split('\n')
      .find((line) => line.startsWith('- `RESERVED_CONCURRENCY_<'));
    for (const { name } of SETTINGS) {
      const own = list
        .split('\n')
        .filter((line) =>
          [' ', ':'].some((next) => line.startsWith(`- \`${name}\`${next}`)),
        ).length;
      const suffix = name.replace(/^RESERVED_CONCURRENCY_/, '');
      const asSuffix = suffix !== name && (perFunction ?? '').includes(`\`${suffix}\``) ? 1 : 0;
      expect({ name, times: own + asSuffix }).toEqual({ name, times: 1 });
    }
    expect(list).toContain('- `API_THROTTLE_RATE` (default `20`; production `200`; staging `50`');
    expect(list).toContain('- `ALARMS` (default `false`; production `true`; staging `true`');
    expect(list).toContain(
      "- `RESERVED_CONCURRENCY_<FUNCTION>` (1–1000): one function's own, over the line above: `ORDERS_PER_DAY`, `DISHES`, ",
    );
  });

  it('refuses a page without the markers', () => {
    expect(() => withSettingsTable('# Configuration\n', 'list')).toThrow(`${BEGIN} … ${END}`);
  });
});
