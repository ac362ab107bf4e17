/**
 * Realistic sample data relative to today: for every sample restaurant and platform, orders on
 * most of the 90 days up to today (a few cancelled or rejected), each with 1–4 lines from the
 * restaurant's menu. Deterministic for a given day, so a report can be checked by hand.
 */
import type { Sql } from '../../shared/db/client';
import { addDays, todayIn } from '../dates';
import { CURRENCIES, SAMPLE_OWNERS, type SampleRestaurant } from './sample-data';
import { seedPlugins } from './seed-plugins';

export const SEED_DAYS = 90;

/** mulberry32: a small deterministic PRNG. */
const random = (seed: number) => () => {
  seed = (seed + 0x6d2b79f5) | 0;
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
};

interface OrderRow {
  id: number;
  restaurant_id: string;
  platform_id: string;
  local_time: string;
  state: string;
  total: string;
}
interface LineRow {
  order_id: number;
  line_no: number;
  dish_name: string;
  quantity: number;
  unit_price: string;
}

/** Minutes since local midnight in `timeZone`. */
const localMinutes = (timeZone: string, now: Date): number => {
  const [hour = 0, minute = 0] = new Intl.DateTimeFormat('en-GB', {
    timeZone,
    hour: '2-digit',
    minute: '2-digit',
    hourCycle: 'h23',
  })
    .format(now)
    .split(':')
    .map(Number);
  return hour * 60 + minute;
};

const pick = <T>(next: () => number, list: readonly T[]): T =>
  list[Math.floor(next() * list.length)] as T;

const generate = (restaurant: SampleRestaurant, now: Date, firstId: number) => {
  const orders: OrderRow[] = [];
  const lines: LineRow[] = [];
  const next = random(restaurant.id.split('').reduce((h, c) => h * 31 + c.charCodeAt(0), 7));
  const today = todayIn(restaurant.timeZone, now);
  const minutesNow = localMinutes(restaurant.timeZone, now);
  let id = firstId;
  for (const [p, platform] of restaurant.platforms.entries()) {
    for (let back = SEED_DAYS - 1; back >= 0; back -= 1) {
      const day = addDays(today, -back);
      if (back > 0 && next() < restaurant.quietDays) continue; // today is never quiet
      const count = Math.floor((p === 0 ? 6 : 2) + next() * (p === 0 ? 18 : 6));
      for (let n = 0; n < count; n += 1) {
        // Past days: lunch to late evening. Today: spread from midnight up to now, so the
        // day's reports are never empty, whatever the hour, and nothing lies in the future.
        if (back === 0 && minutesNow === 0) continue;
        const minuteOfDay =
          back === 0 ? Math.floor(next() * minutesNow) : 600 + Math.floor(next() * 780);
        const hour = Math.floor(minuteOfDay / 60);
        const minute = minuteOfDay % 60;
        const roll = next();
        const state = roll < 0.06 ? 'CANCELLED' : roll < 0.08 ? 'REJECTED' : 'DELIVERED';
        let total = 0;
        const lineCount = 1 + Math.floor(next() * 4);
        for (let line = 1; line <= lineCount; line += 1) {
          const [dish, price] = pick(next, restaurant.menu);
          const quantity = 1 + Math.floor(next() * 3);
          total += quantity * price;
          lines.push({
            order_id: id,
            line_no: line,
            dish_name: dish,
            quantity,
            unit_price: price.toFixed(3),
          });
        }
        orders.push({
          id,
          restaurant_id: restaurant.id,
          platform_id: platform.platformId,
          local_time: `${day} ${String(hour).padStart(2, '0')}:${String(minute).padStart(2, '0')}:00`,
          state,
          total: total.toFixed(3),
        });
        id += 1;
      }
    }
  }
  return { orders, lines };
};

const chunks = <T>(list: readonly T[], size: number): T[][] =>
  Array.from({ length: Math.ceil(list.length / size) }, (_, i) =>
    list.slice(i * size, (i + 1) * size),
  );

/** Replaces all data with the sample data as of `now`. */
export const seed = async (sql: Sql, now: Date = new Date()): Promise<{ orders: number }> => {
  const restaurants = SAMPLE_OWNERS.flatMap((owner) => owner.restaurants);
  let nextId = 1;
  const generated = restaurants.map((restaurant) => {
    const data = generate(restaurant, now, nextId);
    nextId += data.orders.length;
    return data;
  });
  const orders = generated.flatMap((data) => data.orders);
  const lines = generated.flatMap((data) => data.lines);
  await sql.begin(async (tx) => {
    await tx`truncate order_lines, orders, restaurant_platforms, restaurants, currencies cascade`;
    for (const [code, minorUnits] of CURRENCIES) {
      await tx`insert into currencies (code, minor_units) values (${code}, ${minorUnits})`;
    }
    for (const r of restaurants) {
      await tx`insert into restaurants (id, name, time_zone, currency)
               values (${r.id}, ${r.name}, ${r.timeZone}, ${r.currency})`;
      for (const p of r.platforms) {
        await tx`insert into restaurant_platforms (restaurant_id, platform_id, platform_restaurant_id)
                 values (${r.id}, ${p.platformId}, ${p.restaurantId})`;
      }
    }
    for (const batch of chunks(orders, 2000)) {
      await tx`insert into orders (id, restaurant_id, platform_id, placed_at, state, total)
        overriding system value
        select o.id, o.restaurant_id, o.platform_id, o.local_time::timestamp at time zone r.time_zone,
               o.state, o.total
        from json_to_recordset(${JSON.stringify(batch)}::text::json) as o(
          id bigint, restaurant_id text, platform_id text, local_time text, state text, total numeric)
        join restaurants r on r.id = o.restaurant_id`;
    }
    for (const batch of chunks(lines, 4000)) {
      await tx`insert into order_lines (order_id, line_no, dish_name, quantity, unit_price)
        select * from json_to_recordset(${JSON.stringify(batch)}::text::json) as l(
          order_id bigint, line_no smallint, dish_name text, quantity integer, unit_price numeric)`;
    }
    await tx`select setval(pg_get_serial_sequence('orders', 'id'), ${nextId})`;
    await seedPlugins(tx);
  });
  return { orders: orders.length };
};
