/**
 * npm run db:migrate [-- --service-role NAME | --help] — applies the migrations to the database of
 * DATABASE_URL (or DATABASE_SECRET_ARN), over TLS as the functions connect
 * (tools/db/connection.ts). With --service-role, then sets that role's statement_timeout to
 * DB_STATEMENT_TIMEOUT_MS (default 5000): the limit the functions keep behind a proxy
 * (DB_STATEMENT_TIMEOUT_VIA=role). Exit status: 0 done, 1 failed (a migration refused or a
 * database that must be rebuilt, tools/db/migrate.ts), 2 bad arguments or settings, 3 the
 * database not reached; each failure one line on stderr.
 */
import { ConfigError, statementTimeoutMs } from '../../shared/config';
import { exitOnToolError, hasDatabase, oneLine, openToolDatabase } from './connection';
import { migrate } from './migrate';
import { setRoleStatementTimeout, takeServiceRole } from './service-role';

const USAGE = 'usage: npm run db:migrate [-- --service-role NAME]';
const args = takeServiceRole(process.argv.slice(2));
if (!('error' in args) && args.rest.length === 1 && ['--help', '-h'].includes(args.rest[0] ?? '')) {
  process.stdout.write(`${USAGE}\n`);
  process.exit(0);
}
if ('error' in args || args.rest.length > 0) {
  process.stderr.write(
    `${'error' in args ? args.error : `unknown argument: ${args.rest[0] ?? ''}`}\n${USAGE}\n`,
  );
  process.exit(2);
}
const timeoutMs = ((): number => {
  try {
    return statementTimeoutMs(process.env);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    process.stderr.write(`${error.message}\n`);
    return process.exit(2);
  }
})();
if (!hasDatabase(process.env)) {
  process.stderr.write(
    'DATABASE_URL is not set. (npm start migrates and seeds its embedded database by itself.)\n',
  );
  process.exit(2);
}
const sql = await openToolDatabase(process.env, { statementTimeoutMs: 600_000 }).catch(
  exitOnToolError,
);
try {
  const applied = await migrate(sql);
  process.stdout.write(
    applied.length > 0 ? `applied: ${applied.join(', ')}\n` : 'database is up to date\n',
  );
  if (args.role !== undefined) {
    await setRoleStatementTimeout(sql, args.role, timeoutMs);
    process.stdout.write(`service role ${args.role}: statement_timeout ${timeoutMs} ms\n`);
  }
} catch (error) {
  await sql.end({ timeout: 0 }).catch(() => undefined);
  process.stderr.write(`${oneLine(error)}\n`);
  process.exit(1);
} finally {
  await sql.end();
}
