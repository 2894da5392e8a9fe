/**
 * Outbox queries (`OutboxStore`, DESIGN section 6), portable SQL over `Kysely<Database>`: the
 * transactional outbox of webhook messages and their delivery attempts.
 *
 * Claiming is ONE statement, the shape graphile-worker's `getJobs` uses:
 *   UPDATE outbox_messages SET claimed_by = $owner, claim_expires_at_ms = $now + $lease
 *   WHERE id IN (SELECT id FROM outbox_messages WHERE <claimable> ORDER BY next_attempt_at_ms
 *                LIMIT $n [FOR UPDATE SKIP LOCKED])
 *     AND <claimable>
 *   RETURNING *
 * A single statement is atomic on SQLite (one writer at a time; the write lock is taken before
 * anything is read, so there is no read-then-upgrade race with another process; SQLite therefore
 * leaves out the outer `<claimable>` and finds the rows by primary key), and the repeated
 * `<claimable>` check makes it safe on PostgreSQL, where `FOR UPDATE SKIP LOCKED`
 * (`supportsSkipLocked`) lets concurrent claimers pass over each other's rows instead of waiting.
 * RETURNING (SQLite 3.35+, PostgreSQL) answers exactly the rows this call claimed, even when the
 * same owner claims twice at the same instant.
 */
import type { ExpressionBuilder, Insertable, Kysely, Selectable } from 'kysely';
import type { DeliveryAttemptRecord, OutboxAttemptUpdate, OutboxMessage, OutboxStatus, OutboxStore } from '../ports.js';
import { fromDbInt, fromDbIntOrNull, type Database, type DeliveryAttemptsTable, type OutboxMessagesTable } from '../schema.js';
import { createQueryTemplates, insertInChunks, type QueryTemplates, type TemplateRow } from './templates.js';

/** Backend capabilities the outbox queries adapt to. */
export interface OutboxQueryOptions {
  /** True on PostgreSQL: the claim subquery takes `FOR UPDATE SKIP LOCKED`. SQLite has no row locks. */
  supportsSkipLocked: boolean;
  /** The store's compiled query templates (default: a cache of this module's own). */
  templates?: QueryTemplates;
}

/** An `outbox_messages` row as a message. */
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

function toMessageRow(message: OutboxMessage): Insertable<OutboxMessagesTable> {
  return {
    id: message.id,
    endpoint_id: message.endpointId,
    event_kind: message.eventKind,
    body: message.body,
    publisher_id: message.publisherId,
    status: message.status,
    attempts: message.attempts,
    next_attempt_at_ms: message.nextAttemptAtMs,
    created_at_ms: message.createdAtMs,
    claimed_by: message.claimedBy,
    claim_expires_at_ms: message.claimExpiresAtMs,
    delivered_at_ms: message.deliveredAtMs,
    last_error: message.lastError,
  };
}

function toAttempt(row: Selectable<DeliveryAttemptsTable>): DeliveryAttemptRecord {
  return {
    messageId: row.message_id,
    attempt: fromDbInt(row.attempt),
    startedAtMs: fromDbInt(row.started_at_ms),
    durationMs: fromDbInt(row.duration_ms),
    statusCode: fromDbIntOrNull(row.status_code),
    error: row.error,
    responseExcerpt: row.response_excerpt,
    nextAttemptAtMs: fromDbIntOrNull(row.next_attempt_at_ms),
  };
}

/**
 * Inserts `messages` through `db` (a transaction, when the caller writes them together with the
 * state change that caused them), `ON CONFLICT (id) DO NOTHING`: a message id already present is
 * left unchanged. Issues no statement for an empty list. Rejects on a constraint violation.
 * With `templates` (the bid path's writes), the INSERT is compiled once per row count.
 */
export async function insertOutboxMessages(db: Kysely<Database>, messages: readonly OutboxMessage[], templates?: QueryTemplates): Promise<void> {
  await insertInChunks(db, messages, toMessageRow, 'outbox.insert', insertMessagesQuery, templates);
}

