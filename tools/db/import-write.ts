/**
 * The database side of npm run db:import (docs/import.md): what the database knows, the
 * staging of validated orders in temporary tables of the import's transaction, and the
 * set-based writes from there (a few statements for the whole file, so the rollup triggers of
 * migration 004 do their work once per statement). Nothing here commits: the caller's
 * transaction holds every write.
 */
import type postgres from 'postgres';
import type {
  Declaration,
  DeclarationContext,
  ImportLine,
  ImportOrder,
  KnownRestaurant,
} from './import-validate';

type Tx = postgres.TransactionSql;

export interface Reference extends DeclarationContext {
  readonly restaurants: ReadonlyMap<string, KnownRestaurant>;
}

/** What the database knows: currencies, time zones, restaurants and their platforms. */
export const loadReference = async (tx: Tx): Promise<Reference> => {
  const currencies = await tx<{ code: string; minor_units: number }[]>`
    select code, minor_units from currencies`;
  const zones = await tx<{ name: string }[]>`select name from pg_timezone_names`;
  const restaurants = await tx<{ id: string; currency: string; minor_units: number }[]>`
    select r.id, r.currency, c.minor_units
    from restaurants r
    join currencies c on c.code = r.currency`;
  const platforms = await tx<
    { restaurant_id: string; platform_id: string; platform_restaurant_id: string }[]
  >`select restaurant_id, platform_id, platform_restaurant_id from restaurant_platforms`;
  const platformIdentities = new Map<string, string>();
  const platformsOf = new Map<string, Set<string>>();
  for (const row of platforms) {
    platformIdentities.set(
      `${row.platform_id}\u0000${row.platform_restaurant_id}`,
      row.restaurant_id,
    );
    const set = platformsOf.get(row.restaurant_id) ?? new Set<string>();
    set.add(row.platform_id);
    platformsOf.set(row.restaurant_id, set);
  }
  const known = new Map<string, KnownRestaurant>();
  for (const row of restaurants) {
    known.set(row.id, {
      currency: row.currency,
      minorUnits: row.minor_units,
      platforms: platformsOf.get(row.id) ?? new Set<string>(),
    });
  }
  return {
    currencies: new Map(currencies.map((row) => [row.code, row.minor_units])),
    timeZones: new Set(zones.map((row) => row.name)),
    platformIdentities,
    restaurants: known,
  };
};

/** The reference with this run's declarations applied (a declaration replaces what it names). */
export const withDeclarations = (
  reference: Reference,
  declarations: readonly Declaration[],
): ReadonlyMap<string, KnownRestaurant> => {
  const restaurants = new Map(reference.restaurants);
  for (const d of declarations) {
    const platforms = new Set(restaurants.get(d.restaurantId)?.platforms);
    for (const p of d.platforms) platforms.add(p.platformId);
    restaurants.set(d.restaurantId, { currency: d.currency, minorUnits: d.minorUnits, platforms });
  }
  return restaurants;
};

export interface Counts {
  readonly inserted: number;
  readonly updated: number;
  readonly unchanged: number;
}

export interface DeclarationCounts {
  readonly restaurants: Counts;
  readonly platforms: Counts;
}

