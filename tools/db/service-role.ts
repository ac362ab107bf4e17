/**
 * The statement timeout of the role the functions log in as, kept on the role itself
 * (`alter role … set statement_timeout`): the one place a proxy that refuses startup
 * parameters (RDS Proxy, PgBouncer) still applies it, with DB_STATEMENT_TIMEOUT_VIA=role.
 * `npm run db:migrate -- --service-role NAME` sets it; `npm run db:check -- --service-role NAME`
 * checks it.
 */
import { parseArgs } from 'node:util';
import type { Sql } from '../../shared/db/client';
import { FUNCTION_SETTINGS } from '../../shared/settings';

/** PostgreSQL's own name rules for a role the tools will name in DDL. */
const ROLE_NAME = /^[A-Za-z_][A-Za-z0-9_$]{0,62}$/;

export const isRoleName = (name: string): boolean => ROLE_NAME.test(name);

/**
 * Sets `role`'s statement_timeout (in every database) to `ms` milliseconds, and drops the one it
 * may have for the current database alone, which would win over it there.
 */
export const setRoleStatementTimeout = async (
  sql: Sql,
  role: string,
  ms: number,
): Promise<void> => {
  if (!isRoleName(role)) throw new TypeError('not a role name');
  if (!Number.isInteger(ms) || ms <= 0) throw new RangeError('not a positive whole number of ms');
  await sql.unsafe(`alter role "${role}" set statement_timeout = ${ms}`);
  const [here] = await sql<{ name: string }[]>`select current_database() as name`;
  await sql`alter role ${sql(role)} in database ${sql(here?.name ?? '')} reset statement_timeout`;
};

/**
 * The statement_timeout a new connection of `role` to the current database starts with, in
 * milliseconds, from the role's settings (this database's before every database's); undefined
 * when the role has none, and null when there is no such role.
 */
export const roleStatementTimeout = async (
  sql: Sql,
  role: string,
): Promise<number | undefined | null> => {
  const rows = await sql<{ known: boolean; setting: string | null }[]>`
    select exists (select from pg_roles where rolname = ${role}) as known,
      (select split_part(option, '=', 2)
         from pg_db_role_setting s
         join pg_roles r on r.oid = s.setrole
         cross join lateral unnest(s.setconfig) as option
        where r.rolname = ${role}
          and s.setdatabase in (0, (select oid from pg_database where datname = current_database()))
          and option like 'statement\\_timeout=%'
        order by s.setdatabase desc
        limit 1) as setting`;
  const row = rows[0];
  if (!row?.known) return null;
  if (row.setting === null) return undefined;
  return toMilliseconds(row.setting);
};

const UNITS: Readonly<Record<string, number>> = {
  us: 0.001,
  ms: 1,
  s: 1000,
  min: 60_000,
  h: 3_600_000,
  d: 86_400_000,
};

/** A statement_timeout value as stored ("5000", "5s", "1min"), in milliseconds. */
export const toMilliseconds = (setting: string): number | undefined => {
  const match = /^\s*(\d+(?:\.\d+)?)\s*([a-z]*)\s*$/.exec(setting);
  const unit = UNITS[match?.[2] || 'ms'];
  if (!match || unit === undefined) return undefined;
  return Number(match[1]) * unit;
};

/**
 * `--service-role NAME` (or `--service-role=NAME`) taken out of a tool's arguments; the others,
 * `--help` among them, are left in order for the tool, which refuses those it does not know
 * (parseArgs is not `strict` here: the other options are the tool's to check). Everything after
 * `--` is left as it is.
 */
export const takeServiceRole = (
  args: readonly string[],
): { readonly role?: string; readonly rest: readonly string[] } | { readonly error: string } => {
  const { tokens } = parseArgs({
    args: [...args],
    options: { 'service-role': { type: 'string' } },
    strict: false,
    allowPositionals: true,
    tokens: true,
  });
  const taken = tokens.flatMap((token) =>
    token.kind === 'option' && token.name === 'service-role' ? [token] : [],
  );
  const option = taken[0];
  if (option === undefined) return { rest: args };
  if (taken.length > 1) return { error: '--service-role is given twice' };
  const role = option.value;
  if (role === undefined || !isRoleName(role)) {
    return { error: '--service-role needs the name of the role the functions log in as' };
  }
  // Two words (`--service-role NAME`) or one (`--service-role=NAME`).
  const used = option.inlineValue ? [option.index] : [option.index, option.index + 1];
  return { role, rest: args.filter((_arg, index) => !used.includes(index)) };
};

/** What the functions do with DB_STATEMENT_TIMEOUT_MS (shared/config.ts). */
export interface FunctionsTimeout {
  readonly statementTimeoutMs: number;
  readonly statementTimeoutVia: 'startup' | 'role';
}

/**
 * One line on `role`'s statement timeout: whether the functions behind a proxy are bounded and,
 * given the functions' settings, whether the bound fits theirs. With DB_STATEMENT_TIMEOUT_VIA=role
 * the role's is the server's limit, and the client gives up on a query DB_STATEMENT_TIMEOUT_MS
 * and a margin after sending it: a role's above it would have the client cut off queries the server
 * allows, and is refused; one below it only ends queries sooner, on the server. With `startup`
 * the functions send their own, which overrides the role's: only a role without one is refused.
 */
export const describeRoleTimeout = (
  role: string,
  timeout: number | undefined | null,
  functions?: FunctionsTimeout,
): { readonly ok: boolean; readonly line: string } => {
  if (timeout === null) return { ok: false, line: `service role ${role}: no such role` };
  const migrate = `npm run db:migrate -- --service-role ${role}`;
  if (timeout === undefined || timeout === 0) {
    return { ok: false, line: `service role ${role}: no statement_timeout (${migrate})` };
  }
  const line = `service role ${role}: statement_timeout ${timeout} ms`;
  if (functions === undefined) return { ok: true, line };
  const setting = functions.statementTimeoutMs;
  if (functions.statementTimeoutVia === 'startup') {
    return {
      ok: true,
      line: `${line}, not compared: with DB_STATEMENT_TIMEOUT_VIA=startup the functions send DB_STATEMENT_TIMEOUT_MS (${setting} ms), which overrides it`,
    };
  }
  if (timeout > setting) {
    const raise =
      timeout <= FUNCTION_SETTINGS.DB_STATEMENT_TIMEOUT_MS.max
        ? ` or raise DB_STATEMENT_TIMEOUT_MS to ${Math.ceil(timeout)}`
        : '';
    return {
      ok: false,
      line: `${line} is above DB_STATEMENT_TIMEOUT_MS (${setting} ms): queries the server allows would be cut off by the client, which waits ${setting} ms and a margin; set the role's to ${setting} ms (${migrate})${raise}`,
    };
  }
  if (timeout < setting) {
    return {
      ok: true,
      line: `${line}, below DB_STATEMENT_TIMEOUT_MS (${setting} ms): the server cancels a statement at ${timeout} ms, before the client would (${migrate} sets ${setting} ms)`,
    };
  }
  return { ok: true, line: `${line}, as DB_STATEMENT_TIMEOUT_MS` };
};