/** The INSERT of `insertOutboxMessages` (a template builder: the rows' values are only bound). */
function insertMessagesQuery(db: Kysely<Database>, rows: readonly TemplateRow[]) {
  return db
    .insertInto('outbox_messages')
    .values(rows as Array<Insertable<OutboxMessagesTable>>)
    .onConflict((oc) => oc.column('id').doNothing());
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

/** Oldest due first; ties by creation, then id, so the order is total. */
function compareDue(a: OutboxMessage, b: OutboxMessage): number {
  return a.nextAttemptAtMs - b.nextAttemptAtMs || a.createdAtMs - b.createdAtMs || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
}

/** The INSERT of one delivery attempt, ignored when that attempt number is stored (a template builder). */
function insertAttemptQuery(db: Kysely<Database>, rows: readonly TemplateRow[]) {
  return db
    .insertInto('delivery_attempts')
    .values(rows[0] as Insertable<DeliveryAttemptsTable>)
    .onConflict((oc) => oc.columns(['message_id', 'attempt']).doNothing());
}

/** The UPDATE applying an attempt's outcome to its message and clearing the claim (a template builder). */
function applyAttemptQuery(db: Kysely<Database>, rows: readonly TemplateRow[]) {
  const row = rows[0] as OutboxAttemptRow;
  return db
    .updateTable('outbox_messages')
    .set({
      status: row.status,
      attempts: row.attempts,
      next_attempt_at_ms: row.next_attempt_at_ms,
      delivered_at_ms: row.delivered_at_ms,
      last_error: row.last_error,
      claimed_by: null,
      claim_expires_at_ms: null,
    })
    .where('id', '=', row.id);
}

/** The columns `applyAttemptQuery` sets, and the message id. */
interface OutboxAttemptRow extends TemplateRow {
  id: string;
  status: OutboxStatus;
  attempts: number;
  next_attempt_at_ms: number;
  delivered_at_ms: number | null;
  last_error: string | null;
}

/**
 * Inserts one attempt through `trx` (ignored when that attempt number is stored) and applies its
 * update to the message, clearing the claim (`OutboxStore.recordAttempt`; also used by
 * `writeAuction`). Rejects as the statements do.
 */
export async function writeAttempt(trx: Kysely<Database>, templates: QueryTemplates, attempt: DeliveryAttemptRecord, update: OutboxAttemptUpdate): Promise<void> {
  const attemptRow: Insertable<DeliveryAttemptsTable> = {
    message_id: attempt.messageId,
    attempt: attempt.attempt,
    started_at_ms: attempt.startedAtMs,
    duration_ms: attempt.durationMs,
    status_code: attempt.statusCode,
    error: attempt.error,
    response_excerpt: attempt.responseExcerpt,
    next_attempt_at_ms: attempt.nextAttemptAtMs,
  };
  await templates.run(trx, 'outbox.attempt.insert', insertAttemptQuery, [attemptRow]);
  const updateRow: OutboxAttemptRow = {
    id: attempt.messageId,
    status: update.status,
    attempts: update.attempts,
    next_attempt_at_ms: update.nextAttemptAtMs,
    delivered_at_ms: update.deliveredAtMs,
    last_error: update.lastError,
  };
  await templates.run(trx, 'outbox.attempt.apply', applyAttemptQuery, [updateRow]);
}

/**
 * `OutboxStore` over `db` (see the file comment for how `claimDue` stays atomic). `replay` and
 * `recover` keep `attempts` (so the next attempt gets a new number in `delivery_attempts`) and
 * leave a live claim alone (an attempt in flight finishes and records as usual); `replay` also
 * clears `deliveredAtMs`. `recordAttempt` ignores an attempt number already recorded for the
 * message (a second node taking over a lapsed lease) but still applies `update`.
 */
export function createOutboxQueries(db: Kysely<Database>, options: OutboxQueryOptions = { supportsSkipLocked: false }): OutboxStore {
  const { supportsSkipLocked } = options;
  const templates = options.templates ?? createQueryTemplates();

  return {
    async enqueue(messages: OutboxMessage[]): Promise<void> {
      if (messages.length === 0) return;
      await db.transaction().execute((trx) => insertOutboxMessages(trx, messages));
    },

    async claimDue({ owner, nowMs, limit, leaseMs, excludeEndpointIds = [] }): Promise<OutboxMessage[]> {
      if (limit <= 0) return [];
      const due = (qb: Kysely<Database>) =>
        qb
          .selectFrom('outbox_messages')
          .select('id')
          .where(claimable(nowMs))
          .$if(excludeEndpointIds.length > 0, (q) => q.where('endpoint_id', 'not in', excludeEndpointIds))
          .orderBy('next_attempt_at_ms')
          .orderBy('created_at_ms')
          .orderBy('id')
          .limit(limit);
      const rows = supportsSkipLocked
        ? // PostgreSQL, graphile-worker's shape: lock the due rows ONCE in a materialized CTE, then
          // update exactly those. (`WHERE id IN (SELECT ... LIMIT n FOR UPDATE SKIP LOCKED)` is
          // planned as a semi join that re-runs the locking subquery per candidate row; each re-run
          // skips the rows already updated and answers the next ones, so it over-claims.)
          // SKIP LOCKED passes over rows another node is locking; READ COMMITTED rechecks
          // `claimable` before locking, so a row another node claimed meanwhile is not taken twice.
          await db
            .with(
              (cte) => cte('due').materialized(),
              () => due(db).forUpdate().skipLocked(),
            )
            .updateTable('outbox_messages')
            .set({ claimed_by: owner, claim_expires_at_ms: nowMs + leaseMs })
            .where('id', 'in', (eb) => eb.selectFrom('due').select('due.id'))
            .returningAll()
            .execute()
        : // SQLite: one statement; the database is locked for writing while it runs, so the rows
          // the subquery picks are still claimable when they are updated and the outer statement
          // needs no second `claimable` check. Without one it looks the rows up by primary key;
          // with one, SQLite's planner walked the whole due backlog through the status index and
          // tested each row against the list (about 2 ms per claim with a few thousand pending).
          await db
            .updateTable('outbox_messages')
            .set({ claimed_by: owner, claim_expires_at_ms: nowMs + leaseMs })
            .where('id', 'in', () => due(db))
            .returningAll()
            .execute();
      // RETURNING promises no order.
      return rows.map(toMessage).sort(compareDue);
    },

    async recordAttempt(attempt: DeliveryAttemptRecord, update: OutboxAttemptUpdate): Promise<void> {
      await db.transaction().execute((trx) => writeAttempt(trx, templates, attempt, update));
    },

    async recordAttempts(items): Promise<void> {
      if (items.length === 0) return;
      await db.transaction().execute(async (trx) => {
        for (const { attempt, update } of items) await writeAttempt(trx, templates, attempt, update);
      });
    },

    async releaseClaims(owner?: string): Promise<number> {
      const result = await db
        .updateTable('outbox_messages')
        .set({ claimed_by: null, claim_expires_at_ms: null })
        .where('claimed_by', 'is not', null)
        .$if(owner !== undefined, (qb) => qb.where('claimed_by', '=', owner ?? ''))
        .executeTakeFirst();
      return Number(result.numUpdatedRows);
    },

    async releaseMessages(owner: string, messageIds: string[]): Promise<void> {
      if (messageIds.length === 0) return;
      await db
        .updateTable('outbox_messages')
        .set({ claimed_by: null, claim_expires_at_ms: null })
        .where('claimed_by', '=', owner)
        .where('id', 'in', messageIds)
        .execute();
    },

    async get(id: string): Promise<OutboxMessage | undefined> {
      const row = await db.selectFrom('outbox_messages').selectAll().where('id', '=', id).executeTakeFirst();
      return row ? toMessage(row) : undefined;
    },

    async listForEndpoint(endpointId: string, { status, limit }: { status?: OutboxStatus; limit: number }): Promise<OutboxMessage[]> {
      if (limit <= 0) return [];
      const rows = await db
        .selectFrom('outbox_messages')
        .selectAll()
        .where('endpoint_id', '=', endpointId)
        .$if(status !== undefined, (qb) => qb.where('status', '=', status ?? 'pending'))
        .orderBy('created_at_ms', 'desc')
        .orderBy('id', 'desc')
        .limit(limit)
        .execute();
      return rows.map(toMessage);
    },

    async attemptsFor(messageId: string): Promise<DeliveryAttemptRecord[]> {
      const rows = await db.selectFrom('delivery_attempts').selectAll().where('message_id', '=', messageId).orderBy('attempt').execute();
      return rows.map(toAttempt);
    },

    async replay(endpointId: string, messageId: string, nowMs: number): Promise<boolean> {
      const result = await db
        .updateTable('outbox_messages')
        .set({ status: 'pending', next_attempt_at_ms: nowMs, delivered_at_ms: null })
        .where('id', '=', messageId)
        .where('endpoint_id', '=', endpointId)
        .executeTakeFirst();
      return result.numUpdatedRows > 0n;
    },

    async recover(endpointId: string, sinceMs: number, nowMs: number): Promise<number> {
      const result = await db
        .updateTable('outbox_messages')
        .set({ status: 'pending', next_attempt_at_ms: nowMs })
        .where('endpoint_id', '=', endpointId)
        .where('status', '=', 'failed')
        .where('created_at_ms', '>=', sinceMs)
        .executeTakeFirst();
      return Number(result.numUpdatedRows);
    },

    async depth(): Promise<{ pending: number; oldestDueAtMs: number | null }> {
      const row = await db
        .selectFrom('outbox_messages')
        .select((eb) => [eb.fn.countAll<number>().as('pending'), eb.fn.min<number | null>('next_attempt_at_ms').as('oldest')])
        .where('status', '=', 'pending')
        .executeTakeFirstOrThrow();
      return { pending: fromDbInt(row.pending), oldestDueAtMs: fromDbIntOrNull(row.oldest) };
    },

    async statusCounts(): Promise<Array<{ endpointId: string; pending: number; delivered: number; failed: number }>> {
      const rows = await db
        .selectFrom('outbox_messages')
        .select((eb) => ['endpoint_id', 'status', eb.fn.countAll<number>().as('n')])
        .groupBy(['endpoint_id', 'status'])
        .orderBy('endpoint_id')
        .execute();
      const byEndpoint = new Map<string, { endpointId: string; pending: number; delivered: number; failed: number }>();
      for (const row of rows) {
        let counts = byEndpoint.get(row.endpoint_id);
        if (counts === undefined) byEndpoint.set(row.endpoint_id, (counts = { endpointId: row.endpoint_id, pending: 0, delivered: 0, failed: 0 }));
        if (row.status === 'pending' || row.status === 'delivered' || row.status === 'failed') counts[row.status] += fromDbInt(row.n);
      }
      return [...byEndpoint.values()];
    },
  };
}