/** Upserts the declared currencies, restaurants and platforms; only rows that differ change. */
export const writeDeclarations = async (
  tx: Tx,
  declarations: readonly Declaration[],
): Promise<DeclarationCounts> => {
  const restaurants = declarations.map((d) => ({
    id: d.restaurantId,
    name: d.name,
    time_zone: d.timeZone,
    currency: d.currency,
    minor_units: d.minorUnits,
  }));
  const platforms = declarations.flatMap((d) =>
    d.platforms.map((p) => ({
      restaurant_id: d.restaurantId,
      platform_id: p.platformId,
      platform_restaurant_id: p.platformRestaurantId,
    })),
  );
  await tx`
    insert into currencies (code, minor_units)
    select distinct currency, minor_units
    from json_to_recordset(${JSON.stringify(restaurants)}::text::json)
           as d (currency text, minor_units smallint)
    order by 1
    on conflict (code) do nothing`;
  const [r] = await tx<{ inserted: number; updated: number }[]>`
    with written as (
      insert into restaurants as t (id, name, time_zone, currency)
      select id, name, time_zone, currency
      from json_to_recordset(${JSON.stringify(restaurants)}::text::json)
             as d (id text, name text, time_zone text, currency text)
      order by id
      on conflict (id) do update
        set name = excluded.name, time_zone = excluded.time_zone, currency = excluded.currency
        where (t.name, t.time_zone, t.currency)
              is distinct from (excluded.name, excluded.time_zone, excluded.currency)
      returning xmax = 0 as inserted
    )
    select count(*) filter (where inserted)::int as inserted,
           count(*) filter (where not inserted)::int as updated
    from written`;
  const [p] = await tx<{ inserted: number; updated: number }[]>`
    with written as (
      insert into restaurant_platforms as t (restaurant_id, platform_id, platform_restaurant_id)
      select restaurant_id, platform_id, platform_restaurant_id
      from json_to_recordset(${JSON.stringify(platforms)}::text::json)
             as d (restaurant_id text, platform_id text, platform_restaurant_id text)
      order by 1, 2
      on conflict (restaurant_id, platform_id) do update
        set platform_restaurant_id = excluded.platform_restaurant_id
        where t.platform_restaurant_id is distinct from excluded.platform_restaurant_id
      returning xmax = 0 as inserted
    )
    select count(*) filter (where inserted)::int as inserted,
           count(*) filter (where not inserted)::int as updated
    from written`;
  const counts = (row: { inserted: number; updated: number } | undefined, all: number) => ({
    inserted: row?.inserted ?? 0,
    updated: row?.updated ?? 0,
    unchanged: all - (row?.inserted ?? 0) - (row?.updated ?? 0),
  });
  return { restaurants: counts(r, restaurants.length), platforms: counts(p, platforms.length) };
};

/**
 * How validated orders reach the staging tables: COPY ... FROM STDIN (PostgreSQL), or
 * multi-row INSERTs of JSON batches where COPY is not available (PGlite served over its socket
 * closes the connection on COPY FROM STDIN).
 */
export type StagingMethod = 'copy' | 'insert';

/** COPY where the server takes it: every PostgreSQL; not PGlite. */
export const stagingMethodFor = async (tx: Tx): Promise<StagingMethod> => {
  const [row] = await tx<{ pglite: boolean }[]>`select version() like '%PGlite%' as pglite`;
  return row?.pglite ? 'insert' : 'copy';
};

/** Creates the staging tables, dropped when the transaction ends. */
export const createStaging = async (tx: Tx): Promise<void> => {
  await tx`
    create temporary table import_orders (
      n             integer not null,
      restaurant_id text not null,
      platform_id   text not null,
      external_id   text not null,
      placed_at     timestamptz not null,
      state         text not null,
      total         numeric(14, 3) not null
    ) on commit drop`;
  await tx`
    create temporary table import_lines (
      n          integer not null,
      line_no    smallint not null,
      dish_name  text not null,
      quantity   integer not null,
      unit_price numeric(14, 3) not null
    ) on commit drop`;
};

/** A value in COPY's text format: backslash, tab, newline and carriage return escaped. */
export const copyText = (value: string): string =>
  /[\\\t\n\r]/.test(value)
    ? value.replace(/[\\\t\n\r]/g, (c) =>
        c === '\\' ? '\\\\' : c === '\t' ? '\\t' : c === '\n' ? '\\n' : '\\r',
      )
    : value;

/** An order's rows in COPY's text format: its row, and its lines' rows (maybe ''). */
export interface CopyRows {
  readonly order: string;
  readonly lines: string;
}

/** The COPY rows of the order of input line `n` (the staging tables' columns, in order). */
export const copyRowsOf = (n: number, order: ImportOrder): CopyRows => {
  const number = String(n);
  let lines = '';
  for (let i = 0; i < order.lines.length; i += 1) {
    const line = order.lines[i] as ImportLine;
    lines += `${number}\t${String(i + 1)}\t${copyText(line.dish)}\t${String(line.quantity)}\t${line.unitPrice}\n`;
  }
  return {
    order: `${number}\t${copyText(order.restaurantId)}\t${copyText(order.platformId)}\t${copyText(order.orderId)}\t${order.placedAt}\t${order.state}\t${order.total}\n`,
    lines,
  };
};

