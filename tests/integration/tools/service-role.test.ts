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

describe("db:check against DB_STATEMENT_TIMEOUT_MS: the role's statement_timeout the functions get", () => {
  const SETTING = { DB_STATEMENT_TIMEOUT_MS: '5000' };
  const VIA_ROLE = { ...SETTING, DB_STATEMENT_TIMEOUT_VIA: 'role' };
  let role = '';
  let count = 0;

  /** The role's own statement_timeout, in every database or in this one alone. */
  const setRoleTimeout = async (value: string, here = false) => {
    const [database] = await sql<{ name: string }[]>`select current_database() as name`;
    const where = here ? sql`in database ${sql(database?.name ?? '')}` : sql``;
    await sql`alter role ${sql(role)} ${where} set statement_timeout = ${sql.unsafe(`'${value}'`)}`;
  };
  const check = (env: Record<string, string>) =>
    tool('check.ts', [...NO_RESTAURANT, '--service-role', role], env);

  beforeEach(async () => {
    count += 1;
    role = `portal_check_timeout_${String(process.pid)}_${String(count)}`;
    await sql`create role ${sql(role)} login`;
  });

  afterEach(async () => {
    await sql`drop role if exists ${sql(role)}`;
  });

  it('refuses a role timeout above the setting with exit 1, naming both and what to do', async () => {
    // Prepare
    await setRoleTimeout('10s');

    // Act
    const checked = await check(VIA_ROLE);

    // Assess
    expect(checked.code).toBe(1);
    expect(checked.stdout).toContain(
      `service role ${role}: statement_timeout 10000 ms is above DB_STATEMENT_TIMEOUT_MS (5000 ms): queries the server allows would be cut off by the client, which waits 5000 ms and a margin; set the role's to 5000 ms (npm run db:migrate -- --service-role ${role}) or raise DB_STATEMENT_TIMEOUT_MS to 10000\n`,
    );
  });

  it.each([
    ['none', undefined],
    ['0', '0'],
  ])('refuses a role without a timeout (%s) with exit 1, as before', async (_name, value) => {
    // Prepare
    if (value !== undefined) await setRoleTimeout(value);

    // Act
    const checked = await check(VIA_ROLE);

    // Assess
    expect(checked.code).toBe(1);
    expect(checked.stdout).toContain(
      `service role ${role}: no statement_timeout (npm run db:migrate -- --service-role ${role})\n`,
    );
  });

  it('passes a role timeout equal to the setting', async () => {
    // Prepare
    await setRoleTimeout('5000');

    // Act
    const checked = await check(VIA_ROLE);

    // Assess
    expect(checked).toMatchObject({ code: 0, stderr: '' });
    expect(checked.stdout).toContain(
      `service role ${role}: statement_timeout 5000 ms, as DB_STATEMENT_TIMEOUT_MS\n`,
    );
  });

  it('passes a role timeout below the setting, which cuts no query the server allows, with a note', async () => {
    // Prepare
    await setRoleTimeout('2s');

    // Act
    const checked = await check(VIA_ROLE);

    // Assess
    expect(checked).toMatchObject({ code: 0, stderr: '' });
    expect(checked.stdout).toContain(
      `service role ${role}: statement_timeout 2000 ms, below DB_STATEMENT_TIMEOUT_MS (5000 ms): the server cancels a statement at 2000 ms, before the client would (npm run db:migrate -- --service-role ${role} sets 5000 ms)\n`,
    );
  });

  it("ignores the role's value with DB_STATEMENT_TIMEOUT_VIA=startup, which overrides it, and says so", async () => {
    // Prepare
    await setRoleTimeout('10s');

    // Act
    const checked = await check({ ...SETTING, DB_STATEMENT_TIMEOUT_VIA: 'startup' });

    // Assess
    expect(checked).toMatchObject({ code: 0, stderr: '' });
    expect(checked.stdout).toContain(
      `service role ${role}: statement_timeout 10000 ms, not compared: with DB_STATEMENT_TIMEOUT_VIA=startup the functions send DB_STATEMENT_TIMEOUT_MS (5000 ms), which overrides it\n`,
    );
  });

  it("reads this database's own setting for the role before its every-database one, and db:migrate drops it", async () => {
    // Prepare
    await setRoleTimeout('5000');
    await setRoleTimeout('10000', true);

    // Act
    const before = await check(VIA_ROLE);
    const migrated = await tool('migrate-cli.ts', ['--service-role', role], SETTING);
    const after = await check(VIA_ROLE);

    // Assess
    expect(before.code).toBe(1);
    expect(before.stdout).toContain(`service role ${role}: statement_timeout 10000 ms is above`);
    expect(migrated.code).toBe(0);
    expect(after.code).toBe(0);
    expect(after.stdout).toContain(`service role ${role}: statement_timeout 5000 ms, as`);
  });

  // Logging in as the role needs the real server (TEST_DATABASE_URL), not the embedded PGlite.
  (process.env.TEST_DATABASE_KIND === 'postgresql' ? it : it.skip)(
    "reads what a connection of the role gets without a startup parameter, this database's setting first",
    async () => {
      // Prepare
      await setRoleTimeout('5000');
      await setRoleTimeout('7s', true);
      const url = new URL(process.env.DATABASE_URL ?? '');
      url.username = role;
      url.password = '';
      const asRole = postgres(url.href, { max: 1, onnotice: () => undefined });

      // Act
      const checked = await check(VIA_ROLE);
      const [shown] = await asRole<{ statement_timeout: string }[]>`show statement_timeout`.finally(
        () => asRole.end(),
      );

      // Assess
      expect(shown?.statement_timeout).toBe('7s');
      expect(checked.stdout).toContain(`service role ${role}: statement_timeout 7000 ms is above`);
    },
  );

  it('refuses a bad DB_STATEMENT_TIMEOUT_MS beside --service-role with exit 2', async () => {
    // Act
    const checked = await check({ DB_STATEMENT_TIMEOUT_MS: '5' });

    // Assess
    expect(checked).toEqual({
      code: 2,
      stdout: '',
      stderr: 'DB_STATEMENT_TIMEOUT_MS must be a whole number from 100 to 60000\n',
    });
  });
});
