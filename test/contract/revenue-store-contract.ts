/**
 * The storage contract for cumulative revenue and revenue milestones (DESIGN section 6,
 * `revenue.milestone`: written in the transaction of the notice whose revenue passes it, so at
 * once and exactly once). Registered by `defineStoreContract`, so it runs on every backend;
 * `openPeer` gives a second handle on the same database (another exchange node on PostgreSQL), or
 * the same store where the backend has one node (SQLite).
 */
import { describe, expect, it } from 'vitest';
import type { MilestoneRecord, OutboxMessage, RevenueRecognition, Store } from '../../src/storage/ports.js';
import { message, notice, T0 } from './records.js';

/** A recognition of `netMicros` against `milestonesMicros`, recording the message ids it built. */
function recognition(netMicros: number, milestonesMicros: number[], built: string[]): RevenueRecognition {
  return {
    netMicros,
    milestonesMicros,
    messagesFor(milestone: MilestoneRecord, totalMicros: number): OutboxMessage[] {
      const id = `msg_ms_${milestone.publisherId}_${milestone.milestoneMicros}_${built.length}`;
      built.push(id);
      return [message(id, { eventKind: 'revenue.milestone', publisherId: milestone.publisherId, body: JSON.stringify({ total: totalMicros }) })];
    },
  };
}

const billing = (bidId: string, publisherId = 'pub_1') => notice(bidId, { kind: 'billing', source: 'billing', publisherId });

/** Registers the revenue tests; `getStore` answers the current test's store, `openPeer` a second node's handle on it (or the store itself). */
export function defineRevenueStoreContract(getStore: () => Store, openPeer: () => Promise<Store>): void {
  describe('revenue and milestones', () => {
    it('a first billing notice adds its revenue; a repeat and a win notice add nothing', async () => {
      const store = getStore();
      const built: string[] = [];
      expect(await store.notices.revenueTotal('pub_1')).toBe(0);
      const first = await store.notices.record(billing('bid_1'), [], recognition(2_000, [], built));
      expect(first).toMatchObject({ outcome: 'first', milestones: [] });
      await store.notices.record(billing('bid_1'), [], recognition(2_000, [], built));
      await store.notices.record(notice('bid_2'), []);
      await store.notices.record(billing('bid_3', 'pub_2'), [], recognition(7, [], built));
      expect(await store.notices.revenueTotal('pub_1')).toBe(2_000);
      expect(await store.notices.revenueTotal('pub_2')).toBe(7);
    });

    it('records each milestone the total passes once, with its messages in the same transaction', async () => {
      const store = getStore();
      const built: string[] = [];
      const milestones = [1_000_000, 5_000_000, 20_000_000];
      expect((await store.notices.record(billing('bid_1'), [], recognition(900_000, milestones, built))).milestones).toEqual([]);
      // A jump past two milestones records both, each with the same running total.
      const jump = await store.notices.record(billing('bid_2'), [], recognition(4_100_000, milestones, built));
      expect(jump.milestones).toEqual([
        { publisherId: 'pub_1', milestoneMicros: 1_000_000, reachedAtMs: T0 },
        { publisherId: 'pub_1', milestoneMicros: 5_000_000, reachedAtMs: T0 },
      ]);
      expect(built).toHaveLength(2);
      for (const id of built) expect(JSON.parse((await store.outbox.get(id))!.body)).toEqual({ total: 5_000_000 });
      // A repeat of the notice that passed them changes nothing; the next notice passes nothing new.
      expect((await store.notices.record(billing('bid_2'), [], recognition(4_100_000, milestones, built))).milestones).toEqual([]);
      expect((await store.notices.record(billing('bid_3'), [], recognition(1, milestones, built))).milestones).toEqual([]);
      expect(built).toHaveLength(2);
      expect(await store.reporting.listMilestones('pub_1')).toEqual(jump.milestones);
      // A milestone configured later, already below the total, fires with the next notice.
      const later = await store.notices.record(billing('bid_4'), [], recognition(1, [2_000_000, ...milestones], built));
      expect(later.milestones.map((m) => m.milestoneMicros)).toEqual([2_000_000]);
    });

    it('concurrent notices on two nodes (one on SQLite) emit each milestone exactly once', async () => {
      const store = getStore();
      const peer = await openPeer();
      const built: string[] = [];
      const milestones = [1_000_000, 5_000_000, 10_000_000];
      // 40 impressions of 0.25 USD each, half through each handle, all at once: 10 USD in all.
      const results = await Promise.all(
        Array.from({ length: 40 }, (_, i) => (i % 2 === 0 ? store : peer).notices.record(billing(`bid_${i}`), [], recognition(250_000, milestones, built))),
      );
      expect(results.every((r) => r.outcome === 'first')).toBe(true);
      expect(await store.notices.revenueTotal('pub_1')).toBe(10_000_000);
      const recorded = results.flatMap((r) => r.milestones.map((m) => m.milestoneMicros)).sort((a, b) => a - b);
      expect(recorded).toEqual(milestones);
      // Messages built for a milestone another transaction recorded first were never stored.
      const stored = [];
      for (const id of built) if (await store.outbox.get(id)) stored.push(id);
      expect(stored).toHaveLength(3);
      expect((await store.reporting.listMilestones('pub_1')).map((m) => m.milestoneMicros)).toEqual(milestones);
    });
  });
}
