-- Restaurants, their platform identities, orders and order lines: what the reports read.

create table currencies (
  code        char(3)  primary key,
  minor_units smallint not null check (minor_units between 0 and 4)
);

create table restaurants (
  id        text primary key,
  name      text not null,
  time_zone text not null,              -- IANA name; report days are this zone's calendar days
  currency  char(3) not null references currencies (code)
);

-- A restaurant as sold on one platform (spec 2.3): the platform's Global Entity Id and the
-- restaurant's identifier on that platform.
create table restaurant_platforms (
  restaurant_id          text not null references restaurants (id),
  platform_id            text not null,
  platform_restaurant_id text not null,
  primary key (restaurant_id, platform_id),
  unique (platform_id, platform_restaurant_id)
);

create table orders (
  id            bigint generated always as identity primary key,
  restaurant_id text        not null,
  platform_id   text        not null,
  placed_at     timestamptz not null,
  state         text        not null
    check (state in ('PLACED', 'ACCEPTED', 'DELIVERED', 'CANCELLED', 'REJECTED')),
  total         numeric(14, 3) not null check (total >= 0),
  foreign key (restaurant_id, platform_id) references restaurant_platforms (restaurant_id, platform_id)
);

-- Every report reads one restaurant on one platform over a time range: an index range scan.
create index orders_restaurant_platform_placed_at
  on orders (restaurant_id, platform_id, placed_at) include (state, total);

create table order_lines (
  order_id   bigint   not null references orders (id) on delete cascade,
  line_no    smallint not null,
  dish_name  text     not null,
  quantity   integer  not null check (quantity > 0),
  unit_price numeric(14, 3) not null check (unit_price >= 0),
  primary key (order_id, line_no)
);
