-- Replica-mode writers of the rollups take turns: exact and free of lock cycles however many
-- of them run at once (sync workers of a subscription, parallel DMS loads or restores).
--
-- A writer files its rows against the rows of the other source tables that it can see. Two
-- transactions that load related rows at once (restaurants and their orders, orders and their
-- lines) each see none of the other's rows until it commits: each files its own rows without
-- the other's, and the pairs between them are counted by neither. Taking row locks does not
-- help there (uncommitted rows cannot be locked), and waiting for the other table's writers
-- with a table lock can wait for ever in one cluster, where a sync worker creating its slot
-- waits for every running transaction.
--
-- - The turn: report_rollups_take_turn(), called first by every trigger function that files
--   rows (directly or through report_rollups_hold_zones) and by report_rollups_defer(). In
--   replica mode it takes the transaction-level advisory lock (742019, 1) of the database
--   exclusively, otherwise shared. Held from a writer's first filing to its commit, it lets one
--   replica-mode writer at a time file, and that writer reads (a new snapshot per statement, at
--   READ COMMITTED) everything the writers before it committed: of two related rows, the later
--   filer counts the pair, the earlier one could not see it. Ordinary writers share the lock
--   among themselves (they keep the row locks of migration 004) and wait only for a replica-mode
--   writer holding it, as it waits for them.
-- - Replica-mode writers take no row locks on orders or restaurants: the turn orders them, and
--   one of them holding the turn while it waits for a row held by one waiting for the turn (the
--   apply worker updates an order, then waits; a table copy in its turn locks that order to file
--   its lines) would be a deadlock. An order updated or deleted and a time-zone change in
--   replica mode take the turn too, after the row lock of their own statement.
-- - Rows that fire no rollup function (orders inserted uncounted one row at a time, updates the
--   rollups do not see) take no turn: what another writer files from them is the same whether
--   it sees them or not.
-- - report_rollups_defer() (migration 007) takes the turn, so that a deferring transaction's
--   refresh runs in its turn.
-- - Not covered: a replica-mode writer at REPEATABLE READ or SERIALIZABLE (it reads with the
--   snapshot of its first statement, taken before its turn); the drift check repairs it.
--
-- Table copies (COPY) still run side by side; only their filings, a set-wise pass each
-- (migration 009), run one after another.

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
-- otherwise FOR SHARE in id order (migration 004), after the shared turn.
create or replace function report_rollups_hold_zones(restaurant_ids text[]) returns void
language plpgsql as $$
begin
  if report_rollups_take_turn() then
    return;
  end if;
  perform 1 from restaurants r where r.id = any(restaurant_ids) order by r.id for share;
end $$;

-- Order lines changed (statement triggers, both modes): as in migration 004, with the turn
-- first and, in replica mode, no row locks.
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

-- Order lines about to change, one row at a time (the apply worker; replica mode only): as in
-- migration 005, in the turn instead of row locks.
create or replace function report_rollups_apply_lines_before(
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

-- Order lines inserted by one statement in replica mode: as in migration 009, without the table
-- lock (report_rollups_apply_lines takes the turn).
create or replace function report_rollups_lines_arrived() returns trigger language plpgsql as $$
begin
  if report_rollups_deferred() then
    return null;
  end if;
  perform report_rollups_apply_lines(
    array_agg(n.order_id), array_agg(n.dish_name), array_agg(1), array_agg(n.quantity * n.unit_price))
  from new_lines n;
  return null;
end $$;

-- A deferring transaction (migration 007) takes the turn when it defers, so that its refresh
-- runs in its turn. Without a SET clause, as in 007: the setting must outlive the call.
create or replace function report_rollups_defer() returns void
  language sql volatile
  as $$
    select set_config('report_rollups.deferred', pg_current_xact_id()::text, true);
    select report_rollups_take_turn();
  $$;

-- A restaurant arrived in replica mode (migration 005), or its time zone changed: its rollups
-- recomputed in the turn. An ordinary time-zone change holds the restaurant's row as before
-- and takes the turn shared.
create or replace function report_rollups_restaurant_arrived() returns trigger language plpgsql as $$
begin
  perform report_rollups_take_turn();
  perform report_rollups_recompute(new.id);
  return null;
end $$;

create or replace function report_rollups_zone_changed() returns trigger language plpgsql as $$
begin
  perform report_rollups_take_turn();
  perform report_rollups_recompute(new.id);
  return null;
end $$;

-- The schema migrated, and pg_temp last, as every plpgsql function of the rollups (005); the
-- apply worker's line function plans index look-ups again (009).
do $$
declare
  path text := format('%I, pg_temp', current_schema());
  fn text;
begin
  foreach fn in array array[
    'report_rollups_take_turn()',
    'report_rollups_hold_zones(text[])',
    'report_rollups_apply_lines(bigint[], text[], integer[], numeric[])',
    'report_rollups_apply_lines_before(bigint[], text[], integer[], numeric[])',
    'report_rollups_lines_arrived()',
    'report_rollups_restaurant_arrived()',
    'report_rollups_zone_changed()'
  ] loop
    execute format('alter function %s set search_path = %s', fn, path);
  end loop;
  execute 'alter function report_rollups_apply_lines_before(bigint[], text[], integer[], numeric[]) set enable_seqscan = off';
  execute 'alter function report_rollups_apply_lines_before(bigint[], text[], integer[], numeric[]) set enable_hashjoin = off';
  execute 'alter function report_rollups_apply_lines_before(bigint[], text[], integer[], numeric[]) set enable_mergejoin = off';
end $$;
