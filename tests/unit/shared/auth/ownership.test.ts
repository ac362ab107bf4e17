import type { RestaurantGrant } from '../../../../shared/auth/claims';
import { authorize, type OwnershipRules } from '../../../../shared/auth/ownership';
import type { IsoDate } from '../../../../shared/dates';
import { claimsOf, grant } from '../../../support/claims';
import { portalErrorOf } from '../../../support/portal-errors';

const d = (value: string) => value as IsoDate;

const LEGACY_KEY = 'TBLEGACY_KW';

const rulesOn = (today: string): OwnershipRules => ({
  legacy: { aliases: new Map([[LEGACY_KEY, 'TB_KW']]), sunset: d('2026-06-30') },
  today: () => d(today),
});

const RULES = rulesOn('2026-06-01');

/** The caller: one restaurant on two platforms, one behind the legacy platform. */
const CALLER: readonly RestaurantGrant[] = [
  grant('R-1001', [
    ['TB_AE', 'tb-ae-5501'],
    ['HS_AE', 'hs-ae-7702'],
  ]),
  grant('R-2002', [['TB_KW', 'tb-kw-3301']]),
];

/** Another owner, who sells on the caller's platforms too. */
const OTHER_OWNER: readonly RestaurantGrant[] = [
  grant('R-3003', [
    ['TB_AE', 'tb-ae-9901'],
    ['FD_DE', 'fd-de-1201'],
  ]),
  grant('R-4004', [['TB_KW', 'tb-kw-8801']]),
];

const FORBIDDEN_BODY = { state: 'ERROR', code: 'FORBIDDEN', message: 'Forbidden' };

const expectForbidden = (act: () => unknown) => {
  const error = portalErrorOf(act);
  expect(error.statusCode).toBe(403);
  expect(error.toBody()).toEqual(FORBIDDEN_BODY);
};

/** The caller's request for `restaurantId`, sending `platformsSent`, under `rules`. */
const callerAsks = (restaurantId: string, platformsSent: readonly string[], rules = RULES) =>
  authorize(claimsOf(CALLER), { restaurantId, platformsSent }, rules);

const accessTo = (restaurantId: string, platformId: string, platformRestaurantId: string) => ({
  restaurantId,
  platformId,
  platformRestaurantId,
});

