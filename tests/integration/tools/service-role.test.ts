/**
 * The statement timeout on the functions' own role, for DB_STATEMENT_TIMEOUT_VIA=role behind a
 * proxy: `npm run db:migrate -- --service-role NAME` sets it to DB_STATEMENT_TIMEOUT_MS, and
 * `npm run db:check -- --service-role NAME` fails while the role has none; beside the option,
 * db:check answers --help and both refuse an option they do not know. Both run as a user runs
 * them, against the run's database (the embedded PGlite, or TEST_DATABASE_URL).
 */
import { createRequire } from 'node:module';
import postgres from 'postgres';
import { CHECK_USAGE } from '../../../tools/db/drift';
import { run } from '../../support/processes';

const TSX = createRequire(import.meta.url).resolve('tsx/cli');
const ROLE = `portal_cli_timeout_${String(process.pid)}`;
/** A restaurant no test writes: the drift part of the check has nothing to find. */
const NO_RESTAURANT = ['--restaurant', `NONE-${String(process.pid)}`];

let sql: postgres.Sql;

const tool = (script: string, args: readonly string[], env: Record<string, string> = {}) =>
  run([TSX, `tools/db/${script}`, ...args], {
    DATABASE_URL: process.env.DATABASE_URL,
    ...env,
  });

beforeAll(async () => {
  sql = postgres(process.env.DATABASE_URL ?? '', { max: 1, onnotice: () => undefined });
  await sql.unsafe(`drop role if exists ${ROLE}`);
  await sql.unsafe(`create role ${ROLE} login`);
});

afterAll(async () => {
  await sql.unsafe(`drop role if exists ${ROLE}`);
  await sql.end();
});

describe('the service role statement timeout', () => {
  it('db:check fails while the role has none, db:migrate sets it, then db:check passes', async () => {
    // Act
    const before = await tool('check.ts', [...NO_RESTAURANT, '--service-role', ROLE]);
    const migrated = await tool('migrate-cli.ts', ['--service-role', ROLE], {
      DB_STATEMENT_TIMEOUT_MS: '2500',
    });
    const after = await tool('check.ts', [...NO_RESTAURANT, '--service-role', ROLE]);
    const [setting] = await sql<{ setconfig: string[] }[]>`
      select s.setconfig from pg_db_role_setting s join pg_roles r on r.oid = s.setrole
      where r.rolname = ${ROLE}`;

    // Assess
    expect(before.code).toBe(1);
    expect(before.stdout).toContain(
      `service role ${ROLE}: no statement_timeout (npm run db:migrate -- --service-role ${ROLE})`,
    );
    expect(migrated.code).toBe(0);
    expect(migrated.stdout).toContain(`service role ${ROLE}: statement_timeout 2500 ms`);
    expect(setting?.setconfig).toEqual(['statement_timeout=2500']);
    expect(after.code).toBe(0);
    expect(after.stdout).toContain(`service role ${ROLE}: statement_timeout 2500 ms`);
  });

  it('refuses a role name that is not one, and a bad DB_STATEMENT_TIMEOUT_MS, with exit 2', async () => {
    // Act
    const badRole = await tool('migrate-cli.ts', ['--service-role', 'x;drop']);
    const badTimeout = await tool('migrate-cli.ts', ['--service-role', ROLE], {
      DB_STATEMENT_TIMEOUT_MS: '5',
    });
    const unknownRole = await tool('check.ts', [...NO_RESTAURANT, '--service-role', 'nobody_here']);

    // Assess
    expect(badRole).toMatchObject({
      code: 2,
      stderr: expect.stringContaining('--service-role needs the name of the role') as unknown,
    });
    expect(badTimeout).toMatchObject({
      code: 2,
      stderr: 'DB_STATEMENT_TIMEOUT_MS must be a whole number from 100 to 60000\n',
    });
    expect(unknownRole.code).toBe(1);
    expect(unknownRole.stdout).toContain('service role nobody_here: no such role');
  });

  it('db:check answers --help beside --service-role with its usage, which names the option, and exits 0', async () => {
    // Act
    const help = await tool('check.ts', ['--service-role', ROLE, '--help']);

    // Assess
    expect(help).toEqual({ code: 0, stdout: `${CHECK_USAGE}\n`, stderr: '' });
    expect(CHECK_USAGE).toContain('[--service-role NAME]');
  });

  it('db:migrate answers --help with its usage and exits 0, migrating nothing', async () => {
    // Act
    const migrate = await tool('migrate-cli.ts', ['--help']);

    // Assess
    expect(migrate).toEqual({
      code: 0,
      stdout: 'usage: npm run db:migrate [-- --service-role NAME]\n',
      stderr: '',
    });
  });

  it('refuses an unknown option beside --service-role with exit 2, naming it on one line, and sets nothing', async () => {
    // Arrange
    const settings = () => sql<{ setconfig: string[] }[]>`
      select s.setconfig from pg_db_role_setting s join pg_roles r on r.oid = s.setrole
      where r.rolname = ${ROLE}`;
    const before = await settings();

    // Act
    const check = await tool('check.ts', ['--service-role', ROLE, '--fix']);
    const migrate = await tool('migrate-cli.ts', ['--service-role', ROLE, '--fix'], {
      DB_STATEMENT_TIMEOUT_MS: '1234',
    });

    // Assess
    expect(check).toEqual({
      code: 2,
      stdout: '',
      stderr: `Unknown option '--fix'\n${CHECK_USAGE}\n`,
    });
    expect(migrate).toEqual({
      code: 2,
      stdout: '',
      stderr: 'unknown argument: --fix\nusage: npm run db:migrate [-- --service-role NAME]\n',
    });
    expect(await settings()).toEqual(before);
  });
});
