-- The daily rollups of migrations 003 and 004, kept exact whoever writes.
--
-- Rows written with session_replication_role = replica (the apply and table-copy workers of
-- PostgreSQL logical replication, AWS DMS, restores) fire only triggers enabled REPLICA or
-- ALWAYS, and the apply worker fires row triggers only, never statement triggers. So:
-- - the row triggers on orders (update, delete), the truncate triggers and the time-zone
--   trigger on restaurants fire ALWAYS: they are exact for any writer;
-- - the statement triggers (orders inserted; order lines inserted, updated, deleted) stay
--   ORIGIN (ENABLE): ordinary writers keep their set-wise cost;
-- - beside them, row triggers enabled REPLICA only do the same work one row at a time: an
--   order inserted (AFTER, with any lines already there: a copy may load order_lines first),
--   a restaurant inserted (its rollups recomputed: a copy may load orders before restaurants),
--   and an order line inserted, updated or deleted (BEFORE the row changes, so that a statement
--   of many lines, e.g. the initial COPY, counts each (order, dish) once: a BEFORE row trigger
--   sees the rows the same statement changed before it).
-- Exactly one of the two sets fires in every session_replication_role (origin, local, replica).
-- Not covered in replica mode (db:check finds and repairs them): INSERT ... ON CONFLICT DO
-- UPDATE on order_lines (the BEFORE INSERT trigger fires before the conflict is known), and
-- table copies running in parallel transactions (the initial copy of a subscription with more
-- than one sync worker) when one copies orders while another copies their lines.
--
-- The apply worker runs with an empty search_path, so every plpgsql function of the rollups
-- carries search_path = <the schema migrated>, pg_temp (the SQL helpers report_counts,
-- report_day and report_local_day stay without one: they read no table, and a SET clause would
-- stop them being inlined). The apply worker runs as the subscription's owner (a superuser on
-- PostgreSQL 15), whose privileges cover the FOR SHARE lock on restaurants of migration 004
-- (which needs UPDATE on restaurants) and the writes to both rollup tables.
--
-- No write fails because a rollup is out of step (an error would stop a subscription): a
-- rollup row whose count would go below zero is deleted instead, with a
-- WARNING naming its key, and `npm run db:check` (tools/db/check.ts) finds and repairs
-- drift. Keys a writer cannot file (an order of a restaurant the subscriber does not have yet)
-- are left out the same way, silently.

-- Adds deltas (any order, repeated keys allowed) to report_daily_orders; deletes rows left at or
-- below zero orders: below zero means the table lost step with its source (a WARNING; the
-- drift check repairs it), never an error for the writer.
create or replace function report_rollups_add_days(
  restaurant_ids text[], platform_ids text[], days date[], local_days date[],
  order_deltas integer[], revenue_deltas numeric[]
) returns void language plpgsql
set plan_cache_mode = force_generic_plan as $$
declare
  zero_restaurants text[];
  zero_platforms text[];
  zero_days date[];
  zero_local_days date[];
  negative text;
begin
  with deltas as (
    select d.restaurant_id, d.platform_id, d.day, d.local_day,
           sum(d.orders)::int as orders, sum(d.revenue) as revenue
    from unnest(restaurant_ids, platform_ids, days, local_days, order_deltas, revenue_deltas)
           as d (restaurant_id, platform_id, day, local_day, orders, revenue)
    where d.day is not null and d.local_day is not null
    group by 1, 2, 3, 4
    having sum(d.orders) <> 0 or sum(d.revenue) <> 0
  ),
  applied as (
    insert into report_daily_orders as t (restaurant_id, platform_id, day, local_day, orders, revenue)
    select * from deltas
    order by 1, 2, 3, 4
    on conflict (restaurant_id, platform_id, day, local_day) do update
      set orders = t.orders + excluded.orders, revenue = t.revenue + excluded.revenue
    returning t.restaurant_id, t.platform_id, t.day, t.local_day, t.orders
  )
  select array_agg(a.restaurant_id) filter (where a.orders <= 0),
         array_agg(a.platform_id) filter (where a.orders <= 0),
         array_agg(a.day) filter (where a.orders <= 0),
         array_agg(a.local_day) filter (where a.orders <= 0),
         string_agg(concat_ws(' ', a.restaurant_id, a.platform_id, a.day), ', ')
           filter (where a.orders < 0)
    into zero_restaurants, zero_platforms, zero_days, zero_local_days, negative
  from applied a;
  if negative is not null then
    raise warning 'report_daily_orders out of step with orders (%): run npm run db:check -- --repair',
      negative;
  end if;
  if zero_restaurants is not null then
    delete from report_daily_orders t
    using unnest(zero_restaurants, zero_platforms, zero_days, zero_local_days)
            as z (restaurant_id, platform_id, day, local_day)
    where t.restaurant_id = z.restaurant_id and t.platform_id = z.platform_id
      and t.day = z.day and t.local_day = z.local_day and t.orders <= 0;
  end if;
