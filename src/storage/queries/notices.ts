/**
 * Notice ledger queries (`NoticeStore`), portable SQL over `Kysely<Database>`. Idempotency comes
 * from the primary key (bid_id, kind): the first insert wins on any node, later ones do nothing.
 */
import type { Kysely, Selectable } from 'kysely';
import type { MilestoneRecord, NoticeRecord, NoticeRecordResult, NoticeStore, OutboxMessage, RevenueRecognition } from '../ports.js';
import { fromDbBool, fromDbInt, toDbBool, type Database, type NoticesTable } from '../schema.js';
import { insertOutboxMessages } from './outbox.js';
import { recognizeRevenue, revenueTotalMicros } from './revenue.js';

function toRecord(row: Selectable<NoticesTable>): NoticeRecord {
  return {
    bidId: row.bid_id,
    kind: row.kind,
    publisherId: row.publisher_id,
    partnerId: row.partner_id,
    auctionId: row.auction_id,
    netUsdMicros: fromDbInt(row.net_usd_micros),
    grossUsdMicros: fromDbInt(row.gross_usd_micros),
    priceFlagged: fromDbBool(row.price_flagged),
    source: row.source,
    receivedAtMs: fromDbInt(row.received_at_ms),
  };
}

/**
 * `NoticeStore` over `db`. `record` inserts with `ON CONFLICT DO NOTHING` and reads the row back
 * in the same transaction: `first` when this call's insert took effect, `repeat` otherwise, with
 * the stored (first) record either way. `messages` (the outbox rows of the events the notice
 * causes) are inserted in that same transaction only when the outcome is `first`, so a repeated
 * notice never enqueues its events twice and a crash never keeps a notice without its events.
 * `revenue` is recognized (cumulative total, milestones) in that transaction too (`revenue.ts`).
 */
export function createNoticeQueries(db: Kysely<Database>): NoticeStore {
  return {
    async record(notice: NoticeRecord, messages: OutboxMessage[] = [], revenue?: RevenueRecognition): Promise<NoticeRecordResult> {
      return db.transaction().execute(async (trx) => {
        const inserted = await trx
          .insertInto('notices')
          .values({
            bid_id: notice.bidId,
            kind: notice.kind,
            publisher_id: notice.publisherId,
            partner_id: notice.partnerId,
            auction_id: notice.auctionId,
            net_usd_micros: notice.netUsdMicros,
            gross_usd_micros: notice.grossUsdMicros,
            price_flagged: toDbBool(notice.priceFlagged),
            source: notice.source,
            received_at_ms: notice.receivedAtMs,
          })
          .onConflict((oc) => oc.columns(['bid_id', 'kind']).doNothing())
          .executeTakeFirst();
        const row = await trx
          .selectFrom('notices')
          .selectAll()
          .where('bid_id', '=', notice.bidId)
          .where('kind', '=', notice.kind)
          .executeTakeFirstOrThrow();
        const outcome = (inserted.numInsertedOrUpdatedRows ?? 0n) > 0n ? 'first' : 'repeat';
        let milestones: MilestoneRecord[] = [];
        if (outcome === 'first') {
          await insertOutboxMessages(trx, messages);
          if (revenue !== undefined) milestones = await recognizeRevenue(trx, notice.publisherId, revenue, notice.receivedAtMs);
        }
        return { outcome, stored: toRecord(row), milestones };
      });
    },

    revenueTotal(publisherId: string): Promise<number> {
      return revenueTotalMicros(db, publisherId);
    },
  };
}
