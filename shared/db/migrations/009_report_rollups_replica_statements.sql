-- Replica-mode loads in a time linear in their rows, whatever the order of the tables.
--
-- Migration 005's REPLICA row triggers do one order line's rollup work per row, through
-- statements planned once per session (force_generic_plan). Planned while orders look small
-- (at the first row of a load, before autovacuum's statistics), the line's statement can join
-- its order by a hash join over a sequential scan of orders and keep that plan for every later
-- row, so that a COPY of lines after their orders reads the whole table once per line.
--
-- - A statement in replica mode (COPY, INSERT, UPDATE, DELETE: a table-copy worker of logical
--   replication, a DMS full load, a restore, a session that sets the role) files its rows
--   set-wise, as an ordinary writer's statement triggers do: a BEFORE STATEMENT trigger names
--   the table in the transaction-local setting report_rollups.replica_statement, the REPLICA
--   row triggers pass while it names their table (a WHEN clause: the row function is not even
--   called), and REPLICA statement triggers with transition tables do the work; an AFTER
--   STATEMENT trigger clears the setting. The apply worker fires row triggers only, never
--   statement triggers: its rows keep going through the row triggers.
-- - Orders inserted by such a statement add their days and the dishes of any lines already
--   there (lines may be copied first). Lines inserted whose order is not visible (another
--   transaction copying orders and not committed yet, e.g. two sync workers of one
--   subscription) wait for the writers of orders to commit (LOCK orders IN SHARE MODE) and are
--   then filed against the orders committed; an orders copy that starts after that lock waits
--   for the lines to commit and then finds them. Two ordinary sessions copying at once stay
--   exact; an initial copy with more than one sync worker is not shown exact (docs/data.md).
-- - The row functions that remain (the apply worker's) plan their look-ups with sequential
--   scans, hash and merge joins off: each call files one order or one line, for which index
--   look-ups are right whatever the tables held when the plan was made.
--
-- Statement triggers of order lines in replica mode honour report_rollups_defer() (migration
-- 007) as the ordinary ones do: their functions are the same.

-- Without a SET clause (they name no table): a setting made in a function that has one could be
-- undone on its return.
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

-- Order lines inserted by one statement in replica mode. Lines whose order is not visible wait
-- for the writers of orders under way (a concurrent copy of orders) before they are filed.
create function report_rollups_lines_arrived() returns trigger language plpgsql as $$
begin
  if report_rollups_deferred() then
    return null;
  end if;
  if exists (
    select 1 from new_lines n where not exists (select 1 from orders o where o.id = n.order_id)
  ) then
    lock table orders in share mode;
  end if;
  perform report_rollups_apply_lines(
    array_agg(n.order_id), array_agg(n.dish_name), array_agg(1), array_agg(n.quantity * n.unit_price))
  from new_lines n;
  return null;
end $$;

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

-- The row triggers of 005, passing while a statement of their table files its rows.
drop trigger report_rollups_replica_inserted on orders;
create trigger report_rollups_replica_inserted after insert on orders
  for each row
  when (report_counts(new.state)
        and current_setting('report_rollups.replica_statement', true) is distinct from 'orders')
  execute function report_rollups_order_arrived();
drop trigger report_rollups_replica_changing on order_lines;
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

-- Index look-ups in the row functions, whatever the plan was made against.
do $$
declare
  path text := format('%I, pg_temp', current_schema());
  fn text;
begin
  foreach fn in array array[
    'report_rollups_apply_lines_before(bigint[], text[], integer[], numeric[])',
    'report_rollups_order_arrived()'
  ] loop
    execute format('alter function %s set enable_seqscan = off', fn);
    execute format('alter function %s set enable_hashjoin = off', fn);
    execute format('alter function %s set enable_mergejoin = off', fn);
  end loop;
  foreach fn in array array[
    'report_rollups_orders_arrived()',
    'report_rollups_lines_arrived()'
  ] loop
    execute format('alter function %s set search_path = %s', fn, path);
  end loop;
end $$;