/** How long a COPY may stay unsettled once the server has answered the statement after it. */
export const COPY_SETTLE_MS = 2_000;

/**
 * `rows` sent by `copy` (a COPY ... FROM STDIN not yet run), settled whatever the server does.
 * postgres.js never settles the stream of a COPY that the server refuses after its last row
 * (porsager/postgres issue 1173): the COPY's own rejection, which it drops, is taken here, and
 * a statement sent behind the COPY, which the server answers only once the COPY is over, bounds
 * the wait (`settleMs` after that answer).
 */
export const copyIn = async (
  tx: Tx,
  copy: postgres.PendingQuery<postgres.Row[]>,
  rows: string,
  settleMs = COPY_SETTLE_MS,
): Promise<void> => {
  let fail: (error: unknown) => void = () => undefined;
  const failed = new Promise<never>((_resolve, reject) => {
    fail = reject;
  });
  failed.catch(() => undefined);
  const query = copy as unknown as { reject?: (error: unknown) => void };
  const reject = query.reject;
  if (typeof reject === 'function') {
    query.reject = (error) => {
      fail(error);
      reject(error);
    };
  }
  const stream = await copy.writable();
  const finished = new Promise<void>((resolve, reject) => {
    stream.once('finish', resolve);
    stream.once('error', reject);
    stream.once('close', () => {
      reject(new Error('the COPY stream closed before its end'));
    });
  });
  finished.catch(() => undefined);
  const sent = new Promise<void>((resolve, reject) => {
    stream.write(rows, (error) => {
      if (error) reject(error);
      else resolve();
    });
  });
  await Promise.race([sent, failed, finished]);
  stream.end();
  // The stream's end reaches the connection on a later turn; the statement goes after it.
  await new Promise((resolve) => setImmediate(resolve));
  const after = tx`select 1`.execute();
  const answered = Promise.race([finished, failed, after]).then(
    () => undefined,
    () => undefined,
  );
  await answered;
  let timer: NodeJS.Timeout | undefined;
  const bound = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => {
      reject(new Error('the COPY did not settle after the server had answered'));
    }, settleMs);
  });
  try {
    await Promise.race([finished, failed, after.then(() => finished), bound]);
  } catch (error) {
    // The statement behind a refused COPY fails too: report the COPY's own error if taken.
    const own = await Promise.race([failed, Promise.resolve(undefined)]).catch((e: unknown) => e);
    throw own ?? error;
  } finally {
    clearTimeout(timer);
    after.catch(() => undefined);
  }
};

/**
 * Buffers validated orders and sends them to the staging tables batch by batch. A batch is
 * written while the next one is read and validated (at most one in flight): the server takes
 * the COPY on its own core while this process parses.
 */
export class Staging {
  private orderRows = '';
  private lineRows = '';
  private orderJson: object[] = [];
  private lineJson: object[] = [];
  private buffered = 0;
  private inFlight: Promise<void> = Promise.resolve();
  staged = 0;

  constructor(
    private readonly tx: Tx,
    readonly method: StagingMethod,
    private readonly batchSize = method === 'copy' ? 20_000 : 2_000,
    private readonly settleMs = COPY_SETTLE_MS,
  ) {}

  /**
   * Adds the order of input line `n`. Returns true when the batch is full: the caller then
   * awaits send() (synchronous otherwise, so that a million orders are not a million awaits).
   */
  add(n: number, order: ImportOrder): boolean {
    if (this.method === 'copy') return this.addBatch(copyRowsOf(n, order), 1);
    this.orderJson.push({
      n,
      restaurant_id: order.restaurantId,
      platform_id: order.platformId,
      external_id: order.orderId,
      placed_at: order.placedAt,
      state: order.state,
      total: order.total,
    });
    for (const [i, line] of order.lines.entries()) {
      this.lineJson.push({
        n,
        line_no: i + 1,
        dish_name: line.dish,
        quantity: line.quantity,
        unit_price: line.unitPrice,
      });
    }
    return this.counted();
  }

