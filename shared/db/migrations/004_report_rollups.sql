-- Daily rollups of the reports. Orders/day, revenue and dishes read one row per day (per dish)
-- of a restaurant on a platform instead of every order of the range. Triggers on orders,
-- order_lines and restaurants keep both tables equal, at the end of every statement, to the
-- same aggregation over the source rows; report_rollups_rebuild() recomputes them from those
-- rows (the backfill at the end runs it), and `npm run db:check` (tools/db/check.ts) finds and
-- repairs drift.
--
-- Days. Days are attributed exactly as a query over the source rows attributes them. A report
-- over the days [from, to] reads the orders placed from from::timestamp at time zone <the
-- restaurant's zone> up to (to + 1)::timestamp at time zone <zone>, and groups them by their
-- local calendar day (placed_at at time zone <zone>)::date. The two differ around a DST change
-- at local midnight (America/Havana, Asia/Beirut, ...): PostgreSQL reads an ambiguous 00:00 as
-- the later instant, so the first local hour of such a day lies before that day's lower bound.
-- Each rollup row therefore carries the range day `day` (the latest day whose local midnight is
-- at or before placed_at, which is what a range selects on) and orders/day also the calendar
-- day `local_day` it is reported under; both are equal on every other day of every zone.
--
-- Counted orders are those in the states of COUNTED_STATES (shared/reports/domain.ts);
-- report_counts() mirrors it and a test keeps the two equal. Money is summed as numeric,
-- exactly; rounding to the currency's minor unit stays in the queries.
--
-- Plans. The functions that take arrays plan their statements once (plan_cache_mode =
-- force_generic_plan): a plan per call would cost more than the call's work, and the generic
-- plans (nested loops over primary keys) suit one order as well as a bulk load. The two row
-- functions of the apply worker (report_rollups_order_arrived, report_rollups_apply_lines_before)
-- also plan with sequential scans, hash and merge joins off: each call files one order or one
-- line, for which index look-ups are right whatever the tables held when the plan was made.
--
-- Ordinary writers (session_replication_role origin or local, at READ COMMITTED). Rollup rows
-- are changed by upserts sorted by key. A statement that changes order lines first locks their
-- orders (FOR NO KEY UPDATE, in id order), so writers of one order are serialised with each
-- other and with changes to the order itself, and each then reads what the other committed.
-- Every writer holds its orders' restaurants FOR SHARE (in id order, which needs the UPDATE
-- privilege on restaurants) before it reads their time zone, so a time-zone change (which
-- recomputes that restaurant's rollups under its row lock, without a table lock: one would
-- deadlock with a writer waiting for the row) waits for the writers under way, and the writers
-- after it read the new zone. report_rollups_rebuild() locks orders and order lines (SHARE)
-- while it runs, so writers wait for it instead of racing it. An order updated in what the
-- rollups see of it moves its count, total and lines; an INSERT ... ON CONFLICT DO UPDATE on
-- orders fires the statement trigger on the orders it inserts and the row trigger on each order
-- it updates, exactly as separate INSERT and UPDATE statements would.
--
-- Replica mode. Rows written with session_replication_role = replica (the apply and table-copy
-- workers of logical replication, AWS DMS, restores) fire only triggers enabled REPLICA or
-- ALWAYS, and the apply worker fires row triggers only, never statement triggers. So:
-- - the row triggers on orders (update, delete), the truncate triggers and the time-zone
--   trigger on restaurants fire ALWAYS: they are exact for any writer;
-- - the statement triggers of ordinary writers (orders inserted; order lines inserted,
--   updated, deleted) are ORIGIN (ENABLE);
-- - a statement in replica mode (COPY, INSERT, UPDATE, DELETE) files its rows set-wise through
--   REPLICA statement triggers with transition tables: a BEFORE STATEMENT trigger names its
--   table in the transaction-local setting report_rollups.replica_statement and an AFTER
--   STATEMENT trigger clears it. Orders inserted add their days and the dishes of any lines
--   already there (a copy may load order_lines first);
-- - REPLICA row triggers do the same work one row at a time for the apply worker: a restaurant
--   inserted (its rollups recomputed: a copy may load orders before restaurants), an order
--   inserted (AFTER, with any lines already there), and an order line inserted, updated or
--   deleted (BEFORE the row changes, so that the rows changed before it in the same statement
--   are seen); those on orders and order_lines pass (a WHEN clause) while a statement of their
--   table files its rows.
-- Exactly one of these sets fires in every session_replication_role.
--
-- Taking turns. A writer files its rows against the rows of the other source tables that it
-- can see; two transactions loading related rows at once (restaurants and their orders, orders
-- and their lines) would each miss the pairs between them. report_rollups_take_turn(), called
-- first by every trigger function that files rows (directly or through
-- report_rollups_hold_zones) and by report_rollups_defer(), takes the transaction-level
-- advisory lock (742019, 1): exclusively in replica mode, shared otherwise. Held from a
-- writer's first filing to its commit, it lets one replica-mode writer at a time file, and that
-- writer reads (a new snapshot per statement, at READ COMMITTED) everything the writers before
-- it committed. Ordinary writers share it among themselves and wait only for a replica-mode
-- writer holding it. Replica-mode writers take no row locks on orders or restaurants (the turn
-- orders them; a row lock taken in the turn could deadlock with the apply worker). Rows that
-- fire no rollup function take no turn. Table copies run side by side; only their filings run
-- one after another.
--
-- The apply worker runs with an empty search_path, so every plpgsql function here carries
-- search_path = <the schema migrated>, pg_temp (set at the end of this file). The SQL helpers
-- report_counts, report_day and report_local_day have none: they read no table, and a SET
-- clause would stop them being inlined; nor do the functions that change a transaction-local
-- setting (report_rollups_defer, report_rollups_replica_statement_begins and _ends): a setting
-- made in a function with a SET clause could be undone on its return. The apply worker runs as
-- the subscription's owner (a superuser on PostgreSQL 15), whose privileges cover the FOR SHARE
-- lock on restaurants and the writes to both rollup tables.
--
-- No write fails because a rollup is out of step (an error would stop a subscription): a rollup
-- row whose count would go below zero is deleted instead, with a WARNING naming its key. Keys a
-- writer cannot file (an order of a restaurant the subscriber does not have yet) are left out
-- the same way, silently.
--
-- Not covered by the triggers (report_rollups_rebuild() or the drift check repairs them): one
-- SQL statement (a data-modifying WITH) that changes an order's state, restaurant, platform or
-- instant, or deletes it, and also changes that order's lines; an ordinary writer at REPEATABLE
-- READ changing an order while another adds lines to it; a replica-mode writer at REPEATABLE
-- READ or SERIALIZABLE (it reads with the snapshot of its first statement, taken before its
-- turn); INSERT ... ON CONFLICT DO UPDATE on order_lines by the apply worker (the BEFORE INSERT
-- row trigger fires before the conflict is known); a change of the time zone database.

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

