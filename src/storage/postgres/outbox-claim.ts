/**
 * The PostgreSQL outbox claim (`OutboxStore.claimDue`, DESIGN section 6), graphile-worker's shape
 * (`getJobs.ts`): lock the due rows in a CTE, then update exactly those.
 *
 *   WITH due AS MATERIALIZED (
 *     SELECT id FROM outbox_messages WHERE <claimable> [AND endpoint_id NOT IN (...)]
 *     ORDER BY next_attempt_at_ms, created_at_ms, id LIMIT $n FOR UPDATE SKIP LOCKED)
 *   UPDATE outbox_messages SET claimed_by = $owner, claim_expires_at_ms = $now + $lease
 *   WHERE id IN (SELECT id FROM due) RETURNING *
 *
 * Why not the shared `WHERE id IN (SELECT ... LIMIT n FOR UPDATE SKIP LOCKED)` of
 * `queries/outbox.ts`: PostgreSQL plans that as a nested-loop semi join that re-runs the locking
 * subquery for every candidate row, and each re-run skips the rows this statement already updated
 * and answers the next ones, so one call claims more than `limit` rows (every due row, in
 * practice). A materialized CTE runs once. `FOR UPDATE SKIP LOCKED` lets claimers on every node
 * pass over rows another claimer is locking instead of waiting; the lock is taken after the row
 * is rechecked against `<claimable>` (READ COMMITTED re-evaluation), so a row claimed and
 * committed by another node meanwhile is not taken twice; an expired lease is claimable again.
 */
import type { ExpressionBuilder, Kysely, Selectable } from 'kysely';
import type { OutboxMessage, OutboxStore } from '../ports.js';
import { fromDbInt, fromDbIntOrNull, type Database, type OutboxMessagesTable } from '../schema.js';

/** An `outbox_messages` row as a message (as `queries/outbox.ts` reads it). */
function toMessage(row: Selectable<OutboxMessagesTable>): OutboxMessage {
  return {
    id: row.id,
    endpointId: row.endpoint_id,
    eventKind: row.event_kind,
    body: row.body,
    publisherId: row.publisher_id,
    status: row.status,
    attempts: fromDbInt(row.attempts),
    nextAttemptAtMs: fromDbInt(row.next_attempt_at_ms),
    createdAtMs: fromDbInt(row.created_at_ms),
    claimedBy: row.claimed_by,
    claimExpiresAtMs: fromDbIntOrNull(row.claim_expires_at_ms),
    deliveredAtMs: fromDbIntOrNull(row.delivered_at_ms),
    lastError: row.last_error,
  };
}

/** Oldest due first; ties by creation, then id (RETURNING promises no order). */
function compareDue(a: OutboxMessage, b: OutboxMessage): number {
  return a.nextAttemptAtMs - b.nextAttemptAtMs || a.createdAtMs - b.createdAtMs || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
}

/** Pending, due at `nowMs`, and unclaimed or with a lapsed claim (a claim lapses at its expiry instant). */
function claimable(nowMs: number) {
  return (eb: ExpressionBuilder<Database, 'outbox_messages'>) =>
    eb.and([
      eb('status', '=', 'pending'),
      eb('next_attempt_at_ms', '<=', nowMs),
      eb.or([eb('claimed_by', 'is', null), eb('claim_expires_at_ms', '<=', nowMs)]),
    ]);
}

/**
 * `claimDue` for PostgreSQL over `db` (contract in `storage/ports.ts`): at most `limit` messages,
 * oldest due first, never one that another live claim holds, atomic across nodes.
 */
export function createPgClaimDue(db: Kysely<Database>): OutboxStore['claimDue'] {
  return async ({ owner, nowMs, limit, leaseMs, excludeEndpointIds = [] }) => {
    if (limit <= 0) return [];
    const rows = await db
      .with(
        (cte) => cte('due').materialized(),
        (qb) =>
          qb
            .selectFrom('outbox_messages')
            .select('id')
            .where(claimable(nowMs))
            .$if(excludeEndpointIds.length > 0, (q) => q.where('endpoint_id', 'not in', excludeEndpointIds))
            .orderBy('next_attempt_at_ms')
            .orderBy('created_at_ms')
            .orderBy('id')
            .limit(limit)
            .forUpdate()
            .skipLocked(),
      )
      .updateTable('outbox_messages')
      .set({ claimed_by: owner, claim_expires_at_ms: nowMs + leaseMs })
      .where('id', 'in', (eb) => eb.selectFrom('due').select('due.id'))
      .returningAll()
      .execute();
    return rows.map(toMessage).sort(compareDue);
  };
}
