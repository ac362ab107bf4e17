import type { IsoDate } from '../../../shared/dates';
import {
  parseLegacyAliases,
  resolvePlatformId,
  type LegacyPlatformKeys,
} from '../../../shared/platforms';

const d = (value: string) => value as IsoDate;

const LEGACY_KEY = 'TBLEGACY_KW';
const SUNSET = d('2026-06-30');

const withSunset: LegacyPlatformKeys = {
  aliases: new Map([[LEGACY_KEY, 'TB_KW']]),
  sunset: SUNSET,
};

describe('resolvePlatformId', () => {
  it.each([
    [
      'passes a platformId that is not a legacy key through unchanged',
      'TB_AE',
      '2030-01-01',
      'TB_AE',
    ],
    [
      'passes the current platformId of the legacy platform through, even after the sunset',
      'TB_KW',
      '2030-01-01',
      'TB_KW',
    ],
    ['maps a legacy key to its platformId before the sunset', LEGACY_KEY, '2026-06-29', 'TB_KW'],
    ['still accepts a legacy key on the sunset day itself', LEGACY_KEY, SUNSET, 'TB_KW'],
    ['refuses a legacy key the day after its sunset', LEGACY_KEY, '2026-07-01', undefined],
  ])('%s', (_behaviour, platformId, today, expected) => {
    // Act / Assess
    expect(resolvePlatformId(platformId, withSunset, d(today))).toBe(expected);
  });

  it('accepts a legacy key on any day while no sunset is set', () => {
    // Prepare
    const noSunset: LegacyPlatformKeys = { aliases: new Map([[LEGACY_KEY, 'TB_KW']]) };

    // Act / Assess
    expect(
      ['2000-01-01', '2026-07-01', '9999-12-31'].map((today) =>
        resolvePlatformId(LEGACY_KEY, noSunset, d(today)),
      ),
    ).toEqual(['TB_KW', 'TB_KW', 'TB_KW']);
  });
});

describe('parseLegacyAliases', () => {
  it('reads a list of LEGACY_KEY=PLATFORM_ID pairs, trimming spaces', () => {
    // Act / Assess
    expect(parseLegacyAliases(' TBLEGACY_KW = TB_KW , OLDHS_SA=HS_SA ')).toEqual(
      new Map([
        ['TBLEGACY_KW', 'TB_KW'],
        ['OLDHS_SA', 'HS_SA'],
      ]),
    );
  });

  it('accepts a platformId whose prefix has several parts', () => {
    // Act / Assess
    expect(parseLegacyAliases('legacy-key=FOOD_PANDA_SG')).toEqual(
      new Map([['legacy-key', 'FOOD_PANDA_SG']]),
    );
  });

  it.each(['', '   ', ',', ' , ,'])('gives no aliases for the blank list %j', (spec) => {
    // Act / Assess
    expect(parseLegacyAliases(spec)).toEqual(new Map());
  });

  it('ignores blank entries between pairs', () => {
    // Act / Assess
    expect(parseLegacyAliases(',TBLEGACY_KW=TB_KW,, ,')).toEqual(
      new Map([['TBLEGACY_KW', 'TB_KW']]),
    );
  });

  it.each([
    ['a pair without "="', 'TBLEGACY_KW'],
    ['a pair without legacy key', '=TB_KW'],
    ['a pair without platformId', 'TBLEGACY_KW='],
    ['a pair with two "="', 'TBLEGACY_KW=TB_KW=TB_AE'],
    ['a lower-case platformId', 'TBLEGACY_KW=tb_kw'],
    ['a platformId without country', 'TBLEGACY_KW=TB'],
    ['a platformId with a three-letter country', 'TBLEGACY_KW=TB_KWT'],
    ['a platformId with a digit', 'TBLEGACY_KW=TB1_KW'],
    ['a malformed pair after a valid one', 'OLDHS_SA=HS_SA,TBLEGACY_KW'],
  ])('refuses %s with a TypeError naming LEGACY_PLATFORM_KEYS', (_case, spec) => {
    // Act / Assess
    const act = () => parseLegacyAliases(spec);
    expect(act).toThrow(TypeError);
    expect(act).toThrow(/^LEGACY_PLATFORM_KEYS: /);
  });
});