  /**
   * Adds `count` orders as their COPY rows (copyRowsOf, concatenated); as add(), true when the
   * batch is full.
   */
  addBatch(rows: CopyRows, count: number): boolean {
    if (this.method !== 'copy') throw new Error('COPY rows need the copy staging method');
    this.orderRows += rows.order;
    this.lineRows += rows.lines;
    return this.counted(count);
  }

  private counted(count = 1): boolean {
    this.buffered += count;
    this.staged += count;
    return this.buffered >= this.batchSize;
  }

  /** Sends what is buffered and waits until every batch is in the staging tables. */
  async flush(): Promise<void> {
    await this.send();
    await this.inFlight;
  }

  /** Waits for the batch in flight (its failure surfaces here), then starts the next. */
  async send(): Promise<void> {
    await this.inFlight;
    if (this.buffered === 0) return;
    this.buffered = 0;
    let batch: Promise<void>;
    if (this.method === 'copy') {
      const orders = this.orderRows;
      const lines = this.lineRows;
      this.orderRows = '';
      this.lineRows = '';
      batch = this.copy(orders, lines);
    } else {
      const orders = JSON.stringify(this.orderJson);
      const lines = JSON.stringify(this.lineJson);
      this.orderJson = [];
      this.lineJson = [];
      batch = this.insert(orders, lines);
    }
    // Awaited by the next send or flush; until then a failure must not count as unhandled.
    batch.catch(() => undefined);
    this.inFlight = batch;
  }

  private async copy(orders: string, lines: string): Promise<void> {
    await copyIn(this.tx, this.tx`copy import_orders from stdin`, orders, this.settleMs);
    if (lines !== '') {
      await copyIn(this.tx, this.tx`copy import_lines from stdin`, lines, this.settleMs);
    }
  }

  private async insert(orders: string, lines: string): Promise<void> {
    await this.tx`
      insert into import_orders
      select * from json_populate_recordset(null::import_orders, ${orders}::text::json)`;
    await this.tx`
      insert into import_lines
      select * from json_populate_recordset(null::import_lines, ${lines}::text::json)`;
  }
}

/** The DDL that takes a table's secondary structure off and puts it back, from the catalog. */
interface Structure {
  readonly drop: string;
  readonly create: string;
}

/**
 * What a bulk load takes off orders and order_lines and puts back: every index and every
 * primary-key, unique, exclusion and foreign-key constraint, except the primary key of orders
 * (the order ids are generated in its order, and it is what the lines' foreign key names).
 * Read from the catalog, so that a later migration's index is put back as it was written.
 */
const secondaryStructure = async (tx: Tx): Promise<Structure[]> =>
  tx<Structure[]>`
    select format('alter table %s drop constraint %I', c.conrelid::regclass, c.conname) as drop,
           format('alter table %s add constraint %I %s',
                  c.conrelid::regclass, c.conname, pg_get_constraintdef(c.oid)) as create
    from pg_constraint c
    where c.conrelid in ('orders'::regclass, 'order_lines'::regclass)
      and c.contype in ('p', 'u', 'f', 'x')
      and not (c.conrelid = 'orders'::regclass and c.contype = 'p')
    union all
    select format('drop index %s', i.indexrelid::regclass), pg_get_indexdef(i.indexrelid)
    from pg_index i
    where i.indrelid in ('orders'::regclass, 'order_lines'::regclass)
      and not exists (
        select 1 from pg_constraint c
        where c.conindid = i.indexrelid and c.conrelid = i.indrelid
          and c.contype in ('p', 'u', 'x'))
    order by 1`;

/** The catalog's description of both tables' indexes and constraints, to compare. */
const structureSignature = async (tx: Tx): Promise<string> => {
  const [row] = await tx<{ signature: string }[]>`
    select string_agg(d, E'\n' order by d) as signature
    from (
      select c.conrelid::regclass || ' ' || c.conname || ' ' || pg_get_constraintdef(c.oid) as d
      from pg_constraint c
      where c.conrelid in ('orders'::regclass, 'order_lines'::regclass)
      union all
      select pg_get_indexdef(i.indexrelid)
      from pg_index i
      where i.indrelid in ('orders'::regclass, 'order_lines'::regclass)
    ) s`;
  return row?.signature ?? '';
};

