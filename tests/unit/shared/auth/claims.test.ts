import type { JWTPayload } from 'jose';
import { parseClaims } from '../../../../shared/auth/claims';
import { claimsOf, grant } from '../../../support/claims';
import { portalErrorOf } from '../../../support/portal-errors';

const EXP = 1_767_225_900;

/** An auth schema as the portal sends it (spec 2.2), built fresh for each test. */
const authSchema = () => ({
  restaurants: [
    {
      id: 'R-1001',
      platforms: [
        { restaurantId: 'tb-ae-5501', platformId: 'TB_AE', platformKey: 'TB_AE' },
        { restaurantId: 'hs-ae-7702', platformId: 'HS_AE' },
      ],
    },
    {
      id: 'R-2002',
      platforms: [{ restaurantId: 'tb-kw-3301', platformId: 'TB_KW', platformKey: 'TBLEGACY_KW' }],
    },
  ],
});

/** A verified payload with every claim of spec 2.2. */
const payload = (overrides: JWTPayload = {}): JWTPayload => ({
  country: 'AE',
  user: {
    locale: 'en',
    name: 'Sample Owner',
    email: 'owner-1@example.com',
    userId: 'u-1',
    operatorCode: 'op-1',
  },
  version: '2',
  authSchema: authSchema(),
  iat: EXP - 300,
  exp: EXP,
  iss: 'https://auth.portal.example.com',
  sub: 'owner-1',
  ...overrides,
});

const EXPECTED = claimsOf(
  [
    grant('R-1001', [
      ['TB_AE', 'tb-ae-5501'],
      ['HS_AE', 'hs-ae-7702'],
    ]),
    grant('R-2002', [['TB_KW', 'tb-kw-3301', 'TBLEGACY_KW']]),
  ],
  EXP,
);

/** An auth schema with one restaurant whose parts the test replaces. */
const schemaWith = (restaurant: unknown) => ({ restaurants: [restaurant] });

