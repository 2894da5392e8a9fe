import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createMilestoneTracker, DEFAULT_REVENUE_MILESTONES_MICROS, parseMilestones } from '../../src/reporting/milestones.js';
import { createReportingHarness, HOUR_MS, MINUTE_MS, type ReportingHarness } from './helpers.js';

describe('parseMilestones', () => {
  it('parses comma-separated decimal amounts to sorted, unique micros', () => {
    expect(parseMilestones('100,1000,10000,100000')).toEqual([...DEFAULT_REVENUE_MILESTONES_MICROS]);
    expect(parseMilestones(' 2500.50 , 1, 1.000001 ,1')).toEqual([1_000_000, 1_000_001, 2_500_500_000]);
    expect(parseMilestones('')).toEqual([]);
    expect(parseMilestones('  ')).toEqual([]);
  });

  it('throws on junk, naming the entry', () => {
    for (const junk of ['abc', '100,,200', '-5', '0', '1e3', '1.0000001', '100 USD', '0.0']) {
      expect(() => parseMilestones(junk), junk).toThrow(/revenue milestones/);
    }
    expect(() => parseMilestones('10,x')).toThrow(/"x"/);
  });
});

describe('milestone tracker', () => {
  let h: ReportingHarness;
  const tracker = () =>
    createMilestoneTracker({ store: h.store, counters: h.counters, emitter: h.emitter, clock: h.clock, log: h.log, milestonesMicros: parseMilestones('1, 5') });

  beforeEach(async () => {
    h = await createReportingHarness();
  });

  afterEach(async () => {
    await h.close();
  });

  it('fires each milestone once, even across a new tracker on the same store', async () => {
    const first = tracker();
    h.counters.add('pub_a', { impressions: 1, revenueNetMicros: 600_000, revenueGrossMicros: 900_000 });
    await h.counters.flush();
    expect(await first.checkOnce()).toEqual([]);

    h.counters.add('pub_a', { impressions: 1, revenueNetMicros: 500_000 }); // unflushed: 1.1 USD in all
    expect(await first.checkOnce()).toEqual([{ publisherId: 'pub_a', milestoneMicros: 1_000_000, reachedAtMs: h.clock.now() }]);
    expect(await first.checkOnce()).toEqual([]);
    const rows = await h.outbox('revenue.milestone');
    expect(rows.map((r) => [r.endpointId, r.publisherId])).toEqual([['ep_all', 'pub_a']]);
    expect(rows[0]?.payload).toEqual({
      event: 'revenue.milestone',
      publisher_id: 'pub_a',
      milestone: 1,
      revenue_total: 1.1,
      currency: 'USD',
      timestamp: new Date(h.clock.now()).toISOString(),
    });

    await h.restart();
    const second = tracker();
    expect(await second.checkOnce()).toEqual([]);
    expect(await h.outbox('revenue.milestone')).toHaveLength(1);

    h.counters.add('pub_a', { impressions: 1, revenueNetMicros: 3_900_000 }); // 5.0 USD: reaches 5
    expect((await second.checkOnce()).map((m) => m.milestoneMicros)).toEqual([5_000_000]);
    // A tracker that had not seen the store's record yet still sends nothing twice.
    expect(await tracker().checkOnce()).toEqual([]);
    expect(await h.outbox('revenue.milestone')).toHaveLength(2);
  });

  it('a jump past several milestones sends one event per milestone; old settled minutes still count', async () => {
    const t = tracker();
    h.counters.add('pub_b', { revenueNetMicros: 700_000 });
    h.counters.add('pub_c', { revenueNetMicros: 6_000_000 });
    await h.counters.flush();
    expect((await t.checkOnce()).map((m) => [m.publisherId, m.milestoneMicros])).toEqual([
      ['pub_c', 1_000_000],
      ['pub_c', 5_000_000],
    ]);
    const totals = (await h.outbox('revenue.milestone')).map((r) => [r.payload.milestone, r.payload.revenue_total]);
    expect(totals).toEqual([
      [1, 6],
      [5, 6],
    ]);

    // Two hours later pub_b's first 0.7 USD is in a settled minute; with 0.4 more it passes 1 USD.
    h.clock.advance(2 * HOUR_MS);
    expect(await t.checkOnce()).toEqual([]);
    h.clock.advance(MINUTE_MS);
    h.counters.add('pub_b', { revenueNetMicros: 400_000 });
    expect((await t.checkOnce()).map((m) => [m.publisherId, m.milestoneMicros])).toEqual([['pub_b', 1_000_000]]);
  });
});
