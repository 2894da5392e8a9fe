/**
 * The fixed latency buckets of the stored series (DESIGN section 7: "latency percentiles come from
 * fixed-bucket histograms kept per minute"). A bucket is stored under its inclusive upper bound in
 * ms (`le_ms`, as Prometheus names it), so the stored rows say what they mean on their own; the
 * bounds are those of the live stats (`LATENCY_BOUNDS_MS`), 1 ms wide up to 10 ms and then a few
 * percent wider per step, and the open last bucket is stored as `LATENCY_OPEN_LE_MS`.
 *
 * Histograms add: summing the counts of a bucket over minutes, nodes or subjects gives the
 * histogram of the union, which is why percentiles over any range can be read from the store.
 */
import { LATENCY_BOUNDS_MS } from './live-stats.js';

/** `le_ms` of the open last bucket (latencies above the last bound): the largest 32-bit integer. */
export const LATENCY_OPEN_LE_MS = 2_147_483_647;

/** `le_ms` of every bucket in order: the bounds, then the open bucket. */
export const LATENCY_LE_MS: readonly number[] = [...LATENCY_BOUNDS_MS, LATENCY_OPEN_LE_MS];

/** Index into `LATENCY_LE_MS` of the bucket holding `latencyMs` (ms, >= 0; fractions go to the next bound up). */
export function latencyBucketIndex(latencyMs: number): number {
  let lo = 0;
  let hi = LATENCY_BOUNDS_MS.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (latencyMs <= (LATENCY_BOUNDS_MS[mid] as number)) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

/** The `le_ms` of the bucket holding `latencyMs`. */
export function latencyBucketLe(latencyMs: number): number {
  return LATENCY_LE_MS[latencyBucketIndex(latencyMs)] as number;
}

/**
 * The `p` quantile (0 < p <= 1) of a histogram given as bucket counts, ms: the upper bound of the
 * bucket holding the rank `ceil(p * total)` (so exact to the bucket width, and never below the true
 * value). The open bucket answers the last finite bound ("at least"). 0 for an empty histogram.
 * `buckets` may come in any order and repeat a bound (counts of one bound are added).
 */
export function latencyPercentile(buckets: ReadonlyArray<{ leMs: number; count: number }>, p: number): number {
  const counts = new Map<number, number>();
  let total = 0;
  for (const b of buckets) {
    if (b.count <= 0) continue;
    counts.set(b.leMs, (counts.get(b.leMs) ?? 0) + b.count);
    total += b.count;
  }
  if (total === 0) return 0;
  const rank = Math.ceil(p * total);
  const lastBound = LATENCY_BOUNDS_MS[LATENCY_BOUNDS_MS.length - 1] as number;
  let seen = 0;
  for (const le of [...counts.keys()].sort((a, b) => a - b)) {
    seen += counts.get(le) as number;
    if (seen >= rank) return le === LATENCY_OPEN_LE_MS ? lastBound : le;
  }
  return lastBound;
}
