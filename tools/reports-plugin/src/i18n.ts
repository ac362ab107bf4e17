/**
 * The owner's language: the locale of the token's `user.locale` (spec 2.2, `en_US` or `en-US`),
 * the messages of its language (messages/<language>.json, English when the plugin does not
 * speak it) and the writing direction of those messages.
 */
import ar from '../messages/ar.json' with { type: 'json' };
import de from '../messages/de.json' with { type: 'json' };
import en from '../messages/en.json' with { type: 'json' };
import es from '../messages/es.json' with { type: 'json' };
import { LANGUAGES, type Language } from './reports';

export type Messages = typeof en;
export type MessageKey = keyof Messages;
export const MESSAGES: Readonly<Record<Language, Readonly<Record<string, string>>>> = {
  en,
  ar,
  de,
  es,
};

const base64UrlDecode = (text: string): string => {
  const base64 = text.replace(/-/g, '+').replace(/_/g, '/');
  const binary = atob(base64.padEnd(Math.ceil(base64.length / 4) * 4, '='));
  return new TextDecoder().decode(Uint8Array.from(binary, (c) => c.charCodeAt(0)));
};

/** A BCP 47 tag from a locale as tokens write it (`ar_AE` → `ar-AE`), or undefined. */
export const canonicalLocale = (value: unknown): string | undefined => {
  if (typeof value !== 'string' || value.trim() === '') return undefined;
  try {
    return Intl.getCanonicalLocales(value.trim().replace(/_/g, '-'))[0];
  } catch {
    return undefined;
  }
};

/** The token's `user.locale` as a BCP 47 tag; undefined when it has none or is not a JWT. */
export const tokenLocale = (token: string): string | undefined => {
  const payload = token.split('.')[1];
  if (!payload) return undefined;
  try {
    const claims = JSON.parse(base64UrlDecode(payload)) as { user?: { locale?: unknown } };
    return canonicalLocale(claims.user?.locale);
  } catch {
    return undefined;
  }
};

/** The plugin's language for a locale: its own language when spoken, else English. */
export const languageOf = (locale: string | undefined): Language => {
  const language = locale?.split('-')[0]?.toLowerCase();
  return LANGUAGES.find((spoken) => spoken === language) ?? 'en';
};

/** Right-to-left scripts, by language. */
const RTL_LANGUAGES = new Set(['ar', 'fa', 'he', 'iw', 'ps', 'ur', 'yi', 'dv', 'ckb', 'sd', 'ug']);

export const direction = (language: string): 'rtl' | 'ltr' =>
  RTL_LANGUAGES.has(language.split('-')[0]?.toLowerCase() ?? '') ? 'rtl' : 'ltr';

export type Translate = (
  key: MessageKey,
  values?: Readonly<Record<string, string | number>>,
) => string;

/** Fills a message's `{name}` placeholders; a key missing in a language falls back to English. */
export const translator =
  (language: Language): Translate =>
  (key, values = {}) =>
    (MESSAGES[language][key] ?? en[key]).replace(/\{(\w+)\}/g, (whole, name: string) =>
      Object.hasOwn(values, name) ? String(values[name]) : whole,
    );

/** A message that may not exist (`value.state.DELIVERED`), or undefined. */
export const optionalMessage = (language: Language, key: string): string | undefined =>
  MESSAGES[language][key] ?? (en as Readonly<Record<string, string>>)[key];

/** Everything about the owner's language the views need. */
export interface Speech {
  /** Formatting locale (Intl): the token's, else the browser's. */
  readonly locale: string;
  readonly language: Language;
  /** The `lang` of the plugin's text: the locale when it is of that language. */
  readonly lang: string;
  readonly dir: 'rtl' | 'ltr';
  readonly t: Translate;
}

export const speechFor = (token: string, browserLocale: string): Speech => {
  const fromToken = tokenLocale(token);
  const language = languageOf(fromToken);
  return {
    locale: fromToken ?? canonicalLocale(browserLocale) ?? 'en',
    language,
    lang: fromToken && languageOf(fromToken) === language ? fromToken : language,
    dir: direction(language),
    t: translator(language),
  };
};
