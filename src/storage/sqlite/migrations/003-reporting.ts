/**
 * SQLite migration 003: reporting state (DESIGN sections 6-7; columns explained in
 * `storage/schema.ts`): alert rules, alert states, revenue milestones reached and daily reports
 * delivered. The scheduler's mark (last closed day processed) lives in `settings`.
 *
 * Portable types, so the PostgreSQL migration is the same statements with `double precision` for
 * `alert_rules.threshold` and `bigint` for ms and micros. No foreign keys: deleting a publisher
 * keeps its milestones and deliveries (the money it earned), and deleting a rule removes its state
 * explicitly (queries/reporting.ts).
 * Never edit a migration once released; add the next number instead.
 */
import type { Kysely, Migration } from 'kysely';

/** Creates alert_rules, alert_states, revenue_milestones and report_deliveries. */
export const migration003Reporting: Migration = {
  // Untyped on purpose: a migration describes the schema at its point in history.
  async up(db: Kysely<any>): Promise<void> {
    await db.schema
      .createTable('alert_rules')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('metric', 'text', (c) => c.notNull())
      .addColumn('comparator', 'text', (c) => c.notNull())
      .addColumn('threshold', 'real', (c) => c.notNull())
      .addColumn('window_minutes', 'integer', (c) => c.notNull())
      .addColumn('publisher_id', 'text')
      .addColumn('created_at_ms', 'integer', (c) => c.notNull())
      .execute();

    await db.schema
      .createTable('alert_states')
      .addColumn('rule_id', 'text', (c) => c.primaryKey())
      .addColumn('state', 'text', (c) => c.notNull())
      .addColumn('alert_id', 'text')
      .addColumn('changed_at_ms', 'integer', (c) => c.notNull())
      .execute();

    await db.schema
      .createTable('revenue_milestones')
      .addColumn('publisher_id', 'text', (c) => c.notNull())
      .addColumn('milestone_micros', 'integer', (c) => c.notNull())
      .addColumn('reached_at_ms', 'integer', (c) => c.notNull())
      .addPrimaryKeyConstraint('revenue_milestones_pkey', ['publisher_id', 'milestone_micros'])
      .execute();

    await db.schema
      .createTable('report_deliveries')
      .addColumn('date', 'text', (c) => c.notNull())
      .addColumn('publisher_id', 'text', (c) => c.notNull())
      .addColumn('delivered_at_ms', 'integer', (c) => c.notNull())
      .addPrimaryKeyConstraint('report_deliveries_pkey', ['date', 'publisher_id'])
      .execute();
  },
};
