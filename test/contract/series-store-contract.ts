/**
 * The storage contract for the stored series (`SeriesStore` and the series half of
 * `CounterStore.add`, DESIGN section 7 `GET /v1/stats/series`): partner counters and latency
 * buckets upsert-added by several flushes (several nodes) sum; minute rows group into UTC minute,
 * hour and day buckets, a range spanning midnight included; the answer built from them fills gaps
 * with zeros; the roll-up folds old minutes into hours without changing any sum. Registered by
 * `defineStoreContract`, so it runs on every backend.
 */
import { describe, expect, it } from 'vitest';
import { LATENCY_OPEN_LE_MS } from '../../src/reporting/latency-buckets.js';
import { exchangeSeries, partnerSeries } from '../../src/reporting/stats-series.js';
import type { CounterDelta, LatencyDelta, PartnerCounterDelta, Store } from '../../src/storage/ports.js';
import { endpoint, message } from './records.js';

const MINUTE_MS = 60_000;
const HOUR_MS = 3_600_000;
const DAY_MS = 86_400_000;
/** 2026-03-10T23:58:00Z: two minutes before a UTC midnight. */
const NEAR_MIDNIGHT = Date.UTC(2026, 2, 10, 23, 58);
const MIDNIGHT = Date.UTC(2026, 2, 11);

function counters(publisherId: string, minuteStartMs: number, fields: Partial<CounterDelta> = {}): CounterDelta {
  return { publisherId, minuteStartMs, requests: 0, imps: 0, impsFilled: 0, bids: 0, wins: 0, impressions: 0, revenueGrossMicros: 0, revenueNetMicros: 0, ...fields };
}

function partner(partnerId: string, minuteStartMs: number, fields: Partial<PartnerCounterDelta> = {}): PartnerCounterDelta {
  return { partnerId, minuteStartMs, calls: 0, bids: 0, timeouts: 0, errors: 0, wins: 0, privacyBlocked: 0, ...fields };
}

function latency(kind: LatencyDelta['kind'], subjectId: string, minuteStartMs: number, leMs: number, count: number): LatencyDelta {
  return { kind, subjectId, minuteStartMs, leMs, count };
}