describe('parseClaims', () => {
  it('reads the restaurants and their platforms from an auth schema object', () => {
    // Act
    const claims = parseClaims(payload());

    // Assess
    expect(claims).toEqual(EXPECTED);
  });

  it('reads the same claims from an auth schema sent as a JSON string', () => {
    // Prepare
    const encoded = payload({ authSchema: JSON.stringify(authSchema()) });

    // Act
    const claims = parseClaims(encoded);

    // Assess
    expect(claims).toEqual(parseClaims(payload()));
    expect(claims).toEqual(EXPECTED);
  });

  it('defaults a missing platformKey to the platformId', () => {
    // Prepare
    const token = payload({
      authSchema: schemaWith({
        id: 'R-1',
        platforms: [{ restaurantId: 'r-1', platformId: 'FD_DE' }],
      }),
    });

    // Act
    const claims = parseClaims(token);

    // Assess
    expect(claims.restaurants).toEqual([
      {
        id: 'R-1',
        platforms: [{ restaurantId: 'r-1', platformId: 'FD_DE', platformKey: 'FD_DE' }],
      },
    ]);
  });

  it('keeps no user details (name, email) in the claims', () => {
    // Act
    const claims = parseClaims(payload());

    // Assess
    expect(Object.keys(claims).sort()).toEqual(['exp', 'restaurants', 'sub']);
    const text = JSON.stringify(claims);
    expect(text).not.toContain('Sample Owner');
    expect(text).not.toContain('owner-1@example.com');
  });

  it('copies only the fields it knows from restaurants and platforms', () => {
    // Prepare
    const token = payload({
      authSchema: schemaWith({
        id: 'R-1',
        name: 'Falafel Corner',
        platforms: [{ restaurantId: 'r-1', platformId: 'FD_DE', email: 'x@example.com' }],
      }),
    });

    // Act
    const claims = parseClaims(token);

    // Assess
    expect(claims.restaurants).toStrictEqual([
      {
        id: 'R-1',
        platforms: [{ restaurantId: 'r-1', platformId: 'FD_DE', platformKey: 'FD_DE' }],
      },
    ]);
  });

  it('leaves out sub when the token has none', () => {
    // Prepare
    const { sub: _sub, ...withoutSub } = payload();

    // Act
    const claims = parseClaims(withoutSub);

    // Assess
    expect(claims).toEqual({ exp: EXP, restaurants: EXPECTED.restaurants });
    expect(claims).not.toHaveProperty('sub');
  });

  it('accepts a token granting no restaurants (ownership refuses it later)', () => {
    // Act
    const claims = parseClaims(payload({ authSchema: { restaurants: [] } }));

    // Assess
    expect(claims).toEqual({ sub: 'owner-1', exp: EXP, restaurants: [] });
  });

  it('accepts an auth schema string of exactly 64 KiB', () => {
    // Prepare
    const json = JSON.stringify(authSchema());
    const encoded = json + ' '.repeat(64 * 1024 - json.length);

    // Act
    const claims = parseClaims(payload({ authSchema: encoded }));

    // Assess
    expect(encoded).toHaveLength(65_536);
    expect(claims).toEqual(EXPECTED);
  });

  const MALFORMED: readonly (readonly [string, JWTPayload])[] = [
    ['authSchema is missing', { authSchema: undefined }],
    ['authSchema is the unreadable JSON "{"', { authSchema: '{' }],
    ['authSchema is the JSON "null"', { authSchema: 'null' }],
    ['authSchema is the JSON "[]"', { authSchema: '[]' }],
    ['authSchema is the JSON string of a string', { authSchema: '"restaurants"' }],
    ['authSchema is the number 42', { authSchema: 42 }],
    ['authSchema is an array', { authSchema: [] }],
    ['authSchema is null', { authSchema: null }],
    ['authSchema has no restaurants', { authSchema: {} }],
    ['restaurants is not an array', { authSchema: { restaurants: { id: 'R-1' } } }],
    ['restaurants is a JSON-encoded array', { authSchema: { restaurants: '[]' } }],
    ['a restaurant is not an object', { authSchema: { restaurants: ['R-1'] } }],
    ['a restaurant has no id', { authSchema: schemaWith({ platforms: [] }) }],
    ['a restaurant id is empty', { authSchema: schemaWith({ id: '', platforms: [] }) }],
    ['a restaurant id is a number', { authSchema: schemaWith({ id: 1001, platforms: [] }) }],
    ['platforms is not an array', { authSchema: schemaWith({ id: 'R-1', platforms: {} }) }],
    ['platforms is missing', { authSchema: schemaWith({ id: 'R-1' }) }],
    [
      'a platform has no platformId',
      { authSchema: schemaWith({ id: 'R-1', platforms: [{ restaurantId: 'r-1' }] }) },
    ],
    [
      'a platform has an empty platformId',
      {
        authSchema: schemaWith({ id: 'R-1', platforms: [{ restaurantId: 'r-1', platformId: '' }] }),
      },
    ],
    [
      'a platform has no restaurantId',
      { authSchema: schemaWith({ id: 'R-1', platforms: [{ platformId: 'TB_AE' }] }) },
    ],
    [
      'a platform has a non-string platformKey',
      {
        authSchema: schemaWith({
          id: 'R-1',
          platforms: [{ restaurantId: 'r-1', platformId: 'TB_AE', platformKey: 7 }],
        }),
      },
    ],
    [
      'a platform has a null platformKey',
      {
        authSchema: schemaWith({
          id: 'R-1',
          platforms: [{ restaurantId: 'r-1', platformId: 'TB_AE', platformKey: null }],
        }),
      },
    ],
    [
      'one bad platform among good ones',
      {
        authSchema: schemaWith({
          id: 'R-1',
          platforms: [{ restaurantId: 'r-1', platformId: 'TB_AE' }, null],
        }),
      },
    ],
    [
      'the auth schema string is longer than 64 KiB',
      { authSchema: JSON.stringify(authSchema()).padEnd(64 * 1024 + 1, ' ') },
    ],
    ['exp is missing', { exp: undefined }],
    ['exp is not a number', { exp: '1767225900' as unknown as number }],
  ];

  it.each(MALFORMED)('refuses a token whose %s as 401 TOKEN_INVALID', (_case, overrides) => {
    // Prepare
    const token = payload(overrides);

    // Act
    const error = portalErrorOf(() => parseClaims(token));

    // Assess
    expect(error.statusCode).toBe(401);
    expect(error.toBody()).toEqual({
      state: 'ERROR',
      code: 'TOKEN_INVALID',
      message: 'The provided token cannot be verified',
    });
  });

  describe('__proto__ keys in the auth schema', () => {
    afterEach(() => {
      // Assess (every test): nothing leaked onto the prototype of all objects
      expect(Object.prototype).not.toHaveProperty('restaurants');
      expect(Object.prototype).not.toHaveProperty('id');
      expect(Object.prototype).not.toHaveProperty('platforms');
      expect(Object.prototype).not.toHaveProperty('platformId');
      expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    });

    it('do not grant restaurants hidden under __proto__ of the schema', () => {
      // Prepare
      const encoded = JSON.stringify({ restaurants: [] }).replace(
        /^\{/,
        '{"__proto__":{"restaurants":[{"id":"R-9","platforms":[{"restaurantId":"x","platformId":"TB_AE"}]}],"polluted":true},',
      );

      // Act
      const claims = parseClaims(payload({ authSchema: encoded }));

      // Assess
      expect(claims.restaurants).toEqual([]);
    });

    it('refuse a schema whose only restaurants are under __proto__', () => {
      // Prepare
      const encoded =
        '{"__proto__":{"restaurants":[{"id":"R-9","platforms":[{"restaurantId":"x","platformId":"TB_AE"}]}]}}';

      // Act
      const error = portalErrorOf(() => parseClaims(payload({ authSchema: encoded })));

      // Assess
      expect(error.toBody()).toEqual({
        state: 'ERROR',
        code: 'TOKEN_INVALID',
        message: 'The provided token cannot be verified',
      });
    });

    it('refuse a restaurant whose id and platforms are under __proto__', () => {
      // Prepare
      const encoded =
        '{"restaurants":[{"__proto__":{"id":"R-9","platforms":[{"restaurantId":"x","platformId":"TB_AE"}]}}]}';

      // Act
      const error = portalErrorOf(() => parseClaims(payload({ authSchema: encoded })));

      // Assess
      expect(error.code).toBe('TOKEN_INVALID');
    });

    it('refuse a platform whose platformId is under __proto__', () => {
      // Prepare
      const encoded =
        '{"restaurants":[{"id":"R-1","platforms":[{"restaurantId":"x","__proto__":{"platformId":"TB_AE"}}]}]}';

      // Act
      const error = portalErrorOf(() => parseClaims(payload({ authSchema: encoded })));

      // Assess
      expect(error.code).toBe('TOKEN_INVALID');
    });

    it('leave no __proto__ key in the claims they return', () => {
      // Prepare
      const encoded =
        '{"restaurants":[{"id":"R-1","__proto__":{"admin":true},"platforms":[{"restaurantId":"x","platformId":"TB_AE","__proto__":{"admin":true}}]}]}';

      // Act
      const claims = parseClaims(payload({ authSchema: encoded }));

      // Assess
      expect(claims.restaurants).toStrictEqual([
        {
          id: 'R-1',
          platforms: [{ restaurantId: 'x', platformId: 'TB_AE', platformKey: 'TB_AE' }],
        },
      ]);
      const [restaurant] = claims.restaurants;
      expect(Object.getPrototypeOf(restaurant)).toBe(Object.prototype);
      expect(Object.getPrototypeOf(restaurant?.platforms[0])).toBe(Object.prototype);
    });
  });
});
