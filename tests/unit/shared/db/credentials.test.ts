/**
 * The database credentials from a Secrets Manager secret, and where to connect from a
 * password-less DATABASE_URL (shared/db/credentials.ts).
 */
import {
  DEFAULT_PORT,
  isRejectedLogin,
  locationOf,
  parseSecretCredentials,
  sameServer,
  SecretShapeError,
  urlHost,
  type DatabaseCredentials,
} from '../../../../shared/db/credentials';

/** A password no message may ever contain. */
const PASSWORD = 'Zq9!distinctive-PASSWORD-7781';
/** Where to connect through RDS Proxy, beside the secret. */
const PROXY = { host: 'proxy.internal', port: 6543 };

/** The credentials of `username` with PASSWORD, to connect at `location`. */
const resolved = (location: object, username: string) => ({
  ...location,
  username,
  password: PASSWORD,
});

const secretOf = (fields: Record<string, unknown>): string => JSON.stringify(fields);

/** A secret of user u with PASSWORD at host h, with `fields` changed. */
const secretWith = (fields: Record<string, unknown>): string =>
  secretOf({ username: 'u', password: PASSWORD, host: 'h', ...fields });

const shapeErrorOf = (secretString: string, location = {}): SecretShapeError => {
  try {
    parseSecretCredentials(secretString, location);
  } catch (error) {
    if (error instanceof SecretShapeError) return error;
    throw error;
  }
  throw new Error('expected parseSecretCredentials to throw a SecretShapeError');
};

describe('parseSecretCredentials', () => {
  it.each([5432, '5432'])('reads a rotation secret, its port given as %j', (port) => {
    // Prepare
    const secret = secretOf({
      username: 'reports',
      password: PASSWORD,
      host: 'db.internal',
      port,
      dbname: 'reports_db',
      engine: 'postgres',
    });

    // Act / Assess
    expect(parseSecretCredentials(secret)).toEqual(
      resolved({ host: 'db.internal', port: 5432, database: 'reports_db' }, 'reports'),
    );
  });

  it('reads an RDS-managed master secret with the location beside it', () => {
    // Prepare
    const secret = secretOf({ username: 'master', password: PASSWORD });

    // Act / Assess
    expect(parseSecretCredentials(secret, { ...PROXY, database: 'reports' })).toEqual(
      resolved({ ...PROXY, database: 'reports' }, 'master'),
    );
  });

  it('defaults the port to 5432 and the database to the user name', () => {
    // Act
    const credentials = parseSecretCredentials(
      secretOf({ username: 'master', password: PASSWORD }),
      { host: 'db.internal' },
    );

    // Assess
    expect(DEFAULT_PORT).toBe(5432);
    expect(credentials).toEqual(
      resolved({ host: 'db.internal', port: 5432, database: 'master' }, 'master'),
    );
  });

  it("lets the location win over the secret's host, port and dbname", () => {
    // Prepare
    const secret = secretOf({
      username: 'reports',
      password: PASSWORD,
      host: 'instance.internal',
      port: 5432,
      dbname: 'from_secret',
    });

    // Act / Assess
    expect(parseSecretCredentials(secret, { ...PROXY, database: 'from_url' })).toEqual(
      resolved({ ...PROXY, database: 'from_url' }, 'reports'),
    );
  });

  it("keeps the secret's port and dbname when the location gives only a host", () => {
    // Act / Assess
    expect(
      parseSecretCredentials(
        secretOf({ username: 'u', password: PASSWORD, host: 'a', port: '6000', dbname: 'd' }),
        { host: 'b' },
      ),
    ).toMatchObject({ host: 'b', port: 6000, database: 'd' });
  });

  it.each([
    ['not JSON', `{"username":"u","password":"${PASSWORD}"`, 'the secret is not JSON'],
    ['an array', JSON.stringify(['u', PASSWORD]), 'the secret is not a JSON object'],
    ['null', 'null', 'the secret is not a JSON object'],
    ['a string', JSON.stringify(PASSWORD), 'the secret is not a JSON object'],
    ['without a username', secretWith({ username: undefined }), 'the secret has no username'],
    ['with an empty username', secretWith({ username: '' }), 'the secret has no username'],
    ['without a password', secretWith({ password: undefined }), 'the secret has no password'],
    ['with an empty password', secretWith({ password: '' }), 'the secret has no password'],
    ['with a numeric username', secretWith({ username: 42 }), "the secret's username is not text"],
    [
      'with a non-text password',
      secretWith({ password: { value: PASSWORD } }),
      "the secret's password is not text",
    ],
    ['with a non-text host', secretWith({ host: ['h'] }), "the secret's host is not text"],
    ['with a non-text dbname', secretWith({ dbname: 7 }), "the secret's dbname is not text"],
  ])('refuses a secret %s, naming what is wrong', (_what, secret, message) => {
    // Act / Assess
    const error = shapeErrorOf(secret);
    expect(error.message).toBe(message);
    expect(error.message).not.toContain(PASSWORD);
  });

  it.each([0, 70000, 65536, -1, '54x', ' 5432', 5.5, '5.5', true, {}])(
    'refuses the port %j',
    (port) => {
      // Act / Assess
      const error = shapeErrorOf(secretWith({ port }));
      expect(error.message).toBe("the secret's port is not a port number");
      expect(error.message).not.toContain(PASSWORD);
    },
  );

  it.each(['', null])('treats the port %j as no port: the default', (port) => {
    expect(parseSecretCredentials(secretWith({ port })).port).toBe(DEFAULT_PORT);
  });

  it.each([1, 65535, '1', '65535'])('accepts the port %j, an end of 1..65535', (port) => {
    expect(parseSecretCredentials(secretWith({ port })).port).toBe(Number(port));
  });

  it('refuses a secret with no host when the location has none either, saying how to give one', () => {
    // Act
    const error = shapeErrorOf(secretOf({ username: 'u', password: PASSWORD }), {
      port: 5432,
      database: 'd',
    });

    // Assess
    expect(error.message).toMatch(/^the secret has no host: set DATABASE_URL/);
    expect(error.message).not.toContain(PASSWORD);
  });

  it('throws a SecretShapeError, a kind of TypeError, with its own name and code', () => {
    // Act / Assess
    const error = shapeErrorOf('[]');
    expect(error).toBeInstanceOf(TypeError);
    expect(error.name).toBe('SecretShapeError');
    expect(error.code).toBe('ERR_DATABASE_SECRET_SHAPE');
  });

  it('never puts the password in a message, whatever is wrong with the secret', () => {
    // Prepare: secrets that fail after the password has been read.
    const secrets = [
      secretOf({ username: 'u', password: PASSWORD }),
      secretWith({ port: PASSWORD }),
      secretWith({ dbname: [PASSWORD] }),
      `{"username":"u","password":"${PASSWORD}",}`,
    ];

    // Act / Assess
    const messages = secrets.map((secret) => shapeErrorOf(secret).message);
    for (const message of messages) expect(message).not.toContain(PASSWORD);
  });
});

