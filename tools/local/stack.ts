/**
 * Everything the functions need around them, locally: the database (the configured one, or the
 * embedded PGlite, migrated and seeded) and the key set (the configured one, or the local
 * issuer's). Used by `npm start`, `serverless invoke local`, and the tests.
 */
import { createSql } from '../../shared/db/client';
import { openToolDatabase } from '../db/connection';
import { migrate } from '../db/migrate';
import { SAMPLE_LEGACY_KEY, SAMPLE_LEGACY_PLATFORM } from '../db/sample-data';
import { seed } from '../db/seed';
import { startEmbeddedDatabase } from './embedded-db';
import { loadOrCreateIssuer, LOCAL_ISSUER, serveKeySet, type LocalIssuer } from './issuer';

export interface StackOptions {
  /** A real database; without one the embedded PGlite is started. */
  readonly databaseUrl?: string | undefined;
  /** A real key set; without one the local issuer's set is served. */
  readonly jwksUrl?: string | undefined;
  readonly jwtIssuer?: string | undefined;
  /** Replace the data with the sample data (always done for the embedded database). */
  readonly seed?: boolean;
  readonly keyFile?: string;
}

export interface LocalStack {
  /** The environment the functions read (shared/config.ts). */
  readonly env: Readonly<Record<string, string>>;
  readonly issuer: LocalIssuer;
  readonly embedded: boolean;
  readonly close: () => Promise<void>;
}

export const LOCAL_LEGACY_KEYS = `${SAMPLE_LEGACY_KEY}=${SAMPLE_LEGACY_PLATFORM}`;

export const startLocalStack = async (options: StackOptions = {}): Promise<LocalStack> => {
  const closers: (() => Promise<void>)[] = [];
  const close = async () => {
    for (const closeOne of closers.reverse()) await closeOne();
  };
  try {
    const issuer = await loadOrCreateIssuer(options.keyFile, options.jwtIssuer ?? LOCAL_ISSUER);
    let jwksUrl = options.jwksUrl;
    if (!jwksUrl) {
      const server = await serveKeySet(() => issuer.publicKeySet);
      closers.push(server.close);
      jwksUrl = server.url;
    }
    let databaseUrl = options.databaseUrl;
    const embedded = !databaseUrl;
    if (!databaseUrl) {
      const database = await startEmbeddedDatabase();
      closers.push(database.close);
      databaseUrl = database.url;
    }
    // A configured database is reached as the tools reach it: DB_TLS and DB_CA (connection.ts).
    const sql = embedded
      ? createSql({
          url: databaseUrl,
          poolMax: 1,
          statementTimeoutMs: 60_000,
          connectTimeoutSeconds: 10,
        })
      : await openToolDatabase(
          { ...process.env, DATABASE_URL: databaseUrl, DATABASE_SECRET_ARN: '' },
          { statementTimeoutMs: 60_000 },
        );
    try {
      await migrate(sql);
      if (embedded || options.seed) await seed(sql);
    } finally {
      await sql.end();
    }
    return {
      env: {
        JWKS_URL: jwksUrl,
        DATABASE_URL: databaseUrl,
        JWT_ISSUER: options.jwtIssuer ?? (options.jwksUrl ? '' : LOCAL_ISSUER),
        LEGACY_PLATFORM_KEYS: process.env.LEGACY_PLATFORM_KEYS ?? LOCAL_LEGACY_KEYS,
      },
      issuer,
      embedded,
      close,
    };
  } catch (error) {
    await close();
    throw error;
  }
};
