/**
 * The tools' database connection (npm run db:migrate, db:check, import, and npm start's seed of
 * a DATABASE_URL), from the functions' settings as shared/config.ts reads them: DATABASE_URL,
 * or DATABASE_SECRET_ARN beside a password-less DATABASE_URL, DB_TLS and DB_CA. Outside Lambda
 * there is no Parameters and Secrets extension: the secret is read with the AWS SDK (its
 * credentials, and its endpoint, AWS_ENDPOINT_URL_SECRETS_MANAGER). TLS that does not verify
 * (DB_TLS=require or disable) to a database not on this machine is refused unless
 * DB_TLS_ALLOW_UNVERIFIED=true.
 */
import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import {
  ConfigError,
  databaseTls,
  databaseUrl,
  isLoopbackDatabase,
  statementTimeoutVia,
} from '../../shared/config';
import { createSql, type Sql } from '../../shared/db/client';
import {
  locationOf,
  parseSecretCredentials,
  urlHost,
  type DatabaseCredentials,
} from '../../shared/db/credentials';
import { secretArnRegion } from '../../shared/db/secrets-extension';

type Env = Readonly<Record<string, string | undefined>>;

/**
 * A tool that cannot start: one line for stderr, and the exit status (2 settings, 3 the
 * database or its secret not reached).
 */
export class ToolDatabaseError extends Error {
  override readonly name = 'ToolDatabaseError';

  constructor(
    message: string,
    readonly exitCode: 2 | 3,
  ) {
    super(message);
  }
}

/** The opt-in to TLS that does not verify a database not on this machine. */
export const ALLOW_UNVERIFIED = 'DB_TLS_ALLOW_UNVERIFIED';

/** Whether DATABASE_URL or DATABASE_SECRET_ARN says where the database is. */
export const hasDatabase = (env: Env): boolean =>
  Boolean(env.DATABASE_URL?.trim() || env.DATABASE_SECRET_ARN?.trim());

const isLoopbackHost = (host: string): boolean =>
  isLoopbackDatabase(`postgres://${host.includes(':') ? `[${host}]` : host}/`);

/** An error as one line, without `secret` (the password) should it appear. */
export const oneLine = (error: unknown, secret?: string): string => {
  const { message, code } = error as { message?: unknown; code?: unknown };
  let text = typeof message === 'string' && message ? message : String(error);
  if (typeof code === 'string' && !text.includes(code)) text += ` (${code})`;
  if (secret) text = text.split(secret).join('***');
  return text.replace(/\s+/g, ' ').trim();
};

const readSecretCredentials = async (
  secretArn: string,
  location: ReturnType<typeof locationOf>,
): Promise<DatabaseCredentials> => {
  const client = new SecretsManagerClient({ region: secretArnRegion(secretArn) });
  let secretString: string | undefined;
  try {
    ({ SecretString: secretString } = await client.send(
      new GetSecretValueCommand({ SecretId: secretArn }),
    ));
  } catch (error) {
    throw new ToolDatabaseError(`cannot read DATABASE_SECRET_ARN: ${oneLine(error)}`, 3);
  } finally {
    client.destroy();
  }
  if (secretString === undefined) {
    throw new ToolDatabaseError(
      'cannot read DATABASE_SECRET_ARN: the secret has no SecretString',
      2,
    );
  }
  try {
    return parseSecretCredentials(secretString, location);
  } catch (error) {
    throw new ToolDatabaseError(`DATABASE_SECRET_ARN: ${oneLine(error)}`, 2);
  }
};

/** Where to connect and as whom, from DATABASE_URL or the secret; settings checked. */
const source = async (
  env: Env,
): Promise<{ url: string } | { credentials: DatabaseCredentials }> => {
  const url = env.DATABASE_URL?.trim() ?? '';
  const secretArn = env.DATABASE_SECRET_ARN?.trim();
  if (url) databaseUrl(url);
  if (!secretArn) return { url };
  if (secretArnRegion(secretArn) === undefined) {
    throw new ConfigError(
      'DATABASE_SECRET_ARN must be a full secret ARN: arn:aws:secretsmanager:<region>:<account>:secret:<name>-<6 characters>',
    );
  }
  if (url && (new URL(url).username || new URL(url).password)) {
    throw new ConfigError(
      'DATABASE_URL must not carry a user or password when DATABASE_SECRET_ARN is set: both come from the secret',
    );
  }
  return { credentials: await readSecretCredentials(secretArn, url ? locationOf(url) : {}) };
};

export interface ToolPool {
  readonly statementTimeoutMs: number;
}

/**
 * A pool of one connection, connected: settings refused, a secret not read or a database not
 * reached throw a ToolDatabaseError naming what failed, never the password.
 */
export const openToolDatabase = async (env: Env, pool: ToolPool): Promise<Sql> => {
  let tls;
  let where;
  let via;
  try {
    via = statementTimeoutVia(env);
    tls = databaseTls(env, env.DATABASE_URL?.trim() ?? '');
    where = await source(env);
  } catch (error) {
    if (error instanceof ConfigError) throw new ToolDatabaseError(error.message, 2);
    throw error;
  }
  const host = 'url' in where ? urlHost(where.url) : where.credentials.host;
  if (tls.mode !== 'verify-full' && !isLoopbackHost(host) && env[ALLOW_UNVERIFIED] !== 'true') {
    throw new ToolDatabaseError(
      `DB_TLS=${tls.mode} does not verify the database at ${host}: set DB_TLS=verify-full (DB_CA: rds, rds-proxy, node or a PEM file), or ${ALLOW_UNVERIFIED}=true to connect anyway`,
      2,
    );
  }
  const options = {
    poolMax: 1,
    statementTimeoutMs: pool.statementTimeoutMs,
    // Behind a proxy that refuses it, no startup parameter: the tool's role's own limit applies.
    statementTimeoutVia: via,
    connectTimeoutSeconds: 10,
    tls,
  };
  const password =
    'url' in where ? decodeURIComponent(new URL(where.url).password) : where.credentials.password;
  const sql =
    'url' in where
      ? createSql({ ...options, url: where.url })
      : createSql({ ...options, server: { ...where.credentials, password: () => password } });
  try {
    await sql`select 1`;
  } catch (error) {
    await sql.end({ timeout: 0 });
    const port = 'url' in where ? new URL(where.url).port || '5432' : where.credentials.port;
    // postgres.js words a connect timeout as `write CONNECT_TIMEOUT undefined:undefined`.
    const reason =
      (error as { code?: unknown }).code === 'CONNECT_TIMEOUT'
        ? `no answer within ${String(options.connectTimeoutSeconds)} s (CONNECT_TIMEOUT)`
        : oneLine(error, password);
    throw new ToolDatabaseError(`cannot connect to the database at ${host}:${port}: ${reason}`, 3);
  }
  return sql;
};

/** For a tool's top level: a ToolDatabaseError as its one line and exit status. */
export const exitOnToolError = (error: unknown): never => {
  if (!(error instanceof ToolDatabaseError)) throw error;
  process.stderr.write(`${error.message}\n`);
  process.exit(error.exitCode);
};
