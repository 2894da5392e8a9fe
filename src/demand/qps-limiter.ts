/**
 * Per-partner QPS caps (DESIGN section 7, demand partner `qps_limit`): a token bucket per
 * partner on the injected clock's monotonic time, so tests move a ManualClock instead of
 * sleeping. Capacity is one second's worth of tokens (at least 1), refilled continuously.
 */
import type { Clock } from '../domain/clock.js';

/** Decides whether a partner may be called now. */
export interface QpsLimiter {
  /**
   * Takes one token from `partnerId`'s bucket and answers true, or answers false (and takes
   * nothing) when the bucket is empty. `qpsLimit` in requests per second; null, 0 or a
   * negative or non-finite value means no cap (always true, no bucket kept). A changed limit
   * applies from this call on.
   */
  tryTake(partnerId: string, qpsLimit: number | null): boolean;
}

interface Bucket {
  tokens: number;
  lastMonoMs: number;
  ratePerSecond: number;
}

/** A limiter with one bucket per partner id, full at first use. */
export function createQpsLimiter(deps: { clock: Clock }): QpsLimiter {
  const buckets = new Map<string, Bucket>();
  return {
    tryTake(partnerId, qpsLimit) {
      if (qpsLimit === null || !Number.isFinite(qpsLimit) || qpsLimit <= 0) {
        buckets.delete(partnerId);
        return true;
      }
      const now = deps.clock.monotonicMs();
      const capacity = Math.max(1, qpsLimit);
      let bucket = buckets.get(partnerId);
      if (!bucket) {
        bucket = { tokens: capacity, lastMonoMs: now, ratePerSecond: qpsLimit };
        buckets.set(partnerId, bucket);
      } else {
        bucket.ratePerSecond = qpsLimit;
        const elapsedMs = Math.max(0, now - bucket.lastMonoMs);
        bucket.tokens = Math.min(capacity, bucket.tokens + (elapsedMs * qpsLimit) / 1000);
        bucket.lastMonoMs = now;
      }
      if (bucket.tokens < 1) return false;
      bucket.tokens -= 1;
      return true;
    },
  };
}
