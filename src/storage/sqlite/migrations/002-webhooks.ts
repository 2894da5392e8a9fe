/**
 * SQLite migration 002: webhook endpoints, the outbox and delivery attempts (DESIGN section 6;
 * columns explained in `storage/schema.ts`). Portable types only, so the PostgreSQL migration is
 * the same statements: INTEGER ms times and counts, TEXT everything else, 0/1 booleans, JSON TEXT
 * lists.
 *
 * No foreign keys between these tables or to `webhook_endpoints`: an auction's outbox rows are
 * written on the bid path and must not fail because an endpoint was deleted a moment before;
 * deleting an endpoint removes its messages and attempts explicitly (queries/webhook-endpoints.ts).
 * Never edit a migration once released; add the next number instead.
 */
import type { Kysely, Migration } from 'kysely';

/** Creates webhook_endpoints, outbox_messages (with the claim and per-endpoint indexes) and delivery_attempts. */
export const migration002Webhooks: Migration = {
  // Untyped on purpose: a migration describes the schema at its point in history.
  async up(db: Kysely<any>): Promise<void> {
    await db.schema
      .createTable('webhook_endpoints')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('url', 'text', (c) => c.notNull())
      .addColumn('events', 'text', (c) => c.notNull().defaultTo('[]'))
      .addColumn('api_key_ciphertext', 'text', (c) => c.notNull())
      .addColumn('publisher_id', 'text')
      .addColumn('enabled', 'integer', (c) => c.notNull().defaultTo(1))
      .addColumn('description', 'text')
      .addColumn('secret_ciphertext', 'text', (c) => c.notNull())
      .addColumn('previous_secret_ciphertext', 'text')
      .addColumn('previous_secret_expires_at_ms', 'integer')
      .addColumn('disabled_reason', 'text')
      .addColumn('last_success_at_ms', 'integer')
      .addColumn('failing_since_ms', 'integer')
      .addColumn('created_at_ms', 'integer', (c) => c.notNull())
      .addColumn('updated_at_ms', 'integer', (c) => c.notNull())
      .execute();

    await db.schema
      .createTable('outbox_messages')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('endpoint_id', 'text', (c) => c.notNull())
      .addColumn('event_kind', 'text', (c) => c.notNull())
      .addColumn('body', 'text', (c) => c.notNull())
      .addColumn('publisher_id', 'text')
      .addColumn('status', 'text', (c) => c.notNull().defaultTo('pending'))
      .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('next_attempt_at_ms', 'integer', (c) => c.notNull())
      .addColumn('created_at_ms', 'integer', (c) => c.notNull())
      .addColumn('claimed_by', 'text')
      .addColumn('claim_expires_at_ms', 'integer')
      .addColumn('delivered_at_ms', 'integer')
      .addColumn('last_error', 'text')
      .execute();
    // Claiming: pending rows by due time (claimDue, depth).
    await db.schema
      .createIndex('outbox_messages_status_next_attempt')
      .on('outbox_messages')
      .columns(['status', 'next_attempt_at_ms'])
      .execute();
    // An endpoint's messages newest first (admin listing, recover, delete).
    await db.schema
      .createIndex('outbox_messages_endpoint_created')
      .on('outbox_messages')
      .columns(['endpoint_id', 'created_at_ms'])
      .execute();

    await db.schema
      .createTable('delivery_attempts')
      .addColumn('message_id', 'text', (c) => c.notNull())
      .addColumn('attempt', 'integer', (c) => c.notNull())
      .addColumn('started_at_ms', 'integer', (c) => c.notNull())
      .addColumn('duration_ms', 'integer', (c) => c.notNull())
      .addColumn('status_code', 'integer')
      .addColumn('error', 'text')
      .addColumn('response_excerpt', 'text')
      .addColumn('next_attempt_at_ms', 'integer')
      .addPrimaryKeyConstraint('delivery_attempts_pkey', ['message_id', 'attempt'])
      .execute();
  },
};
