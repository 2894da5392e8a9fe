/**
 * The `report.daily` scheduler (DESIGN sections 6-7): after each UTC day closes, plus `delayMs`
 * (default 5 min, so the last notices and the last counter flush land), one `report.daily` event
 * per publisher with activity that day, to every endpoint subscribed to it (publisher-scoped or
 * global: the emitter routes).
 *
 * Surviving restarts: a mark in `settings` names the last closed day fully processed, and every
 * (day, publisher) sent is recorded with its outbox rows in one transaction
 * (`ReportingStore.recordReportDelivery`). Each tick processes every due day after the mark, at
 * most `maxCatchUpDays` back (older missed days are skipped with a warning), sending only the
 * publisher-days not yet recorded, then moves the mark. So a day missed while the process was down
 * goes out once when it comes back, and a crash mid-day resends nothing already recorded. The very
 * first start (no mark) begins with the current day: history before it is never sent.
 *
 * `deliver(date)` (the admin API) sends a day's reports again, or today's so far, whatever the
 * record says, and records nothing: the scheduled send of a day still happens at its close.
 */
import { createPeriodicTask } from './periodic-task.js';
import type { Clock } from '../domain/clock.js';
import type { EventEmitter } from '../events/emitter.js';
import type { Logger } from '../observability/logger.js';
import type { OutboxMessage, Store } from '../storage/ports.js';
import { computeDailyReports, requireUtcDate, toReportDailyPayload, type DailyReport } from './daily-report.js';
import type { PendingCounters } from './range-totals.js';
import { DAY_MS, formatUtcDate, parseUtcDate, utcDayStart } from './utc-day.js';

/** Settings key of the scheduler's mark: the last closed UTC day processed (`YYYY-MM-DD`). */
export const REPORT_MARK_SETTING = 'report_daily_last_day';

/** Default of {@link ReportSchedulerDeps.delayMs}: 5 minutes after the day closes. */
export const DEFAULT_REPORT_DELAY_MS = 5 * 60_000;
/** Default of {@link ReportSchedulerDeps.intervalMs}: check once a minute. */
export const DEFAULT_REPORT_INTERVAL_MS = 60_000;
/** Default of {@link ReportSchedulerDeps.maxCatchUpDays}. */
export const DEFAULT_MAX_CATCH_UP_DAYS = 7;

/** What the scheduler needs. */
export interface ReportSchedulerDeps {
  store: Pick<Store, 'counters' | 'settings' | 'outbox' | 'reporting'>;
  /** The counter aggregator: unflushed counts, read with the store's as one snapshot. */
  counters: PendingCounters;
  /** Builds the outbox rows; refreshed before each send so endpoints added on other nodes count. */
  emitter: Pick<EventEmitter, 'messagesFor' | 'refresh'>;
  clock: Clock;
  log: Pick<Logger, 'info' | 'warn'>;
  /** Wait after a UTC day closes before its reports go out, ms; default 5 min. */
  delayMs?: number;
  /** How often the timer checks for due days, ms; default 60 s. */
  intervalMs?: number;
  /** Most closed days sent after downtime, counting back from the latest due one; default 7. */
  maxCatchUpDays?: number;
  /**
   * Cluster-wide singleton (PostgreSQL advisory lock): timer runs happen only on the leader. The
   * store's once-per-day records already prevent duplicates; this keeps the other nodes idle.
   * `deliver()` from the admin API is not gated. Default: always leader (SQLite, one node).
   */
  leader?: { isLeader(): Promise<boolean> };
}

/** The scheduler. */
export interface ReportScheduler {
  /** Starts the periodic check (timer unref'd) and runs one now. Idempotent. */
  start(): void;
  /** Stops the timer and waits for a check in progress. */
  stop(): Promise<void>;
  /**
   * One check: sends every due day after the mark (see the module comment) and answers how many
   * `report.daily` events it recorded. Concurrent calls share the check in progress. Rejects with
   * the store's error (the mark then stays where it was, so the next check retries).
   */
  runOnce(): Promise<number>;
  /**
   * Sends the `report.daily` events of `date` now (again, or today's so far), not recorded as the
   * scheduled send. `events` = reports built (publishers with activity), `messages` = outbox rows
   * written (one per subscribed endpoint per report).
   * @throws AdxError `invalid_request` (field `date`) for a malformed date.
   */
  deliver(date: string): Promise<{ events: number; messages: number }>;
  /** The reports of `date` (one publisher's when given), counts not yet flushed included. */
  report(date: string, publisherId?: string): Promise<DailyReport[]>;
}