end $$;

-- Adds deltas to report_daily_dishes; deletes rows left at or below zero orders (below zero:
-- a WARNING, as above).
create or replace function report_rollups_add_dishes(
  restaurant_ids text[], platform_ids text[], days date[], dish_names text[],
  order_deltas integer[], revenue_deltas numeric[]
) returns void language plpgsql
set plan_cache_mode = force_generic_plan as $$
declare
  zero_restaurants text[];
  zero_platforms text[];
  zero_days date[];
  zero_dishes text[];
  negative text;
begin
  with deltas as (
    select d.restaurant_id, d.platform_id, d.day, d.dish_name,
           sum(d.orders)::int as orders, sum(d.revenue) as revenue
    from unnest(restaurant_ids, platform_ids, days, dish_names, order_deltas, revenue_deltas)
           as d (restaurant_id, platform_id, day, dish_name, orders, revenue)
    where d.day is not null
    group by 1, 2, 3, 4
    having sum(d.orders) <> 0 or sum(d.revenue) <> 0
  ),
  applied as (
    insert into report_daily_dishes as t (restaurant_id, platform_id, day, dish_name, orders, revenue)
    select * from deltas
    order by 1, 2, 3, 4
    on conflict (restaurant_id, platform_id, day, dish_name) do update
      set orders = t.orders + excluded.orders, revenue = t.revenue + excluded.revenue
    returning t.restaurant_id, t.platform_id, t.day, t.dish_name, t.orders
  )
  select array_agg(a.restaurant_id) filter (where a.orders <= 0),
         array_agg(a.platform_id) filter (where a.orders <= 0),
         array_agg(a.day) filter (where a.orders <= 0),
         array_agg(a.dish_name) filter (where a.orders <= 0),
         string_agg(concat_ws(' ', a.restaurant_id, a.platform_id, a.day, a.dish_name), ', ')
           filter (where a.orders < 0)
    into zero_restaurants, zero_platforms, zero_days, zero_dishes, negative
  from applied a;
  if negative is not null then
    raise warning 'report_daily_dishes out of step with order_lines (%): run npm run db:check -- --repair',
      negative;
  end if;
  if zero_restaurants is not null then
    delete from report_daily_dishes t
    using unnest(zero_restaurants, zero_platforms, zero_days, zero_dishes)
            as z (restaurant_id, platform_id, day, dish_name)
    where t.restaurant_id = z.restaurant_id and t.platform_id = z.platform_id
      and t.day = z.day and t.dish_name = z.dish_name and t.orders <= 0;
  end if;
end $$;

-- A counted order arrived in replica mode, one row at a time: its day, and the dishes of any
-- lines already there (a copy may load order_lines before orders).
create function report_rollups_order_arrived() returns trigger language plpgsql
set plan_cache_mode = force_generic_plan as $$
declare
  zone text;
  range_day date;
begin
  perform report_rollups_hold_zones(array[new.restaurant_id]);
  select r.time_zone into zone from restaurants r where r.id = new.restaurant_id;
  if zone is null then
    return null;  -- the restaurant is not there (yet): the drift check finds the order
  end if;
  range_day := report_day(new.placed_at, zone);
  perform report_rollups_add_days(
    array[new.restaurant_id], array[new.platform_id], array[range_day],
    array[report_local_day(new.placed_at, zone)], array[1], array[new.total]);
  perform report_rollups_add_dishes(
    array_agg(new.restaurant_id), array_agg(new.platform_id), array_agg(range_day),
    array_agg(l.dish_name), array_agg(1), array_agg(l.revenue))
  from (
    select l.dish_name, sum(l.quantity * l.unit_price) as revenue
    from order_lines l
    where l.order_id = new.id
    group by l.dish_name
  ) l;
  return null;
end $$;

-- Order lines about to change, in replica mode: as report_rollups_apply_lines, but measured
-- before the change (the lines present now, plus the change, are the lines after it).
create function report_rollups_apply_lines_before(
  order_ids bigint[], dish_names text[], line_deltas integer[], revenue_deltas numeric[]
) returns void language plpgsql
set plan_cache_mode = force_generic_plan as $$
declare
  restaurant_ids text[];
  platform_ids text[];
  days date[];
  dishes text[];
  order_deltas integer[];
  revenues numeric[];
