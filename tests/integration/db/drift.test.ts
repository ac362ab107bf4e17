/**
 * The drift check and repair of the daily rollups (tools/db/drift.ts, npm run db:check =
 * tools/db/check.ts; docs/data.md) on the run's database (the embedded PGlite, or
 * TEST_DATABASE_URL), with drift made on purpose in a committed fixture restaurant of this
 * test's own.
 */
import { createRequire } from 'node:module';
import postgres from 'postgres';
import { CHECK_USAGE, runCheck, type CheckOptions } from '../../../tools/db/drift';
import { waitingForLock } from '../../support/lock-wait';
import { run } from '../../support/processes';

const TSX = createRequire(import.meta.url).resolve('tsx/cli');
const RESTAURANT = `DRIFT-${String(process.pid)}`;
const NO_OPTIONS: CheckOptions = { repair: false, metrics: false };
const SCOPED: CheckOptions = { ...NO_OPTIONS, restaurantId: RESTAURANT };

let sql: postgres.Sql;

const check = async (
  options: CheckOptions,
  env: NodeJS.ProcessEnv = {},
): Promise<{ code: number; lines: string[] }> => {
  const lines: string[] = [];
  const code = await runCheck(sql, options, (line) => lines.push(line), env);
  return { code, lines };
};

const cli = (args: readonly string[]) =>
  run([TSX, 'tools/db/check.ts', ...args], { DATABASE_URL: process.env.DATABASE_URL });

const order = async (
  platform: string,
  at: string,
  state: string,
  total: string,
  lines: readonly (readonly [string, number, string])[],
): Promise<string> => {
  const [row] = await sql<{ id: string }[]>`
    insert into orders (restaurant_id, platform_id, placed_at, state, total)
    values (${RESTAURANT}, ${platform}, ${at}, ${state}, ${total}) returning id::text as id`;
  const id = row?.id ?? '0';
  for (const [i, [dish, quantity, price]] of lines.entries()) {
    await sql`insert into order_lines values (${id}::bigint, ${i + 1}, ${dish}, ${quantity}, ${price})`;
  }
  return id;
};

const removeFixture = async (): Promise<void> => {
  await sql`delete from orders where restaurant_id = ${RESTAURANT}`;
  await sql`delete from report_daily_orders where restaurant_id = ${RESTAURANT}`;
  await sql`delete from report_daily_dishes where restaurant_id = ${RESTAURANT}`;
  await sql`delete from restaurant_platforms where restaurant_id = ${RESTAURANT}`;
  await sql`delete from restaurants where id = ${RESTAURANT}`;
};

let firstOrder = '';

beforeAll(async () => {
  sql = postgres(process.env.DATABASE_URL ?? '', { max: 1, onnotice: () => undefined });
  await removeFixture();
  await sql`insert into currencies (code, minor_units) values ('AED', 2) on conflict (code) do nothing`;
  await sql`insert into restaurants (id, name, time_zone, currency)
            values (${RESTAURANT}, 'Drift fixture', 'Asia/Dubai', 'AED')`;
  await sql`insert into restaurant_platforms (restaurant_id, platform_id, platform_restaurant_id)
            values (${RESTAURANT}, 'DA_AE', ${`${RESTAURANT}-a`}),
                   (${RESTAURANT}, 'DB_AE', ${`${RESTAURANT}-b`})`;
  firstOrder = await order('DA_AE', '2024-05-01T12:00:00+04:00', 'DELIVERED', '10.000', [
    ['Soup', 1, '4.000'],
    ['Tea', 2, '3.000'],
  ]);
  await order('DA_AE', '2024-05-01T20:00:00+04:00', 'PLACED', '5.500', [['Soup', 1, '5.500']]);
  await order('DB_AE', '2024-05-02T09:00:00+04:00', 'ACCEPTED', '7.000', [['Bread', 1, '7.000']]);
  await order('DA_AE', '2024-05-03T09:00:00+04:00', 'CANCELLED', '3.000', [['Soup', 1, '3.000']]);
});

afterAll(async () => {
  await removeFixture();
  await sql.end();
});

const DAYS_ROW = `report_daily_orders ${RESTAURANT} DA_AE 2024-05-01 local day 2024-05-01: rollup 3 orders, revenue 20; source 2 orders, revenue 15.500`;
const GHOST_ROW = `report_daily_dishes ${RESTAURANT} DA_AE 2024-05-03 dish "Ghost": rollup 1 orders, revenue 1.5; source no row`;
const BREAD_ROW = `report_daily_dishes ${RESTAURANT} DB_AE 2024-05-02 dish "Bread": rollup no row; source 1 orders, revenue 7.000`;
const CLEAN = 'rollups equal their source rows';

