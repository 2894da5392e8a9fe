import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ManualClock } from '../../src/domain/clock.js';
import { silentLogger } from '../../src/observability/logger.js';
import { createCounterAggregator, minuteStartOf } from '../../src/reporting/counters.js';
import type { CounterDelta, CounterStore, Store } from '../../src/storage/ports.js';
import { openSqliteStore } from '../../src/storage/sqlite/index.js';

const T0 = Date.UTC(2026, 2, 1, 10, 0, 0);
const MINUTE_MS = 60_000;

function zero(publisherId: string, minuteStartMs: number): CounterDelta {
  return { publisherId, minuteStartMs, requests: 0, imps: 0, impsFilled: 0, bids: 0, wins: 0, impressions: 0, revenueGrossMicros: 0, revenueNetMicros: 0 };
}

/** A counter store that records calls and fails while `failing` is set. */
function fakeCounters() {
  const calls: CounterDelta[][] = [];
  const state = { failing: false };
  const counters: CounterStore = {
    add: async (deltas) => {
      if (state.failing) throw new Error('store down');
      calls.push(deltas.map((d) => ({ ...d })));
    },
    totals: async () => [],
  };
  return { calls, state, store: { counters } };
}

describe('minuteStartOf', () => {
  it('floors to the UTC minute', () => {
    expect(minuteStartOf(T0)).toBe(T0);
    expect(minuteStartOf(T0 + 59_999)).toBe(T0);
    expect(minuteStartOf(T0 + 60_000)).toBe(T0 + MINUTE_MS);
  });
});

