/**
 * The roll-up of the stored series (DESIGN section 7: "default 35 days of minutes, rolled up to
 * hours beyond"): once per interval, on the cluster leader, every minute row of `counters`,
 * `partner_counters` and `latency_histograms` older than the retention (counted back from the
 * start of the current hour) is folded into its hour's first-minute row. Sums never change, so
 * daily reports and hour or day series read the same numbers before and after.
 */
import type { Logger } from 'pino';
import type { Clock } from '../domain/clock.js';
import type { Store } from '../storage/ports.js';
import { createPeriodicTask, type PeriodicTask } from './periodic-task.js';

const HOUR_MS = 3_600_000;
const DAY_MS = 86_400_000;

/** What {@link createSeriesRollup} needs. */
export interface SeriesRollupDeps {
  store: Pick<Store, 'series'>;
  clock: Clock;
  log: Logger;
  /** Days of minute resolution kept (>= 1). */
  minuteRetentionDays: number;
  intervalMs: number;
  /** Only one node rolls up at a time (two at once could count twice). */
  leader?: { isLeader(): Promise<boolean> };
}

/** The hour boundary before which minute rows are rolled up at `nowMs`. */
export function rollupCutoffMs(nowMs: number, minuteRetentionDays: number): number {
  return Math.floor(nowMs / HOUR_MS) * HOUR_MS - minuteRetentionDays * DAY_MS;
}

/** The roll-up job; `runOnce()` answers how many minute rows it folded. Nothing runs until started. */
export function createSeriesRollup(deps: SeriesRollupDeps): PeriodicTask<number> {
  return createPeriodicTask({
    what: 'series roll-up',
    intervalMs: deps.intervalMs,
    log: deps.log,
    leader: deps.leader,
    runAtStart: true,
    run: async () => {
      const folded = await deps.store.series.rollUpMinutes(rollupCutoffMs(deps.clock.now(), deps.minuteRetentionDays));
      if (folded > 0) deps.log.info({ folded }, 'series minute rows rolled up to hours');
      return folded;
    },
  });
}