describe('npm run db:check', () => {
  it('exits 0 on a clean database, every restaurant and day compared', async () => {
    expect(await check(NO_OPTIONS)).toEqual({ code: 0, lines: [CLEAN] });
    const finished = await cli([]);
    expect(finished).toEqual({ code: 0, stdout: `${CLEAN}\n`, stderr: '' });
  });

  it('exits 2 with the usage line on bad arguments', async () => {
    const finished = await cli(['--from', '2024-02-30']);
    expect(finished).toEqual({
      code: 2,
      stdout: '',
      stderr:
        '--from must be a date YYYY-MM-DD, not "2024-02-30"\n' +
        'usage: npm run db:check -- [--from YYYY-MM-DD] [--to YYYY-MM-DD] [--restaurant ID] [--repair] [--metrics] [--service-role NAME]\n',
    });
  });

  it('prints its usage on standard output for --help and -h and exits 0, checking nothing', async () => {
    const long = await cli(['--restaurant', RESTAURANT, '--help']);
    const short = await cli(['-h']);

    const help = { code: 0, stdout: `${CHECK_USAGE}\n`, stderr: '' };
    expect(long).toEqual(help);
    expect(short).toEqual(help);
  });

  it('refuses an unknown option (exit 2), naming it on one line before the usage', async () => {
    const finished = await cli(['--restaurant', RESTAURANT, '--fix']);

    expect(finished).toEqual({
      code: 2,
      stdout: '',
      stderr: `Unknown option '--fix'\n${CHECK_USAGE}\n`,
    });
  });

  it('finds a rollup row changed, one deleted and a bogus one, prints each, and repairs them', async () => {
    await sql`update report_daily_orders set orders = 3, revenue = 20
              where restaurant_id = ${RESTAURANT} and platform_id = 'DA_AE' and day = '2024-05-01'`;
    await sql`delete from report_daily_dishes
              where restaurant_id = ${RESTAURANT} and dish_name = 'Bread'`;
    await sql`insert into report_daily_dishes values (${RESTAURANT}, 'DA_AE', '2024-05-03', 'Ghost', 1, 1.5)`;
    const summary = `3 rollup row(s) differ from their source rows: 3 restaurant-day(s) of 1 restaurant(s) (${RESTAURANT})`;

    expect(await check(SCOPED)).toEqual({
      code: 1,
      lines: [DAYS_ROW, GHOST_ROW, BREAD_ROW, summary],
    });
    const finished = await cli(['--restaurant', RESTAURANT]);
    expect(finished).toEqual({
      code: 1,
      stdout: [DAYS_ROW, GHOST_ROW, BREAD_ROW, summary, ''].join('\n'),
      stderr: '',
    });
    expect(
      await check({ ...SCOPED, from: '2024-05-02', to: '2024-05-02' } as CheckOptions),
    ).toEqual({
      code: 1,
      lines: [
        BREAD_ROW,
        `1 rollup row(s) differ from their source rows: 1 restaurant-day(s) of 1 restaurant(s) (${RESTAURANT})`,
      ],
    });
    expect(await check({ ...SCOPED, from: '2024-05-04' } as CheckOptions)).toEqual({
      code: 0,
      lines: [CLEAN],
    });

    const repaired = await cli(['--restaurant', RESTAURANT, '--repair']);
    expect(repaired).toEqual({
      code: 0,
      stdout: [
        DAYS_ROW,
        GHOST_ROW,
        BREAD_ROW,
        summary,
        `repaired ${RESTAURANT}`,
        `after repair: ${CLEAN}`,
        '',
      ].join('\n'),
      stderr: '',
    });
    expect(await check(NO_OPTIONS)).toEqual({ code: 0, lines: [CLEAN] });
  });

  it('emits the drifted restaurant-days as one Embedded Metric Format line with --metrics', async () => {
    await sql`delete from report_daily_orders where restaurant_id = ${RESTAURANT}`;
    try {
      const { code, lines } = await check(
        { ...SCOPED, metrics: true },
        { METRICS_NAMESPACE: 'DriftTest', METRICS_SERVICE: 'drift-service' },
      );
      expect(code).toBe(1);
      expect(lines).toHaveLength(4);
      expect(JSON.parse(lines[3] ?? '')).toEqual({
        _aws: {
          Timestamp: expect.any(Number) as number,
          CloudWatchMetrics: [
            {
              Namespace: 'DriftTest',
              Dimensions: [['Service']],
              Metrics: [{ Name: 'RollupDrift', Unit: 'Count' }],
            },
          ],
        },
        Service: 'drift-service',
        RollupDrift: 2,
      });
    } finally {
      await check({ ...SCOPED, repair: true });
    }
    const clean = await check({ ...SCOPED, metrics: true });
    expect(clean.code).toBe(0);
    expect(JSON.parse(clean.lines[1] ?? '')).toMatchObject({
      _aws: { CloudWatchMetrics: [{ Namespace: 'PortalServiceApi' }] },
      Service: 'portal-service-api',
      RollupDrift: 0,
    });
  });

  it('lets a write that finds its rollup out of step succeed; the check then finds and repairs the drift', async () => {
    await sql`delete from report_daily_orders
              where restaurant_id = ${RESTAURANT} and platform_id = 'DA_AE' and day = '2024-05-01'`;

    await sql`update orders set state = 'CANCELLED' where id = ${firstOrder}::bigint`;

    const [rollup] = await sql`select count(*)::int as rows from report_daily_orders
                               where restaurant_id = ${RESTAURANT} and platform_id = 'DA_AE'`;
    expect(rollup).toEqual({ rows: 0 });
    const { code, lines } = await check({ ...SCOPED, repair: true });
    expect({ code, lines }).toEqual({
      code: 0,
      lines: [
        `report_daily_orders ${RESTAURANT} DA_AE 2024-05-01 local day 2024-05-01: rollup no row; source 1 orders, revenue 5.500`,
        `1 rollup row(s) differ from their source rows: 1 restaurant-day(s) of 1 restaurant(s) (${RESTAURANT})`,
        `repaired ${RESTAURANT}`,
        `after repair: ${CLEAN}`,
      ],
    });
    await sql`update orders set state = 'DELIVERED' where id = ${firstOrder}::bigint`;
    expect(await check(SCOPED)).toEqual({ code: 0, lines: [CLEAN] });
  });
});

