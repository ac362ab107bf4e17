/**
 * One small PostgreSQL pool per warm container (postgres.js), reused across invocations.
 * DATE values stay YYYY-MM-DD strings and numerics stay decimal strings: nothing is shifted
 * through a JavaScript Date or rounded through a float on the way in.
 */
import postgres from 'postgres';

export type Sql = postgres.Sql;

export interface DatabaseOptions {
  readonly url: string;
  readonly poolMax: number;
  readonly statementTimeoutMs: number;
  readonly connectTimeoutSeconds: number;
}

const DATE_OID = 1082;
const keepText = {
  to: DATE_OID,
  from: [DATE_OID],
  serialize: (value: string) => value,
  parse: (value: string) => value,
};

export const createSql = (options: DatabaseOptions): Sql =>
  postgres(options.url, {
    max: options.poolMax,
    idle_timeout: 60,
    connect_timeout: options.connectTimeoutSeconds,
    connection: {
      application_name: 'portal-service-api',
      statement_timeout: options.statementTimeoutMs,
    },
    types: { date: keepText },
    onnotice: () => undefined,
  });
