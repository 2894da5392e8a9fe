/**
 * SQLite migration 004: publisher pricing and cumulative revenue (DESIGN sections 4, 6 and 7).
 * - `publishers.auction_type` (1 first price, 2 second price plus; default 1) and
 *   `publishers.reserve_price_micros` (CPM in USD micros; default 0): existing publishers get
 *   the defaults.
 * - `publisher_revenue`: each publisher's cumulative net revenue (USD micros, amount), updated in
 *   the transaction of the billing notice that recognizes it, so `revenue.milestone` is written
 *   in that same transaction. Backfilled from the per-minute counters (at migration time every
 *   count is flushed: the exchange is not running yet).
 *
 * The PostgreSQL twin is the same statements with `bigint` for micros and ms.
 * Never edit a migration once released; add the next number instead.
 */
import { sql, type Kysely, type Migration } from 'kysely';

/** Adds the pricing columns and the cumulative revenue table. */
export const migration004Pricing: Migration = {
  // Untyped on purpose: a migration describes the schema at its point in history.
  async up(db: Kysely<any>): Promise<void> {
    await db.schema.alterTable('publishers').addColumn('auction_type', 'integer', (c) => c.notNull().defaultTo(1)).execute();
    await db.schema.alterTable('publishers').addColumn('reserve_price_micros', 'integer', (c) => c.notNull().defaultTo(0)).execute();
    await db.schema
      .createTable('publisher_revenue')
      .addColumn('publisher_id', 'text', (c) => c.primaryKey())
      .addColumn('revenue_net_micros', 'integer', (c) => c.notNull())
      .addColumn('updated_at_ms', 'integer', (c) => c.notNull())
      .execute();
    await sql`insert into publisher_revenue (publisher_id, revenue_net_micros, updated_at_ms)
      select publisher_id, sum(revenue_net_micros), max(minute_start_ms) from counters group by publisher_id`.execute(db);
  },
};