(process.env.TEST_DATABASE_KIND === 'postgresql' ? describe : describe.skip)(
  'npm run db:check -- --repair under concurrent writers (PostgreSQL)',
  () => {
    it("waits for the restaurant's writer under way, blocks no other restaurant's, and leaves the rollups exact", async () => {
      const admin = postgres(process.env.DATABASE_URL ?? '', { max: 4, onnotice: () => undefined });
      const writer = await admin.reserve();
      const application = `drift-repair-${String(process.pid)}`;
      const repairer = postgres(process.env.DATABASE_URL ?? '', {
        max: 1,
        onnotice: () => undefined,
        connection: { application_name: application },
      });
      try {
        await sql`delete from report_daily_dishes where restaurant_id = ${RESTAURANT}`;
        await writer`begin`;
        await writer`
          insert into orders (restaurant_id, platform_id, placed_at, state, total)
          values (${RESTAURANT}, 'DA_AE', '2024-05-01T13:00:00+04:00', 'PLACED', 2)`;
        const repair = runCheck(repairer, { ...SCOPED, repair: true }, () => undefined);
        await waitingForLock(admin, { application });
        // Another restaurant's writer is not held by the repair.
        await admin`update restaurants set name = name where id = 'R-1001'`;
        const [other] = await admin<{ id: string }[]>`
          insert into orders (restaurant_id, platform_id, placed_at, state, total)
          values ('R-1001', 'TB_AE', '2024-05-01T13:00:00+04:00', 'CANCELLED', 1)
          returning id::text as id`;
        await admin`delete from orders where id = ${other?.id ?? '0'}::bigint`;
        await writer`commit`;

        expect(await repair).toBe(0);
        expect(await check(SCOPED)).toEqual({ code: 0, lines: [CLEAN] });
        const [day] = await sql<{ orders: number }[]>`
          select orders from report_daily_orders
          where restaurant_id = ${RESTAURANT} and platform_id = 'DA_AE' and day = '2024-05-01'`;
        expect(day).toEqual({ orders: 3 });
      } finally {
        await writer`rollback`.catch(() => undefined);
        writer.release();
        await repairer.end();
        await admin`delete from orders where restaurant_id = ${RESTAURANT} and total = 2`;
        await admin.end();
      }
    });
  },
);
