/**
 * The plans of the report queries over 20,000 orders of 50 restaurants, written and ANALYZEd in
 * a rolled-back transaction: EXPLAIN of the exact SQL each report module sends (caught through
 * postgres.js' debug hook) range-scans its rollup's primary key, never reads a rollup
 * sequentially, and never reads orders or order lines. The planner is left at its defaults.
 */
import postgres from 'postgres';
import type { Sql } from '../../../shared/db/client';
import type { IsoDate } from '../../../shared/dates';
import { dishesQueries } from '../../../shared/reports/dishes.sql';
import { ordersPerDayQueries } from '../../../shared/reports/orders-per-day.sql';
import { revenueQueries } from '../../../shared/reports/revenue.sql';
import { rolledBack } from './fixture-restaurant';

const DAYS_INDEX = 'report_daily_orders_pkey';
const DISHES_INDEX = 'report_daily_dishes_pkey';
const RESTAURANTS = 50;
const ORDERS = 20_000;
const scope = { restaurantId: 'PLAN-0007', platformId: 'PL_AE' };
const range = { from: '2024-05-01' as IsoDate, to: '2024-05-31' as IsoDate };
const months = { from: '2023-06-01' as IsoDate, to: '2024-05-01' as IsoDate };

interface PlanNode {
  readonly 'Node Type': string;
  readonly 'Relation Name'?: string;
  readonly 'Index Name'?: string;
  readonly 'Index Cond'?: string;
  readonly Plans?: readonly PlanNode[];
}

const nodesOf = (node: PlanNode): PlanNode[] => [node, ...(node.Plans ?? []).flatMap(nodesOf)];

interface Captured {
  string: string;
  parameters: unknown[];
}

/** The plan nodes of the query `run` sends, EXPLAINed inside the fixture transaction. */
const plansOf = async (run: (sql: Sql) => Promise<unknown>): Promise<PlanNode[]> => {
  let captured: Captured | undefined;
  let capturing = false;
  let nodes: PlanNode[] = [];
  await rolledBack(
    async (tx) => {
      await tx`insert into currencies (code, minor_units) values ('AED', 2) on conflict (code) do nothing`;
      await tx`
        insert into restaurants (id, name, time_zone, currency)
        select 'PLAN-' || lpad(i::text, 4, '0'), 'Plan ' || i, 'Asia/Dubai', 'AED'
        from generate_series(1, ${RESTAURANTS}) as i`;
      await tx`
        insert into restaurant_platforms (restaurant_id, platform_id, platform_restaurant_id)
        select id, 'PL_AE', lower(id) from restaurants where id like 'PLAN-%'`;
      await tx`
        insert into orders (restaurant_id, platform_id, placed_at, state, total)
        select 'PLAN-' || lpad((1 + g % ${RESTAURANTS})::text, 4, '0'), 'PL_AE',
               timestamptz '2023-01-01 00:00:00+00' + (g * 3167 % 63072000) * interval '1 second',
               case when g % 20 = 0 then 'CANCELLED' else 'DELIVERED' end,
               (g % 97 + 3)::numeric
        from generate_series(1, ${ORDERS}) as g
        order by 3`;
      await tx`
        insert into order_lines (order_id, line_no, dish_name, quantity, unit_price)
        select o.id, n, 'Dish ' || ((o.id + n) % 12), 1 + n % 2, 4.5
        from orders o
        cross join lateral generate_series(1, 1 + (o.id % 4)::int) as n
        where o.restaurant_id like 'PLAN-%'`;
      await tx`analyze orders, order_lines, restaurants, report_daily_orders, report_daily_dishes`;
      capturing = true;
      await run(tx as unknown as Sql);
      capturing = false;
      if (!captured) throw new Error('no query captured');
      const [row] = await tx.unsafe<{ 'QUERY PLAN': unknown }[]>(
        `explain (format json) ${captured.string}`,
        captured.parameters as postgres.ParameterOrJSON<never>[],
      );
      const json = row?.['QUERY PLAN'];
      const parsed = (typeof json === 'string' ? JSON.parse(json) : json) as {
        Plan: PlanNode;
      }[];
      nodes = parsed.flatMap((entry) => nodesOf(entry.Plan));
    },
    {
      debug: (_connection, string, parameters) => {
        if (capturing) captured = { string, parameters: [...(parameters as unknown[])] };
      },
    },
  );
  return nodes;
};

const SOURCE_TABLES = ['orders', 'order_lines'];
const ROLLUP_TABLES = ['report_daily_orders', 'report_daily_dishes'];

const expectRollupRangeScan = (nodes: readonly PlanNode[], index: string, upperBound: RegExp) => {
  const scans = nodes.filter(
    (node) =>
      ['Index Scan', 'Index Only Scan', 'Bitmap Index Scan'].includes(node['Node Type']) &&
      node['Index Name'] === index,
  );
  expect(scans).not.toHaveLength(0);
  for (const scan of scans) {
    expect(scan['Index Cond']).toMatch(/restaurant_id = /);
    expect(scan['Index Cond']).toMatch(/platform_id = /);
    expect(scan['Index Cond']).toMatch(/day >= /);
    expect(scan['Index Cond']).toMatch(upperBound);
  }
  const sequential = nodes.filter(
    (node) =>
      node['Node Type'] === 'Seq Scan' &&
      [...SOURCE_TABLES, ...ROLLUP_TABLES].includes(node['Relation Name'] ?? ''),
  );
  expect(sequential).toEqual([]);
  const source = nodes.filter(
    (node) =>
      SOURCE_TABLES.includes(node['Relation Name'] ?? '') ||
      /^(orders|order_lines)_/.test(node['Index Name'] ?? ''),
  );
  expect(source).toEqual([]);
};

describe('report query plans at scale', () => {
  type Query = (sql: Sql) => Promise<unknown>;
  const perDay: Query = (sql) => ordersPerDayQueries(sql).ordersPerDay(scope, range);
  const dishes: Query = (sql) => dishesQueries(sql).dishes(scope, range);
  const revenue: Query = (sql) => revenueQueries(sql).revenuePerMonth(scope, months);

  it.each([
    ['orders/day', '31 days', DAYS_INDEX, perDay, /day <= /],
    ['dishes', '31 days', DISHES_INDEX, dishes, /day <= /],
    ['revenue', '12 months', DAYS_INDEX, revenue, /day < /],
  ])(
    '%s for one restaurant over %s range-scans %s, never reading orders or lines',
    async (_report, _span, index, query, upperBound) => {
      expectRollupRangeScan(await plansOf(query), index, upperBound);
    },
  );
});
