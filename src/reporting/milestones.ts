/**
 * Revenue milestones (DESIGN sections 6 and 9, `revenue.milestone`, `ADX_REVENUE_MILESTONES`):
 * when a publisher's cumulative net revenue (all time, flushed and unflushed counts) reaches each
 * configured amount, one event, once ever. Reached milestones are recorded in the store with their
 * outbox rows in one transaction (`ReportingStore.recordMilestones`, insert-if-absent), so a
 * restart, a second tracker or a second node never sends one twice. A jump past several amounts
 * at once sends one event per amount, each with the same `revenue_total`.
 *
 * Cost: summing every minute row of all time on each check would grow with history, so the tracker
 * keeps per-publisher sums of "settled" minutes (older than `settledAfterMs`, default 1 h) and on
 * each check adds only the minutes that settled since, then reads the recent minutes plus the
 * pending deltas. Counts flushed into a minute after it settled (a store outage longer than that)
 * are seen by the next tracker built (a restart), not by this one.
 */
import { createPeriodicTask } from './periodic-task.js';
import type { Clock } from '../domain/clock.js';
import { toMicros, type Micros } from '../domain/money.js';
import type { EventEmitter } from '../events/emitter.js';
import { revenueMilestonePayload } from '../events/payloads.js';
import type { Logger } from '../observability/logger.js';
import type { MilestoneRecord, Store } from '../storage/ports.js';
import { minuteStartOf } from './counters.js';
import { rangeTotals, type PendingCounters } from './range-totals.js';

/** Default milestones (`ADX_REVENUE_MILESTONES` = 100, 1000, 10000, 100000 USD), micros. */
export const DEFAULT_REVENUE_MILESTONES_MICROS: readonly Micros[] = [100, 1000, 10_000, 100_000].map((usd) => usd * 1_000_000);
/** Default of {@link MilestoneTrackerDeps.intervalMs}, ms. */
export const DEFAULT_MILESTONE_INTERVAL_MS = 60_000;
/** Default of {@link MilestoneTrackerDeps.settledAfterMs}: minutes older than this are summed once. */
export const DEFAULT_SETTLED_AFTER_MS = 3_600_000;

/**
 * Parses `ADX_REVENUE_MILESTONES`: comma-separated decimal USD amounts (`100, 1000, 2500.50`),
 * each > 0 with at most 6 decimals. Answers micros, ascending, without duplicates; an empty or
 * blank text answers [] (no milestones).
 * @throws Error naming the offending entry for anything else (`abc`, `-5`, `0`, `1,,2`, `1e3`).
 */
export function parseMilestones(text: string): Micros[] {
  if (text.trim() === '') return [];
  const out = new Set<Micros>();
  for (const raw of text.split(',')) {
    const entry = raw.trim();
    if (!/^\d+(\.\d{1,6})?$/.test(entry)) throw new Error(`revenue milestones: ${JSON.stringify(entry)} is not a decimal amount like 100 or 2500.50`);
    const micros = toMicros(Number(entry));
    if (!(micros > 0) || !Number.isSafeInteger(micros)) throw new Error(`revenue milestones: ${JSON.stringify(entry)} must be a positive amount`);
    out.add(micros);
  }
  return [...out].sort((a, b) => a - b);
}

/** What the tracker needs. */
export interface MilestoneTrackerDeps {
  store: Pick<Store, 'counters' | 'reporting'>;
  /** The counter aggregator, for the counts not yet flushed. */
  counters: PendingCounters;
  /** Builds the outbox rows; refreshed before milestones are recorded. */
  emitter: Pick<EventEmitter, 'messagesFor' | 'refresh'>;
  clock: Clock;
  log: Pick<Logger, 'info' | 'warn'>;
  /** Milestones, USD micros (amounts), e.g. from {@link parseMilestones}; default {@link DEFAULT_REVENUE_MILESTONES_MICROS}. */
  milestonesMicros?: readonly Micros[];
  /** How often the timer checks, ms; default 60 s. */
  intervalMs?: number;
  /** Age after which a minute's counts are summed once and cached, ms; default 1 h. */
  settledAfterMs?: number;
}

