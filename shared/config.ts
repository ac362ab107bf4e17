/**
 * Service configuration, read once per container from the environment. A bad value fails at
 * initialisation, naming the variable, rather than on the first request.
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { parseIsoDate, type IsoDate } from './dates';
import type { PoolOptions } from './db/client';
import { ConfigError } from './config-error';
import { carriesCaLists, rdsRegionFor } from './db/rds-cas';
import type { DatabaseCa, DatabaseTls } from './db/tls';
import { locationOf, type DatabaseLocation } from './db/credentials';
import { DEFAULT_EXTENSION_PORT, secretArnRegion } from './db/secrets-extension';
import type { LogLevel } from './logger';
import {
  DEFAULT_METRICS_NAMESPACE,
  DEFAULT_METRICS_SERVICE,
  LOCAL_FUNCTION,
  METRIC_NAME_MAX,
  metricsNamespaceProblem,
  type MetricsConfig,
} from './metrics';
import { parseLegacyAliases, type LegacyPlatformKeys } from './platforms';
import { FUNCTION_SETTINGS as LIMITS, type WholeLimits } from './settings';

export interface ServiceConfig {
  readonly jwksUrl: URL;
  readonly issuer?: string;
  /** When set, every token's `aud` must name it. */
  readonly audience?: string;
  readonly clockToleranceSeconds: number;
  /** JWT_MAX_AGE: when set, the oldest `iat` accepted, in seconds. */
  readonly maxAgeSeconds?: number;
  readonly legacyPlatforms: LegacyPlatformKeys;
  readonly database: DatabaseConfig;
  readonly logLevel: LogLevel;
  readonly metrics: MetricsConfig;
}

/**
 * The pool, and who it connects as: a connection string (DATABASE_URL: npm start, local and
 * dev), or a Secrets Manager secret (DATABASE_SECRET_ARN: staging and production) with an
 * optional password-less DATABASE_URL saying where to connect.
 */
export type DatabaseConfig = PoolOptions & {
  /** Named prepared statements (postgres.js `prepare`); off behind a transaction-pooling proxy. */
  readonly prepare: boolean;
  /** TLS to the database (DB_TLS, DB_CA): verified unless the host is this machine. */
  readonly tls: DatabaseTls;
} & (
    | { readonly url: string }
    | {
        readonly secretArn: string;
        readonly location: DatabaseLocation;
        /** The Parameters and Secrets extension that reads it (shared/db/secrets-extension.ts). */
        readonly secretsExtension: {
          /** PARAMETERS_SECRETS_EXTENSION_HTTP_PORT, the extension's own setting. */
          readonly port: number;
          /** AWS_SESSION_TOKEN, which Lambda sets and the extension requires. */
          readonly sessionToken: string;
          /** One read, retries included (DB_SECRET_TIMEOUT_MS). */
          readonly timeoutMs: number;
        };
      }
  );

export { ConfigError };

type Env = Readonly<Record<string, string | undefined>>;

const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]']);

const required = (env: Env, name: string): string => {
  const value = env[name]?.trim();
  if (!value) throw new ConfigError(`${name} is not set`);
  return value;
};

/** A whole number within `limits` (shared/settings.ts); unset or blank, its default. */
const integer = (
  env: Env,
  name: string,
  { min, max, default: fallback = 0 }: WholeLimits,
): number => {
  const raw = env[name]?.trim();
  if (!raw) return fallback;
  const value = Number(raw);
  if (!/^\d+$/.test(raw) || value < min || value > max) {
    throw new ConfigError(`${name} must be a whole number from ${min} to ${max}`);
  }
  return value;
};

/** One of `values`; unset or blank, `fallback` (the first). */
const oneOf = <T extends string>(
  env: Env,
  name: string,
  values: readonly [T, ...T[]],
  fallback: T = values[0],
): T => {
  const raw = env[name]?.trim();
  if (!raw) return fallback;
  if (!(values as readonly string[]).includes(raw)) {
    throw new ConfigError(`${name} must be one of ${values.join(', ')}`);
  }
  return raw as T;
};

/** DB_STATEMENT_TIMEOUT_MS: the limit on one statement. */
export const statementTimeoutMs = (env: Env): number =>
  integer(env, 'DB_STATEMENT_TIMEOUT_MS', LIMITS.DB_STATEMENT_TIMEOUT_MS);

/** DB_STATEMENT_TIMEOUT_VIA: `startup` (default) or `role` (shared/db/client.ts PoolOptions). */
export const statementTimeoutVia = (env: Env): 'startup' | 'role' =>
  oneOf(env, 'DB_STATEMENT_TIMEOUT_VIA', LIMITS.DB_STATEMENT_TIMEOUT_VIA.choices);

const boolean = (env: Env, name: string, fallback: boolean): boolean => {
  const raw = env[name]?.trim();
  if (!raw) return fallback;
  if (raw === 'true') return true;
  if (raw === 'false') return false;
  throw new ConfigError(`${name} must be true or false`);
};

