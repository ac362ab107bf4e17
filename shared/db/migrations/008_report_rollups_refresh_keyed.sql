-- report_rollups_refresh (migration 007) in a time linear in the rows. The fresh rows of the
-- refreshed days go into temporary tables with their key as primary key (analysed), the delete
-- of the rows no longer fresh looks each row up there, and the upsert reads them. A NOT EXISTS
-- against a CTE of the fresh rows can be planned as a nested loop over the CTE for each row
-- where the days already hold rollup rows (an import into days that hold orders, a drift
-- repair): the planner knows no statistics of rollup rows written in the same transaction.
-- Everything else (the lock, the days, the counted orders) as in 007.

create or replace function report_rollups_refresh(
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

-- The schema migrated, and pg_temp last, as every plpgsql function of the rollups (005).
do $$
begin
  execute format(
    'alter function report_rollups_refresh(text[], text[], timestamptz[]) set search_path = %I, pg_temp',
    current_schema());
end $$;
