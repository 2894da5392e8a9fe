/**
 * The series half of the counter aggregator and the fixed latency buckets: percentiles read from
 * bucket counts, partner counts and histograms flushed with the publisher counters in one
 * `CounterStore.add` call, and kept (not lost, not doubled) across a failed flush.
 */
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/domain/clock.js';
import { silentLogger } from '../../src/observability/logger.js';
import { createCounterAggregator } from '../../src/reporting/counters.js';
import { LATENCY_OPEN_LE_MS, latencyBucketLe, latencyPercentile } from '../../src/reporting/latency-buckets.js';
import type { CounterDelta, CounterStore, SeriesDeltas } from '../../src/storage/ports.js';

describe('latency buckets', () => {
  it('names a latency by the inclusive upper bound of its bucket', () => {
    expect([0, 1, 1.2, 10, 10.5, 11, 999, 1000, 1001, 10_000, 10_001].map(latencyBucketLe)).toEqual([1, 1, 2, 10, 12, 12, 1000, 1000, 1250, 10_000, LATENCY_OPEN_LE_MS]);
  });

  it('reads percentiles from bucket counts in any order, the open bucket as the last bound', () => {
    expect(latencyPercentile([], 0.5)).toBe(0);
    const buckets = [
      { leMs: 50, count: 1 },
      { leMs: 5, count: 97 },
      { leMs: 5, count: 1 },
      { leMs: LATENCY_OPEN_LE_MS, count: 1 },
    ];
    expect(latencyPercentile(buckets, 0.5)).toBe(5);
    expect(latencyPercentile(buckets, 0.98)).toBe(5);
    expect(latencyPercentile(buckets, 0.99)).toBe(50);
    expect(latencyPercentile(buckets, 1)).toBe(10_000);
  });
});

describe('counter aggregator: series', () => {
  const T = Date.UTC(2026, 2, 10, 12, 0, 0);

  function recordingStore(failFirst: number) {
    const calls: Array<{ deltas: CounterDelta[]; series: SeriesDeltas | undefined }> = [];
    let failures = failFirst;
    const counters: CounterStore = {
      async add(deltas, series) {
        if (failures-- > 0) throw new Error('store down');
        calls.push({ deltas, series });
      },
      async totals() {
        return [];
      },
    };
    return { calls, store: { counters } };
  }

  it('flushes partner counts and histograms with the publisher counters, and keeps them across a failed flush', async () => {
    const clock = new ManualClock(T);
    const { calls, store } = recordingStore(1);
    const agg = createCounterAggregator({ store, clock, flushIntervalMs: 1000, log: silentLogger() });
    agg.add('pub_1', { requests: 1 });
    agg.addPartner('dsp_a', { calls: 1, timeouts: 1 });
    agg.observeLatency('partner', 'dsp_a', 180);
    agg.observeLatency('exchange', 'pub_1', 3);
    await agg.flush(); // fails: everything is kept
    expect(calls).toHaveLength(0);
    clock.advance(60_000);
    agg.addPartner('dsp_a', { calls: 1, privacyBlocked: 1 });
    agg.observeLatency('partner', 'dsp_a', 180, T);
    await agg.flush();
    expect(calls).toHaveLength(1);
    const { deltas, series } = calls[0]!;
    expect(deltas.map((d) => [d.publisherId, d.minuteStartMs, d.requests])).toEqual([['pub_1', T, 1]]);
    expect(series?.partners?.map((p) => [p.partnerId, p.minuteStartMs, p.calls, p.timeouts, p.privacyBlocked]).sort()).toEqual([
      ['dsp_a', T, 1, 1, 0],
      ['dsp_a', T + 60_000, 1, 0, 1],
    ]);
    expect(series?.latency?.map((l) => [l.kind, l.subjectId, l.minuteStartMs, l.leMs, l.count]).sort()).toEqual([
      ['exchange', 'pub_1', T, 3, 1],
      ['partner', 'dsp_a', T, 180, 2],
    ]);
    await agg.flush(); // nothing left: no second write
    expect(calls).toHaveLength(1);
  });
});