/** Key sets are fetched over HTTPS; plain HTTP only from this machine (the local issuer). */
const keySetUrl = (raw: string): URL => {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError('JWKS_URL is not a URL');
  }
  const local = url.protocol === 'http:' && LOOPBACK.has(url.hostname);
  if (url.protocol !== 'https:' && !local) {
    throw new ConfigError('JWKS_URL must use https (http only for localhost)');
  }
  return url;
};

const sunset = (env: Env): IsoDate | undefined => {
  const raw = env.LEGACY_PLATFORM_KEYS_SUNSET?.trim();
  if (!raw) return undefined;
  const date = parseIsoDate(raw);
  if (!date) throw new ConfigError('LEGACY_PLATFORM_KEYS_SUNSET must be a date in YYYY-MM-DD form');
  return date;
};

const TLS_MODES = LIMITS.DB_TLS.choices;
/** DB_CA's named lists (shared/db/tls.ts, DatabaseCa); any other value holds a `/`: a path. */
export const CA_NAMES = ['rds', 'rds-proxy', 'node'] as const;

/** A connection string's host; '' when there is none or it is no URL. */
export const databaseHost = (url: string): string => {
  try {
    return new URL(url).hostname;
  } catch {
    return '';
  }
};

/** The database host is this machine: the one case TLS is off unless DB_TLS says otherwise. */
export const isLoopbackDatabase = (url: string): boolean => LOOPBACK.has(databaseHost(url));

/**
 * DB_CA: the CAs trusted for verify-full. `rds` (unset), `rds-proxy`, `node`, or the path of a
 * PEM file (it holds a `/`, so a misspelt name is refused rather than read as a file). A
 * packaged function carries no named list but the file packaging wrote (shared/db/rds-cas.ts).
 */
const databaseCa = (env: Env): DatabaseCa => {
  const raw = env.DB_CA?.trim() || 'rds';
  if ((CA_NAMES as readonly string[]).includes(raw)) {
    if (raw !== 'node' && !carriesCaLists()) {
      throw new ConfigError(
        `DB_CA=${raw} is not carried by a packaged function: packaging writes the list to a PEM file and names it in DB_CA`,
      );
    }
    return raw as (typeof CA_NAMES)[number];
  }
  if (!raw.includes('/')) {
    throw new ConfigError(`DB_CA must be one of ${CA_NAMES.join(', ')} or a path to a PEM file`);
  }
  if (!existsSync(raw) || !statSync(raw).isFile()) {
    throw new ConfigError('DB_CA is not a readable file');
  }
  if (!readFileSync(raw, 'utf8').includes('-----BEGIN CERTIFICATE-----')) {
    throw new ConfigError('DB_CA holds no PEM certificate');
  }
  return { file: raw };
};

/**
 * DB_TLS: `verify-full` (certificate and host name verified), `require` (encrypted, not
 * verified) or `disable`. Unset, `verify-full`, except for a database on this machine (the
 * local stack and the tests), which goes without TLS. DB_CA is read for verify-full only; `rds`
 * needs the database's region, from its RDS host name or AWS_REGION (set in every function).
 */
export const databaseTls = (env: Env, url: string): DatabaseTls => {
  const raw = env.DB_TLS?.trim();
  const mode = raw || (isLoopbackDatabase(url) ? 'disable' : 'verify-full');
  if (!(TLS_MODES as readonly string[]).includes(mode)) {
    throw new ConfigError('DB_TLS must be one of ' + TLS_MODES.join(', '));
  }
  if (mode !== 'verify-full') return { mode: mode as 'require' | 'disable' };
  const ca = databaseCa(env);
  const region = env.AWS_REGION?.trim();
  // Refused here, at initialisation, rather than on the first connection.
  if (ca === 'rds') rdsRegionFor(databaseHost(url), region || undefined);
  return { mode, ca, ...(region ? { region } : {}) };
};

/** A postgres:// or postgresql:// URL, or a ConfigError naming DATABASE_URL. */
export const databaseUrl = (raw: string): URL => {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError('DATABASE_URL is not a URL');
  }
  if (url.protocol !== 'postgres:' && url.protocol !== 'postgresql:') {
    throw new ConfigError('DATABASE_URL must be a postgres:// or postgresql:// URL');
  }
  return url;
};

