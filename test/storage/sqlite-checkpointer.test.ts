/**
 * WAL checkpoints run on a worker thread (issue 15): the store's own connection never checkpoints
 * inside a commit (`wal_autocheckpoint=0`), yet committed pages reach the database file (the
 * worker's PASSIVE checkpoints copy them), and closing leaves a complete database without a WAL.
 */
import { existsSync } from 'node:fs';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { BidRecord } from '../../src/storage/ports.js';
import { openSqliteStore } from '../../src/storage/sqlite/index.js';

function bid(n: number): BidRecord {
  return {
    bidId: `bid-${n}`,
    auctionId: `auc-${n}`,
    requestId: 'req',
    impId: '1',
    publisherId: 'pub_1',
    partnerId: 'dsp_1',
    partnerRequestId: `preq-${n}-${'x'.repeat(200)}`,
    partnerBidId: 'pbid',
    seat: 'seat',
    adId: null,
    partnerCurrency: 'USD',
    clearingPartnerMicros: 1_000_000,
    mbr: 1,
    partnerNurl: null,
    partnerBurl: null,
    createdAtMs: Date.UTC(2026, 0, 1),
  };
}

describe('SQLite checkpoints off the event loop', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'adx-ckpt-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('the store connection never auto-checkpoints; the worker moves committed pages into the database file', async () => {
    const path = join(dir, 'adx.db');
    const store = await openSqliteStore({ path });
    try {
      await store.migrate();
      const auto = await sql<{ wal_autocheckpoint: number }>`pragma wal_autocheckpoint`.execute(store.db);
      expect(auto.rows[0]?.wal_autocheckpoint).toBe(0);
      const sizeBefore = (await stat(path)).size;
      for (let batch = 0; batch < 20; batch++) {
        await store.writeAuction({ bids: Array.from({ length: 100 }, (_, i) => bid(batch * 100 + i)), messages: [] });
      }
      // Only a checkpoint writes pages into the main file; this connection never runs one.
      await vi.waitFor(async () => expect((await stat(path)).size).toBeGreaterThan(sizeBefore + 200_000), { timeout: 10_000, interval: 50 });
    } finally {
      await store.close();
    }
    expect(existsSync(`${path}-wal`)).toBe(false);
    const reopened = await openSqliteStore({ path, checkpoints: 'inline' });
    try {
      const count = await sql<{ n: number }>`select count(*) as n from bids`.execute(reopened.db);
      expect(count.rows[0]?.n).toBe(2000);
    } finally {
      await reopened.close();
    }
  });
});