describe('authorize', () => {
  it('allows a restaurant named by its brand id on one of its platforms', () => {
    // Act
    const access = callerAsks('R-1001', ['TB_AE']);

    // Assess
    expect(access).toEqual(accessTo('R-1001', 'TB_AE', 'tb-ae-5501'));
  });

  it('allows a restaurant named by its restaurantId on that platform', () => {
    // Act
    const access = callerAsks('hs-ae-7702', ['HS_AE']);

    // Assess
    expect(access).toEqual(accessTo('R-1001', 'HS_AE', 'hs-ae-7702'));
  });

  it("refuses another owner's restaurant on a platform the caller also sells on", () => {
    // Act, Assess
    expectForbidden(() => callerAsks('R-3003', ['TB_AE']));
    expectForbidden(() => callerAsks('tb-ae-9901', ['TB_AE']));
  });

  it("refuses the caller's own restaurant on a platform that restaurant is not on", () => {
    // Act, Assess
    expectForbidden(() => callerAsks('R-2002', ['TB_AE']));
  });

  it('refuses a restaurantId of another platform even when the caller is on the platform sent', () => {
    // Act, Assess
    expectForbidden(() => callerAsks('hs-ae-7702', ['TB_AE']));
  });

  it('takes the first platform of the first restaurant when no platform is sent', () => {
    // Act
    const access = callerAsks('R-1001', []);

    // Assess
    expect(access).toEqual(accessTo('R-1001', 'TB_AE', 'tb-ae-5501'));
  });

  it('reaches the second platform of a restaurant only when it is sent explicitly', () => {
    // Act
    const explicit = callerAsks('hs-ae-7702', ['HS_AE']);

    // Assess
    expect(explicit.platformId).toBe('HS_AE');
    expectForbidden(() => callerAsks('hs-ae-7702', []));
  });

  it('refuses the second restaurant when no platform is sent and it is not on the first platform', () => {
    // Act, Assess
    expectForbidden(() => callerAsks('R-2002', []));
  });

  it.each([
    ['header and path disagree', ['TB_AE', 'HS_AE']],
    ['a repeated header with two values', ['HS_AE', 'TB_AE']],
    ['an owned and an unknown platform', ['TB_AE', 'XX_AE']],
    ['an owned platform and an empty value', ['TB_AE', '']],
  ])('refuses two different platforms sent (%s)', (_case, platformsSent) => {
    // Act, Assess
    expectForbidden(() => callerAsks('R-1001', platformsSent));
  });

  it('accepts the same platform sent twice', () => {
    // Act
    const access = callerAsks('R-1001', ['HS_AE', 'HS_AE']);

    // Assess
    expect(access).toEqual(accessTo('R-1001', 'HS_AE', 'hs-ae-7702'));
  });

  it.each(['2026-06-01', '2026-06-30'])(
    'accepts the legacy key as its platformId on %s, up to the sunset day',
    (today) => {
      // Act
      const access = callerAsks('R-2002', [LEGACY_KEY], rulesOn(today));

      // Assess
      expect(access).toEqual(accessTo('R-2002', 'TB_KW', 'tb-kw-3301'));
    },
  );

  it('refuses the legacy key after its sunset, while the current platformId still works', () => {
    // Prepare
    const afterSunset = rulesOn('2026-07-01');

    // Act
    const current = callerAsks('R-2002', ['TB_KW'], afterSunset);

    // Assess
    expect(current.platformId).toBe('TB_KW');
    expectForbidden(() => callerAsks('R-2002', [LEGACY_KEY], afterSunset));
  });

  it.each(['XX_AE', 'tb_ae', 'TB_AE ', ''])('refuses the unknown platform %j', (platform) => {
    // Act, Assess
    expectForbidden(() => callerAsks('R-1001', [platform]));
  });

  it.each([[[]], [['TB_AE']]])(
    'refuses every request of a token granting no restaurants (platforms sent: %j)',
    (platformsSent) => {
      // Act, Assess
      expectForbidden(() =>
        authorize(claimsOf([]), { restaurantId: 'R-1001', platformsSent }, RULES),
      );
    },
  );

  it('refuses when the first restaurant of the token has no platforms and none is sent', () => {
    // Act, Assess
    expectForbidden(() =>
      authorize(
        claimsOf([grant('R-1', []), ...CALLER]),
        { restaurantId: 'R-1001', platformsSent: [] },
        RULES,
      ),
    );
  });

  it("prefers a restaurant's brand id over another restaurant's platform restaurantId", () => {
    // Prepare: R-B's restaurantId on TB_AE happens to equal R-A's brand id.
    const claims = claimsOf([
      grant('R-B', [['TB_AE', 'R-A']]),
      grant('R-A', [['TB_AE', 'tb-ae-1111']]),
    ]);

    // Act
    const access = authorize(claims, { restaurantId: 'R-A', platformsSent: ['TB_AE'] }, RULES);

    // Assess
    expect(access).toEqual(accessTo('R-A', 'TB_AE', 'tb-ae-1111'));
  });

  it('asks for today only to resolve a legacy key', () => {
    // Prepare
    let asked = 0;
    const rules: OwnershipRules = {
      legacy: RULES.legacy,
      today: () => {
        asked += 1;
        return d('2026-06-01');
      },
    };

    const askedFor = (restaurantId: string, platformsSent: string[]) => {
      asked = 0;
      authorize(claimsOf(CALLER), { restaurantId, platformsSent }, rules);
      return asked;
    };

    // Act
    const counts = [
      askedFor('R-1001', []),
      askedFor('R-1001', ['TB_AE']),
      askedFor('R-2002', ['TB_KW', 'TB_KW']),
      askedFor('R-2002', [LEGACY_KEY]),
      askedFor('R-2002', [LEGACY_KEY, 'TB_KW', LEGACY_KEY]),
    ];

    // Assess: once per request at most, and only when a legacy key was sent
    expect(counts).toEqual([0, 0, 0, 1, 1]);
  });

  describe('over every restaurant and platform of two owners', () => {
    const owners = [
      { owner: 'caller', grants: CALLER },
      { owner: 'other owner', grants: OTHER_OWNER },
    ];
    const everyone = [...CALLER, ...OTHER_OWNER];
    const ids = [
      ...new Set(everyone.flatMap((r) => [r.id, ...r.platforms.map((p) => p.restaurantId)])),
    ];
    const platforms = [...new Set(everyone.flatMap((r) => r.platforms.map((p) => p.platformId)))];

    /** The rule, stated independently: a restaurant of the token on P, named by its own id or its id on P. */
    const ownedBy = (grants: readonly RestaurantGrant[], id: string, platform: string) =>
      grants.find((restaurant) =>
        restaurant.platforms.some(
          (p) => p.platformId === platform && (restaurant.id === id || p.restaurantId === id),
        ),
      );

    const cases = owners.flatMap(({ owner, grants }) =>
      ids.flatMap((id) =>
        platforms.map((platform) => ({
          owner,
          grants,
          id,
          platform,
          restaurant: ownedBy(grants, id, platform),
        })),
      ),
    );
    const allowed = cases.filter(({ restaurant }) => restaurant !== undefined);
    const refused = cases.filter(({ restaurant }) => restaurant === undefined);

    it('covers every combination, allowed and refused', () => {
      // Assess
      expect(cases).toHaveLength(owners.length * ids.length * platforms.length);
      expect(allowed).toHaveLength(12);
      expect(refused).toHaveLength(cases.length - 12);
    });

    it.each(allowed)(
      'allows the $owner $id on $platform',
      ({ grants, id, platform, restaurant }) => {
        // Prepare
        const onPlatform = restaurant!.platforms.find((p) => p.platformId === platform)!;

        // Act
        const access = authorize(
          claimsOf(grants),
          { restaurantId: id, platformsSent: [platform] },
          RULES,
        );

        // Assess
        expect(access).toEqual({
          restaurantId: restaurant!.id,
          platformId: platform,
          platformRestaurantId: onPlatform.restaurantId,
        });
      },
    );

    it.each(refused)('refuses the $owner $id on $platform', ({ grants, id, platform }) => {
      // Act, Assess
      expectForbidden(() =>
        authorize(claimsOf(grants), { restaurantId: id, platformsSent: [platform] }, RULES),
      );
    });
  });
});

describe('a legacy key sent beside the platformId it stands for', () => {
  it('names one platform, not two', () => {
    const claims = {
      exp: 0,
      restaurants: [
        {
          id: 'R-9',
          platforms: [{ restaurantId: 'kw-9', platformId: 'TB_KW', platformKey: 'OLD_KW' }],
        },
      ],
    };
    const rules = {
      legacy: { aliases: new Map([['OLD_KW', 'TB_KW']]) },
      today: () => '2026-01-01' as IsoDate,
    };

    const access = authorize(
      claims,
      { restaurantId: 'R-9', platformsSent: ['OLD_KW', 'TB_KW'] },
      rules,
    );

    expect(access).toEqual(accessTo('R-9', 'TB_KW', 'kw-9'));
  });
});
