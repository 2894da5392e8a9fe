/**
 * The injected clock. Every component that needs the time takes a `Clock` in its deps so tests
 * move time instead of sleeping (DESIGN / developers' guide: "Time comes from an injected clock").
 */
export interface Clock {
  /** Wall-clock time, ms since the Unix epoch (UTC). */
  now(): number;
  /** Monotonic time in ms (arbitrary origin), for measuring durations and deadlines. */
  monotonicMs(): number;
}

/** The real clock: `Date.now()` and `performance.now()`. */
export const systemClock: Clock = {
  now: () => Date.now(),
  monotonicMs: () => performance.now(),
};

/**
 * A clock that only moves when told: `advance(ms)` moves both wall and monotonic time.
 * For tests; `set(ms)` jumps the wall clock (monotonic time moves by the same delta).
 */
export class ManualClock implements Clock {
  private wallMs: number;
  private monoMs = 0;

  constructor(startMs: number = Date.UTC(2026, 0, 1)) {
    this.wallMs = startMs;
  }

  now(): number {
    return this.wallMs;
  }

  monotonicMs(): number {
    return this.monoMs;
  }

  /** Moves time forward by `ms` milliseconds. */
  advance(ms: number): void {
    this.wallMs += ms;
    this.monoMs += ms;
  }

  /** Sets the wall clock to `ms` since the epoch; monotonic time follows by the same delta. */
  set(ms: number): void {
    this.monoMs += ms - this.wallMs;
    this.wallMs = ms;
  }
}