-- Adds deltas (any order, repeated keys allowed) to report_daily_orders; deletes rows left at or
-- below zero orders: below zero means the table lost step with its source (a WARNING; the
-- drift check repairs it), never an error for the writer. Keys without a day are left out.
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

-- Takes the turn to file rollups: exclusive in replica mode (true), shared otherwise (false).
create function report_rollups_take_turn() returns boolean language plpgsql as $$
begin
  if current_setting('session_replication_role') = 'replica' then
    perform pg_advisory_xact_lock(742019, 1);
    return true;
  end if;
  perform pg_advisory_xact_lock_shared(742019, 1);
  return false;
end $$;

-- Holds these restaurants' time zones for the caller's filing: in replica mode by the turn,
-- otherwise FOR SHARE in id order, after the shared turn.
create function report_rollups_hold_zones(restaurant_ids text[]) returns void
language plpgsql as $$
begin
  if report_rollups_take_turn() then
    return;
  end if;
  perform 1 from restaurants r where r.id = any(restaurant_ids) order by r.id for share;
end $$;

-- Order lines changed (statement triggers, both modes): per (order, dish), the net number of
-- lines and revenue the statement added. The dish's order count changes where the order had
-- none of its lines before and has some now, or the reverse; orders deleted by this
-- statement's cascade are not visible any more and were taken out of the rollups when they
-- were deleted. The turn first; an ordinary writer then locks the orders and holds their
-- restaurants, a replica-mode writer takes no row locks.
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
  if not report_rollups_take_turn() then
    perform 1 from orders o where o.id = any(order_ids) order by o.id for no key update;
    perform report_rollups_hold_zones(
      array(select distinct o.restaurant_id from orders o where o.id = any(order_ids)));
  end if;
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

