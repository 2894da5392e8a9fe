/**
 * SQLite migration 006: the media types each demand partner takes (DESIGN sections 5 and 7).
 * `demand_partners.media_types` is JSON text (a list of `banner`, `video`, `audio`, `native`);
 * existing partners get all four, the default, so they are offered what they were before plus
 * the video, audio and native imps the exchange now auctions.
 *
 * The PostgreSQL twin is the same statement. Never edit a migration once released; add the next
 * number instead.
 */
import { sql, type Kysely, type Migration } from 'kysely';

/** The column default: every media type, as stored. */
export const ALL_MEDIA_TYPES_JSON = '["banner","video","audio","native"]';

/** Adds `demand_partners.media_types`. */
export const migration006MediaTypes: Migration = {
  // Untyped on purpose: a migration describes the schema at its point in history.
  async up(db: Kysely<any>): Promise<void> {
    await db.schema
      .alterTable('demand_partners')
      .addColumn('media_types', 'text', (c) => c.notNull().defaultTo(sql.lit(ALL_MEDIA_TYPES_JSON)))
      .execute();
  },
};
