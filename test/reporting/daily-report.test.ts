import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { computeDailyReports } from '../../src/reporting/daily-report.js';
import { createReportScheduler, REPORT_MARK_SETTING } from '../../src/reporting/report-scheduler.js';
import { createReportingHarness, DAY0, DAY_MS, HOUR_MS, MINUTE_MS, type ReportingHarness } from './helpers.js';

/**
 * A day of hand-chosen traffic for pub_a on DAY0 with a 20 % take rate: 12 impressions at a gross
 * CPM of 2.50 (2 500 micros gross, 2 000 net each) and 8 at 1.25 (1 250 gross, 1 000 net).
 */
function feedDay(h: ReportingHarness): void {
  const at = DAY0 + 10 * HOUR_MS;
  h.counters.add('pub_a', { requests: 30, imps: 40, impsFilled: 22, bids: 26 }, at);
  h.counters.add('pub_a', { wins: 16, impressions: 12, revenueGrossMicros: 12 * 2500, revenueNetMicros: 12 * 2000 }, at + MINUTE_MS);
}

function feedMore(h: ReportingHarness): void {
  const at = DAY0 + 23 * HOUR_MS + 59 * MINUTE_MS;
  h.counters.add('pub_a', { requests: 10, imps: 10, impsFilled: 8, bids: 10 }, at);
  h.counters.add('pub_a', { wins: 8, impressions: 8, revenueGrossMicros: 8 * 1250, revenueNetMicros: 8 * 1000 }, at);
  // Only requests: every rate has a zero denominator.
  h.counters.add('pub_b', { requests: 5, imps: 5 }, at);
  // No activity at all: no report.
  h.counters.add('pub_c', {}, at);
  // The days around DAY0 are not part of its report.
  h.counters.add('pub_a', { requests: 1000, imps: 1000, impressions: 1000, revenueNetMicros: 9_999_999 }, DAY0 - 1);
  h.counters.add('pub_a', { requests: 1000, imps: 1000, impressions: 1000, revenueNetMicros: 9_999_999 }, DAY0 + DAY_MS);
}

/** The hand-computed report of pub_a on DAY0 (without event/timestamp). */
const expectedA = {
  date: '2026-03-10',
  publisher_id: 'pub_a',
  currency: 'USD',
  requests: 40,
  imps: 50,
  bids: 36,
  wins: 24,
  impressions: 20,
  fill_rate: 0.6, // 30 / 50
  win_rate: 2 / 3, // 24 / 36
  revenue_gross: 0.04, // 30 000 + 10 000 micros
  revenue_net: 0.032, // 24 000 + 8 000 micros (gross x 0.8)
  ecpm: 1.6, // 32 000 micros x 1000 / 20 impressions = 1 600 000 micros of CPM
};

const expectedB = {
  date: '2026-03-10',
  publisher_id: 'pub_b',
  currency: 'USD',
  requests: 5,
  imps: 5,
  bids: 0,
  wins: 0,
  impressions: 0,
  fill_rate: 0,
  win_rate: 0,
  revenue_gross: 0,
  revenue_net: 0,
  ecpm: 0,
};

