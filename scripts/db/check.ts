/**
 * npm run db:check — compares the daily rollups with their source rows at DATABASE_URL (or
 * DATABASE_SECRET_ARN; scripts/db/connection.ts), per restaurant, platform and day
 * (scripts/db/drift.ts; docs/data.md "The drift check"):
 *   --from YYYY-MM-DD --to YYYY-MM-DD   range days compared (default: every day)
 *   --restaurant ID                     one restaurant (default: every restaurant)
 *   --repair                            recompute the drifted restaurants, one per transaction
 *   --metrics                           print the RollupDrift metric as one EMF line
 *   --service-role NAME                 also check that role's statement_timeout (set by
 *                                       npm run db:migrate -- --service-role NAME)
 * Exit status: 0 the rollups equal their source rows (after the repair, with --repair), 1 they
 * differ, the service role has no statement timeout, or the database was not reached, 2 bad
 * arguments or database settings.
 */
import { exitOnToolError, hasDatabase, openToolDatabase } from './connection';
import { CHECK_USAGE, parseCheckArgs, runCheck } from './drift';
import { describeRoleTimeout, roleStatementTimeout, takeServiceRole } from './service-role';

const withRole = takeServiceRole(process.argv.slice(2));
const parsed = 'error' in withRole ? withRole : parseCheckArgs([...withRole.rest]);
if ('error' in parsed) {
  process.stderr.write(`${parsed.error}\n${CHECK_USAGE}\n`);
  process.exit(2);
}
if (!hasDatabase(process.env)) {
  process.stderr.write(`DATABASE_URL is not set.\n${CHECK_USAGE}\n`);
  process.exit(2);
}
const sql = await openToolDatabase(process.env, { statementTimeoutMs: 600_000 }).catch(
  exitOnToolError,
);
try {
  process.exitCode = await runCheck(sql, parsed.options, (line) => {
    process.stdout.write(`${line}\n`);
  });
  if ('role' in withRole && withRole.role !== undefined) {
    const role = describeRoleTimeout(withRole.role, await roleStatementTimeout(sql, withRole.role));
    process.stdout.write(`${role.line}\n`);
    if (!role.ok) process.exitCode = 1;
  }
} finally {
  await sql.end();
}
