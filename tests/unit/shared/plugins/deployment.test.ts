import fc from 'fast-check';
import { PortalError, type ValidationEntry } from '../../../../shared/errors';
import {
  bundleUrlProblem,
  MAX_BODY_BYTES,
  parseDeploymentRequest,
  type RawBody,
} from '../../../../shared/plugins/deployment';

const JSON_TYPE = ['application/json'];
const BUNDLE = 'https://cdn.example.com/eu/reports/main.js';

const raw = (body: string | null, extra: Partial<RawBody> = {}): RawBody => ({
  body,
  isBase64Encoded: false,
  contentTypes: JSON_TYPE,
  ...extra,
});

const json = (value: unknown): RawBody => raw(JSON.stringify(value));

/** The validation entries a refused body produces. */
const entriesOf = (body: RawBody): readonly ValidationEntry[] => {
  try {
    parseDeploymentRequest(body);
  } catch (error) {
    if (!(error instanceof PortalError) || error.code !== 'VALIDATION_ERROR') throw error;
    expect(error.statusCode).toBe(400);
    return error.entries ?? [];
  }
  throw new Error('expected a refusal');
};

const EMPTY = (field: string): ValidationEntry => ({
  field,
  code: 'FIELD_CANNOT_BE_EMPTY',
  message: `${field} cannot be empty`,
});
const invalid = (field: string, message: string): ValidationEntry => ({
  field,
  code: 'INVALID_VALUE',
  message,
});
const BAD_URL = invalid(
  'bundleUrl',
  'bundleUrl must be an absolute https URL (http only for localhost) of at most 2048 characters',
);
const BAD_CHARACTERS = invalid(
  'bundleUrl',
  'bundleUrl must contain only printable ASCII characters other than space, \' " ` < > and \\, and no ${ or HTML character reference (&#, &name; or &quot)',
);
const BAD_VERSION = invalid('portalVersion', 'portalVersion must be v1 or v2');
const NOT_AN_OBJECT = invalid('body', 'body must be a JSON object');
const NOT_JSON_TYPE = invalid('Content-Type', 'Content-Type must be application/json');

describe('parseDeploymentRequest: a valid body (spec 4.6)', () => {
  const PLACEHOLDER = 'https://cdn.example.com/eu/reports/{bundle}?v={bundle}';
  const V1 = JSON.stringify({ bundleUrl: BUNDLE, portalVersion: 'v1' });
  it.each<[string, RawBody, object]>([
    ['bundleUrl and portalVersion v1', json({ bundleUrl: BUNDLE, portalVersion: 'v1' }), {}],
    [
      'bundleUrl and portalVersion v2',
      json({ bundleUrl: BUNDLE, portalVersion: 'v2' }),
      { portalVersion: 'v2' },
    ],
    [
      'a bundle placeholder exactly as sent, not percent-encoded',
      json({ bundleUrl: PLACEHOLDER, portalVersion: 'v1' }),
      { bundleUrl: PLACEHOLDER },
    ],
    [
      'a base64-encoded body',
      raw(Buffer.from(V1).toString('base64'), { isBase64Encoded: true }),
      {},
    ],
    ...[
      'application/json',
      'Application/JSON',
      'application/json; charset=utf-8',
      'application/json;charset="UTF-8"',
    ].map((type): [string, RawBody, object] => [
      `Content-Type ${type}`,
      raw(V1, { contentTypes: [type] }),
      {},
    ]),
    [
      'a body with fields it does not know, ignoring them',
      json({ bundleUrl: BUNDLE, portalVersion: 'v1', region: 'eu', apiKey: 'x' }),
      {},
    ],
  ])('reads %s', (_case, body, changes) => {
    // Act / Assess
    expect(parseDeploymentRequest(body)).toEqual({
      bundleUrl: BUNDLE,
      portalVersion: 'v1',
      ...changes,
    });
  });

  it(`accepts a body of exactly ${MAX_BODY_BYTES} bytes`, () => {
    // Prepare
    const base = JSON.stringify({ bundleUrl: BUNDLE, portalVersion: 'v1', pad: '' });
    const body = base.replace('"pad":""', `"pad":"${'x'.repeat(MAX_BODY_BYTES - base.length)}"`);

    // Act / Assess
    const parsed = parseDeploymentRequest(raw(body));
    expect(Buffer.byteLength(body)).toBe(MAX_BODY_BYTES);
    expect(parsed).toEqual({ bundleUrl: BUNDLE, portalVersion: 'v1' });
  });
});

