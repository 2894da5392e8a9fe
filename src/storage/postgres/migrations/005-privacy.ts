/**
 * PostgreSQL migration 005, the twin of `sqlite/migrations/005-privacy.ts` (same names; columns
 * explained in `storage/schema.ts`): demand partner `openrtb_version` (default '2.5') and
 * `gvl_vendor_id` (null = none), publisher `seller_type` (default 'PUBLISHER') and
 * `is_confidential` (default 0). Existing rows get the defaults.
 * Never edit a migration once released; add the next number instead.
 */
import type { Kysely, Migration } from 'kysely';
import { runStatements } from './run-statements.js';

/** The statements of migration 005, in order. */
export const PRIVACY_STATEMENTS: readonly string[] = [
  `alter table demand_partners add column openrtb_version text not null default '2.5'`,
  `alter table demand_partners add column gvl_vendor_id integer`,
  `alter table publishers add column seller_type text not null default 'PUBLISHER'`,
  `alter table publishers add column is_confidential smallint not null default 0`,
];

/** Adds the partner's OpenRTB version and GVL id, and the publisher's sellers.json fields. */
export const migration005Privacy: Migration = {
  // Untyped on purpose: a migration describes the schema at its point in history.
  async up(db: Kysely<any>): Promise<void> {
    await runStatements(db, PRIVACY_STATEMENTS);
  },
};
