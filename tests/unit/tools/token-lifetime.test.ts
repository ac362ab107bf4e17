import { decodeJwt } from 'jose';
import { createIssuer } from '../../../tools/local/issuer';
import {
  CURL_TOKEN_SECONDS,
  describeSeconds,
  durationSeconds,
  localMaxAge,
  tokenCommandLifetime,
  tokenLifetime,
} from '../../../tools/local/token-lifetime';

describe("the local tokens' lifetime under JWT_MAX_AGE (tools/local/token-lifetime.ts)", () => {
  it.each([
    [{}, undefined],
    [{ JWT_MAX_AGE: ' ' }, undefined],
    [{ JWT_MAX_AGE: '60' }, 60],
    [{ JWT_MAX_AGE: '60', JWT_MAX_AGE_LOCAL: '30' }, 30],
    [{ JWT_MAX_AGE: '60', JWT_MAX_AGE_LOCAL_EU_WEST_1: '20', JWT_MAX_AGE_LOCAL: '30' }, 20],
    [{ JWT_MAX_AGE_EU_WEST_1: '45' }, 45],
    // Another stage's or region's: not what `npm start`'s functions read.
    [{ JWT_MAX_AGE_STAGING: '30', JWT_MAX_AGE_ME_CENTRAL_1: '30' }, undefined],
  ])('reads %j as the functions of npm start do: %s', (env, expected) => {
    // Act / Assess
    expect(localMaxAge(env)).toBe(expected);
  });

  it.each(['0', '1.5', '-1', 'an hour', '31536001'])(
    'refuses JWT_MAX_AGE=%s as the functions would, naming it',
    (value) => {
      // Act
      const read = localMaxAge({ JWT_MAX_AGE_LOCAL: value });

      // Assess
      expect(read).toEqual(
        new Error('JWT_MAX_AGE_LOCAL must be a whole number from 1 to 31536000'),
      );
    },
  );

  it.each([
    [CURL_TOKEN_SECONDS, undefined, { seconds: CURL_TOKEN_SECONDS, byMaxAge: false }],
    [CURL_TOKEN_SECONDS, 60, { seconds: 60, byMaxAge: true }],
    [CURL_TOKEN_SECONDS, CURL_TOKEN_SECONDS, { seconds: CURL_TOKEN_SECONDS, byMaxAge: false }],
    [CURL_TOKEN_SECONDS, 86_400, { seconds: CURL_TOKEN_SECONDS, byMaxAge: false }],
  ])('asked %i s under JWT_MAX_AGE %s: %j', (asked, maxAge, expected) => {
    // Act / Assess
    expect(tokenLifetime(asked, maxAge)).toEqual(expected);
  });

  it('signs a token whose exp is JWT_MAX_AGE after its iat, as long as the service accepts it', async () => {
    // Prepare
    const issuer = await createIssuer();
    const { seconds } = tokenLifetime(CURL_TOKEN_SECONDS, 60);

    // Act
    const { iat = 0, exp = 0 } = decodeJwt(
      await issuer.sign({ sub: 'owner-1' }, { expiresIn: `${seconds}s` }),
    );

    // Assess
    expect(exp - iat).toBe(60);
  });

  it.each([
    [undefined, undefined, { seconds: 3600, notice: undefined }],
    [undefined, 60, { seconds: 60, notice: 'valid 60 s (JWT_MAX_AGE)' }],
    [undefined, 7200, { seconds: 3600, notice: undefined }],
    [900, undefined, { seconds: 900, notice: undefined }],
    [900, 900, { seconds: 900, notice: undefined }],
    [
      900,
      60,
      {
        seconds: 900,
        notice: 'refused 60 s after it is signed (JWT_MAX_AGE), before its exp',
      },
    ],
  ])('npm run token, --expires-in %s s under JWT_MAX_AGE %s: %j', (asked, maxAge, expected) => {
    // Act / Assess
    expect(tokenCommandLifetime(asked, maxAge)).toEqual(expected);
  });

  it.each([
    ['90s', 90],
    ['15m', 900],
    ['1h', 3600],
    ['7d', 604_800],
    ['1x', undefined],
    ['h', undefined],
    ['1.5h', undefined],
  ])('reads the duration %s as %s s', (text, seconds) => {
    // Act / Assess
    expect(durationSeconds(text)).toBe(seconds);
  });

  it.each([
    [1, '1 s'],
    [60, '60 s'],
    [90, '90 s'],
    [120, '2 min'],
    [5400, '90 min'],
    [3600, '1 h'],
    [CURL_TOKEN_SECONDS, '12 h'],
  ])('says %i s as %s', (seconds, said) => {
    // Act / Assess
    expect(describeSeconds(seconds)).toBe(said);
  });
});