describe('daily reports', () => {
  let h: ReportingHarness;

  beforeEach(async () => {
    h = await createReportingHarness();
  });

  afterEach(async () => {
    await h.close();
  });

  it('computes every field from flushed and unflushed counts of that UTC day only', async () => {
    feedDay(h);
    await h.counters.flush();
    feedMore(h); // left unflushed
    const reports = await computeDailyReports({ store: h.store, counters: h.counters, date: '2026-03-10' });
    expect(reports).toEqual([
      {
        date: '2026-03-10',
        publisherId: 'pub_a',
        requests: 40,
        imps: 50,
        impsFilled: 30,
        bids: 36,
        wins: 24,
        impressions: 20,
        fillRate: 0.6,
        winRate: 2 / 3,
        revenueGrossMicros: 40_000,
        revenueNetMicros: 32_000,
        ecpmMicros: 1_600_000,
      },
      expect.objectContaining({ publisherId: 'pub_b', fillRate: 0, winRate: 0, ecpmMicros: 0 }),
    ]);
    const onlyB = await computeDailyReports({ store: h.store, counters: h.counters, date: '2026-03-10', publisherId: 'pub_b' });
    expect(onlyB.map((r) => r.publisherId)).toEqual(['pub_b']);
    await expect(computeDailyReports({ store: h.store, counters: h.counters, date: '2026-02-30' })).rejects.toMatchObject({ code: 'invalid_request' });
  });

  it('sends one report.daily per publisher with activity after the day closes plus the delay, to subscribed endpoints', async () => {
    const scheduler = createReportScheduler({ store: h.store, counters: h.counters, emitter: h.emitter, clock: h.clock, log: h.log });
    expect(await scheduler.runOnce()).toBe(0); // first start: begins with the current day
    expect(await h.store.settings.get(REPORT_MARK_SETTING)).toBe('2026-03-09');
    feedDay(h);
    await h.counters.flush();
    feedMore(h);

    h.clock.set(DAY0 + DAY_MS + 4 * MINUTE_MS + 59_999);
    expect(await scheduler.runOnce()).toBe(0); // the 5 min delay has not passed
    expect(await h.outbox('report.daily')).toEqual([]);

    h.clock.set(DAY0 + DAY_MS + 5 * MINUTE_MS);
    expect(await scheduler.runOnce()).toBe(2);
    const rows = await h.outbox('report.daily');
    const timestamp = new Date(DAY0 + DAY_MS + 5 * MINUTE_MS).toISOString();
    expect(rows.map((r) => [r.endpointId, r.publisherId]).sort()).toEqual([
      ['ep_all', 'pub_a'],
      ['ep_all', 'pub_b'],
      ['ep_pub_a', 'pub_a'],
    ]);
    for (const row of rows) {
      const expected = row.publisherId === 'pub_a' ? expectedA : expectedB;
      expect(row.payload).toEqual({ event: 'report.daily', ...expected, timestamp });
      // Keys in the order of the DESIGN table: the body is the payload as built.
      expect(Object.keys(row.payload)[0]).toBe('event');
    }
    expect(await h.store.settings.get(REPORT_MARK_SETTING)).toBe('2026-03-10');

    h.clock.advance(HOUR_MS);
    expect(await scheduler.runOnce()).toBe(0);
    expect(await h.outbox('report.daily')).toHaveLength(3);
  });

  it('sends a day missed while stopped once after a restart, and not again on a second restart', async () => {
    const first = createReportScheduler({ store: h.store, counters: h.counters, emitter: h.emitter, clock: h.clock, log: h.log });
    await first.runOnce();
    feedDay(h);
    h.counters.add('pub_a', { requests: 2, imps: 2, impsFilled: 1, bids: 1 }, DAY0 + DAY_MS + HOUR_MS);
    await first.stop();

    // Down over two day closes; back on day 3.
    await h.restart();
    h.clock.set(DAY0 + 3 * DAY_MS + 2 * HOUR_MS);
    const second = createReportScheduler({ store: h.store, counters: h.counters, emitter: h.emitter, clock: h.clock, log: h.log });
    expect(await second.runOnce()).toBe(2); // 03-10 and 03-11 for pub_a; 03-12 had no activity
    const rows = await h.outbox('report.daily');
    expect(rows.filter((r) => r.endpointId === 'ep_all').map((r) => [r.payload.date, r.payload.requests])).toEqual([
      ['2026-03-10', 30],
      ['2026-03-11', 2],
    ]);
    expect(await h.store.settings.get(REPORT_MARK_SETTING)).toBe('2026-03-12');

    await h.restart();
    const third = createReportScheduler({ store: h.store, counters: h.counters, emitter: h.emitter, clock: h.clock, log: h.log });
    expect(await third.runOnce()).toBe(0);
    expect(await h.outbox('report.daily')).toHaveLength(rows.length);
  });

  it('catches up at most maxCatchUpDays closed days; older missed days are skipped', async () => {
    await h.store.settings.set(REPORT_MARK_SETTING, '2026-02-20');
    h.counters.add('pub_a', { requests: 1 }, Date.UTC(2026, 1, 25, 12)); // too old
    h.counters.add('pub_a', { requests: 3 }, Date.UTC(2026, 2, 8, 12)); // within the last 7 closed days
    const scheduler = createReportScheduler({ store: h.store, counters: h.counters, emitter: h.emitter, clock: h.clock, log: h.log, maxCatchUpDays: 7 });
    expect(await scheduler.runOnce()).toBe(1);
    const [row] = await h.outbox('report.daily');
    expect(row?.payload).toMatchObject({ date: '2026-03-08', requests: 3 });
    expect(await h.store.settings.get(REPORT_MARK_SETTING)).toBe('2026-03-09');
  });

  it('deliver re-sends a day regardless of the record, and sends today so far, without recording it', async () => {
    const scheduler = createReportScheduler({ store: h.store, counters: h.counters, emitter: h.emitter, clock: h.clock, log: h.log });
    await scheduler.runOnce();
    feedDay(h);
    expect(await scheduler.deliver('2026-03-10')).toEqual({ events: 1, messages: 2 });
    const today = await h.outbox('report.daily');
    expect(today.map((r) => r.payload.requests)).toEqual([30, 30]);
    expect(await h.store.reporting.listReportDeliveries('2026-03-10')).toEqual([]);

    feedMore(h);
    h.clock.set(DAY0 + DAY_MS + 6 * MINUTE_MS);
    expect(await scheduler.runOnce()).toBe(2); // the scheduled send still happens at the close
    expect(await scheduler.deliver('2026-03-10')).toEqual({ events: 2, messages: 3 });
    expect(await h.outbox('report.daily')).toHaveLength(2 + 3 + 3);
    expect(await scheduler.deliver('2026-03-01')).toEqual({ events: 0, messages: 0 });
    await expect(scheduler.deliver('10/03/2026')).rejects.toMatchObject({ code: 'invalid_request', errors: [{ field: 'date' }] });
  });
});
