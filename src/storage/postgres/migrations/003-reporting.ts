/**
 * PostgreSQL migration 003: reporting state (DESIGN sections 6-7), the twin of
 * `sqlite/migrations/003-reporting.ts` (same names; columns explained in `storage/schema.ts`):
 * alert rules, alert states, revenue milestones reached and daily reports delivered.
 * `double precision` for `alert_rules.threshold` (USD micros or a fill-rate decimal), `bigint` for
 * ms and micros. No foreign keys: deleting a publisher keeps its milestones and deliveries, and
 * deleting a rule removes its state explicitly (queries/reporting.ts).
 * Never edit a migration once released; add the next number instead.
 */
import type { Kysely, Migration } from 'kysely';
import { runStatements } from './run-statements.js';

/** The statements of migration 003, in order. */
export const REPORTING_STATEMENTS: readonly string[] = [
  `create table alert_rules (
    id text collate "C" primary key,
    metric text not null,
    comparator text not null,
    threshold double precision not null,
    window_minutes integer not null,
    publisher_id text collate "C",
    created_at_ms bigint not null
  )`,
  `create table alert_states (
    rule_id text collate "C" primary key,
    state text not null,
    alert_id text,
    changed_at_ms bigint not null
  )`,
  `create table revenue_milestones (
    publisher_id text collate "C" not null,
    milestone_micros bigint not null,
    reached_at_ms bigint not null,
    constraint revenue_milestones_pkey primary key (publisher_id, milestone_micros)
  )`,
  `create table report_deliveries (
    date text collate "C" not null,
    publisher_id text collate "C" not null,
    delivered_at_ms bigint not null,
    constraint report_deliveries_pkey primary key (date, publisher_id)
  )`,
];

/** Creates alert_rules, alert_states, revenue_milestones and report_deliveries. */
export const migration003Reporting: Migration = {
  // Untyped on purpose: a migration describes the schema at its point in history.
  async up(db: Kysely<any>): Promise<void> {
    await runStatements(db, REPORTING_STATEMENTS);
  },
};
