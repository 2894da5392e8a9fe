/**
 * A background job run on a timer (the report.daily scheduler, alert evaluation, milestones):
 * one run at a time (a call during a run shares it), timer ticks only on the cluster leader when a
 * leader lock is given, failures logged and retried at the next tick, `stop()` waits for a run in
 * progress. Timers are real and unref'd; the work itself reads the injected clock.
 */
import type { Logger } from 'pino';

/** A single-flight job with a periodic trigger. */
export interface PeriodicTask<T> {
  /** Runs the job now, or joins the run in progress. Rejects with the job's error. */
  runOnce(): Promise<T>;
  /** Starts ticking every `intervalMs` (and runs once now when `runAtStart`). Idempotent. */
  start(): void;
  /** Stops ticking and waits for a run in progress (its failure is ignored here). */
  stop(): Promise<void>;
}

/** Creates the task; nothing runs until `start()` or `runOnce()`. */
export function createPeriodicTask<T>(options: {
  run: () => Promise<T>;
  intervalMs: number;
  log: Pick<Logger, 'warn'>;
  /** Names the job in the failure log line. */
  what: string;
  /** Cluster-wide singleton: ticks run only while this answers true. Default: always. */
  leader?: { isLeader(): Promise<boolean> };
  runAtStart?: boolean;
}): PeriodicTask<T> {
  let timer: NodeJS.Timeout | undefined;
  let inProgress: Promise<T> | undefined;

  const runOnce = (): Promise<T> => {
    if (inProgress) return inProgress;
    inProgress = options.run().finally(() => {
      inProgress = undefined;
    });
    return inProgress;
  };

  const tick = (): void => {
    (options.leader ? options.leader.isLeader() : Promise.resolve(true))
      .then((leading) => (leading ? runOnce() : undefined))
      .catch((error: unknown) => options.log.warn({ err: error }, `${options.what} failed; retried at the next tick`));
  };

  return {
    runOnce,
    start() {
      if (timer) return;
      timer = setInterval(tick, options.intervalMs);
      timer.unref();
      if (options.runAtStart) tick();
    },
    async stop() {
      if (timer) clearInterval(timer);
      timer = undefined;
      await inProgress?.catch(() => undefined);
    },
  };
}
