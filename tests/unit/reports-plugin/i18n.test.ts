import {
  canonicalLocale,
  direction,
  languageFor,
  languageOf,
  loadLanguage,
  speechFor,
  type Catalogue,
  tokenLocale,
  translator,
} from '../../../tools/reports-plugin/src/i18n';
import { readFile } from 'node:fs/promises';
import { LANGUAGES, type Language } from '../../../tools/reports-plugin/src/reports';
import { pluginReports } from '../../../tools/plugin/reports';
import { SPOKEN } from '../../support/plugin-messages';

const placeholders = (text: string) => [...text.matchAll(/\{(\w+)\}/g)].map((m) => m[1]).sort();

/** An unsigned token: the plugin reads the payload only (the API verifies it). */
const token = (user: unknown) =>
  ['e30', Buffer.from(JSON.stringify({ sub: 'owner-1', user })).toString('base64url'), 'sig'].join(
    '.',
  );

/** The reports every language names (a new report shows English until it is named). */
const REFERENCE_REPORTS = ['orders-per-day', 'dishes', 'revenue', 'orders-today'];
/** Names a language writes as English does, so its file need not carry them. */
const SAME_WORD: Partial<Record<Language, readonly string[]>> = { es: ['Total'] };

/** A language's report and column names (`name.<English>`), by English name. */
const namesOf = (messages: Catalogue): Map<string, string> =>
  new Map(
    Object.entries(messages).flatMap(([key, text]) =>
      key.startsWith('name.') ? [[key.slice('name.'.length), text] as const] : [],
    ),
  );

/** A language's messages but its names. */
const messagesOf = (messages: Catalogue): Catalogue =>
  Object.fromEntries(Object.entries(messages).filter(([key]) => !key.startsWith('name.')));

/** The file itself, read from disk. */
const messageFile = async (language: Language): Promise<unknown> =>
  JSON.parse(await readFile(`tools/reports-plugin/messages/${language}.json`, 'utf8'));

describe('the message files', () => {
  it.each(LANGUAGES)('%s is loaded as its own file says', async (language) => {
    expect(await loadLanguage(language)).toEqual({
      language,
      messages: await messageFile(language),
    });
  });

  it.each(LANGUAGES.filter((language) => language !== 'en'))(
    '%s has every English message, no other, with the same placeholders',
    (language) => {
      const english = SPOKEN.en;
      const local = messagesOf(SPOKEN[language]);
      expect(Object.keys(local).sort()).toEqual(Object.keys(english).sort());
      for (const [key, text] of Object.entries(english)) {
        expect({ key, placeholders: placeholders(local[key] ?? '') }).toEqual({
          key,
          placeholders: placeholders(text),
        });
        expect(local[key]?.trim()).not.toBe('');
      }
    },
  );

  it.each(LANGUAGES.filter((language) => language !== 'en'))(
    '%s names the reference reports and their columns, and only names the catalogue has',
    (language) => {
      const named = namesOf(SPOKEN[language]);
      const reports = pluginReports().filter((report) => REFERENCE_REPORTS.includes(report.id));
      const english = new Set(
        pluginReports().flatMap((report) => [
          report.title,
          ...report.properties.map((property) => property.name),
        ]),
      );
      const wanted = new Set(
        reports.flatMap((report) => [
          report.title,
          ...report.properties.map((property) => property.name),
        ]),
      );
      expect(reports).toHaveLength(REFERENCE_REPORTS.length);
      expect([...named.keys()].filter((name) => !english.has(name))).toEqual([]);
      expect([...wanted].filter((name) => !named.has(name)).sort()).toEqual(
        SAME_WORD[language] ?? [],
      );
      for (const [name, local] of named) {
        // Only a translation that differs from the English is carried.
        expect({ name, local: local.trim() === '' || local === name }).toEqual({
          name,
          local: false,
        });
      }
    },
  );

  it('English names nothing: the definitions hold its names', () => {
    expect(namesOf(SPOKEN.en).size).toBe(0);
  });

  it('fills placeholders and leaves unknown ones visible', () => {
    const t = translator(SPOKEN.de);
    expect(t('error.other', { status: 502 })).toBe(
      'Der Bericht konnte nicht geladen werden (HTTP 502).',
    );
    expect(t('error.other')).toContain('{status}');
  });

  it('falls back to English for a key a language lacks, and knows which keys exist', () => {
    const t = translator({ title: 'Berichte' });
    expect(t('title')).toBe('Berichte');
    expect(t('download')).toBe(SPOKEN.en.download);
    expect(t.optional('value.state.DELIVERED')).toBe(SPOKEN.en['value.state.DELIVERED']);
    expect(t.optional('value.state.NO_SUCH_STATE')).toBeUndefined();
  });
});

describe("the owner's language, from the token's user.locale", () => {
  it.each([
    ['ar_AE', 'ar-AE', 'ar', 'rtl'],
    ['de-DE', 'de-DE', 'de', 'ltr'],
    ['es_MX', 'es-MX', 'es', 'ltr'],
    ['en_US', 'en-US', 'en', 'ltr'],
    ['ja_JP', 'ja-JP', 'en', 'ltr'],
  ])('%s: formats in %s, speaks %s, %s', async (locale, tag, language, dir) => {
    const spoken = await loadLanguage(languageFor(token({ locale })));
    const speech = speechFor(token({ locale }), 'en-GB', spoken);
    expect(speech.t('title')).toBe(SPOKEN[spoken.language].title);
    expect({ locale: speech.locale, language: speech.language, dir: speech.dir }).toEqual({
      locale: tag,
      language,
      dir,
    });
  });

  it('without a usable locale: English messages, the browser’s formats', async () => {
    for (const user of [{}, { locale: 42 }, { locale: 'not a locale!' }, undefined]) {
      const speech = speechFor(token(user), 'de-DE', await loadLanguage(languageFor(token(user))));
      expect({ language: speech.language, locale: speech.locale }).toEqual({
        language: 'en',
        locale: 'de-DE',
      });
    }
    expect(tokenLocale('not a token')).toBeUndefined();
    expect(tokenLocale('a.!!!.c')).toBeUndefined();
  });

  it('names languages and directions', () => {
    expect(canonicalLocale('ar_ae')).toBe('ar-AE');
    expect(languageOf(undefined)).toBe('en');
    expect(languageOf('AR')).toBe('ar');
    expect(direction('he')).toBe('rtl');
    expect(direction('es')).toBe('ltr');
  });
});
