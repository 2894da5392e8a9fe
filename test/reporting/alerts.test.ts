import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createAlertEvaluator, ruleHolds } from '../../src/reporting/alerts.js';
import type { AlertRuleRecord } from '../../src/storage/ports.js';
import { createReportingHarness, MINUTE_MS, type ReportingHarness } from './helpers.js';

function rule(id: string, overrides: Partial<AlertRuleRecord> = {}): AlertRuleRecord {
  return { id, metric: 'revenue', comparator: 'above', threshold: 50_000, windowMinutes: 5, publisherId: 'pub_a', createdAtMs: 0, ...overrides };
}

describe('alert evaluator', () => {
  let h: ReportingHarness;
  const evaluator = (minImpsForFillRate?: number) =>
    createAlertEvaluator({ store: h.store, counters: h.counters, emitter: h.emitter, clock: h.clock, ids: h.ids, log: h.log, minImpsForFillRate });

  beforeEach(async () => {
    h = await createReportingHarness();
  });

  afterEach(async () => {
    await h.close();
  });

  it('compares strictly', () => {
    expect(ruleHolds({ comparator: 'above', threshold: 5 }, 5)).toBe(false);
    expect(ruleHolds({ comparator: 'above', threshold: 5 }, 5.1)).toBe(true);
    expect(ruleHolds({ comparator: 'below', threshold: 5 }, 5)).toBe(false);
    expect(ruleHolds({ comparator: 'below', threshold: 5 }, 4.9)).toBe(true);
  });

  it('triggers once, stays quiet while it holds (across a new evaluator), resolves once', async () => {
    await h.store.reporting.createAlertRule(rule('rule_rev'));
    const first = evaluator();
    expect(await first.evaluateOnce()).toEqual([]); // 0 USD is not above 0.05: stays idle, no "resolved"

    // 0.03 USD flushed in an earlier minute of the window + 0.03 unflushed now = 0.06 > 0.05.
    h.counters.add('pub_a', { impressions: 3, revenueNetMicros: 30_000, revenueGrossMicros: 40_000 }, h.clock.now() - 2 * MINUTE_MS);
    await h.counters.flush();
    h.counters.add('pub_a', { impressions: 3, revenueNetMicros: 30_000 });
    h.counters.add('pub_b', { impressions: 9, revenueNetMicros: 900_000 }); // another publisher: out of scope
    const triggered = await first.evaluateOnce();
    expect(triggered).toEqual([{ ruleId: 'rule_rev', alertId: expect.stringMatching(/^alert_/), state: 'triggered', value: 60_000 }]);
    const alertId = triggered[0]?.alertId;
    expect(await first.evaluateOnce()).toEqual([]);

    const rows = await h.outbox('alert.threshold');
    expect(rows.map((r) => r.endpointId)).toEqual(['ep_all']); // ep_pub_a subscribes to report.daily only
    expect(rows[0]?.payload).toEqual({
      event: 'alert.threshold',
      alert_id: alertId,
      rule_id: 'rule_rev',
      metric: 'revenue',
      comparator: 'above',
      threshold: 0.05,
      value: 0.06,
      window_minutes: 5,
      publisher_id: 'pub_a',
      state: 'triggered',
      timestamp: new Date(h.clock.now()).toISOString(),
    });

    // A restart: the state is in the store, so a new evaluator does not trigger again.
    await h.restart();
    const second = evaluator();
    expect(await second.evaluateOnce()).toEqual([]);

    // The window (the current minute and the 4 before) slides: at +1 min both amounts are in it;
    // at +3 min the one 2 minutes older is out, leaving 0.03, not above 0.05.
    h.clock.advance(MINUTE_MS);
    expect(await second.evaluateOnce()).toEqual([]);
    h.clock.advance(2 * MINUTE_MS);
    expect(await second.evaluateOnce()).toEqual([{ ruleId: 'rule_rev', alertId, state: 'resolved', value: 30_000 }]);
    expect(await second.evaluateOnce()).toEqual([]);
    h.clock.advance(10 * MINUTE_MS);
    expect(await second.evaluateOnce()).toEqual([]);

    const all = await h.outbox('alert.threshold');
    expect(all.map((r) => [r.payload.state, r.payload.alert_id, r.payload.value])).toEqual([
      ['triggered', alertId, 0.06],
      ['resolved', alertId, 0.03],
    ]);
    const states = await h.store.reporting.listAlertStates();
    expect(states).toEqual([{ ruleId: 'rule_rev', state: 'resolved', alertId, changedAtMs: h.clock.now() - 10 * MINUTE_MS }]);

    // Holding again opens a new episode with a new alert id.
    h.counters.add('pub_a', { impressions: 1, revenueNetMicros: 80_000 });
    const again = await second.evaluateOnce();
    expect(again).toMatchObject([{ state: 'triggered', value: 80_000 }]);
    expect(again[0]?.alertId).not.toBe(alertId);
  });

  it('a fill-rate rule does not change state with fewer imps than the minimum in its window', async () => {
    await h.store.reporting.createAlertRule(rule('rule_fill', { metric: 'fill_rate', comparator: 'below', threshold: 0.5, windowMinutes: 10, publisherId: null }));
    const ev = evaluator(10);
    expect(await ev.evaluateOnce()).toEqual([]); // no imps at all
    h.counters.add('pub_a', { imps: 4, impsFilled: 0 });
    h.counters.add('pub_b', { imps: 5, impsFilled: 1 });
    expect(await ev.evaluateOnce()).toEqual([]); // 1 / 9 would hold, but 9 imps < 10
    expect(await h.outbox('alert.threshold')).toEqual([]);

    h.counters.add('pub_b', { imps: 1, impsFilled: 0 });
    expect(await ev.evaluateOnce()).toEqual([expect.objectContaining({ ruleId: 'rule_fill', state: 'triggered', value: 0.1 })]);
    const [row] = await h.outbox('alert.threshold');
    expect(row?.payload).toMatchObject({ metric: 'fill_rate', comparator: 'below', threshold: 0.5, value: 0.1, publisher_id: null, window_minutes: 10 });

    // Too few imps in the window later: the state stays triggered (no resolve on thin traffic).
    h.clock.advance(10 * MINUTE_MS);
    h.counters.add('pub_a', { imps: 3, impsFilled: 3 });
    expect(await ev.evaluateOnce()).toEqual([]);
    h.counters.add('pub_a', { imps: 7, impsFilled: 7 });
    expect(await ev.evaluateOnce()).toEqual([expect.objectContaining({ state: 'resolved', value: 1 })]);
  });

  it('a deleted rule is not evaluated; two evaluators on one store emit a transition once', async () => {
    await h.store.reporting.createAlertRule(rule('rule_a', { comparator: 'below', threshold: 1 }));
    await h.store.reporting.createAlertRule(rule('rule_gone', { comparator: 'below', threshold: 1 }));
    await h.store.reporting.deleteAlertRule('rule_gone');
    const [a, b] = [evaluator(), evaluator()];
    const results = await Promise.all([a.evaluateOnce(), b.evaluateOnce()]);
    expect(results.flat().map((t) => t.ruleId)).toEqual(['rule_a']);
    expect(await h.outbox('alert.threshold')).toHaveLength(1);
  });
});
