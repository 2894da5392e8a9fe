import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/domain/clock.js';
import { createLiveStats } from '../../src/reporting/live-stats.js';

const T0 = Date.UTC(2026, 2, 10, 12);

describe('live stats', () => {
  it('counts the last minute, the last hour and since start, with rates and latency percentiles', () => {
    const clock = new ManualClock(T0);
    const stats = createLiveStats({ clock });
    clock.advance(120_000); // two minutes up: the last minute is a full 60 s
    for (let ms = 1; ms <= 100; ms++) stats.recordRequest(ms, { imps: 2, impsFilled: ms <= 50 ? 1 : 0, bids: ms <= 50 ? 1 : 0 });
    stats.recordWin();
    stats.recordImpression(1_250);
    stats.recordImpression(750);
    stats.recordPartnerCall('dsp_1', 'bids');
    stats.recordPartnerCall('dsp_1', 'timeout');
    stats.recordPartnerCall('dsp_1', 'no_bid');
    stats.recordPartnerCall('dsp_2', 'error');
    stats.recordPartnerCall('dsp_2', 'skipped');

    const s = stats.snapshot();
    expect(s.last_minute).toEqual({
      window_seconds: 60,
      requests: 100,
      requests_per_second: 100 / 60,
      imps: 200,
      fill_rate: 0.25, // 50 / 200
      bids: 50,
      wins: 1,
      win_rate: 0.02,
      impressions: 2,
      revenue_net: 0.002,
      latency_ms: { p50: 50, p99: 100 },
      partners: { dsp_1: { calls: 3, timeouts: 1, errors: 0, skipped: 0 }, dsp_2: { calls: 1, timeouts: 0, errors: 1, skipped: 1 } },
    });
    expect(s.last_hour).toEqual({ ...s.last_minute, window_seconds: 3600, requests_per_second: 100 / 120 });
    expect(s.totals).toMatchObject({ requests: 100, window_seconds: 120 });

    clock.advance(61_000);
    const later = stats.snapshot();
    expect(later.last_minute).toMatchObject({ requests: 0, requests_per_second: 0, fill_rate: 0, win_rate: 0, latency_ms: { p50: 0, p99: 0 }, partners: {} });
    expect(later.last_hour.requests).toBe(100);

    stats.recordRequest(3_000_000, { imps: 1, impsFilled: 0, bids: 0 }); // beyond the last bound
    expect(stats.snapshot().last_minute.latency_ms).toEqual({ p50: 3_000_000, p99: 3_000_000 });

    clock.advance(3_600_000);
    const hourLater = stats.snapshot();
    expect(hourLater.last_hour.requests).toBe(0);
    expect(hourLater.totals.requests).toBe(101);
    expect(hourLater.started_at).toBe(new Date(T0).toISOString());
  });
});