/** Who the pool connects as: DATABASE_URL alone, or DATABASE_SECRET_ARN (and where). */
const databaseSource = (env: Env) => {
  const secretArn = env.DATABASE_SECRET_ARN?.trim();
  const raw = env.DATABASE_URL?.trim();
  if (!secretArn) {
    const url = required(env, 'DATABASE_URL');
    databaseUrl(url);
    return { url };
  }
  if (secretArnRegion(secretArn) === undefined) {
    throw new ConfigError(
      'DATABASE_SECRET_ARN must be a full secret ARN: arn:aws:secretsmanager:<region>:<account>:secret:<name>-<6 characters>',
    );
  }
  if (raw) {
    const url = databaseUrl(raw);
    if (url.username || url.password) {
      throw new ConfigError(
        'DATABASE_URL must not carry a user or password when DATABASE_SECRET_ARN is set: both come from the secret',
      );
    }
  }
  let location: DatabaseLocation = {};
  try {
    if (raw) location = locationOf(raw);
  } catch {
    throw new ConfigError('DATABASE_URL is not a valid URL');
  }
  return {
    secretArn,
    location,
    secretsExtension: {
      port: integer(env, 'PARAMETERS_SECRETS_EXTENSION_HTTP_PORT', {
        min: 1,
        max: 65535,
        default: DEFAULT_EXTENSION_PORT,
      }),
      sessionToken: required(env, 'AWS_SESSION_TOKEN'),
      timeoutMs: integer(env, 'DB_SECRET_TIMEOUT_MS', LIMITS.DB_SECRET_TIMEOUT_MS),
    },
  };
};

// eslint-disable-next-line no-control-regex -- control characters are what it finds
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

/**
 * A metrics setting, trimmed: unset or blank, its default (as every optional setting here);
 * else at most 255 characters and no control characters.
 */
const metricsSetting = (env: Env, name: string, fallback: string): string => {
  const value = env[name]?.trim() || fallback;
  if (value.length > METRIC_NAME_MAX) {
    throw new ConfigError(`${name} must be at most ${METRIC_NAME_MAX} characters`);
  }
  if (CONTROL.test(value)) throw new ConfigError(`${name} must not hold control characters`);
  return value;
};

/**
 * METRICS_NAMESPACE (default PortalServiceApi): a CloudWatch namespace, by the rule packaging
 * applies too (shared/metrics.ts, metricsNamespaceProblem). METRICS_SERVICE (default
 * portal-service-api): the value of every metric's `Service` dimension. Lambda's own
 * AWS_LAMBDA_FUNCTION_NAME and AWS_LAMBDA_FUNCTION_VERSION: the `FunctionName` and `Version`.
 */
export const loadMetricsConfig = (env: Env = process.env): MetricsConfig => {
  const namespace = env.METRICS_NAMESPACE?.trim() || DEFAULT_METRICS_NAMESPACE;
  const problem = metricsNamespaceProblem(namespace);
  if (problem !== undefined) throw new ConfigError(`METRICS_NAMESPACE ${problem}`);
  return {
    namespace,
    service: metricsSetting(env, 'METRICS_SERVICE', DEFAULT_METRICS_SERVICE),
    functionName: metricsSetting(env, 'AWS_LAMBDA_FUNCTION_NAME', LOCAL_FUNCTION.functionName),
    version: metricsSetting(env, 'AWS_LAMBDA_FUNCTION_VERSION', LOCAL_FUNCTION.version),
  };
};

export const loadConfig = (env: Env = process.env): ServiceConfig => {
  const logLevel: LogLevel = oneOf(
    env,
    'LOG_LEVEL',
    LIMITS.LOG_LEVEL.choices,
    LIMITS.LOG_LEVEL.default,
  );
  let aliases: Map<string, string>;
  try {
    aliases = parseLegacyAliases(env.LEGACY_PLATFORM_KEYS ?? '');
  } catch (error) {
    throw new ConfigError((error as Error).message);
  }
  const issuer = env.JWT_ISSUER?.trim();
  const audience = env.JWT_AUDIENCE?.trim();
  const legacySunset = sunset(env);
  const source = databaseSource(env);
  const metrics = loadMetricsConfig(env);
  // Unset: no limit on a token's age (0 stands for unset).
  const maxAgeSeconds = integer(env, 'JWT_MAX_AGE', LIMITS.JWT_MAX_AGE);
  return {
    jwksUrl: keySetUrl(required(env, 'JWKS_URL')),
    ...(issuer ? { issuer } : {}),
    ...(audience ? { audience } : {}),
    clockToleranceSeconds: integer(
      env,
      'JWT_CLOCK_TOLERANCE_SECONDS',
      LIMITS.JWT_CLOCK_TOLERANCE_SECONDS,
    ),
    ...(maxAgeSeconds > 0 ? { maxAgeSeconds } : {}),
    legacyPlatforms: { aliases, ...(legacySunset ? { sunset: legacySunset } : {}) },
    database: {
      ...source,
      poolMax: integer(env, 'DB_POOL_MAX', LIMITS.DB_POOL_MAX),
      statementTimeoutMs: statementTimeoutMs(env),
      statementTimeoutVia: statementTimeoutVia(env),
      proxyQueueMs: integer(env, 'DB_PROXY_QUEUE_MS', LIMITS.DB_PROXY_QUEUE_MS),
      connectTimeoutSeconds: integer(
        env,
        'DB_CONNECT_TIMEOUT_SECONDS',
        LIMITS.DB_CONNECT_TIMEOUT_SECONDS,
      ),
      prepare: boolean(env, 'DB_PREPARE', LIMITS.DB_PREPARE.default),
      tls: databaseTls(env, env.DATABASE_URL?.trim() ?? ''),
    },
    logLevel,
    metrics,
  };
};
