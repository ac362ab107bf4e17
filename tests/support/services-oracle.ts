/**
 * An independent reading of the database for the orders-today, revenue and dashboard services:
 * raw orders read with plain SQL, local days, times, offsets and months computed in JavaScript
 * (Intl, not SQL time zones), money summed in integer thousandths and rounded half away from
 * zero in integers. Also a rolled-back transaction with its own restaurant, orders and a clock
 * set in the database, for the days and months a DST change makes awkward.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { APIGatewayProxyEvent } from 'aws-lambda';
import type postgres from 'postgres';
import { fillPlaceholders } from '../../tools/local/placeholders';
import type { IsoDate } from '../../shared/dates';
import { addDays, todayIn } from '../../tools/dates';
import type { Sql } from '../../shared/db/client';
import { EVENTS_DIR, sampleToday } from './events';
import { COUNTED, countedPerBucket, roundedAmount, withDatabase } from './oracle';

const CANCELLED = new Set(['CANCELLED', 'REJECTED']);

export interface ListedOrder {
  readonly id: string;
  readonly placedAt: Date;
  readonly state: string;
  readonly totalMilli: number;
  readonly itemCount: number;
}

const milli = (decimal: string): number => Math.round(Number(decimal) * 1000);

/** Every order of a restaurant on a platform, with its id and the sum of its line quantities. */
export const listedOrders = (restaurantId: string, platformId: string): Promise<ListedOrder[]> =>
  withDatabase(async (sql) => {
    const orders = await sql<{ id: string; placed_at: Date; state: string; total: string }[]>`
      select id::text as id, placed_at, state, total::text as total from orders
      where restaurant_id = ${restaurantId} and platform_id = ${platformId}`;
    const lines = await sql<{ order_id: string; quantity: number }[]>`
      select l.order_id::text as order_id, l.quantity
      from order_lines l join orders o on o.id = l.order_id
      where o.restaurant_id = ${restaurantId} and o.platform_id = ${platformId}`;
    const items = new Map<string, number>();
    for (const line of lines) {
      items.set(line.order_id, (items.get(line.order_id) ?? 0) + line.quantity);
    }
    return orders.map((order) => ({
      id: order.id,
      placedAt: order.placed_at,
      state: order.state,
      totalMilli: milli(order.total),
      itemCount: items.get(order.id) ?? 0,
    }));
  });

/** numerator / denominator rounded half away from zero to `scale` units (non-negative). */
const roundedRatio = (numerator: number, denominator: number, scale: number): number =>
  Math.floor((2 * numerator * scale + denominator) / (2 * denominator)) / scale;

export interface LocalTime {
  readonly date: IsoDate;
  /** HH:MM:SS.mmm */
  readonly time: string;
  /** +HH:MM or -HH:MM */
  readonly offset: string;
}

export const localTime = (timeZone: string, instant: Date): LocalTime => {
  const parts = Object.fromEntries(
    new Intl.DateTimeFormat('en-US', {
      timeZone,
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
      fractionalSecondDigits: 3,
      hourCycle: 'h23',
      timeZoneName: 'longOffset',
    })
      .formatToParts(instant)
      .map((part) => [part.type, part.value]),
  ) as Record<string, string>;
  const offset = (parts.timeZoneName ?? '').replace('GMT', '') || '+00:00';
  return {
    date: `${parts.year}-${parts.month}-${parts.day}` as IsoDate,
    time: `${parts.hour}:${parts.minute}:${parts.second}.${parts.fractionalSecond}`,
    offset,
  };
};

/** The rows of orders/today at `now`: the local day's orders, newest first. */
export const expectedOrdersToday = (
  orders: readonly ListedOrder[],
  timeZone: string,
  minorUnits: number,
  now: Date,
) => {
  const today = todayIn(timeZone, now);
  return orders
    .filter((order) => todayIn(timeZone, order.placedAt) === today)
    .sort(
      (a, b) => b.placedAt.getTime() - a.placedAt.getTime() || Number(BigInt(b.id) - BigInt(a.id)),
    )
    .map((order) => {
      const local = localTime(timeZone, order.placedAt);
      return {
        id: order.id,
        placedAt: `${local.date}T${local.time.slice(0, 8)}${local.offset}`,
        state: order.state,
        itemCount: order.itemCount,
        total: roundedAmount(order.totalMilli, minorUnits),
      };
    });
};

/** First day of the month of a date. */
export const monthOf = (date: IsoDate): IsoDate => `${date.slice(0, 7)}-01` as IsoDate;

/** First day of the month `months` after (or, negative, before) a first day. */
export const addMonths = (month: IsoDate, months: number): IsoDate => {
  const index = Number(month.slice(0, 4)) * 12 + Number(month.slice(5, 7)) - 1 + months;
  const year = Math.floor(index / 12);
  return `${String(year).padStart(4, '0')}-${String((index % 12) + 1).padStart(2, '0')}-01` as IsoDate;
};

export const eachMonth = (from: IsoDate, to: IsoDate): IsoDate[] => {
  const months: IsoDate[] = [];
  for (let month = from; month <= to; month = addMonths(month, 1)) months.push(month);
  return months;
};

/** The rows of reports/revenue: counted orders bucketed by the month of their local day. */
export const expectedRevenue = (
  orders: readonly { placedAt: Date; state: string; totalMilli: number }[],
  timeZone: string,
  months: readonly IsoDate[],
  minorUnits: number,
) =>
  countedPerBucket(orders, timeZone, months, monthOf, minorUnits).map(
    ({ bucket, orderCount, revenue }) => ({
      month: bucket,
      year: `${bucket.slice(0, 4)}-01-01`,
      orderCount,
      revenue,
    }),
  );

