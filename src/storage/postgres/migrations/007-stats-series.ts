/**
 * PostgreSQL migration 007, the twin of `sqlite/migrations/007-stats-series.ts` (same names;
 * columns explained in `storage/schema.ts`): `partner_counters` (per demand partner per UTC
 * minute) and `latency_histograms` (fixed-bucket histograms per minute, one row per non-empty
 * bucket) behind `GET /v1/stats/series`, and an index on `counters.minute_start_ms` for range reads
 * and the hourly roll-up. `bigint` for counts and ms.
 * Never edit a migration once released; add the next number instead.
 */
import type { Kysely, Migration } from 'kysely';
import { runStatements } from './run-statements.js';

/** The statements of migration 007, in order. */
export const STATS_SERIES_STATEMENTS: readonly string[] = [
  `create table partner_counters (
    partner_id text collate "C" not null,
    minute_start_ms bigint not null,
    calls bigint not null,
    bids bigint not null,
    timeouts bigint not null,
    errors bigint not null,
    wins bigint not null,
    privacy_blocked bigint not null,
    constraint partner_counters_pkey primary key (partner_id, minute_start_ms)
  )`,
  `create index partner_counters_minute on partner_counters (minute_start_ms)`,
  `create table latency_histograms (
    kind text collate "C" not null,
    subject_id text collate "C" not null,
    minute_start_ms bigint not null,
    le_ms bigint not null,
    count bigint not null,
    constraint latency_histograms_pkey primary key (kind, subject_id, minute_start_ms, le_ms)
  )`,
  `create index latency_histograms_minute on latency_histograms (kind, minute_start_ms)`,
  `create index counters_minute on counters (minute_start_ms)`,
];

/** Creates partner_counters and latency_histograms, and indexes counters by minute. */
export const migration007StatsSeries: Migration = {
  // Untyped on purpose: a migration describes the schema at its point in history.
  async up(db: Kysely<any>): Promise<void> {
    await runStatements(db, STATS_SERIES_STATEMENTS);
  },
};
