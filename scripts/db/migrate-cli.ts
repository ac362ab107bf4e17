/**
 * npm run db:migrate — applies the migrations to the database of DATABASE_URL (or
 * DATABASE_SECRET_ARN), over TLS as the functions connect (scripts/db/connection.ts).
 */
import { exitOnToolError, hasDatabase, openToolDatabase } from './connection';
import { migrate } from './migrate';

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
} finally {
  await sql.end();
}
