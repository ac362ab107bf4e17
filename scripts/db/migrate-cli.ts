/** npm run db:migrate — applies the migrations to the database at DATABASE_URL. */
import { createSql } from '../../shared/db/client';
import { migrate } from './migrate';

const url = process.env.DATABASE_URL?.trim();
if (!url) {
  process.stderr.write(
    'DATABASE_URL is not set. (npm start migrates and seeds its embedded database by itself.)\n',
  );
  process.exit(2);
}
const sql = createSql({ url, poolMax: 1, statementTimeoutMs: 600_000, connectTimeoutSeconds: 10 });
try {
  const applied = await migrate(sql);
  process.stdout.write(
    applied.length > 0 ? `applied: ${applied.join(', ')}\n` : 'database is up to date\n',
  );
} finally {
  await sql.end();
}
