/**
 * The shedder's event-loop rule (issue 15): one window over the threshold (a GC, a start-up
 * compile) never sheds; only `windowsNeeded` consecutive windows do, and the first window back
 * under the threshold ends it. Windows are fed directly: no timers, no sleeping.
 */
import { describe, expect, it } from 'vitest';
import { createDelayTracker, createLoadShedder } from '../../src/http/bid/overload.js';

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
