/**
 * PostgreSQL migration 002: webhook endpoints, the outbox and delivery attempts (DESIGN section 6),
 * the twin of `sqlite/migrations/002-webhooks.ts` (same names; columns explained in
 * `storage/schema.ts`). `bigint` ms times, `smallint` 0/1 booleans, JSON `text` lists.
 *
 * No foreign keys between these tables or to `webhook_endpoints`: an auction's outbox rows are
 * written on the bid path and must not fail because an endpoint was deleted a moment before;
 * deleting an endpoint removes its messages and attempts explicitly (queries/webhook-endpoints.ts).
 * Claims are leases here (several nodes): `claimDue` takes due rows with `FOR UPDATE SKIP LOCKED`
 * through the (status, next_attempt_at_ms) index.
 * Never edit a migration once released; add the next number instead.
 */
import type { Kysely, Migration } from 'kysely';
import { runStatements } from './run-statements.js';

/** The statements of migration 002, in order. */
export const WEBHOOK_STATEMENTS: readonly string[] = [
  `create table webhook_endpoints (
    id text collate "C" primary key,
    url text not null,
    events text not null default '[]',
    api_key_ciphertext text not null,
    publisher_id text collate "C",
    enabled smallint not null default 1,
    description text,
    secret_ciphertext text not null,
    previous_secret_ciphertext text,
    previous_secret_expires_at_ms bigint,
    disabled_reason text,
    last_success_at_ms bigint,
    failing_since_ms bigint,
    created_at_ms bigint not null,
    updated_at_ms bigint not null
  )`,
  `create table outbox_messages (
    id text collate "C" primary key,
    endpoint_id text collate "C" not null,
    event_kind text not null,
    body text not null,
    publisher_id text collate "C",
    status text collate "C" not null default 'pending',
    attempts integer not null default 0,
    next_attempt_at_ms bigint not null,
    created_at_ms bigint not null,
    claimed_by text collate "C",
    claim_expires_at_ms bigint,
    delivered_at_ms bigint,
    last_error text
  )`,
  // Claiming: pending rows by due time (claimDue, depth).
  `create index outbox_messages_status_next_attempt on outbox_messages (status, next_attempt_at_ms)`,
  // An endpoint's messages newest first (admin listing, recover, delete).
  `create index outbox_messages_endpoint_created on outbox_messages (endpoint_id, created_at_ms)`,
  `create table delivery_attempts (
    message_id text collate "C" not null,
    attempt integer not null,
    started_at_ms bigint not null,
    duration_ms bigint not null,
    status_code integer,
    error text,
    response_excerpt text,
    next_attempt_at_ms bigint,
    constraint delivery_attempts_pkey primary key (message_id, attempt)
  )`,
];

/** Creates webhook_endpoints, outbox_messages (with the claim and per-endpoint indexes) and delivery_attempts. */
export const migration002Webhooks: Migration = {
  // Untyped on purpose: a migration describes the schema at its point in history.
  async up(db: Kysely<any>): Promise<void> {
    await runStatements(db, WEBHOOK_STATEMENTS);
  },
};
