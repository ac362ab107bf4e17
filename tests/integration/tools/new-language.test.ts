/**
 * Adding a language to the reports plugin as docs/plugin.md says, in a copy of the repository:
 * its code in LANGUAGES, its loader in TRANSLATIONS and its messages file. The plugin's type
 * check, lint and unit tests pass untouched, the build makes it a file of its own within the
 * size budget, and an owner whose token says fr_FR is spoken to in it.
 */
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { copyRepository, nodeIn, passedSuites } from '../../support/repository-copy';

let copy = '';

/** Replaces `from` (which must be there) in a file of the copy. */
const edit = (file: string, from: string, to: string) => {
  const path = join(copy, file);
  const text = readFileSync(path, 'utf8');
  if (!text.includes(from)) throw new Error(`${file} has no ${from}`);
  writeFileSync(path, text.replace(from, to));
};

beforeAll(() => {
  ({ dir: copy } = copyRepository('portal-new-language-'));
});

afterAll(() => {
  rmSync(copy, { recursive: true, force: true });
});

describe('a fifth language for the reports plugin', () => {
  it('type-checks, passes the plugin tests, builds within budget and speaks to its owners', () => {
    // Prepare: the three steps of docs/plugin.md, "Adding a language".
    edit(
      'tools/reports-plugin/src/reports.ts',
      "LANGUAGES = ['en', 'ar', 'de', 'es'] as const",
      "LANGUAGES = ['en', 'ar', 'de', 'es', 'fr'] as const",
    );
    edit(
      'tools/reports-plugin/src/i18n.ts',
      "  es: () => import('../messages/es.json', { with: { type: 'json' } }),\n",
      "  es: () => import('../messages/es.json', { with: { type: 'json' } }),\n" +
        "  fr: () => import('../messages/fr.json', { with: { type: 'json' } }),\n",
    );
    const english = JSON.parse(
      readFileSync(join(copy, 'tools/reports-plugin/messages/en.json'), 'utf8'),
    ) as Record<string, string>;
    const german = JSON.parse(
      readFileSync(join(copy, 'tools/reports-plugin/messages/de.json'), 'utf8'),
    ) as Record<string, string>;
    // A stand-in translation as long as a French one: every message, its placeholders kept, and
    // every name German gives (`name.<English>`).
    const french: Record<string, string> = Object.fromEntries([
      ...Object.entries(english).map(([key, text]): [string, string] => [key, `(fr) ${text}`]),
      ...Object.keys(german)
        .filter((key) => key.startsWith('name.'))
        .map((key): [string, string] => [key, `(fr) ${key.slice('name.'.length)}`]),
    ]);
    writeFileSync(
      join(copy, 'tools/reports-plugin/messages/fr.json'),
      `${JSON.stringify({ ...french, title: 'Rapports' }, null, 2)}\n`,
    );

    // Act
    const typecheck = nodeIn(copy, ['node_modules/typescript/bin/tsc', '-p', '.']);
    const lint = nodeIn(copy, ['node_modules/eslint/bin/eslint.js', 'tools/reports-plugin']);
    const tests = nodeIn(copy, [
      '--experimental-vm-modules',
      '--no-warnings=ExperimentalWarning',
      'node_modules/jest/bin/jest.js',
      '--verbose',
      'tests/unit/reports-plugin',
    ]);
    const spoken = nodeIn(copy, [
      'node_modules/tsx/dist/cli.mjs',
      '--eval',
      `import('./tools/reports-plugin/src/i18n.ts').then(async (i18n) => {
         const token = ['e30', Buffer.from(JSON.stringify({ user: { locale: 'fr_FR' } })).toString('base64url'), 's'].join('.');
         const speech = i18n.speechFor(token, 'en-US', await i18n.loadLanguage(i18n.languageFor(token)));
         process.stdout.write(JSON.stringify({ language: speech.language, locale: speech.locale, title: speech.t('title') }));
       })`,
    ]);

    // Assess
    expect(typecheck).toEqual({ code: 0, output: '' });
    expect(lint).toEqual({ code: 0, output: '' });
    expect({ code: tests.code, failures: tests.output.match(/✕.*/g) ?? [] }).toEqual({
      code: 0,
      failures: [],
    });
    expect(passedSuites(tests.output)).toEqual(
      expect.arrayContaining([
        'tests/unit/reports-plugin/build.test.ts',
        'tests/unit/reports-plugin/i18n.test.ts',
      ]),
    );
    // The French file is loaded and held to English's keys; the build gives it a file.
    expect(tests.output).toContain('fr is loaded as its own file says');
    expect(tests.output).toContain('fr has every English message, no other');
    expect(tests.output).toContain('fr names the reference reports and their columns');
    expect(tests.output).toMatch(/✓ stays within its budget/);
    expect(JSON.parse(spoken.output)).toEqual({
      language: 'fr',
      locale: 'fr-FR',
      title: 'Rapports',
    });
  });
});
