/**
 * Platform identifiers (spec 2.3). A platformId is a Global Entity Id such as `TB_KW`. One
 * platform still sends a legacy platformKey that differs from its platformId; until its sunset
 * date the legacy key names the same platform.
 */
import type { IsoDate } from './dates';

export const PLATFORM_ID_SHAPE = /^[A-Z]+(?:_[A-Z]+)*_[A-Z]{2}$/;

export interface LegacyPlatformKeys {
  /** legacy platformKey → current platformId */
  readonly aliases: ReadonlyMap<string, string>;
  /** last day (UTC) on which the legacy keys are accepted; undefined: no sunset yet */
  readonly sunset?: IsoDate;
}

/**
 * The platformId a client's platform identifier names, or undefined when it names none
 * (a legacy key past its sunset). Identifiers that are not legacy keys are returned as sent.
 */
export const resolvePlatformId = (
  sent: string,
  legacy: LegacyPlatformKeys,
  today: IsoDate,
): string | undefined => {
  const current = legacy.aliases.get(sent);
  if (current === undefined) return sent;
  if (legacy.sunset !== undefined && today > legacy.sunset) return undefined;
  return current;
};

/** `LEGACY_KEY=PLATFORM_ID,OTHER=PLATFORM_ID` as configured in LEGACY_PLATFORM_KEYS. */
export const parseLegacyAliases = (spec: string): Map<string, string> => {
  const aliases = new Map<string, string>();
  for (const pair of spec.split(',').map((part) => part.trim())) {
    if (pair === '') continue;
    const [legacyKey, platformId, ...rest] = pair.split('=').map((part) => part.trim());
    if (!legacyKey || !platformId || rest.length > 0 || !PLATFORM_ID_SHAPE.test(platformId)) {
      throw new TypeError(
        `LEGACY_PLATFORM_KEYS: "${pair}" is not LEGACY_KEY=PLATFORM_ID with a platformId like TB_KW`,
      );
    }
    aliases.set(legacyKey, platformId);
  }
  return aliases;
};
