/**
 * Load shedding (DESIGN section 2): under overload the bid endpoint answers 204 at once rather
 * than late. Three signals: requests in flight above `maxInFlight` (a fixed ceiling, immediate),
 * requests in flight above the ADAPTIVE limit (below), and event-loop delay above
 * `maxEventLoopDelayMs` SUSTAINED for `sustainMs` (issue 15).
 *
 * The adaptive limit (`createAdaptiveLimit`, issue 15: 2x saturation must not make answers late)
 * is the concurrency a single-threaded exchange can carry while answers stay inside their
 * deadline. Past saturation, every admitted request shares the event loop with all the others, so
 * admitting more only makes each one slower until they all miss tmax (measured at 2x saturation
 * with only the fixed ceiling: p50 105 ms with tmax 100, 7,762 answers late at the exchange in
 * 8 s). The limit is AIMD on how close admitted answers come to their deadline, per window of
 * completions (after TCP's congestion window and Netflix's concurrency-limits): the worst slack
 * (tmax minus latency) of a window under `dangerSlackMs` halves it, under 1.5 times that cuts it
 * by 10%, and otherwise it grows by 5% while it is what holds requests back. A slow partner does not
 * shrink it: partners are cut at tmax minus the margin, and `dangerSlackMs` is half that margin.
 * While the event loop is congested (a sampled delay p99 over `congestedLoopDelayMs` in the
 * window), an answer within `cautionSlackMs` (3 x danger) also cuts it by 10%: then the time
 * answers take is the exchange's own queueing, and a full GC (a 22 ms pause was measured at 2x
 * saturation) must not push them past tmax. A slow partner with an idle loop keeps the 10 ms rule
 * only, so partners answering near their deadline do not shrink the limit.
 * Two more signals were tried and dropped. Latency relative to an unloaded level: under 2x load
 * the time an admitted request takes is set largely by the shed requests read in the same
 * event-loop turns, not by how many are admitted, so that rule drove the limit to its floor
 * (goodput 500/s). Time not spent waiting on partners ("own time"): a partner call's measured
 * latency includes the event-loop turns its answer waited for, so under CPU overload nearly all
 * of a request's time shows as partner wait and the signal never fired.
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
  /** The reason to shed now (`in_flight`, `adaptive_limit` or `event_loop_delay`), or undefined to go on. */
  shouldShed(): 'in_flight' | 'adaptive_limit' | 'event_loop_delay' | undefined;
  /** Marks a request started / finished (in-flight count). */
  begin(): void;
  end(): void;
  /** Records an admitted request's answer (`latencyMs` from arrival, its `tmaxMs`, at monotonic `nowMs`) for the adaptive limit. */
  answered(latencyMs: number, tmaxMs: number, nowMs: number): void;
  /**
   * Current in-flight count, adaptive limit (`Infinity` when off), last measured event-loop delay
   * p99 (ms) and whether delay is sustained.
   */
  state(): { inFlight: number; limit: number; eventLoopDelayMs: number; sustainedDelay: boolean };
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

/** Settings of `createAdaptiveLimit`. Durations in ms. */
export interface AdaptiveLimitOptions {
  /** Starting limit (default 100). */
  initial?: number;
  /** Never below this (default 8, or `initial` when smaller: a burst of a few requests is always served). */
  min?: number;
  /** Never above this (the fixed `maxInFlight`). */
  max: number;
  /** An answer with less slack than this before its tmax is a danger signal (default 10). */
  dangerSlackMs?: number;
  /** Length of one measurement window (default 100). */
  windowMs?: number;
  /**
   * While the event loop is congested, an answer with less slack than this cuts the limit by
   * 10% (default 3 x `dangerSlackMs`). Keeps room for a full GC's pause under saturation.
   */
  cautionSlackMs?: number;
  /** Event-loop delay (p99 of a sampling window, ms) above which the loop counts as congested (default 5). */
  congestedLoopDelayMs?: number;
}

/** The adaptive concurrency limit (see the module comment); fed by completions, pure (no timers). */
export interface AdaptiveLimit {
  /**
   * Records one admitted request's answer: `latencyMs` from arrival, its `tmaxMs`, at monotonic
   * `nowMs`. Closes the current window (and adjusts the limit) when `nowMs` is past its end.
   */
  record(latencyMs: number, tmaxMs: number, nowMs: number): void;
  /** Notes the in-flight count when a request is admitted (whether the limit is what binds). */
  admitted(inFlight: number): void;
  /** Notes a sampled event-loop delay (p99 of a sampling window, ms); the worst of a window counts. */
  loopDelay(delayMs: number): void;
  /** The current limit (requests in flight). */
  limit(): number;
}

