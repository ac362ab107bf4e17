import {
  apiKeyInvalid,
  generateApiKey,
  hashApiKey,
  hashesMatch,
  matchesAny,
} from '../../../../shared/plugins/api-keys';

/** FIPS 180-2 test vector: SHA-256("abc"). */
const ABC_SHA256 = 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad';

describe('hashApiKey', () => {
  it('is the SHA-256 of the key, as 64 lowercase hex digits', () => {
    // Act / Assess
    expect(hashApiKey('abc')).toBe(ABC_SHA256);
  });

  it('hashes the UTF-8 bytes of the key, not Latin-1', () => {
    // Act
    const hash = hashApiKey('clé');

    // Assess (printf 'clé' | sha256sum, in a UTF-8 shell)
    expect(hash).toBe('51cbcf30514d0802eb5c60a018f384ea3fb9b69307c554ee63ecb43177594de4');
  });
});

describe('hashesMatch: a constant-time comparison of two hashes', () => {
  it('matches equal hashes', () => {
    expect(hashesMatch(ABC_SHA256, hashApiKey('abc'))).toBe(true);
  });

  it.each([
    ['another hash', hashApiKey('abd')],
    ['the hash in upper case', ABC_SHA256.toUpperCase()],
    ['a truncated hash', ABC_SHA256.slice(0, 63)],
    ['a longer value', `${ABC_SHA256}00`],
    ['an empty value', ''],
    ['non-hex digits', `${ABC_SHA256.slice(0, 63)}g`],
  ])('does not match %s (and never throws)', (_name, stored) => {
    expect(hashesMatch(ABC_SHA256, stored)).toBe(false);
    expect(hashesMatch(stored, ABC_SHA256)).toBe(false);
  });
});

describe('matchesAny', () => {
  it('finds the hash wherever it is among the stored ones', () => {
    // Prepare
    const stored = ['one', 'two', 'three'].map(hashApiKey);

    expect(stored.map((hash) => matchesAny(hash, stored))).toEqual([true, true, true]);
  });

  it('does not match an unknown hash or an empty list', () => {
    expect(matchesAny(hashApiKey('four'), ['one', 'two'].map(hashApiKey))).toBe(false);
    expect(matchesAny(hashApiKey('four'), [])).toBe(false);
  });
});

describe('generateApiKey', () => {
  it('makes a recognisable 256-bit base64url key, different every time', () => {
    // Act / Assess
    const keys = Array.from({ length: 50 }, generateApiKey);
    for (const key of keys) expect(key).toMatch(/^ppk_[A-Za-z0-9_-]{43}$/);
    expect(new Set(keys).size).toBe(50);
  });
});

describe('apiKeyInvalid', () => {
  it('is 401 TOKEN_INVALID with the spec text and an ApiKey challenge', () => {
    // Act / Assess
    const error = apiKeyInvalid();
    expect({ status: error.statusCode, headers: error.headers, body: error.toBody() }).toEqual({
      status: 401,
      headers: { 'WWW-Authenticate': 'ApiKey header="x-api-key"' },
      body: {
        state: 'ERROR',
        code: 'TOKEN_INVALID',
        message: 'The provided token cannot be verified',
      },
    });
  });
});
