/**
 * Load shedding (DESIGN section 2): under overload the bid endpoint answers 204 at once rather
 * than late. Two signals: requests in flight above `maxInFlight`, and event-loop delay (p99 of
 * the last sampling window, `perf_hooks.monitorEventLoopDelay`) above `maxEventLoopDelayMs`.
 */
import { monitorEventLoopDelay, type IntervalHistogram } from 'node:perf_hooks';

/** Decides whether a new bid request is shed. */
export interface LoadShedder {
  /** The reason to shed now (`in_flight` or `event_loop_delay`), or undefined to go on. */
  shouldShed(): 'in_flight' | 'event_loop_delay' | undefined;
  /** Marks a request started / finished (in-flight count). */
  begin(): void;
  end(): void;
  /** Current in-flight count and last measured event-loop delay p99, ms. */
  state(): { inFlight: number; eventLoopDelayMs: number };
  stop(): void;
}

/** Creates a shedder sampling event-loop delay every `sampleIntervalMs` (default 200 ms). */
export function createLoadShedder(options: { maxInFlight: number; maxEventLoopDelayMs: number; sampleIntervalMs?: number }): LoadShedder {
  let inFlight = 0;
  let delayMs = 0;
  const resolutionMs = 10;
  const histogram: IntervalHistogram = monitorEventLoopDelay({ resolution: resolutionMs });
  histogram.enable();
  const timer = setInterval(() => {
    // percentile() is in ns and includes the sampling interval itself, which is not delay.
    delayMs = histogram.count > 0 ? Math.max(0, histogram.percentile(99) / 1e6 - resolutionMs) : 0;
    histogram.reset();
  }, options.sampleIntervalMs ?? 200);
  timer.unref();
  return {
    shouldShed() {
      if (inFlight >= options.maxInFlight) return 'in_flight';
      // Lag with nothing in flight is not request load (start-up, a GC pause, a sync admin write):
      // shedding would not relieve it, so only lag under concurrent load sheds.
      if (delayMs > options.maxEventLoopDelayMs && inFlight > 0) return 'event_loop_delay';
      return undefined;
    },
    begin() {
      inFlight++;
    },
    end() {
      inFlight--;
    },
    state: () => ({ inFlight, eventLoopDelayMs: delayMs }),
    stop() {
      clearInterval(timer);
      histogram.disable();
    },
  };
}
