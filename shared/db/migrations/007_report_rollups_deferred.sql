-- Deferred rollups for bulk writers. The statement trigger of migrations 003-005 on order_lines
-- plans its work once for one order (generic plans, nested loops per order and dish), which
-- suits a statement of a few orders and is slow for one of millions of lines. A transaction
-- that writes many orders at once (npm run import, tools/db/import-write.ts) may instead
-- defer the rollups and recompute, set-wise and from the source rows, exactly the rollup rows
-- its writes touched, before it commits:
--
--   select report_rollups_defer();
--   ... inserts of orders; inserts, updates, deletes of order lines ...
--   select report_rollups_refresh(<restaurant ids>, <platform ids>, <instants>);
--
-- where the arrays name, for every order the transaction inserted, and every order whose lines
-- it inserted, updated or deleted, while deferred: its restaurant, platform and each instant
-- (placed_at) it had from then on (the import never moves such an order: one instant each).
--
-- - report_rollups_defer() marks the current transaction (its id in the transaction-local
--   setting report_rollups.deferred; a value left over from another transaction, or set for
--   the session, defers nothing). While it is marked, the ordinary (ORIGIN) statement triggers
--   of orders inserted and of order lines inserted, updated or deleted do nothing (their
--   functions return at once). An order updated (its row trigger knows its old day and moves its lines from
--   it), an order deleted, truncates, time-zone changes and every REPLICA trigger are not
--   deferred: they stay exact as they are, and a refresh of a day they also changed recomputes
--   it from the rows.
-- - report_rollups_refresh() ends the deferral, then holds the named restaurants FOR NO KEY
--   UPDATE (in id order) until the transaction ends. Every rollup writer holds the restaurants
--   of its orders FOR SHARE (report_rollups_hold_zones, migration 004) before it files them,
--   and a time-zone change holds its restaurant's row: so the refresh waits for the writers
--   under way on those restaurants to commit, and keeps new ones waiting until it commits.
--   Only then does it compute the days of the instants (in the time zone committed by then),
--   and recompute those (restaurant, platform, range day) rows of report_daily_orders and
--   report_daily_dishes from orders and order lines (a new snapshot: the deferring
--   transaction's own rows and everything committed), changing only the rows that differ.
--   Writers of other restaurants are not held. Taking the lock at the end rather than at
--   the first deferred write keeps the hold short (the recompute, not the whole import) and
--   keeps the deferring transaction from waiting, while it holds order rows, for restaurant
--   locks of writers that may wait for those order rows.
-- - Exact: the rollup rows the deferred triggers would have changed lie in the days refreshed
--   (the day of each order inserted, and of each order whose lines changed, in the zone the
--   refresh reads under its lock); every other row was changed only by triggers that ran. A
--   concurrent writer's deltas to a refreshed row, applied before the refresh, are replaced by
--   the recompute, which sees that writer's rows once it has committed; those applied after
--   the refresh commits add to it.
--
-- The ordinary writer's cost: one more condition at the start of each of those trigger
-- functions (a setting read and the transaction id), and nothing else.

-- Whether the current transaction deferred its rollups (report_rollups_defer()).
create function report_rollups_deferred() returns boolean
  language sql stable parallel restricted
  as $$
    select coalesce(current_setting('report_rollups.deferred', true), '')
           = pg_current_xact_id()::text
  $$;

-- Defers the rollups of the current transaction's writes to report_rollups_refresh().
create function report_rollups_defer() returns void
  language sql volatile
  as $$ select set_config('report_rollups.deferred', pg_current_xact_id()::text, true) $$;

-- Ends the deferral and recomputes the rollup rows of these orders' days (see the header).
create function report_rollups_refresh(
  restaurant_ids text[], platform_ids text[], instants timestamptz[]
) returns void language plpgsql as $$
begin
  perform set_config('report_rollups.deferred', '', true);
  perform 1 from restaurants r
  where r.id in (select unnest(restaurant_ids))
  order by r.id
  for no key update;

  drop table if exists pg_temp.report_rollups_refreshed;
  create temporary table report_rollups_refreshed on commit drop as
  select distinct k.restaurant_id, k.platform_id, report_day(k.placed_at, r.time_zone) as day,
         r.time_zone
  from unnest(restaurant_ids, platform_ids, instants) as k (restaurant_id, platform_id, placed_at)
  join restaurants r on r.id = k.restaurant_id
  where k.placed_at is not null;
  analyze pg_temp.report_rollups_refreshed;

  -- The counted orders of the days refreshed: those of each restaurant and platform between
  -- its first and last day (a day wider each side: a range day is the calendar day or one of
  -- its neighbours), kept when their range day is one of the days refreshed.
  drop table if exists pg_temp.report_rollups_counted;
  create temporary table report_rollups_counted on commit drop as
  with bounds as materialized (
    select k.restaurant_id, k.platform_id, k.time_zone,
           (min(k.day) - 1)::timestamp at time zone k.time_zone as lower,
           (max(k.day) + 2)::timestamp at time zone k.time_zone as upper
    from pg_temp.report_rollups_refreshed k
    group by k.restaurant_id, k.platform_id, k.time_zone
  ),
  candidates as materialized (
    select o.id, o.restaurant_id, o.platform_id, report_day(o.placed_at, b.time_zone) as day,
           report_local_day(o.placed_at, b.time_zone) as local_day, o.total
    from bounds b
    join orders o
      on o.restaurant_id = b.restaurant_id and o.platform_id = b.platform_id
     and o.placed_at >= b.lower and o.placed_at < b.upper
    where report_counts(o.state)
  )
  select c.id, c.restaurant_id, c.platform_id, c.day, c.local_day, c.total
  from candidates c
  join pg_temp.report_rollups_refreshed k
    on k.restaurant_id = c.restaurant_id and k.platform_id = c.platform_id and k.day = c.day;
  analyze pg_temp.report_rollups_counted;

  with fresh as (
    select c.restaurant_id, c.platform_id, c.day, c.local_day,
           count(*)::int as orders, sum(c.total) as revenue
    from pg_temp.report_rollups_counted c
    group by 1, 2, 3, 4
  ),
  removed as (
    delete from report_daily_orders t
    using pg_temp.report_rollups_refreshed k
    where t.restaurant_id = k.restaurant_id and t.platform_id = k.platform_id and t.day = k.day
      and not exists (
        select 1 from fresh f
        where f.restaurant_id = t.restaurant_id and f.platform_id = t.platform_id
          and f.day = t.day and f.local_day = t.local_day)
  )
  insert into report_daily_orders as t (restaurant_id, platform_id, day, local_day, orders, revenue)
  select f.restaurant_id, f.platform_id, f.day, f.local_day, f.orders, f.revenue
  from fresh f
  order by 1, 2, 3, 4
  on conflict (restaurant_id, platform_id, day, local_day) do update
    set orders = excluded.orders, revenue = excluded.revenue
    where (t.orders, t.revenue) is distinct from (excluded.orders, excluded.revenue);

  with per_order as (
    select c.restaurant_id, c.platform_id, c.day, l.dish_name,
           sum(l.quantity * l.unit_price) as revenue
    from pg_temp.report_rollups_counted c
    join order_lines l on l.order_id = c.id
    group by c.id, c.restaurant_id, c.platform_id, c.day, l.dish_name
  ),
  fresh as (
    select p.restaurant_id, p.platform_id, p.day, p.dish_name,
           count(*)::int as orders, sum(p.revenue) as revenue
    from per_order p
    group by 1, 2, 3, 4
  ),
  removed as (
    delete from report_daily_dishes t
    using pg_temp.report_rollups_refreshed k
    where t.restaurant_id = k.restaurant_id and t.platform_id = k.platform_id and t.day = k.day
      and not exists (
        select 1 from fresh f
        where f.restaurant_id = t.restaurant_id and f.platform_id = t.platform_id
          and f.day = t.day and f.dish_name = t.dish_name)
  )
  insert into report_daily_dishes as t (restaurant_id, platform_id, day, dish_name, orders, revenue)
  select f.restaurant_id, f.platform_id, f.day, f.dish_name, f.orders, f.revenue
  from fresh f
  order by 1, 2, 3, 4
  on conflict (restaurant_id, platform_id, day, dish_name) do update
    set orders = excluded.orders, revenue = excluded.revenue
    where (t.orders, t.revenue) is distinct from (excluded.orders, excluded.revenue);

  drop table pg_temp.report_rollups_counted;
  drop table pg_temp.report_rollups_refreshed;
end $$;

-- The schema migrated, and pg_temp last, as every plpgsql function of the rollups (005).
do $$
begin
  execute format(
    'alter function report_rollups_refresh(text[], text[], timestamptz[]) set search_path = %I, pg_temp',
    current_schema());
end $$;

-- The deferrable trigger functions again, each returning at once while its transaction is
-- deferred (a check inside the function costs an ordinary writer less than a WHEN clause on
-- the trigger, which is planned again for every statement). Bodies as in 003 and 004.
create or replace function report_rollups_lines_inserted() returns trigger language plpgsql as $$
begin
  if report_rollups_deferred() then
    return null;
  end if;
  perform report_rollups_apply_lines(
    array_agg(n.order_id), array_agg(n.dish_name), array_agg(1), array_agg(n.quantity * n.unit_price))
  from new_lines n;
  return null;
end $$;

create or replace function report_rollups_lines_updated() returns trigger language plpgsql as $$
begin
  if report_rollups_deferred() then
    return null;
  end if;
  perform report_rollups_apply_lines(
    array_agg(c.order_id), array_agg(c.dish_name), array_agg(c.lines), array_agg(c.revenue))
  from (
    select o.order_id, o.dish_name, -1 as lines, -(o.quantity * o.unit_price) as revenue
    from old_lines o
    union all
    select n.order_id, n.dish_name, 1, n.quantity * n.unit_price
    from new_lines n
  ) c;
  return null;
end $$;

create or replace function report_rollups_lines_deleted() returns trigger language plpgsql as $$
begin
  if report_rollups_deferred() then
    return null;
  end if;
  perform report_rollups_apply_lines(
    array_agg(o.order_id), array_agg(o.dish_name), array_agg(-1), array_agg(-(o.quantity * o.unit_price)))
  from old_lines o;
  return null;
end $$;

create or replace function report_rollups_orders_inserted() returns trigger language plpgsql as $$
begin
  if report_rollups_deferred() then
    return null;
  end if;
  perform report_rollups_hold_zones(array(select distinct n.restaurant_id from new_orders n));
  perform report_rollups_add_days(
    array_agg(c.restaurant_id), array_agg(c.platform_id), array_agg(c.day), array_agg(c.local_day),
    array_agg(c.orders), array_agg(c.revenue))
  from (
    select n.restaurant_id, n.platform_id, report_day(n.placed_at, r.time_zone) as day,
           report_local_day(n.placed_at, r.time_zone) as local_day,
           count(*)::int as orders, sum(n.total) as revenue
    from new_orders n
    join restaurants r on r.id = n.restaurant_id
    where report_counts(n.state)
    group by 1, 2, 3, 4
  ) c;
  return null;
end $$;

-- The schema migrated, and pg_temp last, as 005 set for every plpgsql function of the rollups
-- (CREATE OR REPLACE dropped it from the four above).
do $$
declare
  path text := format('%I, pg_temp', current_schema());
  fn text;
begin
  foreach fn in array array[
    'report_rollups_lines_inserted()',
    'report_rollups_lines_updated()',
    'report_rollups_lines_deleted()',
    'report_rollups_orders_inserted()'
  ] loop
    execute format('alter function %s set search_path = %s', fn, path);
  end loop;
end $$;
