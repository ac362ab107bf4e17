-- The brand's own order id: unique per restaurant and platform, so an order
-- sent again (a re-import, a replayed export) updates its one row through
-- INSERT ... ON CONFLICT (restaurant_id, platform_id, external_id) DO UPDATE
-- (tools/db/import.ts, docs/import.md). Nullable: orders written without one (the sample
-- data, writers that have none) stay as they are, and NULLs are distinct in a unique constraint, so
-- any number of them may share a restaurant and platform.
--
-- The constraint's index also serves the import's look-up of its orders by brand id.

alter table orders
  add column external_id text
    constraint orders_external_id_length check (char_length(external_id) between 1 and 100),
  add constraint orders_external_id_key unique (restaurant_id, platform_id, external_id);
