/**
 * SQLite migration 005: privacy and the supply chain (DESIGN sections 5, 7 and 11).
 * - `demand_partners.openrtb_version` ('2.5' or '2.6'; default '2.5'): where the fields OpenRTB
 *   2.6 moved out of `ext` go in the partner's requests.
 * - `demand_partners.gvl_vendor_id` (the partner's IAB TCF Global Vendor List id; null = none):
 *   under GDPR a partner without one is not called.
 * - `publishers.seller_type` ('PUBLISHER', 'INTERMEDIARY' or 'BOTH'; default 'PUBLISHER') and
 *   `publishers.is_confidential` (0 or 1; default 0): the publisher's sellers.json entry.
 * Existing rows get the defaults.
 *
 * The PostgreSQL twin is the same statements (`smallint` for the boolean).
 * Never edit a migration once released; add the next number instead.
 */
import type { Kysely, Migration } from 'kysely';

/** Adds the partner's OpenRTB version and GVL id, and the publisher's sellers.json fields. */
export const migration005Privacy: Migration = {
  // Untyped on purpose: a migration describes the schema at its point in history.
  async up(db: Kysely<any>): Promise<void> {
    await db.schema.alterTable('demand_partners').addColumn('openrtb_version', 'text', (c) => c.notNull().defaultTo('2.5')).execute();
    await db.schema.alterTable('demand_partners').addColumn('gvl_vendor_id', 'integer').execute();
    await db.schema.alterTable('publishers').addColumn('seller_type', 'text', (c) => c.notNull().defaultTo('PUBLISHER')).execute();
    await db.schema.alterTable('publishers').addColumn('is_confidential', 'integer', (c) => c.notNull().defaultTo(0)).execute();
  },
};