describe('locationOf', () => {
  it.each([
    ['postgres://h:6543/db', { host: 'h', port: 6543, database: 'db' }],
    ['postgres://h/db', { host: 'h', database: 'db' }],
    ['postgres://h', { host: 'h' }],
    ['postgres://h:5432/', { host: 'h', port: 5432 }],
    ['postgresql://[fd00::1]:5432/x', { host: 'fd00::1', port: 5432, database: 'x' }],
    ['postgres://h/my%20db', { host: 'h', database: 'my db' }],
    ['postgres://h/r%C3%A9ports%2Fx', { host: 'h', database: 'réports/x' }],
  ])('reads %s', (url, location) => {
    expect(locationOf(url)).toEqual(location);
  });
});

describe('urlHost', () => {
  it.each([
    ['postgres://u:p@db.internal:5432/x', 'db.internal'],
    ['postgres://[fd00::1]:5432/x', 'fd00::1'],
    ['postgresql://[::1]/x', '::1'],
    ['postgres://127.0.0.1/x', '127.0.0.1'],
  ])('gives %s the host %s', (url, host) => {
    expect(urlHost(url)).toBe(host);
  });
});

describe('sameServer', () => {
  const base: DatabaseCredentials = {
    host: 'db.internal',
    port: 5432,
    database: 'reports',
    username: 'reports_a',
    password: PASSWORD,
  };

  it('keeps the server when only the password changed', () => {
    expect(sameServer(base, { ...base, password: 'rotated' })).toBe(true);
    expect(sameServer(base, { ...base })).toBe(true);
  });

  it.each([
    ['the user', { username: 'reports_b' }],
    ['the host', { host: 'db2.internal' }],
    ['the port', { port: 6543 }],
    ['the database', { database: 'other' }],
  ])('counts a change of %s as a new server', (_what, change) => {
    expect(sameServer(base, { ...base, ...change })).toBe(false);
    expect(sameServer({ ...base, ...change }, base)).toBe(false);
  });
});

describe('isRejectedLogin', () => {
  it.each([
    { code: '28P01' },
    { code: '28000' },
    Object.assign(new Error('password authentication failed'), { code: '28P01' }),
  ])('is true for a refused login (%j)', (error) => {
    expect(isRejectedLogin(error)).toBe(true);
  });

  it.each([
    { code: '57014' },
    { code: '28P0' },
    { code: '28p01' },
    {},
    new Error('28P01'),
    '28P01',
    'password authentication failed',
    null,
    undefined,
    28000,
  ])('is false for %j', (error) => {
    expect(isRejectedLogin(error)).toBe(false);
  });
});