/** Puts back what beginBulkLoad took off. */
export interface BulkLoad {
  readonly restore: () => Promise<void>;
}

/**
 * A first import into an empty database loads in bulk, as pg_restore does: when orders and
 * order_lines hold no row and the import's user owns both, it locks them (ACCESS EXCLUSIVE,
 * waiting at most `lockTimeout` for the readers under way), takes their secondary indexes and
 * constraints off (secondaryStructure), and restore() builds them back once the rows are in:
 * one sorted build per index and one validating query per foreign key instead of an index
 * insertion and a key lookup per row. The tables stay locked until the import commits (the
 * reports of an empty database wait for it); nothing changes for a database that holds orders.
 * Returns undefined, having changed nothing, when the database holds orders, the user does not
 * own the tables, or the lock was not granted in time.
 */
export const beginBulkLoad = async (tx: Tx, lockTimeout = '5s'): Promise<BulkLoad | undefined> => {
  const [owner] = await tx<{ owns: boolean }[]>`
    select bool_and(pg_has_role(c.relowner, 'USAGE')) as owns
    from pg_class c
    where c.oid in ('orders'::regclass, 'order_lines'::regclass)`;
  if (owner?.owns !== true) return undefined;
  // A database that holds orders is never locked, not even to look: a lock request waiting
  // for a reader would queue every later reader behind it.
  const [empty] = await tx<{ empty: boolean }[]>`
    select not exists (select 1 from orders) and not exists (select 1 from order_lines) as empty`;
  if (empty?.empty !== true) return undefined;
  const notEligible = new Error('not eligible for a bulk load');
  try {
    // In a savepoint: rolled back, it also releases the lock.
    return await tx.savepoint(async (sp) => {
      const [previous] = await sp<{ value: string }[]>`
        select current_setting('lock_timeout') as value`;
      await sp`select set_config('lock_timeout', ${lockTimeout}, true)`;
      try {
        await sp`lock table orders, order_lines in access exclusive mode`;
      } catch (error) {
        // lock_not_available: readers held the tables longer than the timeout.
        if ((error as { code?: string }).code === '55P03') throw notEligible;
        throw error;
      }
      await sp`select set_config('lock_timeout', ${previous?.value ?? '0'}, true)`;
      // Again under the lock, which no writer passes before the commit.
      const [rows] = await sp<{ empty: boolean }[]>`
        select not exists (select 1 from orders) and not exists (select 1 from order_lines)
               as empty`;
      if (rows?.empty !== true) throw notEligible;
      const before = await structureSignature(sp);
      const structure = await secondaryStructure(sp);
      const keys = structure.filter((s) => / foreign key /i.test(s.create));
      const others = structure.filter((s) => !keys.includes(s));
      try {
        for (const { drop } of [...keys, ...others]) await sp.unsafe(drop);
      } catch (error) {
        // dependent_objects_still_exist: another table's foreign key needs one of these.
        if ((error as { code?: string }).code === '2BP01') throw notEligible;
        throw error;
      }
      return {
        restore: async () => {
          await tx`set local maintenance_work_mem = '512MB'`;
          // Indexes and unique constraints first, then the foreign keys that may need them.
          for (const { create } of [...others, ...keys]) await tx.unsafe(create);
          if ((await structureSignature(tx)) !== before) {
            // Never commit a schema other than the one found: the import is rolled back.
            throw new Error('the bulk load did not restore the indexes and constraints of orders');
          }
        },
      };
    });
  } catch (error) {
    if (error === notEligible) return undefined;
    throw error;
  }
};

/**
 * The rollups of the days of these hours recomputed (report_rollups_refresh, migration 004).
 * `hours` selects (restaurant_id, platform_id, hour): each order named by the first and last
 * instant of its UTC hour. A day boundary is crossed at most once in an hour and days are
 * consecutive ranges of instants, so the two days cover the order's, and a file of a million
 * orders names ~70,000 hours, not a million instants. (Refreshing a day no order of the file
 * lies in is harmless: exact either way.)
 */
