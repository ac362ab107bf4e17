/**
 * An independent reading of the database for checking reports: raw orders bucketed into days
 * in JavaScript (Intl, not SQL time zones) and money summed in integer thousandths.
 */
import postgres from 'postgres';
import type { DateRange, IsoDate } from '../../shared/dates';
import { todayIn } from '../../tools/dates';

export interface RawOrder {
  readonly placedAt: Date;
  readonly state: string;
  readonly totalMilli: number;
  readonly lines: readonly { dish: string; quantity: number; unitMilli: number }[];
}

export const withDatabase = async <T>(run: (sql: postgres.Sql) => Promise<T>): Promise<T> => {
  const url = process.env.DATABASE_URL;
  if (!url) throw new Error('DATABASE_URL is not set: is the Jest global setup running?');
  const sql = postgres(url, { max: 1, onnotice: () => undefined });
  try {
    return await run(sql);
  } finally {
    await sql.end();
  }
};

const milli = (decimal: string): number => Math.round(Number(decimal) * 1000);

export const rawOrders = (restaurantId: string, platformId: string): Promise<RawOrder[]> =>
  withDatabase(async (sql) => {
    const orders = await sql<{ id: string; placed_at: Date; state: string; total: string }[]>`
      select id, placed_at, state, total::text as total from orders
      where restaurant_id = ${restaurantId} and platform_id = ${platformId}`;
    const lines = await sql<
      { order_id: string; dish_name: string; quantity: number; unit_price: string }[]
    >`
      select l.order_id, l.dish_name, l.quantity, l.unit_price::text as unit_price
      from order_lines l join orders o on o.id = l.order_id
      where o.restaurant_id = ${restaurantId} and o.platform_id = ${platformId}`;
    return orders.map((order) => ({
      placedAt: order.placed_at,
      state: order.state,
      totalMilli: milli(order.total),
      lines: lines
        .filter((line) => line.order_id === order.id)
        .map((line) => ({
          dish: line.dish_name,
          quantity: line.quantity,
          unitMilli: milli(line.unit_price),
        })),
    }));
  });

export const COUNTED = new Set(['PLACED', 'ACCEPTED', 'DELIVERED']);

/** Thousandths rounded half away from zero to the currency's minor unit, as a number. */
export const roundedAmount = (totalMilli: number, minorUnits: number): number => {
  const step = 10 ** (3 - minorUnits);
  return (Math.round(totalMilli / step) * step) / 1000;
};

/**
 * For each bucket, the orders counted in it (those whose local day `bucketOf` files under it)
 * and their total, rounded to the currency.
 */
export const countedPerBucket = (
  orders: readonly { placedAt: Date; state: string; totalMilli: number }[],
  timeZone: string,
  buckets: readonly IsoDate[],
  bucketOf: (day: IsoDate) => IsoDate,
  minorUnits: number,
) =>
  buckets.map((bucket) => {
    const counted = orders.filter(
      (order) => COUNTED.has(order.state) && bucketOf(todayIn(timeZone, order.placedAt)) === bucket,
    );
    const sum = counted.reduce((total, order) => total + order.totalMilli, 0);
    return { bucket, orderCount: counted.length, revenue: roundedAmount(sum, minorUnits) };
  });

const inRange = (day: IsoDate, { from, to }: DateRange) => day >= from && day <= to;

export const expectedDays = (
  orders: readonly RawOrder[],
  timeZone: string,
  days: readonly IsoDate[],
  minorUnits: number,
) =>
  countedPerBucket(orders, timeZone, days, (day) => day, minorUnits).map(
    ({ bucket, orderCount, revenue }) => ({ date: bucket, orderCount, revenue }),
  );

export const expectedDishes = (
  orders: readonly RawOrder[],
  timeZone: string,
  range: DateRange,
  minorUnits: number,
) => {
  const byDish = new Map<string, { orders: number; milli: number }>();
  for (const order of orders) {
    if (!COUNTED.has(order.state) || !inRange(todayIn(timeZone, order.placedAt), range)) continue;
    const dishes = new Set<string>();
    for (const line of order.lines) {
      const entry = byDish.get(line.dish) ?? { orders: 0, milli: 0 };
      entry.milli += line.quantity * line.unitMilli;
      if (!dishes.has(line.dish)) entry.orders += 1;
      dishes.add(line.dish);
      byDish.set(line.dish, entry);
    }
  }
  return [...byDish.entries()]
    .sort(
      ([a, x], [b, y]) => y.milli - x.milli || y.orders - x.orders || (a < b ? -1 : a > b ? 1 : 0),
    )
    .map(([name, { orders: orderCount, milli: total }]) => ({
      name,
      orderCount,
      revenue: roundedAmount(total, minorUnits),
    }));
};
