/**
 * The owner's language: the locale of the token's `user.locale` (spec 2.2, `en_US` or `en-US`),
 * the messages of its language (messages/<language>.json, English when the plugin does not
 * speak it) and the writing direction of those messages. English is in the bundle; every other
 * language is a chunk of its own beside it, fetched only for an owner who speaks it.
 */
import en from '../messages/en.json' with { type: 'json' };
import { LANGUAGES, type Language } from './reports';

export type Messages = typeof en;
export type MessageKey = keyof Messages;
/** One language's messages, by key (the unit tests hold every file to English's keys). */
export type Catalogue = Readonly<Record<string, string>>;

/** Each language but English: its messages, as the chunk the build makes of the file. */
const TRANSLATIONS: Readonly<
  Record<Exclude<Language, 'en'>, () => Promise<{ readonly default: Catalogue }>>
> = {
  ar: () => import('../messages/ar.json', { with: { type: 'json' } }),
  de: () => import('../messages/de.json', { with: { type: 'json' } }),
  es: () => import('../messages/es.json', { with: { type: 'json' } }),
};

/** A language the plugin speaks, with its messages. */
export interface Spoken {
  readonly language: Language;
  readonly messages: Catalogue;
}

const ENGLISH: Spoken = { language: 'en', messages: en };

/** How long the owner waits for a language's chunk before the plugin speaks English. */
export const LANGUAGE_TIMEOUT_MS = 5000;

/**
 * A language's messages. A chunk that fails or does not arrive in time leaves the owner with
 * English (and its direction) rather than no report: a console warning says which.
 */
export const loadLanguage = async (
  language: Language,
  timeoutMs = LANGUAGE_TIMEOUT_MS,
): Promise<Spoken> => {
  if (language === 'en') return ENGLISH;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      reject(new Error(`no answer within ${timeoutMs} ms`));
    }, timeoutMs);
  });
  try {
    const { default: messages } = await Promise.race([TRANSLATIONS[language](), late]);
    return { language, messages };
  } catch (error) {
    console.warn(
      `reports plugin: the ${language} messages did not load (${String(error)}); English instead`,
    );
    return ENGLISH;
  } finally {
    clearTimeout(timer);
  }
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

export interface Translate {
  (key: MessageKey, values?: Readonly<Record<string, string | number>>): string;
  /** A message that may not exist (`value.state.DELIVERED`), or undefined. */
  readonly optional: (key: string) => string | undefined;
}

/** Fills a message's `{name}` placeholders; a key missing in a language falls back to English. */
export const translator = (messages: Catalogue): Translate => {
  const optional = (key: string): string | undefined => messages[key] ?? (en as Catalogue)[key];
  const t = (key: MessageKey, values: Readonly<Record<string, string | number>> = {}) =>
    (optional(key) ?? key).replace(/\{(\w+)\}/g, (whole, name: string) =>
      Object.hasOwn(values, name) ? String(values[name]) : whole,
    );
  return Object.assign(t, { optional });
};

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

/** The language the token's locale asks for: the one to load before `speechFor`. */
export const languageFor = (token: string): Language => languageOf(tokenLocale(token));

/** The owner's speech: `spoken` is what `loadLanguage(languageFor(token))` gave. */
export const speechFor = (token: string, browserLocale: string, spoken: Spoken): Speech => {
  const fromToken = tokenLocale(token);
  const { language, messages } = spoken;
  return {
    locale: fromToken ?? canonicalLocale(browserLocale) ?? 'en',
    language,
    lang: fromToken && languageOf(fromToken) === language ? fromToken : language,
    dir: direction(language),
    t: translator(messages),
  };
};