const refreshRollups = async (tx: Tx, hours: postgres.PendingQuery<postgres.Row[]>) => {
  await tx`
    select report_rollups_refresh(
      array_agg(e.restaurant_id), array_agg(e.platform_id), array_agg(e.instant))
    from (${hours}) h
    cross join lateral (
      values (h.restaurant_id, h.platform_id, h.hour),
             (h.restaurant_id, h.platform_id, h.hour + interval '1 hour' - interval '1 microsecond')
    ) e (restaurant_id, platform_id, instant)`;
};

/**
 * A bulk load's writes (beginBulkLoad): every staged order is new and no other writer can
 * reach the locked tables, so the orders are inserted without a conflict clause, with ids
 * chosen here (the sequence's next value plus the input line number, distinct for every
 * order), and their lines with those ids, without a look-up of their order; then the indexes
 * and constraints are built back and the rollups of the orders' days recomputed.
 */
const writeBulk = async (tx: Tx, bulk: BulkLoad): Promise<Counts> => {
  const [sequence] = await tx<{ base: string }[]>`
    select nextval(pg_get_serial_sequence('orders', 'id'))::text as base`;
  const base = sequence?.base ?? '0';
  await tx`
    insert into orders (id, restaurant_id, platform_id, external_id, placed_at, state, total)
    overriding system value
    select ${base}::bigint + n, restaurant_id, platform_id, external_id, placed_at, state, total
    from import_orders`;
  await tx`
    insert into order_lines (order_id, line_no, dish_name, quantity, unit_price)
    select ${base}::bigint + n, line_no, dish_name, quantity, unit_price
    from import_lines`;
  // Later orders' ids continue after the last one chosen.
  await tx`
    select setval(pg_get_serial_sequence('orders', 'id'),
                  ${base}::bigint + (select coalesce(max(n), 0) from import_orders))`;
  await bulk.restore();
  await tx`analyze orders`;
  await tx`analyze order_lines`;
  await refreshRollups(
    tx,
    tx`select distinct restaurant_id, platform_id,
              date_trunc('hour', placed_at at time zone 'UTC') at time zone 'UTC' as hour
       from import_orders`,
  );
  const [row] = await tx<{ inserted: number }[]>`
    select count(*)::int as inserted from import_orders`;
  return { inserted: row?.inserted ?? 0, updated: 0, unchanged: 0 };
};

/**
 * Writes the staged orders: inserts the new ones and updates those whose state, total or
 * instant differ (INSERT ... ON CONFLICT DO UPDATE ... WHERE IS DISTINCT FROM); then replaces
 * the lines of exactly the orders whose lines differ (one DELETE, one INSERT). An order whose
 * row and lines are the same is not written at all.
 */
