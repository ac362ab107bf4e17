/**
 * Where the database is and who we are there: from DATABASE_URL (npm start, local and dev), or
 * from a Secrets Manager secret (staging and production; docs/database.md, "The database credential").
 *
 * The secret's SecretString is the JSON that RDS-managed secrets and Secrets Manager's rotation
 * functions keep: `username` and `password` always; `host`, `port` and `dbname` in rotation
 * secrets, absent from the secret RDS keeps for a master user. A password-less DATABASE_URL
 * beside the secret says where to connect (an RDS Proxy endpoint, or the instance of a secret
 * that names none) and wins over the secret's host, port and dbname; the user and the password
 * always come from the secret. Parse failures name the field, never its value.
 */
export interface DatabaseCredentials {
  readonly host: string;
  readonly port: number;
  readonly database: string;
  readonly username: string;
  readonly password: string;
}

/** Where to connect, without who: from a DATABASE_URL that carries no credential. */
export interface DatabaseLocation {
  readonly host?: string;
  readonly port?: number;
  readonly database?: string;
}

/** A secret that is missing a field or holds one of the wrong shape. */
export class SecretShapeError extends TypeError {
  override readonly name = 'SecretShapeError';
  readonly code = 'ERR_DATABASE_SECRET_SHAPE';
}

export const DEFAULT_PORT = 5432;

/** A URL's host, without an IPv6 address's brackets: the name the certificate must carry. */
export const urlHost = (url: string): string => new URL(url).hostname.replace(/^\[(.*)\]$/, '$1');

/** A password-less DATABASE_URL as the location beside a secret. */
export const locationOf = (url: string): DatabaseLocation => {
  const parsed = new URL(url);
  const port = parsed.port ? Number(parsed.port) : undefined;
  const database = decodeURIComponent(parsed.pathname.replace(/^\//, ''));
  return {
    ...(parsed.hostname ? { host: urlHost(url) } : {}),
    ...(port === undefined ? {} : { port }),
    ...(database ? { database } : {}),
  };
};

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const textField = (secret: Record<string, unknown>, key: string): string | undefined => {
  const value = secret[key];
  if (value === undefined || value === null || value === '') return undefined;
  if (typeof value !== 'string') throw new SecretShapeError(`the secret's ${key} is not text`);
  return value;
};

const portOf = (value: unknown, what: string): number | undefined => {
  if (value === undefined || value === null || value === '') return undefined;
  const port = typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : value;
  if (typeof port !== 'number' || !Number.isInteger(port) || port < 1 || port > 65535) {
    throw new SecretShapeError(`${what} is not a port number`);
  }
  return port;
};

/**
 * The credentials in a SecretString, with `location` (from DATABASE_URL) winning over the
 * secret's own host, port and dbname. Without a host from either, or a user or password in the
 * secret, it throws a SecretShapeError naming what is missing.
 */
export const parseSecretCredentials = (
  secretString: string,
  location: DatabaseLocation = {},
): DatabaseCredentials => {
  let secret: unknown;
  try {
    secret = JSON.parse(secretString);
  } catch {
    throw new SecretShapeError('the secret is not JSON');
  }
  if (!isRecord(secret)) throw new SecretShapeError('the secret is not a JSON object');
  const username = textField(secret, 'username');
  const password = textField(secret, 'password');
  if (username === undefined) throw new SecretShapeError('the secret has no username');
  if (password === undefined) throw new SecretShapeError('the secret has no password');
  const host = location.host ?? textField(secret, 'host');
  if (host === undefined) {
    throw new SecretShapeError(
      'the secret has no host: set DATABASE_URL to postgres://<host>:<port>/<dbname>, without user or password',
    );
  }
  return {
    host,
    port: location.port ?? portOf(secret.port, "the secret's port") ?? DEFAULT_PORT,
    database: location.database ?? textField(secret, 'dbname') ?? username,
    username,
    password,
  };
};

/** Two credentials open the same connections: a pool survives a change of password only. */
export const sameServer = (a: DatabaseCredentials, b: DatabaseCredentials): boolean =>
  a.host === b.host && a.port === b.port && a.database === b.database && a.username === b.username;

/** PostgreSQL's answers to a wrong password (28P01) or a login it refuses (28000). */
const REJECTED_LOGIN = new Set(['28P01', '28000']);

/** Whether the database refused the credentials, as after a rotation. */
export const isRejectedLogin = (error: unknown): boolean =>
  typeof error === 'object' &&
  error !== null &&
  REJECTED_LOGIN.has(String((error as { code?: unknown }).code));
