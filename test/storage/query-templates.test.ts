/**
 * Query templates (`templates.ts`): a statement run from a template is the statement kysely
 * builds for the same values, SQL text and bound parameters, on both dialects (kysely's
 * DummyDriver and its query log, no database); a template reused for other values binds those;
 * a builder that writes a value into the SQL text is refused. A real SQLite round trip of the
 * templated writes (bid path, delivery attempts) runs in `sqlite-store.test.ts` and, against
 * PostgreSQL, in the contract suite.
 */
import { describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { captureSql } from '../helpers/capture-sql.js';
import type { BidRecord, OutboxMessage } from '../../src/storage/ports.js';
import { insertBidRecords } from '../../src/storage/queries/bids.js';
import { createOutboxQueries, insertOutboxMessages } from '../../src/storage/queries/outbox.js';
import { createQueryTemplates } from '../../src/storage/queries/templates.js';

const capture = captureSql;

function bid(n: number, overrides: Partial<BidRecord> = {}): BidRecord {
  return {
    bidId: `bid_${n}`,
    auctionId: `auc_${n}`,
    requestId: `req-${n}`,
    impId: '1',
    publisherId: 'pub_1',
    partnerId: 'dp_1',
    partnerRequestId: `preq_${n}`,
    partnerBidId: `pb-${n}`,
    seat: n % 2 === 0 ? 'seat-a' : 'seat-b',
    adId: n % 2 === 0 ? null : `ad-${n}`,
    partnerCurrency: 'USD',
    clearingPartnerMicros: 1_250_000 + n,
    mbr: 0.95,
    partnerNurl: n % 2 === 0 ? `https://dsp.example/win?p=\${AUCTION_PRICE}&n=${n}` : null,
    partnerBurl: null,
    createdAtMs: 1_760_000_000_000 + n,
    ...overrides,
  };
}

function message(n: number): OutboxMessage {
  return {
    id: `msg_${n}`,
    endpointId: 'we_1',
    eventKind: 'auction.complete',
    body: JSON.stringify({ n }),
    publisherId: n % 2 === 0 ? 'pub_1' : null,
    status: 'pending',
    attempts: 0,
    nextAttemptAtMs: 1_760_000_000_000 + n,
    createdAtMs: 1_760_000_000_000,
    claimedBy: n % 3 === 0 ? 'node_a' : null,
    claimExpiresAtMs: n % 3 === 0 ? 1_760_000_030_000 : null,
    deliveredAtMs: null,
    lastError: null,
  };
}

describe.each(['sqlite', 'postgres'] as const)('query templates on %s', (kind) => {
  it('bid and outbox INSERTs run from templates are the statements kysely builds, for each row count and new values', async () => {
    const { db, statements } = capture(kind);
    const templates = createQueryTemplates();
    for (const rows of [[1], [2, 3, 4], [5], [6, 7, 8]]) {
      const bids = rows.map((n) => bid(n));
      const messages = rows.map((n) => message(n));
      statements.length = 0;
      await insertBidRecords(db, bids);
      await insertBidRecords(db, bids, templates);
      await insertOutboxMessages(db, messages);
      await insertOutboxMessages(db, messages, templates);
      expect(statements).toHaveLength(4);
      expect(statements[1]).toEqual(statements[0]);
      expect(statements[3]).toEqual(statements[2]);
      expect(statements[0]!.parameters).toContain(`preq_${rows[0]}`);
    }
  });

  it('a delivery attempt writes the attempt and the message update with the values of that attempt', async () => {
    const { db, statements } = capture(kind);
    const outbox = createOutboxQueries(db, { supportsSkipLocked: kind === 'postgres', templates: createQueryTemplates() });
    const attempt = (n: number) => ({
      attempt: { messageId: `msg_${n}`, attempt: n, startedAtMs: 1000 + n, durationMs: n, statusCode: n === 1 ? 200 : null, error: n === 1 ? null : 'timeout', responseExcerpt: n === 1 ? 'ok' : null, nextAttemptAtMs: n === 1 ? null : 5000 + n },
      update: { status: n === 1 ? ('delivered' as const) : ('pending' as const), attempts: n, nextAttemptAtMs: 5000 + n, deliveredAtMs: n === 1 ? 1001 : null, lastError: n === 1 ? null : 'timeout' },
    });
    await outbox.recordAttempts([attempt(1), attempt(2)]);
    const writes = statements.filter((s) => !/^(begin|commit)/i.test(s.sql));
    expect(writes).toHaveLength(4);
    expect(writes[0]!.sql).toMatch(/^insert into "delivery_attempts"/);
    expect(writes[0]!.parameters).toEqual(['msg_1', 1, 1001, 1, 200, null, 'ok', null]);
    expect(writes[1]!.sql).toMatch(/^update "outbox_messages" set "status" = .*"claimed_by" = .*where "id" = /);
    expect(writes[1]!.parameters).toEqual(['delivered', 1, 5001, 1001, null, null, null, 'msg_1']);
    expect(writes[2]!.sql).toBe(writes[0]!.sql);
    expect(writes[2]!.parameters).toEqual(['msg_2', 2, 1002, 2, null, 'timeout', null, 5002]);
    expect(writes[3]!.parameters).toEqual(['pending', 2, 5002, null, 'timeout', null, null, 'msg_2']);
  });

  it('refuses a builder that writes a value into the SQL text', async () => {
    const { db } = capture(kind);
    const templates = createQueryTemplates();
    await expect(
      templates.run(db, 'bad', (executor, rows) => executor.selectFrom('bids').select('bid_id').where('bid_id', '=', sql.lit(String(rows[0]!.id))), [{ id: 'x' }]),
    ).rejects.toThrow(/SQL text/);
  });
});
