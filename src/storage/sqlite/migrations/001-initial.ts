/**
 * SQLite migration 001: the initial tables (see `storage/schema.ts` for the columns' meaning).
 * Booleans are INTEGER 0/1, times INTEGER ms, money INTEGER micros, lists JSON TEXT.
 * Never edit a migration once released; add the next number instead.
 */
import type { Kysely, Migration } from 'kysely';

/** Creates publishers, publisher_keys, demand_partners, bids, notices, counters and settings. */
export const migration001Initial: Migration = {
  // Migrations receive an untyped Kysely: they describe the schema at that point in history,
  // not the current `Database` interface.
  async up(db: Kysely<any>): Promise<void> {
    await db.schema
      .createTable('publishers')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('domain', 'text')
      .addColumn('domains', 'text', (c) => c.notNull().defaultTo('[]'))
      .addColumn('browser_access', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('created_at_ms', 'integer', (c) => c.notNull())
      .addColumn('updated_at_ms', 'integer', (c) => c.notNull())
      .execute();

    await db.schema
      .createTable('publisher_keys')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('publisher_id', 'text', (c) => c.notNull().references('publishers.id').onDelete('cascade'))
      .addColumn('key_hash', 'text', (c) => c.notNull().unique())
      .addColumn('prefix', 'text', (c) => c.notNull())
      .addColumn('created_at_ms', 'integer', (c) => c.notNull())
      .addColumn('expires_at_ms', 'integer')
      .execute();
    await db.schema.createIndex('publisher_keys_publisher_id').on('publisher_keys').column('publisher_id').execute();

    await db.schema
      .createTable('demand_partners')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('endpoint', 'text', (c) => c.notNull())
      .addColumn('adapter', 'text', (c) => c.notNull().defaultTo('openrtb25'))
      .addColumn('timeout_ms', 'integer', (c) => c.notNull().defaultTo(1000))
      .addColumn('gzip', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('qps_limit', 'integer')
      .addColumn('currency', 'text', (c) => c.notNull().defaultTo('USD'))
      .addColumn('enabled', 'integer', (c) => c.notNull().defaultTo(1))
      .addColumn('created_at_ms', 'integer', (c) => c.notNull())
      .addColumn('updated_at_ms', 'integer', (c) => c.notNull())
      .execute();

    // No foreign keys from bids/notices/counters to publishers or partners: deleting a
    // publisher must not fail, nor erase the money it earned.
    await db.schema
      .createTable('bids')
      .addColumn('bid_id', 'text', (c) => c.primaryKey())
      .addColumn('auction_id', 'text', (c) => c.notNull())
      .addColumn('request_id', 'text', (c) => c.notNull())
      .addColumn('imp_id', 'text', (c) => c.notNull())
      .addColumn('publisher_id', 'text', (c) => c.notNull())
      .addColumn('partner_id', 'text', (c) => c.notNull())
      .addColumn('partner_request_id', 'text', (c) => c.notNull())
      .addColumn('partner_bid_id', 'text', (c) => c.notNull())
      .addColumn('seat', 'text', (c) => c.notNull())
      .addColumn('ad_id', 'text')
      .addColumn('partner_currency', 'text', (c) => c.notNull())
      .addColumn('clearing_partner_micros', 'integer', (c) => c.notNull())
      .addColumn('mbr', 'real', (c) => c.notNull())
      .addColumn('partner_nurl', 'text')
      .addColumn('partner_burl', 'text')
      .addColumn('created_at_ms', 'integer', (c) => c.notNull())
      .execute();
    // For pruning old bids by age.
    await db.schema.createIndex('bids_created_at_ms').on('bids').column('created_at_ms').execute();

    await db.schema
      .createTable('notices')
      .addColumn('bid_id', 'text', (c) => c.notNull())
      .addColumn('kind', 'text', (c) => c.notNull())
      .addColumn('publisher_id', 'text', (c) => c.notNull())
      .addColumn('partner_id', 'text', (c) => c.notNull())
      .addColumn('auction_id', 'text', (c) => c.notNull())
      .addColumn('net_usd_micros', 'integer', (c) => c.notNull())
      .addColumn('gross_usd_micros', 'integer', (c) => c.notNull())
      .addColumn('price_flagged', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('source', 'text', (c) => c.notNull())
      .addColumn('received_at_ms', 'integer', (c) => c.notNull())
      .addPrimaryKeyConstraint('notices_pkey', ['bid_id', 'kind'])
      .execute();

    await db.schema
      .createTable('counters')
      .addColumn('publisher_id', 'text', (c) => c.notNull())
      .addColumn('minute_start_ms', 'integer', (c) => c.notNull())
      .addColumn('requests', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('imps', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('imps_filled', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('bids', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('wins', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('impressions', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('revenue_gross_micros', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('revenue_net_micros', 'integer', (c) => c.notNull().defaultTo(0))
      .addPrimaryKeyConstraint('counters_pkey', ['publisher_id', 'minute_start_ms'])
      .execute();
    // Range totals over every publisher (daily reports, alert windows).
    await db.schema.createIndex('counters_minute_start_ms').on('counters').column('minute_start_ms').execute();

    await db.schema
      .createTable('settings')
      .addColumn('key', 'text', (c) => c.primaryKey())
      .addColumn('value', 'text', (c) => c.notNull())
      .execute();
  },
};
