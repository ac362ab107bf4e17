/**
 * The connection pool (shared/db/client.ts) on the run's real database: DATE values as text and
 * the statement timeout.
 */
import { createSql } from '../../../shared/db/client';

describe('the connection pool', () => {
  it('keeps DATE values as YYYY-MM-DD strings and sets the statement timeout on real PostgreSQL', async () => {
    const sql = createSql({
      url: process.env.DATABASE_URL ?? '',
      poolMax: 1,
      statementTimeoutMs: 1234,
      connectTimeoutSeconds: 5,
    });
    try {
      const [row] = await sql<{ day: unknown; timeout: string }[]>`
        select '2024-02-29'::date as day, current_setting('statement_timeout') as timeout`;

      expect(row?.day).toBe('2024-02-29');
      // PGlite's wire server ignores startup parameters; a real server applies them.
      expect(row?.timeout).toBe(process.env.TEST_DATABASE_KIND === 'postgresql' ? '1234ms' : '0');
    } finally {
      await sql.end();
    }
  });
});
