/**
 * npm run db:check — compares the daily rollups with their source rows at DATABASE_URL (or
 * DATABASE_SECRET_ARN; tools/db/connection.ts), per restaurant, platform and day
 * (tools/db/drift.ts; docs/data.md "The drift check"):
 *   --from YYYY-MM-DD --to YYYY-MM-DD   range days compared (default: every day)
 *   --restaurant ID                     one restaurant (default: every restaurant)
 *   --repair                            recompute the drifted restaurants, one per transaction
 *   --metrics                           print the RollupDrift metric as one EMF line
 *                                       (RollupCheckFailed when the check could not run)
 *   --service-role NAME                 also check that role's statement_timeout (set by
 *                                       npm run db:migrate -- --service-role NAME) against
 *                                       DB_STATEMENT_TIMEOUT_MS, with DB_STATEMENT_TIMEOUT_VIA=role
 * Exit status: 0 the rollups equal their source rows (after the repair, with --repair), 1 they
 * differ, or the service role has no statement timeout or (DB_STATEMENT_TIMEOUT_VIA=role) one
 * above DB_STATEMENT_TIMEOUT_MS, 2 bad arguments or database settings,
 * 3 the check could not run (the database or its secret not reached, a permission or a
 * statement refused); each failure one line on stderr.
 */
import { ConfigError, statementTimeoutMs, statementTimeoutVia } from '../../shared/config';
import { exitOnToolError, hasDatabase, oneLine, openToolDatabase } from './connection';
import {
  CHECK_USAGE,
  checkFailedMetricLine,
  metricSettings,
  parseCheckArgs,
  runCheck,
} from './drift';
import {
  describeRoleTimeout,
  roleStatementTimeout,
  takeServiceRole,
  type FunctionsTimeout,
} from './service-role';

const withRole = takeServiceRole(process.argv.slice(2));
const parsed = 'error' in withRole ? withRole : parseCheckArgs([...withRole.rest]);
if ('error' in parsed) {
  process.stderr.write(`${parsed.error}\n${CHECK_USAGE}\n`);
  process.exit(2);
}
const role = 'role' in withRole ? withRole.role : undefined;
/** The functions' settings the role's statement_timeout is checked against. */
const functions = ((): FunctionsTimeout | undefined => {
  if (role === undefined) return undefined;
  try {
    return {
      statementTimeoutMs: statementTimeoutMs(process.env),
      statementTimeoutVia: statementTimeoutVia(process.env),
    };
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    process.stderr.write(`${error.message}\n`);
    return process.exit(2);
  }
})();
if (!hasDatabase(process.env)) {
  process.stderr.write(`DATABASE_URL is not set.\n${CHECK_USAGE}\n`);
  process.exit(2);
}
const { metrics } = parsed.options;
const couldNotCheck = (message: string): never => {
  if (metrics) process.stdout.write(`${checkFailedMetricLine(metricSettings(process.env))}\n`);
  process.stderr.write(`${message}\n`);
  process.exit(3);
};
const sql = await openToolDatabase(process.env, { statementTimeoutMs: 600_000 }).catch(
  (error: unknown) => {
    if (metrics && (error as { exitCode?: number }).exitCode === 3) {
      process.stdout.write(`${checkFailedMetricLine(metricSettings(process.env))}\n`);
    }
    return exitOnToolError(error);
  },
);
try {
  process.exitCode = await runCheck(sql, parsed.options, (line) => {
    process.stdout.write(`${line}\n`);
  });
  if (role !== undefined) {
    const timeout = await roleStatementTimeout(sql, role);
    const described = describeRoleTimeout(role, timeout, functions);
    process.stdout.write(`${described.line}\n`);
    if (!described.ok) process.exitCode = 1;
  }
} catch (error) {
  await sql.end({ timeout: 0 }).catch(() => undefined);
  couldNotCheck(`db:check could not check the rollups: ${oneLine(error)}`);
} finally {
  await sql.end();
}
