/**
 * The shedder's event-loop rule (issue 15): one window over the threshold (a GC, a start-up
 * compile) never sheds; only `windowsNeeded` consecutive windows do, and the first window back
 * under the threshold ends it. Windows are fed directly: no timers, no sleeping.
 */
import { describe, expect, it } from 'vitest';
import { createAdaptiveLimit, createDelayTracker, createLoadShedder } from '../../src/http/bid/overload.js';

describe('event-loop delay must be sustained to shed', () => {
  it('a single pause of any length is not overload', () => {
    const t = createDelayTracker({ maxDelayMs: 30, sustainMs: 500 });
    t.record(2, 100);
    t.record(900, 1100); // a long GC or a start-up compile: one window, however long
    expect(t.sustained()).toBe(false);
    t.record(3, 1200);
    t.record(45, 1300);
    t.record(2, 1400);
    expect(t.sustained()).toBe(false);
  });

  it('windows over the threshold for sustainMs in a row are overload, until one is back under it', () => {
    const t = createDelayTracker({ maxDelayMs: 30, sustainMs: 300 });
    t.record(31, 100);
    t.record(40, 200);
    t.record(35, 300);
    expect(t.sustained()).toBe(false); // 200 ms since the first over window ended
    t.record(50, 400);
    expect(t.sustained()).toBe(true);
    t.record(30, 500); // at the threshold is not over it
    expect(t.sustained()).toBe(false);
    expect(t.lastMs()).toBe(30);
    t.record(31, 600);
    expect(t.sustained()).toBe(false); // a new run starts from here
  });

  it('in-flight shedding stays immediate', () => {
    const shedder = createLoadShedder({ maxInFlight: 2, maxEventLoopDelayMs: 30 });
    try {
      expect(shedder.shouldShed()).toBeUndefined();
      shedder.begin();
      shedder.begin();
      expect(shedder.shouldShed()).toBe('in_flight');
      shedder.end();
      expect(shedder.shouldShed()).toBeUndefined();
      expect(shedder.state()).toMatchObject({ inFlight: 1, sustainedDelay: false });
    } finally {
      shedder.stop();
    }
  });
});

describe('adaptive in-flight limit (issue 15: never late at 2x saturation)', () => {
  /**
   * Feeds one 100 ms window: `n` answers with `latencyMs` each (tmax 100) and, once it has begun,
   * `peak` requests in flight at an admission. Its first answer closes (and applies) the previous window.
   */
  function window(limit: ReturnType<typeof createAdaptiveLimit>, startMs: number, o: { n?: number; latencyMs: number; peak: number }): void {
    for (let i = 0; i < (o.n ?? 10); i++) {
      limit.record(o.latencyMs, 100, startMs + i);
      if (i === 0) limit.admitted(o.peak);
    }
  }

  it('grows by 5% per window while it is what holds requests back, and not otherwise', () => {
    const limit = createAdaptiveLimit({ initial: 100, max: 2000, dangerSlackMs: 10 });
    window(limit, 0, { latencyMs: 5, peak: 100 });
    window(limit, 100, { latencyMs: 5, peak: 10 }); // applies the first window: binding
    expect(limit.limit()).toBe(105);
    window(limit, 200, { latencyMs: 5, peak: 10 }); // applies the second: 10 in flight, not binding
    expect(limit.limit()).toBe(105);
  });

  it('halves when an answer comes within dangerSlackMs of its tmax, cuts 10% within 1.5 times that', () => {
    const limit = createAdaptiveLimit({ initial: 200, max: 2000, dangerSlackMs: 10 });
    window(limit, 0, { latencyMs: 91, peak: 200 });
    window(limit, 100, { latencyMs: 86, peak: 100 });
    expect(limit.limit()).toBe(100);
    window(limit, 200, { latencyMs: 5, peak: 1 });
    expect(limit.limit()).toBe(90);
  });

  it('a slow partner cut at tmax minus the margin (20 ms) does not shrink it', () => {
    const limit = createAdaptiveLimit({ initial: 100, max: 2000, dangerSlackMs: 10 });
    for (let w = 0; w < 5; w++) window(limit, w * 100, { latencyMs: 82, peak: 100 });
    expect(limit.limit()).toBeGreaterThan(100);
  });

  it('while the event loop is congested, an answer within 3 x dangerSlackMs cuts it by 10%; with an idle loop it does not', () => {
    const congested = createAdaptiveLimit({ initial: 100, max: 2000, dangerSlackMs: 10 });
    const idle = createAdaptiveLimit({ initial: 100, max: 2000, dangerSlackMs: 10 });
    for (const [limit, delayMs] of [
      [congested, 12],
      [idle, 1],
    ] as const) {
      limit.loopDelay(delayMs);
      window(limit, 0, { latencyMs: 75, peak: 100 }); // 25 ms of slack
      window(limit, 100, { latencyMs: 10, peak: 100 }); // closes the first window
    }
    expect(congested.limit()).toBe(90);
    expect(idle.limit()).toBe(105);
  });

  it('the loop delay of one window does not carry into the next', () => {
    const limit = createAdaptiveLimit({ initial: 100, max: 2000, dangerSlackMs: 10 });
    limit.loopDelay(20);
    window(limit, 0, { latencyMs: 10, peak: 100 }); // plenty of slack: grows despite the delay
    window(limit, 100, { latencyMs: 75, peak: 100 }); // closes the first; no delay noted in this one
    window(limit, 200, { latencyMs: 10, peak: 100 }); // closes the second
    expect(limit.limit()).toBe(110);
  });

  it('stays within [min, max]', () => {
    const limit = createAdaptiveLimit({ initial: 50, min: 8, max: 60, dangerSlackMs: 10 });
    for (let w = 0; w < 20; w++) window(limit, w * 100, { latencyMs: 150, peak: 50 });
    expect(limit.limit()).toBe(8);
    for (let w = 20; w < 200; w++) window(limit, w * 100, { latencyMs: 2, peak: 60 });
    expect(limit.limit()).toBe(60);
  });

  it('the shedder sheds for adaptive_limit at the limit, and initialLimit 0 turns it off', () => {
    const on = createLoadShedder({ maxInFlight: 100, initialLimit: 10, maxEventLoopDelayMs: 30 });
    const off = createLoadShedder({ maxInFlight: 100, initialLimit: 0, maxEventLoopDelayMs: 30 });
    try {
      for (let i = 0; i < 10; i++) {
        on.begin();
        off.begin();
      }
      expect(on.shouldShed()).toBe('adaptive_limit');
      expect(on.state().limit).toBe(10);
      expect(off.shouldShed()).toBeUndefined();
      expect(off.state().limit).toBe(Infinity);
    } finally {
      on.stop();
      off.stop();
    }
  });
});
