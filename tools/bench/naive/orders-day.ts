/**
 * The naive baseline of the cold-start benchmark: the orders/day report written the way a
 * brand might without measuring — Middy + http-cors + http-error-handler, jose's
 * createRemoteJWKSet + jwtVerify, and `pg` imported eagerly with a Pool; every step serial.
 * It does the same work as functions/orders-per-day.ts (verify, ownership, validation,
 * the same SQL for the range and the compare range, TLS to the database trusting the CA of
 * BENCH_DB_CA) so the two first responses compare.
 * Bundled only by the benchmark; never deployed.
 */
import { readFileSync } from 'node:fs';
import middy from '@middy/core';
import httpCors from '@middy/http-cors';
import httpErrorHandler from '@middy/http-error-handler';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { createRemoteJWKSet, jwtVerify } from 'jose';
import pg from 'pg';

const caFile = process.env.BENCH_DB_CA;
const pool = new pg.Pool({
  connectionString: process.env.DATABASE_URL,
  max: 2,
  ssl: caFile ? { ca: readFileSync(caFile, 'utf8') } : false,
});
const jwks = createRemoteJWKSet(new URL(process.env.JWKS_URL ?? 'http://127.0.0.1/'));

const httpError = (statusCode: number, message: string): Error =>
  Object.assign(new Error(message), { statusCode, expose: true });

const SQL = `
  with restaurant as (
    select r.time_zone, c.minor_units
    from restaurants r join currencies c on c.code = r.currency
    where r.id = $1
  ),
  totals as (
    select (o.placed_at at time zone restaurant.time_zone)::date as day,
           count(*) as orders, sum(o.total) as revenue
    from restaurant join orders o
      on o.restaurant_id = $1 and o.platform_id = $2
     and o.placed_at >= ($3::date::timestamp at time zone restaurant.time_zone)
     and o.placed_at < (($4::date + 1)::timestamp at time zone restaurant.time_zone)
     and o.state = any($5)
    group by 1
  )
  select to_char(days.day, 'YYYY-MM-DD') as date,
         coalesce(totals.orders, 0)::int as order_count,
         round(coalesce(totals.revenue, 0),
               coalesce((select minor_units from restaurant), 2))::text as revenue
  from generate_series($3::date, $4::date, interval '1 day') as days(day)
  left join totals on totals.day = days.day::date
  order by days.day`;

const DATE = /^\d{4}-\d{2}-\d{2}$/;
const STATES = ['PLACED', 'ACCEPTED', 'DELIVERED'];

interface Grant {
  id: string;
  platforms: { platformId: string }[];
}

const base = async (event: APIGatewayProxyEvent): Promise<APIGatewayProxyResult> => {
  const auth = event.headers.Authorization ?? event.headers.authorization ?? '';
  if (!auth.startsWith('Bearer ')) throw httpError(401, 'Unauthorized');
  let payload;
  try {
    ({ payload } = await jwtVerify(auth.slice(7), jwks, {
      ...(process.env.JWT_ISSUER ? { issuer: process.env.JWT_ISSUER } : {}),
    }));
  } catch {
    throw httpError(401, 'Unauthorized');
  }
  const restaurants = (JSON.parse(String(payload.authSchema)) as { restaurants: Grant[] })
    .restaurants;
  const id = event.pathParameters?.id ?? '';
  const platform = event.headers['X-Platform-Id'] ?? event.headers['x-platform-id'] ?? '';
  const grant = restaurants.find(
    (r) => r.id === id && r.platforms.some((p) => p.platformId === platform),
  );
  if (!grant) throw httpError(403, 'Forbidden');
  const query = event.queryStringParameters ?? {};
  const ranges: [string, string][] = [[query.from ?? '', query.to ?? '']];
  if (query['compare[from]']) ranges.push([query['compare[from]'], query['compare[to]'] ?? '']);
  if (ranges.some(([from, to]) => !DATE.test(from) || !DATE.test(to))) {
    throw httpError(400, 'Bad Request');
  }
  const results = [];
  for (const [from, to] of ranges) {
    results.push((await pool.query(SQL, [grant.id, platform, from, to, STATES])).rows);
  }
  return {
    statusCode: 200,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ data: results[0], compare: results[1] }),
  };
};

export const handler = middy(base)
  .use(httpErrorHandler())
  .use(httpCors({ origins: ['https://portal.example.com'] }));
