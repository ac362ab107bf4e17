-- Locks for the daily rollups of migration 003, so that a restaurant's time-zone change cannot
-- race the order writers of that restaurant.
--
-- Every order writer holds its orders' restaurants FOR SHARE (in id order) before it reads
-- their time zone, so a time-zone change (which recomputes that restaurant's rollups) waits for
-- the writers under way, and the writers after it read the new zone: otherwise an order written
-- while the change is uncommitted would be filed under the old zone's day, and the rollups would
-- go out of step with the orders (or the change fail on a row the writer had just added).
-- FOR SHARE needs the UPDATE privilege on restaurants. report_rollups_rebuild() locks orders
-- and order lines (SHARE) while it runs, so writers wait for it instead of racing it; the
-- time-zone trigger recomputes without that table lock (it would deadlock with a writer waiting
-- for the restaurant's row, which the change holds).

-- Holds these restaurants FOR SHARE, in id order, until the transaction ends: their time zone
-- cannot change (and rebuild their rollups) under a writer that is filing orders by it.
create function report_rollups_hold_zones(restaurant_ids text[]) returns void
language plpgsql as $$
begin
  perform 1 from restaurants r where r.id = any(restaurant_ids) order by r.id for share;
end $$;

-- Recomputes the rollups of one restaurant (or of all) from orders and order lines; the
-- caller keeps writers out (report_rollups_rebuild, or the restaurant's row lock).
create function report_rollups_recompute(only_restaurant text default null) returns void
language plpgsql as $$
begin
  if only_restaurant is null then
    truncate report_daily_orders, report_daily_dishes;
  else
    delete from report_daily_orders where restaurant_id = only_restaurant;
    delete from report_daily_dishes where restaurant_id = only_restaurant;
  end if;
  insert into report_daily_orders (restaurant_id, platform_id, day, local_day, orders, revenue)
  select o.restaurant_id, o.platform_id, report_day(o.placed_at, r.time_zone),
         report_local_day(o.placed_at, r.time_zone), count(*), sum(o.total)
  from orders o
  join restaurants r on r.id = o.restaurant_id
  where report_counts(o.state) and (only_restaurant is null or o.restaurant_id = only_restaurant)
  group by 1, 2, 3, 4;
  insert into report_daily_dishes (restaurant_id, platform_id, day, dish_name, orders, revenue)
  select o.restaurant_id, o.platform_id, report_day(o.placed_at, r.time_zone), l.dish_name,
         count(*), sum(l.revenue)
  from orders o
  join restaurants r on r.id = o.restaurant_id
  cross join lateral (
    select l.dish_name, sum(l.quantity * l.unit_price) as revenue
    from order_lines l
    where l.order_id = o.id
    group by l.dish_name
  ) l
  where report_counts(o.state) and (only_restaurant is null or o.restaurant_id = only_restaurant)
  group by 1, 2, 3, 4;
end $$;

-- Order lines changed: per (order, dish), the net number of lines and revenue the statement
-- added. The dish's order count changes where the order had none of its lines before and has
-- some now, or the reverse; orders deleted by this statement's cascade are not visible any
-- more and were taken out of the rollups when they were deleted.
create or replace function report_rollups_apply_lines(
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
  if order_ids is null then
    return;
  end if;
  perform 1 from orders o where o.id = any(order_ids) order by o.id for no key update;
  perform report_rollups_hold_zones(
    array(select distinct o.restaurant_id from orders o where o.id = any(order_ids)));
  select array_agg(o.restaurant_id), array_agg(o.platform_id),
         array_agg(report_day(o.placed_at, r.time_zone)), array_agg(t.dish_name),
         array_agg((present.lines > 0)::int - (present.lines - t.lines > 0)::int),
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

create or replace function report_rollups_orders_inserted() returns trigger language plpgsql as $$
begin
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

-- An order updated in what the rollups see of it (a row trigger whose WHEN clause lets every
-- other update, e.g. PLACED to ACCEPTED, pass at no cost): its count and total leave its old
-- day and join its new one; if it starts or stops counting, or moves to another restaurant,
-- platform or day, its lines move with it (days first, then dishes: the order in which every
-- writer takes rollup rows).
create or replace function report_rollups_order_updated() returns trigger language plpgsql
set plan_cache_mode = force_generic_plan as $$
declare
  old_zone text;
  new_zone text;
  old_day date;
  new_day date;
  was_counted boolean := report_counts(old.state);
  is_counted boolean := report_counts(new.state);
begin
  perform report_rollups_hold_zones(array[old.restaurant_id, new.restaurant_id]);
  select r.time_zone into old_zone from restaurants r where r.id = old.restaurant_id;
  select r.time_zone into new_zone from restaurants r where r.id = new.restaurant_id;
  old_day := report_day(old.placed_at, old_zone);
  new_day := report_day(new.placed_at, new_zone);
  perform report_rollups_add_days(
    array[old.restaurant_id, new.restaurant_id], array[old.platform_id, new.platform_id],
    array[old_day, new_day],
    array[report_local_day(old.placed_at, old_zone), report_local_day(new.placed_at, new_zone)],
    array[case when was_counted then -1 else 0 end, case when is_counted then 1 else 0 end],
    array[case when was_counted then -old.total else 0 end,
          case when is_counted then new.total else 0 end]);
  if was_counted and is_counted
     and (old.restaurant_id, old.platform_id, old_day) = (new.restaurant_id, new.platform_id, new_day) then
    return null;
  end if;
  perform report_rollups_add_dishes(
    array_agg(m.restaurant_id), array_agg(m.platform_id), array_agg(m.day), array_agg(l.dish_name),
    array_agg(m.sign), array_agg(m.sign * l.revenue))
  from (
    select old.restaurant_id as restaurant_id, old.platform_id as platform_id, old_day as day,
           -1 as sign
    where was_counted
    union all
    select new.restaurant_id, new.platform_id, new_day, 1
    where is_counted
  ) m
  cross join (
    select l.dish_name, sum(l.quantity * l.unit_price) as revenue
    from order_lines l
    where l.order_id = new.id
    group by l.dish_name
  ) l;
  return null;
end $$;

-- An order about to be deleted leaves the rollups with its lines, while they are still there
-- (the foreign key's cascade deletes them after the order).
create or replace function report_rollups_order_deleting() returns trigger language plpgsql
set plan_cache_mode = force_generic_plan as $$
declare
  zone text;
  range_day date;
begin
  if report_counts(old.state) then  -- as the trigger's WHEN clause, for a direct call
    perform report_rollups_hold_zones(array[old.restaurant_id]);
    select r.time_zone into zone from restaurants r where r.id = old.restaurant_id;
    range_day := report_day(old.placed_at, zone);
    perform report_rollups_add_days(
      array[old.restaurant_id], array[old.platform_id], array[range_day],
      array[report_local_day(old.placed_at, zone)], array[-1], array[-old.total]);
    perform report_rollups_add_dishes(
      array_agg(old.restaurant_id), array_agg(old.platform_id), array_agg(range_day),
      array_agg(l.dish_name), array_agg(-1), array_agg(-l.revenue))
    from (
      select l.dish_name, sum(l.quantity * l.unit_price) as revenue
      from order_lines l
      where l.order_id = old.id
      group by l.dish_name
    ) l;
  end if;
  return old;
end $$;

-- Repairs the rollups (see the header): waits for the order writers under way, keeps new ones
-- waiting until the caller's transaction ends, and recomputes.
create or replace function report_rollups_rebuild(only_restaurant text default null) returns void
language plpgsql as $$
begin
  lock table orders, order_lines in share mode;
  perform report_rollups_recompute(only_restaurant);
end $$;

-- A time-zone change re-files the restaurant's orders. Its row lock keeps out the writers of
-- that restaurant (report_rollups_hold_zones), so no table lock is needed (one would deadlock
-- with a writer waiting for the row).
create or replace function report_rollups_zone_changed() returns trigger language plpgsql as $$
begin
  perform report_rollups_recompute(new.id);
  return null;
end $$;
