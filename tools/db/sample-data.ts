/**
 * The sample brand of the local stack: owners, their restaurants in several time zones and
 * currencies (one with a 3-decimal currency, one on two platforms, one behind the legacy
 * platform key), and the claims a token for each owner carries.
 */

export interface SamplePlatform {
  readonly platformId: string;
  readonly platformKey: string;
  readonly restaurantId: string;
}

export interface SampleRestaurant {
  readonly id: string;
  readonly name: string;
  readonly timeZone: string;
  readonly currency: string;
  readonly platforms: readonly SamplePlatform[];
  /** Share of days with no orders at all. */
  readonly quietDays: number;
  readonly menu: readonly (readonly [dish: string, price: number])[];
}

export interface SampleOwner {
  readonly sub: string;
  readonly name: string;
  readonly email: string;
  readonly country: string;
  readonly restaurants: readonly SampleRestaurant[];
}

/** The legacy platformKey of spec 2.3 in the sample data, and the platformId it stands for. */
export const SAMPLE_LEGACY_KEY = 'TBLEGACY_KW';
export const SAMPLE_LEGACY_PLATFORM = 'TB_KW';

export const CURRENCIES: readonly (readonly [code: string, minorUnits: number])[] = [
  ['AED', 2],
  ['KWD', 3],
  ['EUR', 2],
  ['MXN', 2],
  ['SGD', 2],
];

export const SAMPLE_OWNERS: readonly SampleOwner[] = [
  {
    sub: 'owner-1',
    name: 'Sample Owner',
    email: 'owner-1@example.com',
    country: 'AE',
    restaurants: [
      {
        id: 'R-1001',
        name: 'Falafel Corner Dubai Marina',
        timeZone: 'Asia/Dubai',
        currency: 'AED',
        platforms: [
          { platformId: 'TB_AE', platformKey: 'TB_AE', restaurantId: 'tb-ae-5501' },
          { platformId: 'HS_AE', platformKey: 'HS_AE', restaurantId: 'hs-ae-7702' },
        ],
        quietDays: 0.05,
        menu: [
          ['Falafel Wrap', 18.5],
          ['Hummus Bowl', 24],
          ['Shawarma Plate', 32.75],
          ['Fresh Lemon Mint', 12],
          ['Kunafa', 21.25],
        ],
      },
      {
        id: 'R-1002',
        name: 'Falafel Corner Salmiya',
        timeZone: 'Asia/Kuwait',
        currency: 'KWD',
        platforms: [
          {
            platformId: SAMPLE_LEGACY_PLATFORM,
            platformKey: SAMPLE_LEGACY_KEY,
            restaurantId: 'tb-kw-3301',
          },
        ],
        quietDays: 0.15,
        menu: [
          ['Falafel Wrap', 1.25],
          ['Mixed Grill', 4.875],
          ['Lentil Soup', 0.95],
          ['Tabbouleh', 1.1],
        ],
      },
    ],
  },
  {
    sub: 'owner-2',
    name: 'Second Owner',
    email: 'owner-2@example.com',
    country: 'DE',
    restaurants: [
      {
        id: 'R-2001',
        name: 'Currywurst Kreuzberg',
        timeZone: 'Europe/Berlin',
        currency: 'EUR',
        platforms: [{ platformId: 'FD_DE', platformKey: 'FD_DE', restaurantId: 'fd-de-1201' }],
        quietDays: 0.2,
        menu: [
          ['Currywurst', 4.9],
          ['Pommes', 3.2],
          ['"Spezial" Teller, groß', 12.5],
          ['Apfelschorle', 2.8],
        ],
      },
    ],
  },
  {
    sub: 'owner-3',
    name: 'Third Owner',
    email: 'owner-3@example.com',
    country: 'MX',
    restaurants: [
      {
        id: 'R-3001',
        name: 'Taquería Roma Norte',
        timeZone: 'America/Mexico_City',
        currency: 'MXN',
        platforms: [{ platformId: 'PY_MX', platformKey: 'PY_MX', restaurantId: 'py-mx-9001' }],
        quietDays: 0.1,
        menu: [
          ['Tacos al Pastor', 89],
          ['Quesadilla', 75.5],
          ['Agua de Horchata', 35],
        ],
      },
      {
        id: 'R-3002',
        name: 'Hawker Stall Tanjong Pagar',
        timeZone: 'Asia/Singapore',
        currency: 'SGD',
        platforms: [{ platformId: 'FP_SG', platformKey: 'FP_SG', restaurantId: 'fp-sg-4401' }],
        quietDays: 0.1,
        menu: [
          ['Chicken Rice', 5.5],
          ['Laksa', 7.2],
          ['Kopi', 1.8],
        ],
      },
    ],
  },
];

export const SAMPLE_OWNER = SAMPLE_OWNERS[0] as SampleOwner;

/** The claims of spec 2.2 a portal token for `owner` carries (authSchema as a JSON string). */
export const claimsFor = (owner: SampleOwner): Record<string, unknown> => ({
  sub: owner.sub,
  country: owner.country,
  version: '1',
  user: {
    locale: 'en_US',
    name: owner.name,
    email: owner.email,
    userId: owner.sub,
    operatorCode: 'local',
  },
  authSchema: JSON.stringify({
    restaurants: owner.restaurants.map(({ id, platforms }) => ({
      id,
      platforms: platforms.map(({ restaurantId, platformId, platformKey }) => ({
        restaurantId,
        platformId,
        platformKey,
      })),
    })),
  }),
});