describe('counter aggregator', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('buckets by publisher and UTC minute, using the clock when no time is given', () => {
    const clock = new ManualClock(T0 + 10_000);
    const { store } = fakeCounters();
    const agg = createCounterAggregator({ store, clock, flushIntervalMs: 1000, log: silentLogger() });
    agg.add('pub_1', { requests: 1, imps: 2 });
    clock.advance(40_000); // still T0's minute
    agg.add('pub_1', { requests: 1, bids: 1 });
    clock.advance(20_000); // next minute
    agg.add('pub_1', { requests: 1 });
    agg.add('pub_2', { wins: 1 }, T0 + 5);
    agg.add('pub_1', { impressions: 1, revenueGrossMicros: 2500, revenueNetMicros: 2000 }, T0 - 1);

    const byKey = new Map(agg.pending().map((d) => [`${d.publisherId}@${d.minuteStartMs}`, d]));
    expect(byKey.size).toBe(4);
    expect(byKey.get(`pub_1@${T0}`)).toEqual({ ...zero('pub_1', T0), requests: 2, imps: 2, bids: 1 });
    expect(byKey.get(`pub_1@${T0 + MINUTE_MS}`)).toEqual({ ...zero('pub_1', T0 + MINUTE_MS), requests: 1 });
    expect(byKey.get(`pub_2@${T0}`)).toEqual({ ...zero('pub_2', T0), wins: 1 });
    expect(byKey.get(`pub_1@${T0 - MINUTE_MS}`)).toEqual({ ...zero('pub_1', T0 - MINUTE_MS), impressions: 1, revenueGrossMicros: 2500, revenueNetMicros: 2000 });
  });

  it('flush writes the buckets in one add call and empties them', async () => {
    const clock = new ManualClock(T0);
    const fake = fakeCounters();
    const agg = createCounterAggregator({ store: fake.store, clock, flushIntervalMs: 1000, log: silentLogger() });
    agg.add('pub_1', { requests: 1 });
    agg.add('pub_2', { requests: 3 });
    await agg.flush();
    expect(fake.calls).toHaveLength(1);
    expect(fake.calls[0]).toEqual([
      { ...zero('pub_1', T0), requests: 1 },
      { ...zero('pub_2', T0), requests: 3 },
    ]);
    expect(agg.pending()).toEqual([]);
    await agg.flush(); // nothing to write: no call
    expect(fake.calls).toHaveLength(1);
  });

  it('a failed flush keeps its deltas, merged with later adds, and logs a warning', async () => {
    const clock = new ManualClock(T0);
    const fake = fakeCounters();
    const log = silentLogger();
    const warn = vi.spyOn(log, 'warn');
    const agg = createCounterAggregator({ store: fake.store, clock, flushIntervalMs: 1000, log });
    agg.add('pub_1', { requests: 1, revenueNetMicros: 10 });
    fake.state.failing = true;
    await expect(agg.flush()).resolves.toBeUndefined();
    expect(warn).toHaveBeenCalledTimes(1);
    expect(agg.pending()).toEqual([{ ...zero('pub_1', T0), requests: 1, revenueNetMicros: 10 }]);

    agg.add('pub_1', { requests: 2 });
    fake.state.failing = false;
    await agg.flush();
    expect(fake.calls).toEqual([[{ ...zero('pub_1', T0), requests: 3, revenueNetMicros: 10 }]]);
    expect(agg.pending()).toEqual([]);
  });

  it('pending includes the deltas of a flush in progress, and adds made meanwhile', async () => {
    const clock = new ManualClock(T0);
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const written: CounterDelta[][] = [];
    const store = {
      counters: {
        add: async (deltas: CounterDelta[]) => {
          await gate;
          written.push(deltas);
        },
        totals: async () => [],
      },
    };
    const agg = createCounterAggregator({ store, clock, flushIntervalMs: 1000, log: silentLogger() });
    agg.add('pub_1', { requests: 1 });
    const flushing = agg.flush();
    await Promise.resolve();
    agg.add('pub_1', { requests: 5 });
    expect(agg.pending()).toEqual([{ ...zero('pub_1', T0), requests: 6 }]);
    release();
    await flushing;
    expect(written).toEqual([[{ ...zero('pub_1', T0), requests: 1 }]]);
    expect(agg.pending()).toEqual([{ ...zero('pub_1', T0), requests: 5 }]);
  });

  it('start flushes every flushIntervalMs; stop makes a final flush', async () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    const clock = new ManualClock(T0);
    const fake = fakeCounters();
    const agg = createCounterAggregator({ store: fake.store, clock, flushIntervalMs: 1000, log: silentLogger() });
    agg.start();
    agg.start(); // idempotent: one timer
    agg.add('pub_1', { requests: 1 });
    await vi.advanceTimersByTimeAsync(999);
    expect(fake.calls).toHaveLength(0);
    await vi.advanceTimersByTimeAsync(1);
    expect(fake.calls).toHaveLength(1);
    agg.add('pub_1', { requests: 2 });
    await agg.stop();
    expect(fake.calls).toHaveLength(2);
    await vi.advanceTimersByTimeAsync(5000);
    expect(fake.calls).toHaveLength(2);
  });

  describe('with a SQLite store', () => {
    let dir: string;
    let store: Store;

    beforeEach(async () => {
      dir = await mkdtemp(join(tmpdir(), 'adx-counters-'));
      store = await openSqliteStore({ path: join(dir, 'adx.db') });
      await store.migrate();
    });

    afterEach(async () => {
      await store.close();
      await rm(dir, { recursive: true, force: true });
    });

    it('successive flushes add up in the store, and pending covers what is not flushed', async () => {
      const clock = new ManualClock(T0);
      const agg = createCounterAggregator({ store, clock, flushIntervalMs: 1000, log: silentLogger() });
      agg.add('pub_1', { requests: 1, imps: 2, impsFilled: 1, bids: 1 });
      await agg.flush();
      agg.add('pub_1', { requests: 1, imps: 1, wins: 1 });
      await agg.flush();
      agg.add('pub_1', { requests: 4 });

      const [stored] = await store.counters.totals(T0, T0 + MINUTE_MS, 'pub_1');
      expect(stored).toEqual({ publisherId: 'pub_1', requests: 2, imps: 3, impsFilled: 1, bids: 1, wins: 1, impressions: 0, revenueGrossMicros: 0, revenueNetMicros: 0 });
      expect(agg.pending()).toEqual([{ ...zero('pub_1', T0), requests: 4 }]);
      await agg.stop();
      expect((await store.counters.totals(T0, T0 + MINUTE_MS, 'pub_1'))[0]?.requests).toBe(6);
    });

    it('nothing is lost when the store is closed during a flush attempt', async () => {
      const clock = new ManualClock(T0);
      const agg = createCounterAggregator({ store, clock, flushIntervalMs: 1000, log: silentLogger() });
      agg.add('pub_1', { requests: 3 });
      await store.close();
      await agg.flush();
      expect(agg.pending()).toEqual([{ ...zero('pub_1', T0), requests: 3 }]);
    });
  });
});