-- Order lines about to change, one row at a time (the apply worker; replica mode only): as
-- report_rollups_apply_lines, in the turn, but measured before the change (the lines present
-- now, plus the change, are the lines after it).
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
  perform report_rollups_take_turn();
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

-- Whether the current transaction deferred its rollups (report_rollups_defer()).
create function report_rollups_deferred() returns boolean
  language sql stable parallel restricted
  as $$
    select coalesce(current_setting('report_rollups.deferred', true), '')
           = pg_current_xact_id()::text
  $$;

-- Deferred rollups for bulk writers. The statement triggers of order lines plan their work
-- once for one order, which suits a statement of a few orders and is slow for one of millions
-- of lines. A transaction that writes many orders at once (npm run import,
-- tools/db/import-write.ts) may instead defer the rollups and recompute, set-wise and from the
-- source rows, exactly the rollup rows its writes touched, before it commits:
--
--   select report_rollups_defer();
--   ... inserts of orders; inserts, updates, deletes of order lines ...
--   select report_rollups_refresh(<restaurant ids>, <platform ids>, <instants>);
--
-- where the arrays name, for every order the transaction inserted, and every order whose lines
-- it inserted, updated or deleted, while deferred: its restaurant, platform and each instant
-- (placed_at) it had from then on (the import never moves such an order: one instant each).
--
-- report_rollups_defer() marks the current transaction (its id in the transaction-local setting
-- report_rollups.deferred; a value left over from another transaction, or set for the session,
-- defers nothing) and takes the turn, so that the refresh runs in it. While it is marked, the
-- statement triggers of orders inserted (ordinary writers) and of order lines inserted, updated
-- or deleted (both modes) do nothing: their functions return at once (a check inside the
-- function costs an ordinary writer less than a WHEN clause on the trigger, which is planned
-- again for every statement). An order updated, an order deleted, truncates, time-zone changes
-- and the other replica-mode triggers are not deferred: they stay exact, and a refresh of a day
-- they also changed recomputes it from the rows. Without a SET clause: the setting must outlive
-- the call.
create function report_rollups_defer() returns void
  language sql volatile
  as $$
    select set_config('report_rollups.deferred', pg_current_xact_id()::text, true);
    select report_rollups_take_turn();
  $$;

