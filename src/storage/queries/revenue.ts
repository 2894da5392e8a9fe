/**
 * Cumulative net revenue per publisher and the revenue milestones it passes (DESIGN section 6,
 * `revenue.milestone`), written inside the transaction of the billing notice (or impression
 * pixel) that recognizes the revenue. Portable SQL over a kysely transaction, so SQLite and
 * PostgreSQL share it.
 *
 * Exactly once, on any node: the upsert-add on `publisher_revenue` takes the publisher's row lock
 * (PostgreSQL) or the database write lock (SQLite) until the notice commits, so concurrent notices
 * see distinct running totals; a milestone row is inserted only if absent (primary key
 * (publisher_id, milestone_micros)), and its outbox rows are written only when this insert took
 * effect.
 */
import type { Kysely, Transaction } from 'kysely';
import type { Micros } from '../../domain/money.js';
import type { MilestoneRecord, RevenueRecognition } from '../ports.js';
import { fromDbInt, type Database } from '../schema.js';
import { insertOutboxMessages } from './outbox.js';

/**
 * Adds `recognition.netMicros` to the publisher's cumulative net revenue and records every
 * configured milestone at or below the new total that the publisher has not reached yet, with
 * its outbox rows (`recognition.messagesFor`). Answers the milestones this call recorded,
 * ascending. Must run inside the notice's transaction `trx`.
 */
export async function recognizeRevenue(
  trx: Transaction<Database>,
  publisherId: string,
  recognition: RevenueRecognition,
  nowMs: number,
): Promise<MilestoneRecord[]> {
  const row = await trx
    .insertInto('publisher_revenue')
    .values({ publisher_id: publisherId, revenue_net_micros: recognition.netMicros, updated_at_ms: nowMs })
    .onConflict((oc) =>
      oc.column('publisher_id').doUpdateSet((eb) => ({
        revenue_net_micros: eb('publisher_revenue.revenue_net_micros', '+', eb.ref('excluded.revenue_net_micros')),
        updated_at_ms: eb.ref('excluded.updated_at_ms'),
      })),
    )
    .returning('revenue_net_micros')
    .executeTakeFirstOrThrow();
  const totalMicros: Micros = fromDbInt(row.revenue_net_micros);
  const due = recognition.milestonesMicros.filter((m) => m <= totalMicros);
  if (due.length === 0) return [];

  const known = await trx.selectFrom('revenue_milestones').select('milestone_micros').where('publisher_id', '=', publisherId).execute();
  const reached = new Set(known.map((k) => fromDbInt(k.milestone_micros)));
  const recorded: MilestoneRecord[] = [];
  for (const milestoneMicros of [...due].sort((a, b) => a - b)) {
    if (reached.has(milestoneMicros)) continue;
    const milestone: MilestoneRecord = { publisherId, milestoneMicros, reachedAtMs: nowMs };
    const inserted = await trx
      .insertInto('revenue_milestones')
      .values({ publisher_id: publisherId, milestone_micros: milestoneMicros, reached_at_ms: nowMs })
      .onConflict((oc) => oc.columns(['publisher_id', 'milestone_micros']).doNothing())
      .executeTakeFirst();
    if ((inserted.numInsertedOrUpdatedRows ?? 0n) === 0n) continue;
    await insertOutboxMessages(trx, recognition.messagesFor(milestone, totalMicros));
    recorded.push(milestone);
  }
  return recorded;
}

/** Cumulative net revenue of `publisherId`, USD micros (0 when it has none). */
export async function revenueTotalMicros(db: Kysely<Database>, publisherId: string): Promise<Micros> {
  const row = await db.selectFrom('publisher_revenue').select('revenue_net_micros').where('publisher_id', '=', publisherId).executeTakeFirst();
  return row ? fromDbInt(row.revenue_net_micros) : 0;
}
