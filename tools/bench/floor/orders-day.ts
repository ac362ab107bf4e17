/**
 * Floor B of the cold-start benchmark: the orders/day report's first 200 doing the
 * same work as functions/orders-per-day.ts with postgres.js, node:http/node:https and
 * node:crypto only, no middleware library. Same event, key set, SQL (the daily rollup),
 * response body and headers, TLS to the database trusting only the CA of BENCH_DB_CA; the key-set fetch and two database connections start at
 * initialisation, side by side, as shared/runtime.ts does. What it leaves out is everything that
 * is not on the path of a valid request: the access log line, the token cache, error formatting
 * beyond a status, legacy platform keys, CSV. Bundled only by the benchmark; never deployed.
 */
import { createPublicKey, verify, type KeyObject } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import postgres from 'postgres';

interface Result {
  statusCode: number;
  headers: Record<string, string>;
  body: string;
}

const HEADERS = {
  'Content-Type': 'application/json',
  'Access-Control-Allow-Headers': 'Content-Type,Authorization',
  'Access-Control-Allow-Methods': 'OPTIONS,GET',
  'Access-Control-Allow-Origin': '*',
  'Access-Control-Expose-Headers': 'Content-Disposition',
  'Access-Control-Allow-Credentials': 'false',
};

const answer = (statusCode: number, body: unknown): Result => ({
  statusCode,
  headers: { ...HEADERS },
  body: JSON.stringify(body),
});

/** TLS to the database, when BENCH_DB_CA names a CA: that one CA, the host name verified. */
const caFile = process.env.BENCH_DB_CA;
const databaseHost = new URL(process.env.DATABASE_URL ?? 'postgres://127.0.0.1/').hostname;
const sql = postgres(process.env.DATABASE_URL ?? '', {
  max: 2,
  fetch_types: false,
  ssl: caFile ? { ca: readFileSync(caFile, 'utf8'), host: databaseHost } : false,
});
// Two connections opened at initialisation, as shared/runtime.ts's warm-up does.
Promise.all([sql`select 1`, sql`select 1`]).catch(() => undefined);

const fetchKeys = (url: URL): Promise<Map<string, KeyObject>> =>
  new Promise((resolve, reject) => {
    const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
    const req = send(url, { timeout: 2000 }, (res: IncomingMessage) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => {
        try {
          const keys = new Map<string, KeyObject>();
          for (const jwk of (JSON.parse(text) as { keys: { kid?: string; kty: string }[] }).keys) {
            if (jwk.kty === 'RSA' && jwk.kid) {
              keys.set(jwk.kid, createPublicKey({ key: jwk, format: 'jwk' }));
            }
          }
          resolve(keys);
        } catch (error) {
          reject(error instanceof Error ? error : new Error(String(error)));
        }
      });
    });
    req.on('error', reject);
    req.on('timeout', () => req.destroy(new Error('key set timed out')));
    req.end();
  });

const keysReady = fetchKeys(new URL(process.env.JWKS_URL ?? 'http://127.0.0.1/'));
keysReady.catch(() => undefined);

const ISSUER = process.env.JWT_ISSUER;
const TOLERANCE = Number(process.env.JWT_CLOCK_TOLERANCE_SECONDS ?? 0);
const DATE = /^\d{4}-\d{2}-\d{2}$/;

interface Claims {
  iss?: string;
  exp?: number;
  nbf?: number;
  authSchema?: string;
}

const claimsOf = async (authorization: string): Promise<Claims | undefined> => {
  const match = /^Bearer ([\w-]+)\.([\w-]+)\.([\w-]+)$/.exec(authorization);
  if (!match) return undefined;
  const [, head = '', body = '', signature = ''] = match;
  const header = JSON.parse(Buffer.from(head, 'base64url').toString()) as {
    alg?: string;
    kid?: string;
  };
  if (header.alg !== 'RS256' || !header.kid) return undefined;
  const key = (await keysReady).get(header.kid);
  if (!key) return undefined;
  const signed = Buffer.from(`${head}.${body}`);
  if (!verify('sha256', signed, key, Buffer.from(signature, 'base64url'))) return undefined;
  const claims = JSON.parse(Buffer.from(body, 'base64url').toString()) as Claims;
  const now = Date.now() / 1000;
  if (typeof claims.exp !== 'number' || claims.exp + TOLERANCE <= now) return undefined;
  if (typeof claims.nbf === 'number' && claims.nbf - TOLERANCE > now) return undefined;
  if (ISSUER !== undefined && claims.iss !== ISSUER) return undefined;
  return claims;
};

const ordersPerDay = async (restaurantId: string, platformId: string, from: string, to: string) => {
  const rows = await sql`
    with restaurant as (
      select r.time_zone, c.minor_units
      from restaurants r join currencies c on c.code = r.currency
      where r.id = ${restaurantId}
    ),
    totals as (
      select d.local_day as day, sum(d.orders) as orders, sum(d.revenue) as revenue
      from report_daily_orders d
      where d.restaurant_id = ${restaurantId}
        and d.platform_id = ${platformId}
        and d.day >= ${from}::date
        and d.day <= ${to}::date
      group by 1
    )
    select to_char(days.day, 'YYYY-MM-DD') as date,
           coalesce(totals.orders, 0)::int as order_count,
           round(coalesce(totals.revenue, 0),
                 coalesce((select minor_units from restaurant), 2))::text as revenue
    from generate_series(${from}::date, ${to}::date, interval '1 day') as days(day)
    left join totals on totals.day = days.day::date
    order by days.day`;
  return rows.map((row) => ({
    date: row.date as string,
    orderCount: row.order_count as number,
    revenue: Number(row.revenue),
  }));
};

interface Event {
  headers: Record<string, string | undefined>;
  pathParameters: Record<string, string | undefined> | null;
  queryStringParameters: Record<string, string | undefined> | null;
}

export const handler = async (event: Event): Promise<Result> => {
  const claims = await claimsOf(event.headers.Authorization ?? '');
  if (!claims) return answer(401, { state: 'ERROR', code: 'UNAUTHORIZED' });
  const restaurantId = event.pathParameters?.id ?? '';
  const platformId = event.headers['X-Platform-Id'] ?? '';
  const grants = (
    JSON.parse(claims.authSchema ?? '{}') as {
      restaurants?: { id: string; platforms: { platformId: string }[] }[];
    }
  ).restaurants;
  const owned = grants?.some(
    (r) => r.id === restaurantId && r.platforms.some((p) => p.platformId === platformId),
  );
  if (!owned) return answer(403, { state: 'ERROR', code: 'FORBIDDEN' });
  const q = event.queryStringParameters ?? {};
  const range = [q.from ?? '', q.to ?? ''] as const;
  const compare = q['compare[from]']
    ? ([q['compare[from]'], q['compare[to]'] ?? ''] as const)
    : undefined;
  if ([...range, ...(compare ?? [])].some((d) => !DATE.test(d))) {
    return answer(400, { state: 'ERROR', code: 'BAD_REQUEST' });
  }
  const [days, compareDays] = await Promise.all([
    ordersPerDay(restaurantId, platformId, ...range),
    compare ? ordersPerDay(restaurantId, platformId, ...compare) : undefined,
  ]);
  return answer(200, {
    data: days.map((day, i) => {
      const other = compareDays?.[i];
      return other ? { data: day, compare: other } : { data: day };
    }),
  });
};
