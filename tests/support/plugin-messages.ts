/** Each language's messages as the reports plugin loads them (its own import of the file). */
import { loadLanguage, type Catalogue } from '../../tools/reports-plugin/src/i18n';
import { LANGUAGES, type Language } from '../../tools/reports-plugin/src/reports';

export const SPOKEN = Object.fromEntries(
  await Promise.all(
    LANGUAGES.map(async (language) => [language, (await loadLanguage(language)).messages]),
  ),
) as Readonly<Record<Language, Catalogue>>;
