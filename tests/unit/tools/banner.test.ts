import { banner, type BannerFacts } from '../../../tools/local/banner';

const FACTS: BannerFacts = {
  url: 'http://localhost:3000',
  database: 'embedded',
  seeded: false,
  keySetUrl: 'http://127.0.0.1:40000/v2/jwks.json',
  localIssuer: true,
  logLevel: 'warn',
  verbose: false,
  token: 'header.payload.signature',
  tokenLifetime: { seconds: 12 * 3600, byMaxAge: false },
  sampleUrl: 'http://localhost:3000/v1/restaurants/R-1001/reports/orders/day?from=a&to=b',
  probeStatus: 200,
  previewUrl: 'http://localhost:3001/',
};

describe("npm start's banner (tools/local/banner.ts)", () => {
  it('says where everything runs, gives the first request as a curl and ends with the preview', () => {
    // Act / Assess
    expect(banner(FACTS)).toBe(
      [
        'portal-service-api is up at http://localhost:3000',
        '  database: embedded PGlite with the sample data',
        '  key set:  http://127.0.0.1:40000/v2/jwks.json (local issuer)',
        '  logs:     warnings and errors (routes and every request: npm start -- --verbose)',
        '',
        'First request (answered 200; token valid 12 h):',
        '',
        "curl -s -H 'Authorization: Bearer header.payload.signature' \\",
        "  'http://localhost:3000/v1/restaurants/R-1001/reports/orders/day?from=a&to=b'",
        '',
        'More tokens: npm run token -- --help',
        '',
        'Portal preview: http://localhost:3001/ (docs/preview.md)',
        '',
      ].join('\n'),
    );
  });

  it('names DATABASE_URL and JWKS_URL when they are in use, and a 401 for what it is', () => {
    // Act
    const text = banner({
      ...FACTS,
      database: 'DATABASE_URL',
      seeded: true,
      keySetUrl: 'https://auth.example.com/v2/jwks.json',
      localIssuer: false,
      probeStatus: 401,
    });

    // Assess
    expect(text).toContain('  database: DATABASE_URL, reseeded with the sample data\n');
    expect(text).toContain('  key set:  https://auth.example.com/v2/jwks.json (JWKS_URL)\n');
    expect(text).toContain(
      'First request (answered 401: the key set of JWKS_URL does not know the local token):\n',
    );
  });

  it.each([
    [60, '60 s'],
    [90, '90 s'],
    [900, '15 min'],
    [7200, '2 h'],
  ])(
    'gives the token the lifetime JWT_MAX_AGE=%i leaves it (%s), and where to get another',
    (seconds, said) => {
      // Act
      const text = banner({ ...FACTS, tokenLifetime: { seconds, byMaxAge: true } });

      // Assess
      expect(text).toContain(
        `First request (answered 200; token valid ${said} per JWT_MAX_AGE; npm run token for another):\n`,
      );
    },
  );

  it('says what it logs when verbose', () => {
    // Act / Assess
    expect(banner({ ...FACTS, verbose: true, logLevel: 'debug' })).toContain(
      "  logs:     routes, every request, the functions' lines from debug up\n",
    );
  });
});