/** Registers the series tests; `getStore` answers the test's store, `openPeer` another node's handle (or the same). */
export function defineSeriesStoreContract(getStore: () => Store, openPeer: () => Promise<Store>): void {
  describe('series', () => {
    it('partner counters and latency buckets written by two nodes sum per minute, with the publisher counters in the same flush', async () => {
      const store = getStore();
      const peer = await openPeer();
      await store.counters.add([counters('pub_1', NEAR_MIDNIGHT, { requests: 2, imps: 2 })], {
        partners: [partner('dsp_a', NEAR_MIDNIGHT, { calls: 2, bids: 1, timeouts: 1 }), partner('dsp_a', NEAR_MIDNIGHT, { calls: 1, errors: 1 })],
        latency: [latency('partner', 'dsp_a', NEAR_MIDNIGHT, 10, 2), latency('partner', 'dsp_a', NEAR_MIDNIGHT, 10, 1), latency('exchange', 'pub_1', NEAR_MIDNIGHT, 20, 2)],
      });
      await peer.counters.add([], {
        partners: [partner('dsp_a', NEAR_MIDNIGHT, { calls: 4, bids: 3, wins: 2, privacyBlocked: 1 })],
        latency: [latency('partner', 'dsp_a', NEAR_MIDNIGHT, 10, 1), latency('partner', 'dsp_a', NEAR_MIDNIGHT, 300, 1)],
      });
      const range = { fromMs: NEAR_MIDNIGHT, toMs: NEAR_MIDNIGHT + MINUTE_MS, stepMs: MINUTE_MS };
      expect(await store.series.partnerSeries(range, 'dsp_a')).toEqual([
        { bucketStartMs: NEAR_MIDNIGHT, calls: 7, bids: 4, timeouts: 1, errors: 1, wins: 2, privacyBlocked: 1 },
      ]);
      expect(await store.series.partnerSeries(range, 'dsp_none')).toEqual([]);
      expect(await store.series.latencySeries(range, 'partner', 'dsp_a')).toEqual([
        { bucketStartMs: NEAR_MIDNIGHT, leMs: 10, count: 4 },
        { bucketStartMs: NEAR_MIDNIGHT, leMs: 300, count: 1 },
      ]);
      expect(await store.series.latencySeries(range, 'exchange')).toEqual([{ bucketStartMs: NEAR_MIDNIGHT, leMs: 20, count: 2 }]);
      expect((await store.counters.totals(NEAR_MIDNIGHT, NEAR_MIDNIGHT + MINUTE_MS)).map((t) => [t.publisherId, t.requests])).toEqual([['pub_1', 2]]);
    });

    it('groups minutes into UTC minute, hour and day buckets across midnight, of one publisher or all', async () => {
      const store = getStore();
      await store.counters.add([
        counters('pub_1', NEAR_MIDNIGHT, { requests: 1, imps: 2, impsFilled: 1 }),
        counters('pub_2', NEAR_MIDNIGHT, { requests: 10 }),
        counters('pub_1', NEAR_MIDNIGHT + MINUTE_MS, { requests: 2 }),
        counters('pub_1', MIDNIGHT, { requests: 4, revenueNetMicros: 1500 }),
        counters('pub_1', MIDNIGHT + 61 * MINUTE_MS, { requests: 8 }),
      ]);
      const minutes = await store.series.counterSeries({ fromMs: NEAR_MIDNIGHT, toMs: MIDNIGHT + 2 * MINUTE_MS, stepMs: MINUTE_MS });
      expect(minutes.map((b) => [b.bucketStartMs, b.requests])).toEqual([
        [NEAR_MIDNIGHT, 11],
        [NEAR_MIDNIGHT + MINUTE_MS, 2],
        [MIDNIGHT, 4],
      ]);
      expect(minutes[0]).toMatchObject({ imps: 2, impsFilled: 1 });
      const hours = await store.series.counterSeries({ fromMs: MIDNIGHT - HOUR_MS, toMs: MIDNIGHT + 2 * HOUR_MS, stepMs: HOUR_MS }, 'pub_1');
      expect(hours.map((b) => [b.bucketStartMs, b.requests])).toEqual([
        [MIDNIGHT - HOUR_MS, 3],
        [MIDNIGHT, 4],
        [MIDNIGHT + HOUR_MS, 8],
      ]);
      const days = await store.series.counterSeries({ fromMs: MIDNIGHT - DAY_MS, toMs: MIDNIGHT + DAY_MS, stepMs: DAY_MS });
      expect(days.map((b) => [new Date(b.bucketStartMs).toISOString(), b.requests, b.revenueNetMicros])).toEqual([
        ['2026-03-10T00:00:00.000Z', 13, 0],
        ['2026-03-11T00:00:00.000Z', 12, 1500],
      ]);
      // [from, to) on minute rows: the minute at `to` is out.
      expect(await store.series.counterSeries({ fromMs: MIDNIGHT - HOUR_MS, toMs: MIDNIGHT, stepMs: HOUR_MS }, 'pub_1')).toHaveLength(1);
    });

    it('answers every bucket of the range, gaps as zeros, with rates, eCPM and percentiles per bucket', async () => {
      const store = getStore();
      await store.counters.add(
        [
          counters('pub_1', NEAR_MIDNIGHT, { requests: 4, imps: 4, impsFilled: 3, bids: 3, wins: 2, impressions: 2, revenueGrossMicros: 6000, revenueNetMicros: 5000 }),
          counters('pub_1', MIDNIGHT + MINUTE_MS, { requests: 1, imps: 1 }),
        ],
        {
          latency: [
            latency('exchange', 'pub_1', NEAR_MIDNIGHT, 5, 2),
            latency('exchange', 'pub_1', NEAR_MIDNIGHT, 40, 1),
            latency('exchange', 'pub_1', NEAR_MIDNIGHT, LATENCY_OPEN_LE_MS, 1),
            latency('exchange', 'pub_2', NEAR_MIDNIGHT, 900, 5),
          ],
          partners: [partner('dsp_a', MIDNIGHT, { calls: 3, bids: 2, timeouts: 1 })],
        },
      );
      const answer = await exchangeSeries(store, {
        fromMs: Date.parse('2026-03-10T23:58:30Z'),
        toMs: Date.parse('2026-03-11T00:01:10Z'),
        step: 'minute',
        publisherId: 'pub_1',
      });
      expect(answer.from).toBe('2026-03-10T23:58:00.000Z');
      expect(answer.to).toBe('2026-03-11T00:02:00.000Z');
      expect(answer.points.map((p) => p.t)).toEqual(['2026-03-10T23:58:00.000Z', '2026-03-10T23:59:00.000Z', '2026-03-11T00:00:00.000Z', '2026-03-11T00:01:00.000Z']);
      expect(answer.points[0]).toEqual({
        t: '2026-03-10T23:58:00.000Z',
        requests: 4,
        imps: 4,
        imps_filled: 3,
        bids: 3,
        wins: 2,
        impressions: 2,
        revenue_gross: 0.006,
        revenue_net: 0.005,
        fill_rate: 0.75,
        win_rate: 2 / 3,
        ecpm: 2.5,
        // pub_1's histogram only: 2 at <=5 ms, 1 at <=40 ms, 1 above the last bound (10 s).
        latency_p50_ms: 5,
        latency_p99_ms: 10_000,
      });
      const zero = { requests: 0, imps: 0, imps_filled: 0, bids: 0, wins: 0, impressions: 0, revenue_gross: 0, revenue_net: 0, fill_rate: 0, win_rate: 0, ecpm: 0, latency_p50_ms: 0, latency_p99_ms: 0 };
      expect(answer.points[1]).toEqual({ t: '2026-03-10T23:59:00.000Z', ...zero });
      expect(answer.points[2]).toEqual({ t: '2026-03-11T00:00:00.000Z', ...zero });
      expect(answer.points[3]).toMatchObject({ requests: 1, imps: 1, fill_rate: 0 });

      const all = await exchangeSeries(store, { fromMs: NEAR_MIDNIGHT, toMs: NEAR_MIDNIGHT + 1, step: 'minute' });
      // Both publishers' histograms: 9 samples, the median among pub_2's 900 ms.
      expect(all.points[0]).toMatchObject({ latency_p50_ms: 900, latency_p99_ms: 10_000 });

      const days = await partnerSeries(store, { fromMs: Date.parse('2026-03-09T12:00:00Z'), toMs: Date.parse('2026-03-11T12:00:00Z'), step: 'day', partnerId: 'dsp_a' });
      expect(days.points).toEqual([
        { t: '2026-03-09T00:00:00.000Z', calls: 0, bids: 0, timeouts: 0, errors: 0, wins: 0, privacy_blocked: 0, latency_p50_ms: 0, latency_p99_ms: 0 },
        { t: '2026-03-10T00:00:00.000Z', calls: 0, bids: 0, timeouts: 0, errors: 0, wins: 0, privacy_blocked: 0, latency_p50_ms: 0, latency_p99_ms: 0 },
        { t: '2026-03-11T00:00:00.000Z', calls: 3, bids: 2, timeouts: 1, errors: 0, wins: 0, privacy_blocked: 0, latency_p50_ms: 0, latency_p99_ms: 0 },
      ]);
      const hours = await exchangeSeries(store, { fromMs: MIDNIGHT - HOUR_MS, toMs: MIDNIGHT + HOUR_MS, step: 'hour' });
      expect(hours.points.map((p) => [p.t, p.requests])).toEqual([
        ['2026-03-10T23:00:00.000Z', 4],
        ['2026-03-11T00:00:00.000Z', 1],
      ]);
    });

    it('counts outbox messages per endpoint and status (the console webhook table)', async () => {
      const store = getStore();
      expect(await store.outbox.statusCounts()).toEqual([]);
      await store.webhookEndpoints.create(endpoint('we_1'));
      await store.webhookEndpoints.create(endpoint('we_2'));
      await store.outbox.enqueue([
        message('msg_1'),
        message('msg_2', { status: 'delivered', deliveredAtMs: NEAR_MIDNIGHT }),
        message('msg_3', { status: 'delivered', deliveredAtMs: NEAR_MIDNIGHT }),
        message('msg_4', { status: 'failed' }),
        message('msg_5', { endpointId: 'we_2', status: 'failed' }),
      ]);
      expect(await store.outbox.statusCounts()).toEqual([
        { endpointId: 'we_1', pending: 1, delivered: 2, failed: 1 },
        { endpointId: 'we_2', pending: 0, delivered: 0, failed: 1 },
      ]);
    });

    it('rolls minutes before the cutoff up into their hour, keeping every sum, and leaves later minutes alone', async () => {
      const store = getStore();
      const hour0 = MIDNIGHT - 2 * HOUR_MS;
      await store.counters.add(
        [
          counters('pub_1', hour0 + 5 * MINUTE_MS, { requests: 1, revenueNetMicros: 10 }),
          counters('pub_1', hour0 + 59 * MINUTE_MS, { requests: 2 }),
          counters('pub_1', hour0, { requests: 4 }),
          counters('pub_1', hour0 + HOUR_MS + 7 * MINUTE_MS, { requests: 8 }),
          counters('pub_1', MIDNIGHT + 3 * MINUTE_MS, { requests: 16 }),
        ],
        {
          partners: [partner('dsp_a', hour0 + MINUTE_MS, { calls: 1 }), partner('dsp_a', hour0 + 2 * MINUTE_MS, { calls: 2, wins: 1 })],
          latency: [latency('partner', 'dsp_a', hour0 + MINUTE_MS, 10, 1), latency('partner', 'dsp_a', hour0 + 2 * MINUTE_MS, 10, 3), latency('partner', 'dsp_a', hour0 + 2 * MINUTE_MS, 50, 1)],
        },
      );
      const day = { fromMs: MIDNIGHT - DAY_MS, toMs: MIDNIGHT + DAY_MS, stepMs: DAY_MS };
      const before = await store.series.counterSeries(day, 'pub_1');
      expect(await store.series.rollUpMinutes(MIDNIGHT)).toBe(
        // counters: 3 minute rows of hour0 off the hour (5, 59) -> folded 2; hour0+1h+7 -> 1; partners 2; latency 3 rows.
        2 + 1 + 2 + 3,
      );
      expect(await store.series.counterSeries(day, 'pub_1')).toEqual(before);
      const minutes = await store.series.counterSeries({ fromMs: hour0, toMs: MIDNIGHT + HOUR_MS, stepMs: MINUTE_MS }, 'pub_1');
      expect(minutes.map((b) => [b.bucketStartMs, b.requests, b.revenueNetMicros])).toEqual([
        [hour0, 7, 10],
        [hour0 + HOUR_MS, 8, 0],
        [MIDNIGHT + 3 * MINUTE_MS, 16, 0],
      ]);
      expect(await store.series.partnerSeries({ fromMs: hour0, toMs: MIDNIGHT, stepMs: MINUTE_MS }, 'dsp_a')).toEqual([
        { bucketStartMs: hour0, calls: 3, bids: 0, timeouts: 0, errors: 0, wins: 1, privacyBlocked: 0 },
      ]);
      expect(await store.series.latencySeries({ fromMs: hour0, toMs: MIDNIGHT, stepMs: HOUR_MS }, 'partner', 'dsp_a')).toEqual([
        { bucketStartMs: hour0, leMs: 10, count: 4 },
        { bucketStartMs: hour0, leMs: 50, count: 1 },
      ]);
      // Idempotent, and a later flush into a rolled-up hour adds to its row.
      expect(await store.series.rollUpMinutes(MIDNIGHT)).toBe(0);
      await store.counters.add([counters('pub_1', hour0, { requests: 1 })]);
      expect((await store.counters.totals(hour0, hour0 + HOUR_MS, 'pub_1'))[0]?.requests).toBe(8);
      await expect(store.series.rollUpMinutes(MIDNIGHT + MINUTE_MS)).rejects.toThrow(/hour boundary/);
    });
  });
}