/** The tracker. */
export interface MilestoneTracker {
  /** Starts the periodic check (timer unref'd). Idempotent. */
  start(): void;
  /** Stops the timer and waits for a check in progress. */
  stop(): Promise<void>;
  /**
   * One check: records (with their events) the milestones newly reached and answers them.
   * Concurrent calls share the check in progress. Rejects with the store's error.
   */
  checkOnce(): Promise<MilestoneRecord[]>;
}

/** Builds the tracker; it does nothing until `start()` or `checkOnce()`. */
export function createMilestoneTracker(deps: MilestoneTrackerDeps): MilestoneTracker {
  const { store, counters, emitter, clock, log } = deps;
  const milestones = [...(deps.milestonesMicros ?? DEFAULT_REVENUE_MILESTONES_MICROS)].sort((a, b) => a - b);
  const intervalMs = deps.intervalMs ?? DEFAULT_MILESTONE_INTERVAL_MS;
  const settledAfterMs = deps.settledAfterMs ?? DEFAULT_SETTLED_AFTER_MS;
  if (!(intervalMs > 0) || !(settledAfterMs >= 0)) throw new Error('milestone tracker: intervalMs > 0 and settledAfterMs >= 0');

  /** Net revenue per publisher over minutes before `settledUntilMs`. */
  const settled = new Map<string, Micros>();
  let settledUntilMs = 0;
  /** `${publisherId}\0${milestone}` of milestones known reached; loaded on the first check. */
  let reached: Set<string> | undefined;

  const key = (publisherId: string, milestone: Micros): string => `${publisherId}\u0000${milestone}`;

  const check = async (): Promise<MilestoneRecord[]> => {
    if (milestones.length === 0) return [];
    if (reached === undefined) {
      reached = new Set((await store.reporting.listMilestones()).map((m) => key(m.publisherId, m.milestoneMicros)));
    }
    const nowMs = clock.now();
    const newSettledUntilMs = Math.max(settledUntilMs, minuteStartOf(nowMs - settledAfterMs));
    if (newSettledUntilMs > settledUntilMs) {
      for (const row of await store.counters.totals(settledUntilMs, newSettledUntilMs)) {
        settled.set(row.publisherId, (settled.get(row.publisherId) ?? 0) + row.revenueNetMicros);
      }
      settledUntilMs = newSettledUntilMs;
    }
    const cumulative = new Map(settled);
    for (const row of await rangeTotals({ store, counters }, settledUntilMs, Number.MAX_SAFE_INTEGER)) {
      cumulative.set(row.publisherId, (cumulative.get(row.publisherId) ?? 0) + row.revenueNetMicros);
    }

    const due: { publisherId: string; milestone: Micros; totalMicros: Micros }[] = [];
    for (const [publisherId, totalMicros] of cumulative) {
      for (const milestone of milestones) {
        if (totalMicros < milestone) break;
        if (!reached.has(key(publisherId, milestone))) due.push({ publisherId, milestone, totalMicros });
      }
    }
    if (due.length === 0) return [];

    await emitter.refresh();
    const entries = due.map(({ publisherId, milestone, totalMicros }) => ({
      milestone: { publisherId, milestoneMicros: milestone, reachedAtMs: nowMs },
      messages: emitter.messagesFor(revenueMilestonePayload({ publisherId, milestoneMicros: milestone, revenueTotalMicros: totalMicros, nowMs }), publisherId),
    }));
    const inserted = await store.reporting.recordMilestones(entries);
    for (const { publisherId, milestone } of due) reached.add(key(publisherId, milestone));
    for (const m of inserted) log.info({ publisherId: m.publisherId, milestoneMicros: m.milestoneMicros }, 'revenue.milestone');
    return inserted;
  };

  const task = createPeriodicTask({
    run: check,
    intervalMs,
    log,
    what: 'revenue milestone check',
  });

  return {
    start: task.start,
    stop: task.stop,
    checkOnce: task.runOnce,
  };
}
