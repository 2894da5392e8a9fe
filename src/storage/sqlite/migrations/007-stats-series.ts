/**
 * SQLite migration 007: the stored series behind `GET /v1/stats/series` (DESIGN section 7; columns
 * explained in `storage/schema.ts`):
 * - `partner_counters`: calls, bids, timeouts, errors, wins and privacy blocks per demand partner
 *   per UTC minute, added to by every node's counter flush (upsert-add, so nodes sum).
 * - `latency_histograms`: fixed-bucket latency histograms per minute, one row per non-empty
 *   bucket, for the exchange (per publisher) and for each demand partner.
 * Both are rolled up to hour rows past the minute retention (`reporting/series-rollup.ts`), and so
 * are the publisher `counters`; the index on `minute_start_ms` serves the range reads and the
 * roll-up without a subject.
 *
 * The PostgreSQL twin is the same statements with `bigint` for counts and ms.
 * Never edit a migration once released; add the next number instead.
 */
import type { Kysely, Migration } from 'kysely';

/** Creates partner_counters and latency_histograms, and indexes counters by minute. */
export const migration007StatsSeries: Migration = {
  // Untyped on purpose: a migration describes the schema at its point in history.
  async up(db: Kysely<any>): Promise<void> {
    await db.schema
      .createTable('partner_counters')
      .addColumn('partner_id', 'text', (c) => c.notNull())
      .addColumn('minute_start_ms', 'integer', (c) => c.notNull())
      .addColumn('calls', 'integer', (c) => c.notNull())
      .addColumn('bids', 'integer', (c) => c.notNull())
      .addColumn('timeouts', 'integer', (c) => c.notNull())
      .addColumn('errors', 'integer', (c) => c.notNull())
      .addColumn('wins', 'integer', (c) => c.notNull())
      .addColumn('privacy_blocked', 'integer', (c) => c.notNull())
      .addPrimaryKeyConstraint('partner_counters_pkey', ['partner_id', 'minute_start_ms'])
      .execute();
    await db.schema.createIndex('partner_counters_minute').on('partner_counters').column('minute_start_ms').execute();

    await db.schema
      .createTable('latency_histograms')
      .addColumn('kind', 'text', (c) => c.notNull())
      .addColumn('subject_id', 'text', (c) => c.notNull())
      .addColumn('minute_start_ms', 'integer', (c) => c.notNull())
      .addColumn('le_ms', 'integer', (c) => c.notNull())
      .addColumn('count', 'integer', (c) => c.notNull())
      .addPrimaryKeyConstraint('latency_histograms_pkey', ['kind', 'subject_id', 'minute_start_ms', 'le_ms'])
      .execute();
    await db.schema.createIndex('latency_histograms_minute').on('latency_histograms').columns(['kind', 'minute_start_ms']).execute();

    await db.schema.createIndex('counters_minute').on('counters').column('minute_start_ms').execute();
  },
};
