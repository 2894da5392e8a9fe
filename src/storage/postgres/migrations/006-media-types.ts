/**
 * PostgreSQL migration 006, the twin of `sqlite/migrations/006-media-types.ts`:
 * `demand_partners.media_types`, JSON text listing the media types the partner takes (DESIGN
 * sections 5 and 7); existing partners get all four, the default.
 * Never edit a migration once released; add the next number instead.
 */
import type { Kysely, Migration } from 'kysely';
import { runStatements } from './run-statements.js';

/** The statements of migration 006, in order. */
export const MEDIA_TYPES_STATEMENTS: readonly string[] = [
  `alter table demand_partners add column media_types text not null default '["banner","video","audio","native"]'`,
];

/** Adds `demand_partners.media_types`. */
export const migration006MediaTypes: Migration = {
  // Untyped on purpose: a migration describes the schema at its point in history.
  async up(db: Kysely<any>): Promise<void> {
    await runStatements(db, MEDIA_TYPES_STATEMENTS);
  },
};