describe('parseDeploymentRequest: missing, empty or wrong fields are 400 VALIDATION_ERROR', () => {
  it.each<[string, RawBody, readonly ValidationEntry[]]>([
    ['no body', raw(null), [EMPTY('bundleUrl'), EMPTY('portalVersion')]],
    ['an empty body', raw(''), [EMPTY('bundleUrl'), EMPTY('portalVersion')]],
    ['an empty object', json({}), [EMPTY('bundleUrl'), EMPTY('portalVersion')]],
    ['no bundleUrl', json({ portalVersion: 'v2' }), [EMPTY('bundleUrl')]],
    ['an empty bundleUrl', json({ bundleUrl: ' ', portalVersion: 'v2' }), [EMPTY('bundleUrl')]],
    ['a null bundleUrl', json({ bundleUrl: null, portalVersion: 'v2' }), [EMPTY('bundleUrl')]],
    ['no portalVersion', json({ bundleUrl: BUNDLE }), [EMPTY('portalVersion')]],
    [
      'an empty portalVersion',
      json({ bundleUrl: BUNDLE, portalVersion: '' }),
      [EMPTY('portalVersion')],
    ],
    ['a number as bundleUrl', json({ bundleUrl: 42, portalVersion: 'v1' }), [BAD_URL]],
    [
      'an object as bundleUrl',
      json({ bundleUrl: { href: BUNDLE }, portalVersion: 'v1' }),
      [BAD_URL],
    ],
    ['portalVersion v3', json({ bundleUrl: BUNDLE, portalVersion: 'v3' }), [BAD_VERSION]],
    ['portalVersion V2', json({ bundleUrl: BUNDLE, portalVersion: 'V2' }), [BAD_VERSION]],
    ['portalVersion 2', json({ bundleUrl: BUNDLE, portalVersion: 2 }), [BAD_VERSION]],
    ['portalVersion as a list', json({ bundleUrl: BUNDLE, portalVersion: ['v2'] }), [BAD_VERSION]],
    ['both wrong', json({ bundleUrl: 'ftp://x', portalVersion: true }), [BAD_URL, BAD_VERSION]],
    [
      'a bundleUrl that would close a single-quoted attribute',
      json({ bundleUrl: "https://cdn.example.com/a.js'onload='x", portalVersion: 'v1' }),
      [BAD_CHARACTERS],
    ],
    [
      'an http bundleUrl whose host is 127.0.0.1 only once normalised',
      json({ bundleUrl: 'http://127.1/a.js', portalVersion: 'v1' }),
      [BAD_URL],
    ],
    [
      'a bad bundleUrl character and a bad portalVersion',
      json({ bundleUrl: 'https://cdn.example.com/a b.js', portalVersion: 'v3' }),
      [BAD_CHARACTERS, BAD_VERSION],
    ],
  ])('refuses %s', (_name, body, expected) => {
    expect(entriesOf(body)).toEqual(expected);
  });

  it.each<[string, RawBody]>([
    ['malformed JSON', raw('{"bundleUrl": ')],
    ['a JSON array', json([{ bundleUrl: BUNDLE, portalVersion: 'v1' }])],
    ['a JSON string', json('v2')],
    ['JSON null', raw('null')],
    ['form encoding', raw(`bundleUrl=${BUNDLE}&portalVersion=v1`)],
    [
      'base64 that is not UTF-8',
      raw(Buffer.from([0xff, 0xfe, 0x7b]).toString('base64'), { isBase64Encoded: true }),
    ],
    ['a base64 body read as text', raw(Buffer.from('{}').toString('base64'))],
  ])('refuses %s as not a JSON object', (_name, body) => {
    expect(entriesOf(body)).toEqual([NOT_AN_OBJECT]);
  });

  it(`refuses a body of more than ${MAX_BODY_BYTES} bytes`, () => {
    // Prepare
    const body = json({
      bundleUrl: BUNDLE,
      portalVersion: 'v1',
      pad: 'é'.repeat(MAX_BODY_BYTES / 2),
    });

    expect(entriesOf(body)).toEqual([
      invalid('body', `body must be at most ${MAX_BODY_BYTES} bytes`),
    ]);
  });

  it.each<[string, readonly string[]]>([
    ['no Content-Type', []],
    ['text/plain', ['text/plain']],
    ['application/x-www-form-urlencoded', ['application/x-www-form-urlencoded']],
    ['application/jsonp', ['application/jsonp']],
    ['a non-UTF-8 charset', ['application/json; charset=latin1']],
    ['two Content-Type headers', ['application/json', 'application/json']],
  ])('refuses %s', (_name, contentTypes) => {
    expect(
      entriesOf(raw(JSON.stringify({ bundleUrl: BUNDLE, portalVersion: 'v1' }), { contentTypes })),
    ).toEqual([NOT_JSON_TYPE]);
  });

  it('never fails other than with a validation error, whatever the body (fuzz)', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.json()), fc.boolean(), (body, isBase64Encoded) => {
        try {
          parseDeploymentRequest(raw(body, { isBase64Encoded }));
        } catch (error) {
          expect(error).toBeInstanceOf(PortalError);
          expect((error as PortalError).code).toBe('VALIDATION_ERROR');
        }
      }),
      { numRuns: 500 },
    );
  });
});

