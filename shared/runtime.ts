/**
 * Everything expensive, built once per warm container and shared by all its invocations:
 * configuration, the key set and its verifier, the database pool. Nothing tenant-specific is
 * held here: the verifier's cache of verified tokens is keyed by the SHA-256 of each whole token
 * and holds only that token's own claims.
 */
import { createKeySet, type KeySet } from './auth/key-set';
import type { OwnershipRules } from './auth/ownership';
import { TOKEN_CACHE_DEFAULTS } from './auth/token-cache';
import { createVerifier, type Verifier } from './auth/verifier';
import type { IsoDate } from './dates';
import { loadConfig, type DatabaseConfig, type ServiceConfig } from './config';
import { createDatabase, type Database, type DatabaseSource } from './db/database';
import { secretsExtensionReader } from './db/secrets-extension';
import { createLogger, describeError, type Logger } from './logger';
import { createMetrics } from './metrics';

export interface Dependencies {
  readonly verifier: Verifier;
  /** The verifier's key set, which the pre-traffic check and the heartbeat check. */
  readonly keySet: Pick<KeySet, 'check'>;
  /** JWT_ISSUER, which the pre-traffic check requires of a chain that verifies tokens. */
  readonly issuer?: string;
  readonly ownership: OwnershipRules;
  readonly logger: Logger;
  /** The container's database, for the queries of reports, services and plugins. */
  readonly database: Database;
  /**
   * Settles once initialisation's work has: the key-set prefetch and the database warm-up
   * (with the secret read before it). Never rejects; what failed is already logged.
   */
  readonly ready: Promise<void>;
  /** Ends the database pool (tests and tooling; a Lambda container never needs it). */
  readonly close: () => Promise<void>;
}

/**
 * Database connections opened at initialisation (at most DB_POOL_MAX), concurrently with the
 * key-set prefetch (after reading the database secret, when there is one), so that the first
 * request finds them ready: as many as the most queries one request runs at once (a report
 * beside its compare range), so that a pool no larger than that needs no other connection for
 * the first queries. A warm-up that fails (the database down, or the environment frozen after
 * initialisation) is one info line by name and code, with no metric: queries then connect, and
 * read the secret, as usual, and only their own failures count `DatabaseErrors`. The key-set
 * prefetch likewise.
 */
export const INIT_CONNECTIONS = 2;

/** DATABASE_URL, or the Secrets Manager secret (through the extension) and where to connect. */
const databaseSource = (database: DatabaseConfig): DatabaseSource =>
  'url' in database
    ? { url: database.url }
    : {
        readSecret: secretsExtensionReader(database.secretArn, database.secretsExtension),
        location: database.location,
      };

export const createDependencies = (
  config: ServiceConfig,
  logger: Logger = createLogger(config.logLevel),
): Dependencies => {
  const metrics = createMetrics(config.metrics);
  const keySet = createKeySet({ url: config.jwksUrl, logger, metrics });
  const keysLoaded = keySet.prefetch();
  const database = createDatabase(databaseSource(config.database), config.database, logger);
  const databaseWarm = database
    .warmUp(Math.min(config.database.poolMax, INIT_CONNECTIONS))
    .then((failure) => {
      if (failure !== undefined) {
        logger.log('info', 'database warm-up failed', describeError(failure));
      }
    });
  return {
    verifier: createVerifier({
      keySet,
      clockToleranceSeconds: config.clockToleranceSeconds,
      ...(config.maxAgeSeconds === undefined ? {} : { maxAgeSeconds: config.maxAgeSeconds }),
      cache: TOKEN_CACHE_DEFAULTS,
      ...(config.issuer === undefined ? {} : { issuer: config.issuer }),
      ...(config.audience === undefined ? {} : { audience: config.audience }),
    }),
    keySet,
    ...(config.issuer === undefined ? {} : { issuer: config.issuer }),
    ownership: {
      legacy: config.legacyPlatforms,
      today: () => new Date().toISOString().slice(0, 10) as IsoDate,
    },
    logger,
    database,
    ready: Promise.all([keysLoaded, databaseWarm]).then(() => undefined),
    close: () => database.end(),
  };
};

let container: Dependencies | undefined;

/** The container's dependencies, built on first use from the environment. */
export const containerDependencies = (): Dependencies =>
  (container ??= createDependencies(loadConfig()));

/** Closes the container's dependencies, if built (tests that import the handlers). */
export const closeContainerDependencies = async (): Promise<void> => {
  await container?.close();
};
