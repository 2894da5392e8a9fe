/**
 * PostgreSQL migration 004, the twin of `sqlite/migrations/004-pricing.ts` (same names; columns
 * explained in `storage/schema.ts`): publisher `auction_type` and `reserve_price_micros` with
 * their defaults for existing publishers, and `publisher_revenue` (cumulative net revenue per
 * publisher, USD micros) backfilled from the per-minute counters.
 * Never edit a migration once released; add the next number instead.
 */
import type { Kysely, Migration } from 'kysely';
import { runStatements } from './run-statements.js';

/** The statements of migration 004, in order. */
export const PRICING_STATEMENTS: readonly string[] = [
  `alter table publishers add column auction_type integer not null default 1`,
  `alter table publishers add column reserve_price_micros bigint not null default 0`,
  `create table publisher_revenue (
    publisher_id text collate "C" primary key,
    revenue_net_micros bigint not null,
    updated_at_ms bigint not null
  )`,
  `insert into publisher_revenue (publisher_id, revenue_net_micros, updated_at_ms)
    select publisher_id, sum(revenue_net_micros), max(minute_start_ms) from counters group by publisher_id`,
];

/** Adds the pricing columns and the cumulative revenue table. */
export const migration004Pricing: Migration = {
  // Untyped on purpose: a migration describes the schema at its point in history.
  async up(db: Kysely<any>): Promise<void> {
    await runStatements(db, PRICING_STATEMENTS);
  },
};
