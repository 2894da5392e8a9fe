/**
 * The auction's commit (`Store.writeAuction`, DESIGN section 6): the bid records an auction
 * returned and the outbox messages of the events it caused, in ONE transaction, so an event is
 * never stored without its state change nor the other way round. Portable SQL over
 * `Kysely<Database>`; the bid path calls it through the group committer with many auctions' rows
 * at once.
 */
import type { Kysely } from 'kysely';
import type { Store } from '../ports.js';
import type { Database } from '../schema.js';
import { insertBidRecords } from './bids.js';
import { insertOutboxMessages, writeAttempt } from './outbox.js';
import { createQueryTemplates, type QueryTemplates } from './templates.js';

/**
 * `writeAuction` over `db`: inserts `bids` (as `BidStore.insertMany`) and `messages` (as
 * `OutboxStore.enqueue`), then records `attempts` (as `OutboxStore.recordAttempts`), all in one
 * transaction; inserts are `ON CONFLICT DO NOTHING` so a retried batch is idempotent per bid id
 * and message id, each INSERT compiled once per row count (`templates`, default a cache of its
 * own). An empty batch opens no transaction and an empty list issues no INSERT. Rejects,
 * writing nothing, when any row violates a constraint.
 */
export function createAuctionWriter(db: Kysely<Database>, templates: QueryTemplates = createQueryTemplates()): Store['writeAuction'] {
  return async ({ bids, messages, attempts = [] }: Parameters<Store['writeAuction']>[0]): Promise<void> => {
    if (bids.length === 0 && messages.length === 0 && attempts.length === 0) return;
    await db.transaction().execute(async (trx) => {
      await insertBidRecords(trx, bids, templates);
      await insertOutboxMessages(trx, messages, templates);
      for (const { attempt, update } of attempts) await writeAttempt(trx, templates, attempt, update);
    });
  };
}
