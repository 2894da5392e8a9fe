/**
 * Per-key request rate limits for browser supply (DESIGN section 2): a token bucket per key
 * (publisher id, client IP) refilled at `perSecond` with a burst of `perSecond` (at least 1, so a
 * fractional limit such as 0.5 per second still lets one request through), on the injected
 * clock. `perSecond` 0 turns a limit off. Keys idle for a minute are forgotten, so the map stays
 * bounded by the active keys.
 */
import type { Clock } from '../../domain/clock.js';

/** A rate limiter over string keys. */
export interface RateLimiter {
  /** Takes one token for `key`: 0 when allowed, else the seconds to wait (for `Retry-After`, at least 1). */
  take(key: string): number;
}

/** Creates a limiter allowing `perSecond` requests per key and second (0 = unlimited). */
export function createRateLimiter(options: { perSecond: number; clock: Clock }): RateLimiter {
  const { perSecond, clock } = options;
  const burst = Math.max(1, perSecond);
  const buckets = new Map<string, { tokens: number; atMs: number }>();
  let lastSweepMs = clock.monotonicMs();
  return {
    take(key) {
      if (perSecond <= 0) return 0;
      const now = clock.monotonicMs();
      if (now - lastSweepMs > 60_000) {
        for (const [k, b] of buckets) if (now - b.atMs > 60_000) buckets.delete(k);
        lastSweepMs = now;
      }
      let bucket = buckets.get(key);
      if (!bucket) {
        bucket = { tokens: burst, atMs: now };
        buckets.set(key, bucket);
      } else {
        bucket.tokens = Math.min(burst, bucket.tokens + ((now - bucket.atMs) / 1000) * perSecond);
        bucket.atMs = now;
      }
      if (bucket.tokens >= 1) {
        bucket.tokens -= 1;
        return 0;
      }
      return Math.max(1, Math.ceil((1 - bucket.tokens) / perSecond));
    },
  };
}
