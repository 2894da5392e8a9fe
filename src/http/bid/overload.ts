/**
 * Load shedding (DESIGN section 2): under overload the bid endpoint answers 204 at once rather
 * than late. Two signals: requests in flight above `maxInFlight` (immediate), and event-loop
 * delay above `maxEventLoopDelayMs` SUSTAINED for `sustainMs` (issue 15).
 *
 * Event-loop delay is sampled with `perf_hooks.monitorEventLoopDelay` and read as the p99 of
 * each window of `sampleIntervalMs`. One window over the threshold is a pause, not overload: a
 * major GC, a start-up compile, a checkpoint. Shedding on it turned away live traffic right after
 * every start (issue 15: 45-60% of a burst shed). So delay sheds only once consecutive windows
 * over the threshold have lasted `sustainMs` (from the end of the first), and stops at the first
 * window back under it. A pause of any length is one window: the sampling timer fires once after
 * it, never to catch up.
 */
import { monitorEventLoopDelay, type IntervalHistogram } from 'node:perf_hooks';

/** Decides whether a new bid request is shed. */
export interface LoadShedder {
  /** The reason to shed now (`in_flight` or `event_loop_delay`), or undefined to go on. */
  shouldShed(): 'in_flight' | 'event_loop_delay' | undefined;
  /** Marks a request started / finished (in-flight count). */
  begin(): void;
  end(): void;
  /** Current in-flight count, last measured event-loop delay p99 (ms) and whether delay is sustained. */
  state(): { inFlight: number; eventLoopDelayMs: number; sustainedDelay: boolean };
  stop(): void;
}

/** Consecutive-window rule over event-loop delay samples (pure: fed by the shedder's timer or by tests). */
export interface DelayTracker {
  /** Records one sampling window's delay (p99, ms) that ended at `endMs` (monotonic ms). */
  record(windowDelayMs: number, endMs: number): void;
  /**
   * True once consecutive windows over the threshold have spanned `sustainMs`, counted from the
   * end of the first of them (so one window, however long its pause, never is); false again at
   * the first window not over it.
   */
  sustained(): boolean;
  /** The last recorded window's delay, ms. */
  lastMs(): number;
}

/** Creates the consecutive-window rule: over = delay > `maxDelayMs`. */
export function createDelayTracker(options: { maxDelayMs: number; sustainMs: number }): DelayTracker {
  let overSinceMs: number | undefined;
  let lastEndMs = 0;
  let last = 0;
  return {
    record(windowDelayMs, endMs) {
      last = windowDelayMs;
      lastEndMs = endMs;
      if (windowDelayMs > options.maxDelayMs) overSinceMs ??= endMs;
      else overSinceMs = undefined;
    },
    sustained: () => overSinceMs !== undefined && lastEndMs - overSinceMs >= options.sustainMs,
    lastMs: () => last,
  };
}

/** Options of `createLoadShedder`. */
export interface LoadShedderOptions {
  maxInFlight: number;
  /** Event-loop delay threshold, ms (p99 of a sampling window). */
  maxEventLoopDelayMs: number;
  /** How long the delay must stay over the threshold before requests are shed, ms (default 500). */
  sustainMs?: number;
  /** Sampling window, ms (default 100). */
  sampleIntervalMs?: number;
}

/** Creates a shedder sampling event-loop delay every `sampleIntervalMs`. */
export function createLoadShedder(options: LoadShedderOptions): LoadShedder {
  let inFlight = 0;
  const sampleIntervalMs = options.sampleIntervalMs ?? 100;
  const tracker = createDelayTracker({ maxDelayMs: options.maxEventLoopDelayMs, sustainMs: options.sustainMs ?? 500 });
  const resolutionMs = 10;
  const histogram: IntervalHistogram = monitorEventLoopDelay({ resolution: resolutionMs });
  histogram.enable();
  const timer = setInterval(() => {
    // A window without a sample carries no information: after reset() the monitor's next tick
    // only re-arms (no sample), so when every window holds one long task, every other window is
    // empty. Counting those as "no delay" would break a run of over-threshold windows in two.
    if (histogram.count === 0) return;
    // percentile() is in ns and includes the sampling interval itself, which is not delay.
    tracker.record(Math.max(0, histogram.percentile(99) / 1e6 - resolutionMs), performance.now());
    histogram.reset();
  }, sampleIntervalMs);
  timer.unref();
  return {
    shouldShed() {
      if (inFlight >= options.maxInFlight) return 'in_flight';
      // Lag with nothing in flight is not request load (a sync admin write, a timer burst):
      // shedding would not relieve it, so only sustained lag under concurrent load sheds.
      if (inFlight > 0 && tracker.sustained()) return 'event_loop_delay';
      return undefined;
    },
    begin() {
      inFlight++;
    },
    end() {
      inFlight--;
    },
    state: () => ({ inFlight, eventLoopDelayMs: tracker.lastMs(), sustainedDelay: tracker.sustained() }),
    stop() {
      clearInterval(timer);
      histogram.disable();
    },
  };
}
