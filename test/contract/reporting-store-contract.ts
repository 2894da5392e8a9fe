/**
 * The storage contract for reporting state (`ReportingStore`, DESIGN sections 6-7): alert rules
 * and their compare-and-set transitions and daily deliveries recorded once, each with
 * its outbox rows in the same transaction and only when the change took effect. Registered by
 * `defineStoreContract` inside its describe block, so it runs on every backend.
 */
import { describe, expect, it } from 'vitest';
import type { AlertRuleRecord, Store } from '../../src/storage/ports.js';
import { message, T0 } from './records.js';

function rule(id: string, overrides: Partial<AlertRuleRecord> = {}): AlertRuleRecord {
  return { id, metric: 'revenue', comparator: 'above', threshold: 12_500_000, windowMinutes: 15, publisherId: null, createdAtMs: T0, ...overrides };
}

/** Registers the reporting storage tests; `getStore` answers the current test's store. */
export function defineReportingStoreContract(getStore: () => Store): void {
  describe('reporting', () => {
    it('alert rules round-trip (decimal fill-rate thresholds too), list oldest first, delete once', async () => {
      const store = getStore();
      const a = rule('rule_a', { createdAtMs: T0 + 2 });
      const b = rule('rule_b', { metric: 'fill_rate', comparator: 'below', threshold: 0.35, windowMinutes: 60, publisherId: 'pub_1', createdAtMs: T0 + 1 });
      await store.reporting.createAlertRule(a);
      await store.reporting.createAlertRule(b);
      expect(await store.reporting.getAlertRule('rule_a')).toEqual(a);
      expect(await store.reporting.getAlertRule('rule_none')).toBeUndefined();
      expect(await store.reporting.listAlertRules()).toEqual([b, a]);
      await expect(store.reporting.createAlertRule(a)).rejects.toThrow();
      expect(await store.reporting.deleteAlertRule('rule_a')).toBe(true);
      expect(await store.reporting.deleteAlertRule('rule_a')).toBe(false);
      expect(await store.reporting.listAlertRules()).toEqual([b]);
    });

    it('transitionAlert is a compare-and-set writing its messages only when it applies', async () => {
      const store = getStore();
      await store.reporting.createAlertRule(rule('rule_a'));
      const triggered = { ruleId: 'rule_a', state: 'triggered' as const, alertId: 'alert_1', changedAtMs: T0 + 10 };
      expect(await store.reporting.transitionAlert('triggered', triggered, [message('msg_x')])).toBe(false);
      expect(await store.reporting.transitionAlert('idle', triggered, [message('msg_1')])).toBe(true);
      expect(await store.reporting.transitionAlert('idle', triggered, [message('msg_2')])).toBe(false);
      expect(await store.reporting.listAlertStates()).toEqual([triggered]);
      const resolved = { ...triggered, state: 'resolved' as const, changedAtMs: T0 + 20 };
      expect(await store.reporting.transitionAlert('triggered', resolved, [message('msg_3')])).toBe(true);
      expect(await store.reporting.listAlertStates()).toEqual([resolved]);
      expect(await store.outbox.get('msg_1')).toBeDefined();
      expect(await store.outbox.get('msg_3')).toBeDefined();
      expect(await store.outbox.get('msg_x')).toBeUndefined();
      expect(await store.outbox.get('msg_2')).toBeUndefined();
      // A deleted rule loses its state and takes no transition.
      expect(await store.reporting.deleteAlertRule('rule_a')).toBe(true);
      expect(await store.reporting.listAlertStates()).toEqual([]);
      expect(await store.reporting.transitionAlert('idle', triggered, [message('msg_4')])).toBe(false);
      expect(await store.outbox.get('msg_4')).toBeUndefined();
    });

    it('recordReportDelivery records a publisher-day once, with its messages once', async () => {
      const store = getStore();
      const delivery = { date: '2026-01-01', publisherId: 'pub_1', deliveredAtMs: T0 };
      expect(await store.reporting.recordReportDelivery(delivery, [message('msg_1')])).toBe(true);
      expect(await store.reporting.recordReportDelivery({ ...delivery, deliveredAtMs: T0 + 1 }, [message('msg_2')])).toBe(false);
      expect(await store.reporting.recordReportDelivery({ ...delivery, publisherId: 'pub_0' }, [])).toBe(true);
      expect(await store.reporting.listReportDeliveries('2026-01-01')).toEqual(['pub_0', 'pub_1']);
      expect(await store.reporting.listReportDeliveries('2026-01-02')).toEqual([]);
      expect(await store.outbox.get('msg_1')).toBeDefined();
      expect(await store.outbox.get('msg_2')).toBeUndefined();
    });
  });
}
