/** Token-bucket rate limits for browser supply and Bearer keys (DESIGN section 2), on a ManualClock. */
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/domain/clock.js';
import { createRateLimiter } from '../../src/http/bid/rate-limiter.js';

describe('createRateLimiter', () => {
  it('allows a burst of perSecond, then answers the seconds to wait, and refills with time', () => {
    const clock = new ManualClock();
    const limiter = createRateLimiter({ perSecond: 3, clock });
    expect([limiter.take('a'), limiter.take('a'), limiter.take('a')]).toEqual([0, 0, 0]);
    expect(limiter.take('a')).toBe(1);
    expect(limiter.take('b')).toBe(0); // keys are independent
    clock.advance(340); // a third of a second: one token back
    expect(limiter.take('a')).toBe(0);
    expect(limiter.take('a')).toBeGreaterThanOrEqual(1);
    clock.advance(1000);
    expect([limiter.take('a'), limiter.take('a'), limiter.take('a')]).toEqual([0, 0, 0]);
  });

  it('0 per second turns the limit off', () => {
    const limiter = createRateLimiter({ perSecond: 0, clock: new ManualClock() });
    for (let i = 0; i < 1000; i++) expect(limiter.take('x')).toBe(0);
  });

  it('a fractional limit lets one request through, then asks for more than one second', () => {
    const clock = new ManualClock();
    const limiter = createRateLimiter({ perSecond: 0.25, clock });
    expect(limiter.take('k')).toBe(0);
    expect(limiter.take('k')).toBe(4); // one token every 4 s
    clock.advance(4000);
    expect(limiter.take('k')).toBe(0);
  });
});
