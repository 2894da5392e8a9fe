/**
 * Alert evaluation (DESIGN sections 6-7, `alert.threshold`). Every `intervalMs` each rule's value
 * is measured over its sliding window, the last `window_minutes` UTC minute buckets with the
 * current one included, flushed and unflushed counts together:
 * - `revenue`: net revenue over the window, in the rule's scope (one publisher, or all), USD micros;
 * - `fill_rate`: imps that got a bid / imps over the window.
 * A rule holds when value > threshold (`above`) or value < threshold (`below`).
 *
 * A rule that starts to hold goes to `triggered` with a new alert id and one `triggered` event; one
 * that stops holding while triggered goes to `resolved` with the same alert id and one `resolved`
 * event; nothing else emits, so an unchanged state never repeats and a rule that never held never
 * "resolves". A fill-rate rule whose window holds fewer than `minImpsForFillRate` imps (or none at
 * all, whatever the minimum) keeps its state (too little traffic to judge). State and events are written together, as a compare-and-set
 * on the stored state (`ReportingStore.transitionAlert`), so state survives restarts and two nodes
 * evaluating the same rule emit once.
 */
import { createPeriodicTask } from './periodic-task.js';
import type { Clock } from '../domain/clock.js';
import type { IdGenerator } from '../domain/ids.js';
import type { EventEmitter } from '../events/emitter.js';
import { alertThresholdPayload } from '../events/payloads.js';
import type { Logger } from '../observability/logger.js';
import type { AlertRuleRecord, AlertState, CounterTotals, Store } from '../storage/ports.js';
import { minuteStartOf } from './counters.js';
import { rangeTotals, type PendingCounters, zeroTotals, addTotals } from './range-totals.js';

/** Default of {@link AlertEvaluatorDeps.intervalMs} (`ADX_ALERT_INTERVAL_MS`), ms. */
export const DEFAULT_ALERT_INTERVAL_MS = 60_000;
/** Default of {@link AlertEvaluatorDeps.minImpsForFillRate}. */
export const DEFAULT_MIN_IMPS_FOR_FILL_RATE = 1;

const MINUTE_MS = 60_000;

/** What the evaluator needs. */
export interface AlertEvaluatorDeps {
  store: Pick<Store, 'counters' | 'reporting'>;
  /** The counter aggregator, for the counts not yet flushed. */
  counters: PendingCounters;
  /** Builds the outbox rows; refreshed before a transition is written. */
  emitter: Pick<EventEmitter, 'messagesFor' | 'refresh'>;
  clock: Clock;
  /** Mints alert ids (`alert_...`). */
  ids: IdGenerator;
  log: Pick<Logger, 'info' | 'warn'>;
  /** How often rules are evaluated, ms (`ADX_ALERT_INTERVAL_MS`); default 60 000. */
  intervalMs?: number;
  /** Fewest imps in the window for a fill-rate rule to change state; default 1. */
  minImpsForFillRate?: number;
  /**
   * Cluster-wide singleton (PostgreSQL advisory lock): timer runs happen only on the leader
   * (transitions are compare-and-set in the store anyway). Default: always leader (SQLite).
   */
  leader?: { isLeader(): Promise<boolean> };
}

/** One transition written by an evaluation. */
export interface AlertTransition {
  ruleId: string;
  alertId: string;
  state: 'triggered' | 'resolved';
  /** The measured value: USD micros for revenue, a decimal for fill rate. */
  value: number;
}

/** The evaluator. */
export interface AlertEvaluator {
  /** Starts the periodic evaluation (timer unref'd). Idempotent. */
  start(): void;
  /** Stops the timer and waits for an evaluation in progress. */
  stop(): Promise<void>;
  /**
   * Evaluates every rule once and answers the transitions written. Concurrent calls share the
   * evaluation in progress. Rejects with the store's error (nothing half-written: each transition
   * is its own transaction).
   */
  evaluateOnce(): Promise<AlertTransition[]>;
}

/** A rule's measurement over its window: the value, and whether there was enough traffic to judge. */
interface Measurement {
  value: number;
  judgeable: boolean;
}

/** Whether `value` satisfies the rule's comparison. */
export function ruleHolds(rule: Pick<AlertRuleRecord, 'comparator' | 'threshold'>, value: number): boolean {
  return rule.comparator === 'above' ? value > rule.threshold : value < rule.threshold;
}