/** Builds the scheduler; it does nothing until `start()`, `runOnce()` or `deliver()`. */
export function createReportScheduler(deps: ReportSchedulerDeps): ReportScheduler {
  const { store, counters, emitter, clock, log } = deps;
  const delayMs = deps.delayMs ?? DEFAULT_REPORT_DELAY_MS;
  const intervalMs = deps.intervalMs ?? DEFAULT_REPORT_INTERVAL_MS;
  const maxCatchUpDays = deps.maxCatchUpDays ?? DEFAULT_MAX_CATCH_UP_DAYS;
  if (!(delayMs >= 0) || !(intervalMs > 0) || !(maxCatchUpDays >= 1)) throw new Error('report scheduler: delayMs >= 0, intervalMs > 0, maxCatchUpDays >= 1');


  const report = (date: string, publisherId?: string): Promise<DailyReport[]> => computeDailyReports({ store, counters, date, publisherId });

  const messagesOf = (r: DailyReport, nowMs: number): OutboxMessage[] => emitter.messagesFor(toReportDailyPayload(r, nowMs), r.publisherId);

  /** Sends the not yet recorded reports of the closed day starting at `dayStartMs`; answers how many. */
  const sendDay = async (dayStartMs: number): Promise<number> => {
    const date = formatUtcDate(dayStartMs);
    const reports = await report(date);
    const done = new Set(await store.reporting.listReportDeliveries(date));
    let sent = 0;
    for (const r of reports) {
      if (done.has(r.publisherId)) continue;
      const nowMs = clock.now();
      if (await store.reporting.recordReportDelivery({ date, publisherId: r.publisherId, deliveredAtMs: nowMs }, messagesOf(r, nowMs))) sent++;
    }
    await store.settings.set(REPORT_MARK_SETTING, date);
    return sent;
  };

  const check = async (): Promise<number> => {
    const nowMs = clock.now();
    // Day D is due once D's end (the next day's start) + delay has passed.
    const lastDueStartMs = utcDayStart(nowMs - delayMs) - DAY_MS;
    const firstMark = formatUtcDate(utcDayStart(nowMs) - DAY_MS);
    const mark = await store.settings.setIfAbsent(REPORT_MARK_SETTING, firstMark);
    let markStartMs = parseUtcDate(mark);
    if (markStartMs === undefined) {
      // A damaged mark must not stop reporting for good: start over as on a first start.
      log.warn({ mark }, 'report.daily: unreadable scheduler mark; starting from the current day');
      await store.settings.set(REPORT_MARK_SETTING, firstMark);
      markStartMs = utcDayStart(nowMs) - DAY_MS;
    }
    if (markStartMs >= lastDueStartMs) return 0;
    let fromMs = markStartMs + DAY_MS;
    const oldestMs = lastDueStartMs - (maxCatchUpDays - 1) * DAY_MS;
    if (fromMs < oldestMs) {
      log.warn({ from: formatUtcDate(fromMs), to: formatUtcDate(oldestMs - DAY_MS) }, 'report.daily: days missed beyond the catch-up limit are not sent');
      fromMs = oldestMs;
    }
    // Endpoints created on another node since the last reload must get these events too.
    await emitter.refresh();
    let sent = 0;
    for (let dayMs = fromMs; dayMs <= lastDueStartMs; dayMs += DAY_MS) sent += await sendDay(dayMs);
    if (sent > 0) log.info({ events: sent, through: formatUtcDate(lastDueStartMs) }, 'report.daily events recorded');
    return sent;
  };

  const task = createPeriodicTask({
    run: check,
    intervalMs,
    log,
    what: 'report.daily check',
    leader: deps.leader,
    runAtStart: true,
  });

  return {
    start: task.start,
    stop: task.stop,
    runOnce: task.runOnce,

    async deliver(date) {
      requireUtcDate(date);
      const reports = await report(date);
      await emitter.refresh();
      const nowMs = clock.now();
      const messages = reports.flatMap((r) => messagesOf(r, nowMs));
      await store.outbox.enqueue(messages);
      return { events: reports.length, messages: messages.length };
    },

    report,
  };
}