-- Ends the deferral, then holds the named restaurants FOR NO KEY UPDATE (in id order) until the
-- transaction ends: it waits for the writers under way on those restaurants (which hold them FOR
-- SHARE) to commit, and keeps new ones waiting until it commits; writers of other restaurants
-- are not held. Taking the lock at the end rather than at the first deferred write keeps the
-- hold short and keeps the deferring transaction from waiting, while it holds order rows, for
-- restaurant locks of writers that may wait for those order rows. Only then does it compute the
-- days of the instants (in the time zone committed by then) and recompute those (restaurant,
-- platform, range day) rows of both rollup tables from orders and order lines (a new snapshot:
-- the transaction's own rows and everything committed), changing only the rows that differ.
-- Exact: the rows the deferred triggers would have changed lie in the days refreshed; every
-- other row was changed only by triggers that ran. The fresh rows go into temporary tables
-- keyed (and analysed) by their primary key, so that finding the rows no longer fresh is a
-- look-up per row whatever the plan, and the refresh takes a time linear in the rows.
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

  -- The fresh rows in a table of their own with its key indexed, so that the rows to delete
  -- (those of the days refreshed that are not fresh) are found by a look-up each, whatever
  -- the plan: a NOT EXISTS against a CTE could be planned as a nested loop over the CTE.
  drop table if exists pg_temp.report_rollups_fresh_orders;
  create temporary table report_rollups_fresh_orders on commit drop as
  select c.restaurant_id, c.platform_id, c.day, c.local_day,
         count(*)::int as orders, sum(c.total) as revenue
  from pg_temp.report_rollups_counted c
  group by 1, 2, 3, 4;
  alter table pg_temp.report_rollups_fresh_orders
    add primary key (restaurant_id, platform_id, day, local_day);
  analyze pg_temp.report_rollups_fresh_orders;

  delete from report_daily_orders t
  using pg_temp.report_rollups_refreshed k
  where t.restaurant_id = k.restaurant_id and t.platform_id = k.platform_id and t.day = k.day
    and not exists (
      select 1 from pg_temp.report_rollups_fresh_orders f
      where f.restaurant_id = t.restaurant_id and f.platform_id = t.platform_id
        and f.day = t.day and f.local_day = t.local_day);
  insert into report_daily_orders as t (restaurant_id, platform_id, day, local_day, orders, revenue)
  select f.restaurant_id, f.platform_id, f.day, f.local_day, f.orders, f.revenue
  from pg_temp.report_rollups_fresh_orders f
  order by 1, 2, 3, 4
  on conflict (restaurant_id, platform_id, day, local_day) do update
    set orders = excluded.orders, revenue = excluded.revenue
    where (t.orders, t.revenue) is distinct from (excluded.orders, excluded.revenue);

  drop table if exists pg_temp.report_rollups_fresh_dishes;
  create temporary table report_rollups_fresh_dishes on commit drop as
  with per_order as (
    select c.restaurant_id, c.platform_id, c.day, l.dish_name,
           sum(l.quantity * l.unit_price) as revenue
    from pg_temp.report_rollups_counted c
    join order_lines l on l.order_id = c.id
    group by c.id, c.restaurant_id, c.platform_id, c.day, l.dish_name
  )
  select p.restaurant_id, p.platform_id, p.day, p.dish_name,
         count(*)::int as orders, sum(p.revenue) as revenue
  from per_order p
  group by 1, 2, 3, 4;
  alter table pg_temp.report_rollups_fresh_dishes
    add primary key (restaurant_id, platform_id, day, dish_name);
  analyze pg_temp.report_rollups_fresh_dishes;

  delete from report_daily_dishes t
  using pg_temp.report_rollups_refreshed k
  where t.restaurant_id = k.restaurant_id and t.platform_id = k.platform_id and t.day = k.day
    and not exists (
      select 1 from pg_temp.report_rollups_fresh_dishes f
      where f.restaurant_id = t.restaurant_id and f.platform_id = t.platform_id
        and f.day = t.day and f.dish_name = t.dish_name);
  insert into report_daily_dishes as t (restaurant_id, platform_id, day, dish_name, orders, revenue)
  select f.restaurant_id, f.platform_id, f.day, f.dish_name, f.orders, f.revenue
  from pg_temp.report_rollups_fresh_dishes f
  order by 1, 2, 3, 4
  on conflict (restaurant_id, platform_id, day, dish_name) do update
    set orders = excluded.orders, revenue = excluded.revenue
    where (t.orders, t.revenue) is distinct from (excluded.orders, excluded.revenue);

  drop table pg_temp.report_rollups_fresh_dishes;
  drop table pg_temp.report_rollups_fresh_orders;
  drop table pg_temp.report_rollups_counted;
  drop table pg_temp.report_rollups_refreshed;
end $$;

-- Order lines inserted, updated, deleted by an ordinary writer's statement.
create function report_rollups_lines_inserted() returns trigger language plpgsql as $$
begin
  if report_rollups_deferred() then
    return null;
  end if;
  perform report_rollups_apply_lines(
    array_agg(n.order_id), array_agg(n.dish_name), array_agg(1), array_agg(n.quantity * n.unit_price))
  from new_lines n;
  return null;
end $$;

create function report_rollups_lines_updated() returns trigger language plpgsql as $$
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

create function report_rollups_lines_deleted() returns trigger language plpgsql as $$
begin
  if report_rollups_deferred() then
    return null;
  end if;
  perform report_rollups_apply_lines(
    array_agg(o.order_id), array_agg(o.dish_name), array_agg(-1), array_agg(-(o.quantity * o.unit_price)))
  from old_lines o;
  return null;
end $$;

-- Orders inserted by an ordinary writer's statement.
create function report_rollups_orders_inserted() returns trigger language plpgsql as $$
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
create function report_rollups_order_deleting() returns trigger language plpgsql
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

create function report_rollups_truncated() returns trigger language plpgsql as $$
begin
  if tg_table_name = 'orders' then
    truncate report_daily_orders;
  end if;
  truncate report_daily_dishes;
  return null;
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

-- Repairs the rollups (see the header): waits for the order writers under way, keeps new ones
-- waiting until the caller's transaction ends, and recomputes.
create function report_rollups_rebuild(only_restaurant text default null) returns void
language plpgsql as $$
begin
  lock table orders, order_lines in share mode;
  perform report_rollups_recompute(only_restaurant);
end $$;

-- A time-zone change re-files the restaurant's orders, in the turn. The restaurant's row lock
-- keeps its ordinary writers out, so no table lock is needed.
create function report_rollups_zone_changed() returns trigger language plpgsql as $$
begin
  perform report_rollups_take_turn();
  perform report_rollups_recompute(new.id);
  return null;
end $$;

-- Replica mode, one statement: the table named while it files its rows (see the header).
create function report_rollups_replica_statement_begins() returns trigger language plpgsql as $$
begin
  perform set_config('report_rollups.replica_statement', tg_table_name, true);
  return null;
end $$;

create function report_rollups_replica_statement_ends() returns trigger language plpgsql as $$
begin
  perform set_config('report_rollups.replica_statement', '', true);
  return null;
end $$;

-- Orders inserted by one statement in replica mode: their days, and the dishes of any of their
-- lines already there.
create function report_rollups_orders_arrived() returns trigger language plpgsql as $$
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
  perform report_rollups_add_dishes(
    array_agg(c.restaurant_id), array_agg(c.platform_id), array_agg(c.day), array_agg(c.dish_name),
    array_agg(c.orders), array_agg(c.revenue))
  from (
    select n.restaurant_id, n.platform_id, report_day(n.placed_at, r.time_zone) as day,
           l.dish_name, count(distinct n.id)::int as orders,
           sum(l.quantity * l.unit_price) as revenue
    from new_orders n
    join restaurants r on r.id = n.restaurant_id
    join order_lines l on l.order_id = n.id
    where report_counts(n.state)
    group by 1, 2, 3, 4
  ) c;
  return null;
end $$;

-- Order lines inserted by one statement in replica mode (report_rollups_apply_lines takes the
-- turn).
create function report_rollups_lines_arrived() returns trigger language plpgsql as $$
begin
  if report_rollups_deferred() then
    return null;
  end if;
  perform report_rollups_apply_lines(
    array_agg(n.order_id), array_agg(n.dish_name), array_agg(1), array_agg(n.quantity * n.unit_price))
  from new_lines n;
  return null;
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

-- An order line about to change in replica mode, one row at a time.
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
-- not be filed without its time zone. Recomputed in the turn.
create function report_rollups_restaurant_arrived() returns trigger language plpgsql as $$
begin
  perform report_rollups_take_turn();
  perform report_rollups_recompute(new.id);
  return null;
end $$;

-- Ordinary writers (ORIGIN).
create trigger report_rollups_inserted after insert on orders
  referencing new table as new_orders
  for each statement execute function report_rollups_orders_inserted();
create trigger report_rollups_inserted after insert on order_lines
  referencing new table as new_lines
  for each statement execute function report_rollups_lines_inserted();
create trigger report_rollups_updated after update on order_lines
  referencing old table as old_lines new table as new_lines
  for each statement execute function report_rollups_lines_updated();
create trigger report_rollups_deleted after delete on order_lines
  referencing old table as old_lines
  for each statement execute function report_rollups_lines_deleted();

-- Every writer (ALWAYS).
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
create trigger report_rollups_truncated after truncate on order_lines
  for each statement execute function report_rollups_truncated();
create trigger report_rollups_zone_changed after update of time_zone on restaurants
  for each row when (old.time_zone is distinct from new.time_zone)
  execute function report_rollups_zone_changed();

alter table orders enable always trigger report_rollups_updated;
alter table orders enable always trigger report_rollups_deleting;
alter table orders enable always trigger report_rollups_truncated;
alter table order_lines enable always trigger report_rollups_truncated;
alter table restaurants enable always trigger report_rollups_zone_changed;

-- Replica mode, one statement at a time (REPLICA).
create trigger report_rollups_replica_statement_begins before insert on orders
  for each statement execute function report_rollups_replica_statement_begins();
create trigger report_rollups_replica_statement_ends after insert on orders
  for each statement execute function report_rollups_replica_statement_ends();
create trigger report_rollups_replica_statement_begins before insert or update or delete
  on order_lines
  for each statement execute function report_rollups_replica_statement_begins();
create trigger report_rollups_replica_statement_ends after insert or update or delete
  on order_lines
  for each statement execute function report_rollups_replica_statement_ends();

create trigger report_rollups_replica_statement after insert on orders
  referencing new table as new_orders
  for each statement execute function report_rollups_orders_arrived();
create trigger report_rollups_replica_inserted_lines after insert on order_lines
  referencing new table as new_lines
  for each statement execute function report_rollups_lines_arrived();
create trigger report_rollups_replica_updated_lines after update on order_lines
  referencing old table as old_lines new table as new_lines
  for each statement execute function report_rollups_lines_updated();
create trigger report_rollups_replica_deleted_lines after delete on order_lines
  referencing old table as old_lines
  for each statement execute function report_rollups_lines_deleted();

-- Replica mode, one row at a time (REPLICA): the apply worker, and rows of a table no
-- statement of which is filing its rows.
create trigger report_rollups_replica_inserted after insert on restaurants
  for each row execute function report_rollups_restaurant_arrived();
create trigger report_rollups_replica_inserted after insert on orders
  for each row
  when (report_counts(new.state)
        and current_setting('report_rollups.replica_statement', true) is distinct from 'orders')
  execute function report_rollups_order_arrived();
create trigger report_rollups_replica_changing
  before insert or update or delete on order_lines
  for each row
  when (current_setting('report_rollups.replica_statement', true) is distinct from 'order_lines')
  execute function report_rollups_line_changing();

do $$
declare
  t text;
begin
  foreach t in array array[
    'restaurants report_rollups_replica_inserted',
    'orders report_rollups_replica_statement_begins',
    'orders report_rollups_replica_statement_ends',
    'orders report_rollups_replica_statement',
    'orders report_rollups_replica_inserted',
    'order_lines report_rollups_replica_statement_begins',
    'order_lines report_rollups_replica_statement_ends',
    'order_lines report_rollups_replica_inserted_lines',
    'order_lines report_rollups_replica_updated_lines',
    'order_lines report_rollups_replica_deleted_lines',
    'order_lines report_rollups_replica_changing'
  ] loop
    execute format('alter table %I enable replica trigger %I', split_part(t, ' ', 1),
                   split_part(t, ' ', 2));
  end loop;
end $$;

-- The schema migrated, and pg_temp last, for every plpgsql function that carries a search path;
-- index look-ups in the apply worker's row functions.
do $$
declare
  path text := format('%I, pg_temp', current_schema());
  fn text;
begin
  foreach fn in array array[
    'report_rollups_add_days(text[], text[], date[], date[], integer[], numeric[])',
    'report_rollups_add_dishes(text[], text[], date[], text[], integer[], numeric[])',
    'report_rollups_take_turn()',
    'report_rollups_hold_zones(text[])',
    'report_rollups_apply_lines(bigint[], text[], integer[], numeric[])',
    'report_rollups_apply_lines_before(bigint[], text[], integer[], numeric[])',
    'report_rollups_refresh(text[], text[], timestamptz[])',
    'report_rollups_lines_inserted()',
    'report_rollups_lines_updated()',
    'report_rollups_lines_deleted()',
    'report_rollups_orders_inserted()',
    'report_rollups_order_updated()',
    'report_rollups_order_deleting()',
    'report_rollups_truncated()',
    'report_rollups_recompute(text)',
    'report_rollups_rebuild(text)',
    'report_rollups_zone_changed()',
    'report_rollups_orders_arrived()',
    'report_rollups_lines_arrived()',
    'report_rollups_order_arrived()',
    'report_rollups_line_changing()',
    'report_rollups_restaurant_arrived()'
  ] loop
    execute format('alter function %s set search_path = %s', fn, path);
  end loop;
  foreach fn in array array[
    'report_rollups_order_arrived()',
    'report_rollups_apply_lines_before(bigint[], text[], integer[], numeric[])'
  ] loop
    execute format('alter function %s set enable_seqscan = off', fn);
    execute format('alter function %s set enable_hashjoin = off', fn);
    execute format('alter function %s set enable_mergejoin = off', fn);
  end loop;
end $$;

-- Backfill: rollups of any orders already there.
select report_rollups_rebuild();
analyze report_daily_orders;
analyze report_daily_dishes;
