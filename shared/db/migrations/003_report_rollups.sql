-- Daily rollups of the reports. Orders/day, revenue and dishes read one row per day (per dish)
-- of a restaurant on a platform instead of every order of the range. Triggers on orders,
-- order_lines and restaurants keep both tables equal, at the end of every statement, to the
-- same aggregation over the source rows; report_rollups_rebuild() recomputes them from those
-- rows (the backfill below runs it).
--
-- Days are attributed exactly as a query over the source rows attributes them. A report over
-- the days [from, to] reads the orders placed from from::timestamp at time zone <the
-- restaurant's zone> up to (to + 1)::timestamp at time zone <zone>, and groups them by their
-- local calendar day (placed_at at time zone <zone>)::date. The two differ around a DST change at local midnight
-- (America/Havana, Asia/Beirut, ...): PostgreSQL reads an ambiguous 00:00 as the later instant,
-- so the first local hour of such a day lies before that day's lower bound. Each rollup row
-- therefore carries the range day `day` (the latest day whose local midnight is at or before
-- placed_at, which is what a range selects on) and orders/day also the calendar day `local_day`
-- it is reported under; both are equal on every other day of every zone.
--
-- Counted orders are those in the states of COUNTED_STATES (shared/reports/domain.ts);
-- report_counts() mirrors it and a test keeps the two equal. Money is
-- summed as numeric, exactly; rounding to the currency's minor unit stays in the queries.
--
-- The functions that take arrays plan their statements once (plan_cache_mode =
-- force_generic_plan): a plan per call would cost more than the call's work, and the generic
-- plans (nested loops over primary keys) suit one order as well as a bulk load.
--
-- Concurrency, for writers at READ COMMITTED (PostgreSQL's default): rollup rows are changed by
-- upserts sorted by key, and a statement that changes order lines first locks their orders
-- (FOR NO KEY UPDATE, in id order), so writers of one order are serialised with each other and
-- with changes to the order itself, and each then reads what the other committed. A rollup row
-- with nothing left in it is deleted; a count that would go below zero is an error.
--
-- Not covered by the triggers: one SQL statement (a data-modifying WITH) that changes an
-- order's state, restaurant, platform or instant, or deletes it, and also changes that order's
-- lines; a writer at REPEATABLE READ changing an order while another adds lines to it; a change
-- of the time zone database. report_rollups_rebuild() repairs any of them.

create function report_counts(state text) returns boolean
  language sql immutable parallel safe
  as $$ select $1 in ('PLACED', 'ACCEPTED', 'DELIVERED') $$;

-- The local calendar day of an instant in a time zone: the day a report row shows it under.
create function report_local_day(placed_at timestamptz, time_zone text) returns date
  language sql immutable parallel safe
  as $$ select ($1 at time zone $2)::date $$;

-- The range day of an instant: the latest day d with d::timestamp at time zone zone <= placed_at,
-- i.e. the day whose range bound (as the reports compute it) the instant falls after.
create function report_day(placed_at timestamptz, time_zone text) returns date
  language sql immutable parallel safe
  as $$
    select ($1 at time zone $2)::date
           - ($1 < ($1 at time zone $2)::date::timestamp at time zone $2)::int
           + ($1 >= (($1 at time zone $2)::date + 1)::timestamp at time zone $2)::int
  $$;

-- Counted orders per restaurant, platform and day: orders/day and revenue.
create table report_daily_orders (
  restaurant_id text    not null,
  platform_id   text    not null,
  day           date    not null,  -- range day (report_day)
  local_day     date    not null,  -- calendar day (report_local_day); = day but around a DST change at midnight
  orders        integer not null,
  revenue       numeric not null,  -- sum of orders.total, exact
  primary key (restaurant_id, platform_id, day, local_day)
);

-- Per dish: the counted orders with at least one line of the dish and the lines' revenue.
create table report_daily_dishes (
  restaurant_id text    not null,
  platform_id   text    not null,
  day           date    not null,  -- range day (report_day)
  dish_name     text    not null,
  orders        integer not null,
  revenue       numeric not null,  -- sum of quantity * unit_price, exact
  primary key (restaurant_id, platform_id, day, dish_name)
);

-- Adds deltas (any order, repeated keys allowed) to report_daily_orders; deletes rows left empty.
-- A count below zero means the table lost step with its source: an error, never a silent drift.
create function report_rollups_add_days(
  restaurant_ids text[], platform_ids text[], days date[], local_days date[],
  order_deltas integer[], revenue_deltas numeric[]
) returns void language plpgsql
set plan_cache_mode = force_generic_plan as $$
declare
  zero_restaurants text[];
  zero_platforms text[];
  zero_days date[];
  zero_local_days date[];
  negative boolean;
begin
  with deltas as (
    select d.restaurant_id, d.platform_id, d.day, d.local_day,
           sum(d.orders)::int as orders, sum(d.revenue) as revenue
    from unnest(restaurant_ids, platform_ids, days, local_days, order_deltas, revenue_deltas)
           as d (restaurant_id, platform_id, day, local_day, orders, revenue)
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
  select array_agg(a.restaurant_id) filter (where a.orders = 0),
         array_agg(a.platform_id) filter (where a.orders = 0),
         array_agg(a.day) filter (where a.orders = 0),
         array_agg(a.local_day) filter (where a.orders = 0),
         bool_or(a.orders < 0)
    into zero_restaurants, zero_platforms, zero_days, zero_local_days, negative
  from applied a;
  if negative then
    raise exception 'report_daily_orders out of step with orders: run report_rollups_rebuild()';
  end if;
  if zero_restaurants is not null then
    delete from report_daily_orders t
    using unnest(zero_restaurants, zero_platforms, zero_days, zero_local_days)
            as z (restaurant_id, platform_id, day, local_day)
    where t.restaurant_id = z.restaurant_id and t.platform_id = z.platform_id
      and t.day = z.day and t.local_day = z.local_day and t.orders = 0;
  end if;
end $$;

-- Adds deltas to report_daily_dishes; deletes rows left empty.
create function report_rollups_add_dishes(
  restaurant_ids text[], platform_ids text[], days date[], dish_names text[],
  order_deltas integer[], revenue_deltas numeric[]
) returns void language plpgsql
set plan_cache_mode = force_generic_plan as $$
declare
  zero_restaurants text[];
  zero_platforms text[];
  zero_days date[];
  zero_dishes text[];
  negative boolean;
begin
  with deltas as (
    select d.restaurant_id, d.platform_id, d.day, d.dish_name,
           sum(d.orders)::int as orders, sum(d.revenue) as revenue
    from unnest(restaurant_ids, platform_ids, days, dish_names, order_deltas, revenue_deltas)
           as d (restaurant_id, platform_id, day, dish_name, orders, revenue)
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
  select array_agg(a.restaurant_id) filter (where a.orders = 0),
         array_agg(a.platform_id) filter (where a.orders = 0),
         array_agg(a.day) filter (where a.orders = 0),
         array_agg(a.dish_name) filter (where a.orders = 0),
         bool_or(a.orders < 0)
    into zero_restaurants, zero_platforms, zero_days, zero_dishes, negative
  from applied a;
  if negative then
    raise exception 'report_daily_dishes out of step with order_lines: run report_rollups_rebuild()';
  end if;
  if zero_restaurants is not null then
    delete from report_daily_dishes t
    using unnest(zero_restaurants, zero_platforms, zero_days, zero_dishes)
            as z (restaurant_id, platform_id, day, dish_name)
    where t.restaurant_id = z.restaurant_id and t.platform_id = z.platform_id
      and t.day = z.day and t.dish_name = z.dish_name and t.orders = 0;
  end if;
end $$;

-- Order lines changed: per (order, dish), the net number of lines and revenue the statement
-- added. The dish's order count changes where the order had none of its lines before and has
-- some now, or the reverse; orders deleted by this statement's cascade are not visible any
-- more and were taken out of the rollups when they were deleted.
create function report_rollups_apply_lines(
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

create function report_rollups_lines_inserted() returns trigger language plpgsql as $$
begin
  perform report_rollups_apply_lines(
    array_agg(n.order_id), array_agg(n.dish_name), array_agg(1), array_agg(n.quantity * n.unit_price))
  from new_lines n;
  return null;
end $$;

create function report_rollups_lines_updated() returns trigger language plpgsql as $$
begin
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

create function report_rollups_lines_deleted() returns trigger language plpgsql as $$
begin
  perform report_rollups_apply_lines(
    array_agg(o.order_id), array_agg(o.dish_name), array_agg(-1), array_agg(-(o.quantity * o.unit_price)))
  from old_lines o;
  return null;
end $$;

create function report_rollups_orders_inserted() returns trigger language plpgsql as $$
begin
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
create function report_rollups_order_updated() returns trigger language plpgsql
set plan_cache_mode = force_generic_plan as $$
declare
  old_zone text;
  new_zone text;
  old_day date;
  new_day date;
  was_counted boolean := report_counts(old.state);
  is_counted boolean := report_counts(new.state);
begin
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
create function report_rollups_order_deleting() returns trigger language plpgsql
set plan_cache_mode = force_generic_plan as $$
declare
  zone text;
  range_day date;
begin
  if report_counts(old.state) then  -- as the trigger's WHEN clause, for a direct call
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

create function report_rollups_truncated() returns trigger language plpgsql as $$
begin
  if tg_table_name = 'orders' then
    truncate report_daily_orders;
  end if;
  truncate report_daily_dishes;
  return null;
end $$;

-- Recomputes the rollups of one restaurant (or of all) from orders and order lines.
create function report_rollups_rebuild(only_restaurant text default null) returns void
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

create function report_rollups_zone_changed() returns trigger language plpgsql as $$
begin
  perform report_rollups_rebuild(new.id);
  return null;
end $$;

create trigger report_rollups_inserted after insert on orders
  referencing new table as new_orders
  for each statement execute function report_rollups_orders_inserted();
create trigger report_rollups_updated after update on orders
  for each row
  when ((old.restaurant_id, old.platform_id, old.placed_at, old.total, report_counts(old.state))
        is distinct from
        (new.restaurant_id, new.platform_id, new.placed_at, new.total, report_counts(new.state)))
  execute function report_rollups_order_updated();
create trigger report_rollups_deleting before delete on orders
  for each row when (report_counts(old.state))
  execute function report_rollups_order_deleting();
create trigger report_rollups_truncated after truncate on orders
  for each statement execute function report_rollups_truncated();

create trigger report_rollups_inserted after insert on order_lines
  referencing new table as new_lines
  for each statement execute function report_rollups_lines_inserted();
create trigger report_rollups_updated after update on order_lines
  referencing old table as old_lines new table as new_lines
  for each statement execute function report_rollups_lines_updated();
create trigger report_rollups_deleted after delete on order_lines
  referencing old table as old_lines
  for each statement execute function report_rollups_lines_deleted();
create trigger report_rollups_truncated after truncate on order_lines
  for each statement execute function report_rollups_truncated();

create trigger report_rollups_zone_changed after update of time_zone on restaurants
  for each row when (old.time_zone is distinct from new.time_zone)
  execute function report_rollups_zone_changed();

select report_rollups_rebuild();
analyze report_daily_orders;
analyze report_daily_dishes;