const periodFigures = (
  orders: readonly { state: string; totalMilli: number }[],
  minorUnits: number,
) => {
  const counted = orders.filter((order) => COUNTED.has(order.state));
  const cancelled = orders.filter((order) => CANCELLED.has(order.state)).length;
  const sum = counted.reduce((total, order) => total + order.totalMilli, 0);
  const step = 10 ** (3 - minorUnits);
  return {
    orders: counted.length,
    revenue: roundedAmount(sum, minorUnits),
    averageOrderValue:
      counted.length === 0 ? 0 : (roundedRatio(sum, counted.length * step, 1) * step) / 1000,
    cancellationRate: orders.length === 0 ? 0 : roundedRatio(cancelled, orders.length, 10_000),
  };
};

/**
 * The dashboard's `data` at `now`: today from local midnight to now, against the same weekday
 * a week earlier from local midnight to the same local time of day.
 */
export const expectedDashboard = (
  orders: readonly { placedAt: Date; state: string; totalMilli: number }[],
  timeZone: string,
  currency: string | null,
  minorUnits: number,
  now: Date,
) => {
  const clock = localTime(timeZone, now);
  const compareDate = addDays(clock.date, -7);
  const today = periodFigures(
    orders.filter(
      (order) => todayIn(timeZone, order.placedAt) === clock.date && order.placedAt <= now,
    ),
    minorUnits,
  );
  const compare = periodFigures(
    orders.filter((order) => {
      const local = localTime(timeZone, order.placedAt);
      return local.date === compareDate && local.time <= clock.time;
    }),
    minorUnits,
  );
  const pair = (key: keyof typeof today) => ({ value: today[key], compare: compare[key] });
  return {
    date: clock.date,
    compareDate,
    currency,
    orders: pair('orders'),
    revenue: pair('revenue'),
    averageOrderValue: pair('averageOrderValue'),
    cancellationRate: pair('cancellationRate'),
  };
};

/**
 * events/<name>.json with `${MONTH}` / `${MONTH-N}` (first day of the sample restaurant's
 * month, N months back) filled here, then the shared placeholders.
 */
export const monthlySampleEvent = (name: string, token: string): APIGatewayProxyEvent => {
  const month = monthOf(sampleToday());
  const text = readFileSync(join(EVENTS_DIR, `${name}.json`), 'utf8').replace(
    /\$\{MONTH(?:-(\d{1,3}))?\}/g,
    (_match, back?: string) => addMonths(month, -Number(back ?? '0')),
  );
  return fillPlaceholders(JSON.parse(text) as APIGatewayProxyEvent, {
    token,
    today: sampleToday(),
  });
};

export interface FixtureOrder {
  /** An instant, e.g. 2026-10-25T00:30:00Z */
  readonly placedAt: string;
  readonly state: string;
  readonly total: string;
  readonly quantities: readonly number[];
}

export interface Fixture {
  readonly restaurantId: string;
  readonly platformId: string;
  readonly timeZone: string;
  readonly currency: string;
  readonly orders: readonly FixtureOrder[];
  /** The database clock (now()) while the fixture runs; the real clock when absent. */
  readonly now?: string;
}

/** Thrown to end the fixture's transaction with a rollback. */
const ROLLBACK = new Error('fixture rolled back');

/**
 * Runs `act` in a transaction that holds one more restaurant with the given orders (and, when
 * asked, a clock of its own: a `now()` that search_path puts before pg_catalog's), then rolls
 * it all back, so no other test sees any of it. Answers what `act` answered and the ids of the
 * orders, in the fixture's order.
 */
export const withFixture = <T>(
  fixture: Fixture,
  act: (sql: Sql, ids: readonly string[]) => Promise<T>,
): Promise<T> =>
  withDatabase(async (sql) => {
    let outcome: { value: T } | undefined;
    try {
      await sql.begin(async (tx: postgres.TransactionSql) => {
        const { restaurantId, platformId } = fixture;
        await tx`insert into restaurants (id, name, time_zone, currency)
                 values (${restaurantId}, 'Fixture', ${fixture.timeZone}, ${fixture.currency})`;
        await tx`insert into restaurant_platforms (restaurant_id, platform_id, platform_restaurant_id)
                 values (${restaurantId}, ${platformId}, ${`fixture-${restaurantId}`})`;
        const ids: string[] = [];
        for (const order of fixture.orders) {
          const [row] = await tx<{ id: string }[]>`
            insert into orders (restaurant_id, platform_id, placed_at, state, total)
            values (${restaurantId}, ${platformId}, ${order.placedAt}::timestamptz,
                    ${order.state}, ${order.total}::numeric)
            returning id::text as id`;
          if (!row) throw new Error('fixture order not inserted');
          ids.push(row.id);
          for (const [index, quantity] of order.quantities.entries()) {
            await tx`insert into order_lines (order_id, line_no, dish_name, quantity, unit_price)
                     values (${row.id}::bigint, ${index + 1}, 'Dish', ${quantity}, 1)`;
          }
        }
        if (fixture.now !== undefined) {
          await tx`create schema fixture_clock`;
          await tx`create function fixture_clock.now() returns timestamptz stable language sql
                   as $$ select current_setting('fixture_clock.now')::timestamptz $$`;
          await tx`select set_config('fixture_clock.now', ${fixture.now}, true)`;
          await tx`select set_config('search_path',
                     'fixture_clock, pg_catalog, ' || current_setting('search_path'), true)`;
        }
        // A transaction runs the same queries as the pool; postgres.js types it apart.
        outcome = { value: await act(tx as unknown as Sql, ids) };
        throw ROLLBACK;
      });
    } catch (error) {
      if (error !== ROLLBACK) throw error;
    }
    if (!outcome) throw new Error('fixture did not run');
    return outcome.value;
  });
