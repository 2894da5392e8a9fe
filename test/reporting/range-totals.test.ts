import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/domain/clock.js';
import { silentLogger } from '../../src/observability/logger.js';
import { createCounterAggregator } from '../../src/reporting/counters.js';
import { rangeTotals } from '../../src/reporting/range-totals.js';
import type { CounterDelta, CounterStore, CounterTotals } from '../../src/storage/ports.js';

const T0 = Date.UTC(2026, 2, 10, 12);

/** An in-memory counter store whose `add` commits only when `release()` is called. */
function slowStore() {
  const rows: CounterDelta[] = [];
  let release: () => void = () => undefined;
  const counters: CounterStore = {
    add: (deltas) =>
      new Promise<void>((resolve) => {
        release = () => {
          rows.push(...deltas.map((d) => ({ ...d })));
          resolve();
        };
      }),
    totals: async (fromMs, toMs) => {
      const sum = new Map<string, CounterTotals>();
      for (const { minuteStartMs, ...r } of rows) {
        if (minuteStartMs < fromMs || minuteStartMs >= toMs) continue;
        const t = sum.get(r.publisherId);
        if (t === undefined) sum.set(r.publisherId, { ...r });
        else t.requests += r.requests;
      }
      return [...sum.values()];
    },
  };
  return { store: { counters }, release: () => release() };
}

describe('rangeTotals over the aggregator', () => {
  it('reads store rows and pending deltas as one snapshot while a flush commits', async () => {
    const clock = new ManualClock(T0);
    const slow = slowStore();
    const counters = createCounterAggregator({ store: slow.store, clock, flushIntervalMs: 1000, log: silentLogger() });
    counters.add('pub_a', { requests: 5 });
    const flushing = counters.flush();
    await new Promise((resolve) => setImmediate(resolve)); // the flush is in flight: in pending(), not yet in the store
    expect(counters.pending().map((d) => d.requests)).toEqual([5]);
    const reading = rangeTotals({ store: slow.store, counters }, T0, T0 + 60_000);
    counters.add('pub_a', { requests: 2 }); // after the read was asked for
    slow.release();
    await flushing;
    const [totals] = await reading;
    // 5 (committed by the flush) + 2 (pending when the read ran): neither lost nor counted twice.
    expect(totals?.requests).toBe(7);
    expect(await rangeTotals({ store: slow.store, counters }, T0 + 60_000, T0 + 120_000)).toEqual([]);
  });

  it('a read that rejects does not block later flushes', async () => {
    const clock = new ManualClock(T0);
    const slow = slowStore();
    const counters = createCounterAggregator({ store: slow.store, clock, flushIntervalMs: 1000, log: silentLogger() });
    await expect(counters.readWithPending(async () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    counters.add('pub_a', { requests: 1 });
    const flushing = counters.flush();
    await new Promise((resolve) => setImmediate(resolve));
    slow.release();
    await flushing;
    expect(counters.pending()).toEqual([]);
  });
});