begin
  perform 1 from orders o where o.id = any(order_ids) order by o.id for no key update;
  perform report_rollups_hold_zones(
    array(select distinct o.restaurant_id from orders o where o.id = any(order_ids)));
  select array_agg(o.restaurant_id), array_agg(o.platform_id),
         array_agg(report_day(o.placed_at, r.time_zone)), array_agg(t.dish_name),
         array_agg((present.lines + t.lines > 0)::int - (present.lines > 0)::int),
         array_agg(t.revenue)
    into restaurant_ids, platform_ids, days, dishes, order_deltas, revenues
  from (
    select d.order_id, d.dish_name, sum(d.lines) as lines, sum(d.revenue) as revenue
    from unnest(order_ids, dish_names, line_deltas, revenue_deltas)
           as d (order_id, dish_name, lines, revenue)
    group by 1, 2
  ) t
  join orders o on o.id = t.order_id
  join restaurants r on r.id = o.restaurant_id
  cross join lateral (
    select count(*) as lines from order_lines l
    where l.order_id = t.order_id and l.dish_name = t.dish_name
  ) present
  where report_counts(o.state);
  perform report_rollups_add_dishes(restaurant_ids, platform_ids, days, dishes, order_deltas, revenues);
end $$;

create function report_rollups_line_changing() returns trigger language plpgsql as $$
begin
  if tg_op = 'INSERT' then
    perform report_rollups_apply_lines_before(
      array[new.order_id], array[new.dish_name], array[1], array[new.quantity * new.unit_price]);
    return new;
  elsif tg_op = 'DELETE' then
    perform report_rollups_apply_lines_before(
      array[old.order_id], array[old.dish_name], array[-1],
      array[-(old.quantity * old.unit_price)]);
    return old;
  end if;
  perform report_rollups_apply_lines_before(
    array[old.order_id, new.order_id], array[old.dish_name, new.dish_name], array[-1, 1],
    array[-(old.quantity * old.unit_price), new.quantity * new.unit_price]);
  return new;
end $$;

-- A restaurant arrived in replica mode: a copy may have loaded its orders first, which could
-- not be filed without its time zone.
create function report_rollups_restaurant_arrived() returns trigger language plpgsql as $$
begin
  perform report_rollups_recompute(new.id);
  return null;
end $$;

create trigger report_rollups_replica_inserted after insert on restaurants
  for each row execute function report_rollups_restaurant_arrived();
alter table restaurants enable replica trigger report_rollups_replica_inserted;

create trigger report_rollups_replica_inserted after insert on orders
  for each row when (report_counts(new.state))
  execute function report_rollups_order_arrived();
alter table orders enable replica trigger report_rollups_replica_inserted;

create trigger report_rollups_replica_changing
  before insert or update or delete on order_lines
  for each row execute function report_rollups_line_changing();
alter table order_lines enable replica trigger report_rollups_replica_changing;

alter table orders enable always trigger report_rollups_updated;
alter table orders enable always trigger report_rollups_deleting;
alter table orders enable always trigger report_rollups_truncated;
alter table order_lines enable always trigger report_rollups_truncated;
alter table restaurants enable always trigger report_rollups_zone_changed;

-- The schema migrated, and pg_temp last, for every plpgsql function of the rollups.
do $$
declare
  path text := format('%I, pg_temp', current_schema());
  fn text;
begin
  foreach fn in array array[
    'report_rollups_add_days(text[], text[], date[], date[], integer[], numeric[])',
    'report_rollups_add_dishes(text[], text[], date[], text[], integer[], numeric[])',
    'report_rollups_apply_lines(bigint[], text[], integer[], numeric[])',
    'report_rollups_apply_lines_before(bigint[], text[], integer[], numeric[])',
    'report_rollups_hold_zones(text[])',
    'report_rollups_lines_inserted()',
    'report_rollups_lines_updated()',
    'report_rollups_lines_deleted()',
    'report_rollups_line_changing()',
    'report_rollups_orders_inserted()',
    'report_rollups_order_arrived()',
    'report_rollups_order_updated()',
    'report_rollups_order_deleting()',
    'report_rollups_truncated()',
    'report_rollups_recompute(text)',
    'report_rollups_restaurant_arrived()',
    'report_rollups_rebuild(text)',
    'report_rollups_zone_changed()'
  ] loop
    execute format('alter function %s set search_path = %s', fn, path);
  end loop;
end $$;
