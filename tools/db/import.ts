/**
 * npm run import — loads restaurant declarations and a brand's orders (NDJSON) into the
 * database at DATABASE_URL or DATABASE_SECRET_ARN (tools/db/connection.ts;
 * tools/db/import-run.ts; docs/import.md):
 *   --file FILE|-               the orders (default: standard input, unless only --restaurants)
 *   --restaurants FILE|-        restaurant declarations, upserted before the orders
 *   --states FILE               the brand's order states mapped onto ours (a JSON object)
 *   --skip-invalid              write the good lines, list the bad ones
 * Exit status: 0 every line written, 1 a line refused (nothing written, or with --skip-invalid
 * the good lines) or the write failed, 2 bad arguments, an unreadable file, a bad --states file
 * or bad database settings, 3 the database (or its secret) not reached.
 */
import { exitOnToolError, hasDatabase, openToolDatabase } from './connection';
import { IMPORT_USAGE, parseImportArgs } from './import-args';
import { ImportUsageError, runImport } from './import-run';

const parsed = parseImportArgs(process.argv.slice(2));
if ('error' in parsed) {
  process.stderr.write(`${parsed.error}\n${IMPORT_USAGE}\n`);
  process.exit(2);
}
if (!hasDatabase(process.env)) {
  process.stderr.write(`DATABASE_URL is not set.\n${IMPORT_USAGE}\n`);
  process.exit(2);
}
const sql = await openToolDatabase(process.env, { statementTimeoutMs: 0 }).catch(exitOnToolError);
try {
  process.exitCode = await runImport(sql, parsed.options, {
    stdin: process.stdin,
    out: (line) => process.stdout.write(`${line}\n`),
    err: {
      isTTY: process.stderr.isTTY,
      write: (text) => process.stderr.write(text),
    },
  });
} catch (error) {
  if (!(error instanceof ImportUsageError)) throw error;
  process.stderr.write(`${error.message}\n`);
  process.exitCode = 2;
} finally {
  await sql.end();
}
