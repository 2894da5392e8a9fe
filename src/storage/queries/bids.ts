/**
 * Bid record queries (`BidStore`), portable SQL over `Kysely<Database>`. Written on the bid path
 * through the group committer, so `insertMany` takes a whole batch in one transaction.
 */
import type { Insertable, Kysely, Selectable } from 'kysely';
import type { BidRecord, BidStore } from '../ports.js';
import { fromDbInt, type BidsTable, type Database } from '../schema.js';
import { insertInChunks, type QueryTemplates, type TemplateRow } from './templates.js';

function toRow(record: BidRecord): Insertable<BidsTable> {
  return {
    bid_id: record.bidId,
    auction_id: record.auctionId,
    request_id: record.requestId,
    imp_id: record.impId,
    publisher_id: record.publisherId,
    partner_id: record.partnerId,
    partner_request_id: record.partnerRequestId,
    partner_bid_id: record.partnerBidId,
    seat: record.seat,
    ad_id: record.adId,
    partner_currency: record.partnerCurrency,
    clearing_partner_micros: record.clearingPartnerMicros,
    mbr: record.mbr,
    partner_nurl: record.partnerNurl,
    partner_burl: record.partnerBurl,
    created_at_ms: record.createdAtMs,
  };
}

function toRecord(row: Selectable<BidsTable>): BidRecord {
  return {
    bidId: row.bid_id,
    auctionId: row.auction_id,
    requestId: row.request_id,
    impId: row.imp_id,
    publisherId: row.publisher_id,
    partnerId: row.partner_id,
    partnerRequestId: row.partner_request_id,
    partnerBidId: row.partner_bid_id,
    seat: row.seat,
    adId: row.ad_id,
    partnerCurrency: row.partner_currency,
    clearingPartnerMicros: fromDbInt(row.clearing_partner_micros),
    mbr: Number(row.mbr),
    partnerNurl: row.partner_nurl,
    partnerBurl: row.partner_burl,
    createdAtMs: fromDbInt(row.created_at_ms),
  };
}

/**
 * Inserts `records` through `db` (a transaction, when the caller writes them together with other
 * rows, e.g. `writeAuction`), `ON CONFLICT (bid_id) DO NOTHING`: a bid id already present is left
 * unchanged. Issues no statement for an empty list. With `templates` (the bid path's group
 * commit), the INSERT is compiled once per row count (`templates.ts`).
 */
export async function insertBidRecords(db: Kysely<Database>, records: readonly BidRecord[], templates?: QueryTemplates): Promise<void> {
  await insertInChunks(db, records, toRow, 'bids.insert', insertBidsQuery, templates);
}

/** The INSERT of `insertBidRecords` (a template builder: the rows' values are only bound). */
function insertBidsQuery(db: Kysely<Database>, rows: readonly TemplateRow[]) {
  return db
    .insertInto('bids')
    .values(rows as Array<Insertable<BidsTable>>)
    .onConflict((oc) => oc.column('bid_id').doNothing());
}

/** `BidStore` over `db`: `insertMany` is idempotent per bid id (`ON CONFLICT DO NOTHING`). */
export function createBidQueries(db: Kysely<Database>): BidStore {
  return {
    async insertMany(records: BidRecord[]): Promise<void> {
      if (records.length === 0) return;
      await db.transaction().execute((trx) => insertBidRecords(trx, records));
    },

    async get(bidId: string): Promise<BidRecord | undefined> {
      const row = await db.selectFrom('bids').selectAll().where('bid_id', '=', bidId).executeTakeFirst();
      return row ? toRecord(row) : undefined;
    },
  };
}