/** Builds the evaluator; it does nothing until `start()` or `evaluateOnce()`. */
export function createAlertEvaluator(deps: AlertEvaluatorDeps): AlertEvaluator {
  const { store, counters, emitter, clock, ids, log } = deps;
  const intervalMs = deps.intervalMs ?? DEFAULT_ALERT_INTERVAL_MS;
  const minImps = deps.minImpsForFillRate ?? DEFAULT_MIN_IMPS_FOR_FILL_RATE;
  if (!(intervalMs > 0) || !(minImps >= 0)) throw new Error('alert evaluator: intervalMs > 0 and minImpsForFillRate >= 0');


  const measure = (rule: AlertRuleRecord, rows: CounterTotals[]): Measurement => {
    const sum = zeroTotals(rule.publisherId ?? '*');
    for (const row of rows) if (rule.publisherId === null || row.publisherId === rule.publisherId) addTotals(sum, row);
    if (rule.metric === 'revenue') return { value: sum.revenueNetMicros, judgeable: true };
    return { value: sum.imps === 0 ? 0 : sum.impsFilled / sum.imps, judgeable: sum.imps >= minImps && sum.imps > 0 };
  };

  const evaluate = async (): Promise<AlertTransition[]> => {
    const rules = await store.reporting.listAlertRules();
    if (rules.length === 0) return [];
    const states = new Map((await store.reporting.listAlertStates()).map((s) => [s.ruleId, s]));
    const nowMs = clock.now();
    const windowEndMs = minuteStartOf(nowMs) + MINUTE_MS;
    // One totals read per distinct window length, shared by the rules using it.
    const byWindow = new Map<number, CounterTotals[]>();
    for (const rule of rules) {
      if (!byWindow.has(rule.windowMinutes)) {
        byWindow.set(rule.windowMinutes, await rangeTotals({ store, counters }, windowEndMs - rule.windowMinutes * MINUTE_MS, windowEndMs));
      }
    }

    const planned: { rule: AlertRuleRecord; expected: AlertState; next: AlertTransition }[] = [];
    for (const rule of rules) {
      const { value, judgeable } = measure(rule, byWindow.get(rule.windowMinutes) ?? []);
      if (!judgeable) continue;
      const current = states.get(rule.id);
      const state: AlertState = current?.state ?? 'idle';
      const holds = ruleHolds(rule, value);
      if (holds && state !== 'triggered') {
        planned.push({ rule, expected: state, next: { ruleId: rule.id, alertId: ids.next('alert'), state: 'triggered', value } });
      } else if (!holds && state === 'triggered') {
        planned.push({ rule, expected: state, next: { ruleId: rule.id, alertId: current?.alertId ?? ids.next('alert'), state: 'resolved', value } });
      }
    }
    if (planned.length === 0) return [];

    await emitter.refresh();
    const written: AlertTransition[] = [];
    for (const { rule, expected, next } of planned) {
      const measureFields =
        rule.metric === 'revenue'
          ? ({ metric: 'revenue', thresholdMicros: rule.threshold, valueMicros: next.value } as const)
          : ({ metric: 'fill_rate', threshold: rule.threshold, value: next.value } as const);
      const payload = alertThresholdPayload({
        ...measureFields,
        alertId: next.alertId,
        ruleId: rule.id,
        comparator: rule.comparator,
        windowMinutes: rule.windowMinutes,
        publisherId: rule.publisherId,
        state: next.state,
        nowMs,
      });
      const messages = emitter.messagesFor(payload, rule.publisherId);
      const changed = await store.reporting.transitionAlert(expected, { ruleId: rule.id, state: next.state, alertId: next.alertId, changedAtMs: nowMs }, messages);
      if (changed) {
        written.push(next);
        log.info({ ruleId: rule.id, alertId: next.alertId, state: next.state, value: next.value }, 'alert.threshold');
      }
    }
    return written;
  };

  const task = createPeriodicTask({
    run: evaluate,
    intervalMs,
    log,
    what: 'alert evaluation',
    leader: deps.leader,
  });

  return {
    start: task.start,
    stop: task.stop,
    evaluateOnce: task.runOnce,
  };
}