export const writeStagedOrders = async (tx: Tx): Promise<Counts> => {
  // Sorts and hashes of a whole file in memory, also in the rollups' recompute.
  await tx`set local work_mem = '256MB'`;
  // One transaction: a crash before its commit is flushed loses the whole import, never part.
  await tx`set local synchronous_commit = off`;
  // The rollups of the orders and lines written below are recomputed set-wise at the end
  // (migration 004): the statement triggers' plans suit one order, not a file.
  await tx`select report_rollups_defer()`;
  await tx`analyze import_orders`;
  await tx`analyze import_lines`;
  // A first import into an empty database: indexes and foreign keys built once, after.
  const bulk = await beginBulkLoad(tx);
  if (bulk !== undefined) return writeBulk(tx, bulk);
  // The staged orders already present, and whether their row differs.
  await tx`
    create temporary table import_ids on commit drop as
    select s.n, o.id,
           (o.placed_at, o.state, o.total)
           is distinct from (s.placed_at, s.state, s.total) as differs,
           false as inserted
    from import_orders s
    join orders o
      on o.restaurant_id = s.restaurant_id and o.platform_id = s.platform_id
     and o.external_id = s.external_id`;
  await tx`
    create temporary table import_written (
      id bigint primary key, inserted boolean not null,
      restaurant_id text not null, platform_id text not null, external_id text not null
    ) on commit drop`;
  // New and differing orders only (an unchanged one is not even locked); ON CONFLICT still
  // settles an order another writer inserts meanwhile.
  await tx`
    with written as (
      insert into orders as o (restaurant_id, platform_id, external_id, placed_at, state, total)
      select s.restaurant_id, s.platform_id, s.external_id, s.placed_at, s.state, s.total
      from import_orders s
      where not exists (select 1 from import_ids i where i.n = s.n and not i.differs)
      order by s.restaurant_id, s.platform_id, s.external_id
      on conflict (restaurant_id, platform_id, external_id) do update
        set placed_at = excluded.placed_at, state = excluded.state, total = excluded.total
        where (o.placed_at, o.state, o.total)
              is distinct from (excluded.placed_at, excluded.state, excluded.total)
      returning o.id, xmax = 0 as inserted, o.restaurant_id, o.platform_id, o.external_id
    )
    insert into import_written select * from written`;
  await tx`
    insert into import_ids (n, id, differs, inserted)
    select s.n, w.id, false, true
    from import_written w
    join import_orders s
      on s.restaurant_id = w.restaurant_id and s.platform_id = w.platform_id
     and s.external_id = w.external_id
    where w.inserted`;
  await tx`analyze import_ids`;
  // The orders whose lines differ from the staged ones: the new orders with any line, and the
  // existing ones whose lines, compared line by line, differ.
  await tx`
    create temporary table import_relined on commit drop as
    select distinct i.id, true as inserted
    from import_ids i
    join import_lines s on s.n = i.n
    where i.inserted
    union all
    select distinct coalesce(s.id, l.order_id), false
    from (
      select i.id, s.line_no, s.dish_name, s.quantity, s.unit_price
      from import_lines s
      join import_ids i on i.n = s.n
      where not i.inserted
    ) s
    full join (
      select l.order_id, l.line_no, l.dish_name, l.quantity, l.unit_price
      from order_lines l
      join import_ids i on i.id = l.order_id
      where not i.inserted
    ) l on l.order_id = s.id and l.line_no = s.line_no
    where (s.dish_name, s.quantity, s.unit_price)
          is distinct from (l.dish_name, l.quantity, l.unit_price)`;
  await tx`
    delete from order_lines l
    using import_relined r
    where l.order_id = r.id and not r.inserted`;
  await tx`
    insert into order_lines (order_id, line_no, dish_name, quantity, unit_price)
    select i.id, s.line_no, s.dish_name, s.quantity, s.unit_price
    from import_lines s
    join import_ids i on i.n = s.n
    join import_relined r on r.id = i.id
    order by 1, 2`;
  // Statistics that know the rows just written, for the plans of the recompute below.
  const [written] = await tx<{ inserted: number }[]>`
    select count(*)::int as inserted from import_written where inserted`;
  if ((written?.inserted ?? 0) >= 10_000) {
    await tx`analyze orders`;
    await tx`analyze order_lines`;
  }
  // The days of the orders inserted and of those whose lines changed, recomputed from the
  // rows under the restaurants' lock; the orders updated were re-filed by their row trigger.
  await refreshRollups(
    tx,
    tx`select s.restaurant_id, s.platform_id,
              date_trunc('hour', s.placed_at at time zone 'UTC') at time zone 'UTC' as hour
       from import_ids i
       join import_orders s on s.n = i.n
       where i.inserted
       union
       select o.restaurant_id, o.platform_id,
              date_trunc('hour', o.placed_at at time zone 'UTC') at time zone 'UTC'
       from import_relined r
       join orders o on o.id = r.id
       where not r.inserted`,
  );
  const [row] = await tx<{ staged: number; inserted: number; updated: number }[]>`
    select (select count(*) from import_orders)::int as staged,
           (select count(*) from import_written where inserted)::int as inserted,
           (select count(*) from (
              select id from import_written where not inserted
              union
              select r.id from import_relined r
              where not exists (select 1 from import_written w where w.id = r.id and w.inserted)
            ) u)::int as updated`;
  const staged = row?.staged ?? 0;
  const inserted = row?.inserted ?? 0;
  const updated = row?.updated ?? 0;
  return { inserted, updated, unchanged: staged - inserted - updated };
};