describe('bundleUrlProblem', () => {
  it.each([
    BUNDLE,
    'https://cdn.example.com/eu/reports/{bundle}',
    'https://cdn.example.com:8443/eu/reports/main.js?v=3#top',
    'https://cdn.example.com/eu/reports/main.js?v=3&region=eu&amp=1',
    'https://cdn.example.com/eu/reports/main.js?quota=1&x',
    'https://cdn.example.com/eu/$reports/main.js',
    'https://cdn.example.com/eu/reports/main.js#@top',
    'HTTPS://CDN.EXAMPLE.COM/eu/reports/main.js',
    'https://2130706433/reports/main.js',
    'http://localhost:8080/reports/main.js',
    'HTTP://localhost/reports/main.js',
    'http://127.0.0.1/reports/main.js',
    'http://[::1]:3000/reports/main.js',
    'http://localhost',
    `https://cdn.example.com/${'a'.repeat(2048 - 'https://cdn.example.com/'.length)}`,
  ])('accepts %s', (url) => {
    expect(bundleUrlProblem(url)).toBeUndefined();
    expect(bundleUrlProblem(url) === undefined).toBe(true);
  });

  it.each([
    ['plain http to another host', 'http://cdn.example.com/main.js'],
    ['another scheme', 'ftp://cdn.example.com/main.js'],
    ['javascript:', 'javascript:alert(1)'],
    ['a data URL', 'data:text/javascript,alert(1)'],
    ['a relative URL', '/eu/reports/main.js'],
    ['a scheme-relative URL', '//cdn.example.com/main.js'],
    ['a scheme without slashes', 'https:cdn.example.com/main.js'],
    ['a scheme with one slash', 'https:/cdn.example.com/main.js'],
    ['credentials', 'https://user:secret@cdn.example.com/main.js'],
    ['a user name', 'https://user@cdn.example.com/main.js'],
    ['an empty user name', 'https://@cdn.example.com/main.js'],
    ['an empty user name and password', 'https://:@cdn.example.com/main.js'],
    ['localhost as a user name', 'http://localhost@cdn.example.com/main.js'],
    ['a user name before localhost over http', 'http://cdn.example.com@localhost/main.js'],
    ['no host', 'https:///main.js'],
    ['an empty port and no host', 'https://:443/main.js'],
    ['a port out of range', 'https://cdn.example.com:65536/main.js'],
    ['a host that is not one', 'https://cdn%2Fexample.com/main.js'],
    [
      '2049 characters',
      `https://cdn.example.com/${'a'.repeat(2049 - 'https://cdn.example.com/'.length)}`,
    ],
  ])('refuses %s as not an allowed URL', (_name, url) => {
    expect(bundleUrlProblem(url)).toBe(BAD_URL.message);
    expect(bundleUrlProblem(url) === undefined).toBe(false);
  });

  it.each([
    ['127.0.0.1 in two parts', 'http://127.1/a.js'],
    ['127.0.0.1 as one number', 'http://2130706433/a.js'],
    ['127.0.0.1 in hexadecimal', 'http://0x7f.0.0.1/a.js'],
    ['127.0.0.1 in octal', 'http://0177.0.0.1/a.js'],
    ['::1 written out', 'http://[0:0:0:0:0:0:0:1]/a.js'],
    ['localhost in capitals', 'http://LOCALHOST/a.js'],
    ['localhost with a trailing dot', 'http://localhost./a.js'],
    ['localhost percent-encoded', 'http://local%68ost/a.js'],
    ['another loopback address', 'http://127.0.0.2/a.js'],
  ])(
    'refuses plain http to %s: the host as written must be localhost, 127.0.0.1 or [::1]',
    (_name, url) => {
      expect(bundleUrlProblem(url)).toBe(BAD_URL.message);
    },
  );

  it.each([
    ['a single quote', "https://cdn.example.com/a.js'onload='x"],
    ['a double quote', 'https://cdn.example.com/"main.js'],
    ['a backtick', 'https://cdn.example.com/`main.js'],
    ['a space', 'https://cdn.example.com/my bundle.js'],
    ['a leading space', ' https://cdn.example.com/main.js'],
    ['a tab', 'https://cdn.example.com/main.js\tx'],
    ['a line feed', 'https://cdn.example.com/main.js\n'],
    ['a carriage return', 'https://cdn.example.com/main.js\rx'],
    ['a form feed', 'https://cdn.example.com/main.js\fx'],
    ['a no-break space', 'https://cdn.example.com/main.js\u00a0x'],
    ['a line separator', 'https://cdn.example.com/main.js\u2028x'],
    ['a paragraph separator', 'https://cdn.example.com/main.js\u2029x'],
    ['an ideographic space', 'https://cdn.example.com/main.js\u3000x'],
    ['a byte order mark', '\ufeffhttps://cdn.example.com/main.js'],
    ['a NUL', 'https://cdn.example.com/main.js\u0000'],
    ['DEL', 'https://cdn.example.com/main.js\u007f'],
    ['an angle bracket', 'https://cdn.example.com/<script>'],
    ['a closing angle bracket', 'https://cdn.example.com/a.js>'],
    ['a backslash', 'https://cdn.example.com\\evil.example/main.js'],
    ['non-ASCII', 'https://cdn.example.com/bündel.js'],
    ['an astral character', 'https://cdn.example.com/\u{1f600}.js'],
    ['an unparseable host with a space', 'https://exa mple.com/'],
    ['a decimal character reference', 'https://cdn.example.com/a.js&#39;onload=&#39;x'],
    ['a hexadecimal character reference without ;', 'https://cdn.example.com/a.js&#x27x'],
    ['a named character reference', 'https://cdn.example.com/a.js&apos;x'],
    ['&quot without ;, which HTML still decodes', 'https://cdn.example.com/a.js?&quot)'],
    ['&QUOT;', 'https://cdn.example.com/a.js?&QUOT;'],
    ['a template-literal substitution', 'https://cdn.example.com/${alert(1)}.js'],
  ])('refuses %s as a character that can end an attribute or a string', (_name, url) => {
    expect(bundleUrlProblem(url)).toBe(BAD_CHARACTERS.message);
    expect(bundleUrlProblem(url) === undefined).toBe(false);
  });

  it('accepts in a path exactly the printable ASCII characters but space, quotes, backtick, <, > and \\', () => {
    // Prepare
    const codes = Array.from({ length: 0x10000 }, (_, code) => code);

    // Act
    const accepted = codes
      .map((code) => String.fromCharCode(code))
      .filter(
        (character) => bundleUrlProblem(`https://cdn.example.com/a${character}b.js`) === undefined,
      );

    // Assess
    expect(accepted.join('')).toBe(
      '!#$%&()*+,-./0123456789:;=?@ABCDEFGHIJKLMNOPQRSTUVWXYZ[]^_abcdefghijklmnopqrstuvwxyz{|}~',
    );
  });
});