/** Creates the adaptive limit. */
export function createAdaptiveLimit(options: AdaptiveLimitOptions): AdaptiveLimit {
  const initial = Math.max(1, options.initial ?? 100);
  const min = Math.max(1, options.min ?? Math.min(8, initial));
  const max = Math.max(min, options.max);
  const dangerSlackMs = options.dangerSlackMs ?? 10;
  const windowMs = options.windowMs ?? 100;
  const cautionSlackMs = options.cautionSlackMs ?? 3 * dangerSlackMs;
  const congestedLoopDelayMs = options.congestedLoopDelayMs ?? 5;
  let limit = Math.min(max, Math.max(min, initial));
  let windowEndMs: number | undefined;
  let count = 0;
  let worstSlackMs = Infinity;
  let peakInFlight = 0;
  let worstLoopDelayMs = 0;

  function close(): void {
    const congested = worstLoopDelayMs > congestedLoopDelayMs;
    if (worstSlackMs < dangerSlackMs) limit = Math.max(min, Math.floor(limit / 2));
    else if (worstSlackMs < 1.5 * dangerSlackMs || (congested && worstSlackMs < cautionSlackMs)) limit = Math.max(min, Math.floor(limit * 0.9));
    else if (peakInFlight >= limit * 0.8) limit = Math.min(max, limit + Math.max(1, Math.round(limit * 0.05)));
    count = 0;
    worstSlackMs = Infinity;
    peakInFlight = 0;
    worstLoopDelayMs = 0;
  }

  return {
    record(latencyMs, tmaxMs, nowMs) {
      if (windowEndMs === undefined) windowEndMs = nowMs + windowMs;
      if (nowMs >= windowEndMs && count > 0) {
        close();
        windowEndMs = nowMs + windowMs;
      }
      count++;
      worstSlackMs = Math.min(worstSlackMs, tmaxMs - latencyMs);
    },
    admitted(inFlight) {
      if (inFlight > peakInFlight) peakInFlight = inFlight;
    },
    loopDelay(delayMs) {
      if (delayMs > worstLoopDelayMs) worstLoopDelayMs = delayMs;
    },
    limit: () => limit,
  };
}

/** Options of `createLoadShedder`. */
export interface LoadShedderOptions {
  /** Fixed ceiling of bid requests in flight (`overload.maxInFlight`). */
  maxInFlight: number;
  /** Starting value of the adaptive limit (`overload.initialLimit`, default 100); 0 turns the adaptive limit off. */
  initialLimit?: number;
  /** Slack before tmax under which an answer cuts the adaptive limit, ms (default 10). */
  dangerSlackMs?: number;
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
  const adaptive = options.initialLimit === 0 ? undefined : createAdaptiveLimit({ initial: options.initialLimit, max: options.maxInFlight, dangerSlackMs: options.dangerSlackMs });
  const histogram: IntervalHistogram = monitorEventLoopDelay({ resolution: resolutionMs });
  histogram.enable();
  const timer = setInterval(() => {
    // A window without a sample carries no information: after reset() the monitor's next tick
    // only re-arms (no sample), so when every window holds one long task, every other window is
    // empty. Counting those as "no delay" would break a run of over-threshold windows in two.
    if (histogram.count === 0) return;
    // percentile() is in ns and includes the sampling interval itself, which is not delay.
    const delayMs = Math.max(0, histogram.percentile(99) / 1e6 - resolutionMs);
    tracker.record(delayMs, performance.now());
    adaptive?.loopDelay(delayMs);
    histogram.reset();
  }, sampleIntervalMs);
  timer.unref();
  return {
    shouldShed() {
      if (inFlight >= options.maxInFlight) return 'in_flight';
      if (adaptive !== undefined && inFlight >= adaptive.limit()) return 'adaptive_limit';
      // Lag with nothing in flight is not request load (a sync admin write, a timer burst):
      // shedding would not relieve it, so only sustained lag under concurrent load sheds.
      if (inFlight > 0 && tracker.sustained()) return 'event_loop_delay';
      return undefined;
    },
    begin() {
      inFlight++;
      adaptive?.admitted(inFlight);
    },
    end() {
      inFlight--;
    },
    answered(latencyMs, tmaxMs, nowMs) {
      adaptive?.record(latencyMs, tmaxMs, nowMs);
    },
    state: () => ({ inFlight, limit: adaptive?.limit() ?? Infinity, eventLoopDelayMs: tracker.lastMs(), sustainedDelay: tracker.sustained() }),
    stop() {
      clearInterval(timer);
      histogram.disable();
    },
  };
}
