/**
 * Live statistics of this node for `GET /v1/stats` (DESIGN section 7): rolling counts and rates
 * over the last minute (60 one-second buckets) and the last hour (60 one-minute buckets), plus
 * totals since the node started. In memory only; every node answers its own traffic.
 *
 * The record methods run on the bid path, so they only add to preallocated buckets: a bucket is
 * reused (zeroed) when its slot comes round again, latency goes into a fixed histogram (one
 * increment), and a partner's counters are created once per slot the first time that partner is
 * seen. Latency percentiles are read from the histogram: the answer is the upper bound of the
 * bucket holding the percentile (the largest latency seen, for the open last bucket), so it is
 * exact to the bucket width (1 ms up to 10 ms, then a few percent wider per step).
 */
import type { Clock } from '../domain/clock.js';
import { fromMicros, type Micros } from '../domain/money.js';

/** How a call to a demand partner ended (the dispatcher's outcomes); `skipped` = not called (QPS cap, no budget). */
export type PartnerCallOutcome = 'bids' | 'no_bid' | 'timeout' | 'error' | 'skipped';

/** Upper bounds (ms, inclusive) of the latency histogram buckets; the last bucket is open. */
export const LATENCY_BOUNDS_MS: readonly number[] = [
  1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 12, 14, 16, 18, 20, 25, 30, 35, 40, 45, 50, 60, 70, 80, 90, 100, 120, 140, 160, 180, 200, 250, 300,
  350, 400, 500, 600, 700, 800, 900, 1000, 1250, 1500, 2000, 3000, 5000, 10000,
];

/** Per-partner figures of a window. */
export interface PartnerStats {
  /** Calls made (every outcome but `skipped`). */
  calls: number;
  timeouts: number;
  errors: number;
  /** Calls not made (QPS cap, no time budget left). */
  skipped: number;
}

/** One window of `GET /v1/stats`: counts, rates (decimals, 0 with a zero denominator), decimal USD, ms. */
export interface StatsWindow {
  /** Length of the window, seconds (for totals: seconds since start). */
  window_seconds: number;
  requests: number;
  /** requests / the window's length (or the time since start, when shorter). */
  requests_per_second: number;
  imps: number;
  /** Imps that got a bid / imps. */
  fill_rate: number;
  bids: number;
  wins: number;
  /** wins / bids. */
  win_rate: number;
  impressions: number;
  /** Net revenue recognized with impressions, decimal USD. */
  revenue_net: number;
  /** Bid request latency percentiles, ms (0 without requests). */
  latency_ms: { p50: number; p99: number };
  partners: Record<string, PartnerStats>;
}

/** `GET /v1/stats` answer. */
export interface StatsSnapshot {
  /** ISO 8601 UTC, when the snapshot was taken. */
  timestamp: string;
  /** ISO 8601 UTC, when this node's stats started. */
  started_at: string;
  last_minute: StatsWindow;
  last_hour: StatsWindow;
  /** Since start. */
  totals: StatsWindow;
}

/** Counts of one bid request, as the bid path knows them when it answers. */
export interface RequestCounts {
  imps: number;
  /** Imps that got at least one bid. */
  impsFilled: number;
  bids: number;
}

/** The live stats recorder. All record methods are synchronous and allocation-free in steady state. */
export interface LiveStats {
  /** A bid request answered after `latencyMs` ms (validated requests only, DESIGN section 3). */
  recordRequest(latencyMs: number, counts: RequestCounts): void;
  recordPartnerCall(partnerId: string, outcome: PartnerCallOutcome): void;
  /** An accepted (first) win notice. */
  recordWin(): void;
  /** A billable impression and its net revenue, USD micros (amount). */
  recordImpression(netMicros: Micros): void;
  snapshot(): StatsSnapshot;
}

interface MutablePartner {
  calls: number;
  timeouts: number;
  errors: number;
  skipped: number;
}

interface Bucket {
  /** The second (or minute) number this bucket holds; -1 when never used. */
  epoch: number;
  requests: number;
  imps: number;
  impsFilled: number;
  bids: number;
  wins: number;
  impressions: number;
  revenueNetMicros: number;
  latency: Uint32Array;
  /** Largest latency seen, for the open last histogram bucket. */
  maxLatencyMs: number;
  partners: Map<string, MutablePartner>;
}

function newBucket(): Bucket {
  return {
    epoch: -1,
    requests: 0,
    imps: 0,
    impsFilled: 0,
    bids: 0,
    wins: 0,
    impressions: 0,
    revenueNetMicros: 0,
    latency: new Uint32Array(LATENCY_BOUNDS_MS.length + 1),
    maxLatencyMs: 0,
    partners: new Map(),
  };
}

function resetBucket(bucket: Bucket, epoch: number): void {
  bucket.epoch = epoch;
  bucket.requests = 0;
  bucket.imps = 0;
  bucket.impsFilled = 0;
  bucket.bids = 0;
  bucket.wins = 0;
  bucket.impressions = 0;
  bucket.revenueNetMicros = 0;
  bucket.latency.fill(0);
  bucket.maxLatencyMs = 0;
  for (const partner of bucket.partners.values()) {
    partner.calls = 0;
    partner.timeouts = 0;
    partner.errors = 0;
    partner.skipped = 0;
  }
}

/** Index of the histogram bucket of `latencyMs` (binary search over the bounds). */
function latencyIndex(latencyMs: number): number {
  let lo = 0;
  let hi = LATENCY_BOUNDS_MS.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (latencyMs <= (LATENCY_BOUNDS_MS[mid] as number)) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

/** A ring of `size` buckets of `unitMs` each. */
class Ring {
  readonly buckets: Bucket[];
  constructor(
    readonly size: number,
    readonly unitMs: number,
  ) {
    this.buckets = Array.from({ length: size }, newBucket);
  }

  /** The bucket of the unit containing `nowMs`, zeroed if it held an older unit. */
  current(nowMs: number): Bucket {
    const epoch = Math.floor(nowMs / this.unitMs);
    const bucket = this.buckets[epoch % this.size] as Bucket;
    if (bucket.epoch !== epoch) resetBucket(bucket, epoch);
    return bucket;
  }

  /** Buckets of the last `size` units up to the one containing `nowMs`. */
  live(nowMs: number): Bucket[] {
    const epoch = Math.floor(nowMs / this.unitMs);
    return this.buckets.filter((b) => b.epoch > epoch - this.size && b.epoch <= epoch);
  }
}

function partnerOf(bucket: Bucket, partnerId: string): MutablePartner {
  let partner = bucket.partners.get(partnerId);
  if (partner === undefined) {
    partner = { calls: 0, timeouts: 0, errors: 0, skipped: 0 };
    bucket.partners.set(partnerId, partner);
  }
  return partner;
}

function percentile(latency: Uint32Array, count: number, maxLatencyMs: number, p: number): number {
  if (count === 0) return 0;
  const rank = Math.ceil(p * count);
  let seen = 0;
  for (let i = 0; i < latency.length; i++) {
    seen += latency[i] as number;
    if (seen >= rank) return i < LATENCY_BOUNDS_MS.length ? Math.min(LATENCY_BOUNDS_MS[i] as number, maxLatencyMs) : maxLatencyMs;
  }
  return maxLatencyMs;
}

const ratio = (n: number, d: number): number => (d === 0 ? 0 : n / d);

/** Sums `buckets` into a window `windowSeconds` long (rates per `rateSeconds`). */
function summarize(buckets: Bucket[], windowSeconds: number, rateSeconds: number): StatsWindow {
  const sum = newBucket();
  for (const b of buckets) {
    sum.requests += b.requests;
    sum.imps += b.imps;
    sum.impsFilled += b.impsFilled;
    sum.bids += b.bids;
    sum.wins += b.wins;
    sum.impressions += b.impressions;
    sum.revenueNetMicros += b.revenueNetMicros;
    for (let i = 0; i < b.latency.length; i++) sum.latency[i] = (sum.latency[i] as number) + (b.latency[i] as number);
    sum.maxLatencyMs = Math.max(sum.maxLatencyMs, b.maxLatencyMs);
    for (const [id, p] of b.partners) {
      if (p.calls + p.skipped === 0) continue;
      const into = partnerOf(sum, id);
      into.calls += p.calls;
      into.timeouts += p.timeouts;
      into.errors += p.errors;
      into.skipped += p.skipped;
    }
  }
  const partners: Record<string, PartnerStats> = {};
  for (const id of [...sum.partners.keys()].sort()) partners[id] = { ...(sum.partners.get(id) as MutablePartner) };
  return {
    window_seconds: windowSeconds,
    requests: sum.requests,
    requests_per_second: ratio(sum.requests, Math.max(1, rateSeconds)),
    imps: sum.imps,
    fill_rate: ratio(sum.impsFilled, sum.imps),
    bids: sum.bids,
    wins: sum.wins,
    win_rate: ratio(sum.wins, sum.bids),
    impressions: sum.impressions,
    revenue_net: fromMicros(sum.revenueNetMicros),
    latency_ms: {
      p50: percentile(sum.latency, sum.requests, sum.maxLatencyMs, 0.5),
      p99: percentile(sum.latency, sum.requests, sum.maxLatencyMs, 0.99),
    },
    partners,
  };
}

function addRequest(b: Bucket, index: number, latencyMs: number, counts: RequestCounts): void {
  b.requests += 1;
  b.imps += counts.imps;
  b.impsFilled += counts.impsFilled;
  b.bids += counts.bids;
  b.latency[index] = (b.latency[index] as number) + 1;
  if (latencyMs > b.maxLatencyMs) b.maxLatencyMs = latencyMs;
}

function addPartnerCall(b: Bucket, partnerId: string, outcome: PartnerCallOutcome): void {
  const p = partnerOf(b, partnerId);
  if (outcome === 'skipped') {
    p.skipped += 1;
    return;
  }
  p.calls += 1;
  if (outcome === 'timeout') p.timeouts += 1;
  else if (outcome === 'error') p.errors += 1;
}

function addImpression(b: Bucket, netMicros: Micros): void {
  b.impressions += 1;
  b.revenueNetMicros += netMicros;
}

/** Builds the recorder; stats start at `clock.now()`. Importing or building it starts no timer. */
export function createLiveStats(deps: { clock: Clock }): LiveStats {
  const { clock } = deps;
  const startedAtMs = clock.now();
  const seconds = new Ring(60, 1000);
  const minutes = new Ring(60, 60_000);
  const totals = newBucket();
  totals.epoch = 0;

  // Three explicit calls rather than a loop over [second, minute, totals]: no array per call.
  return {
    recordRequest(latencyMs, counts) {
      const nowMs = clock.now();
      const index = latencyIndex(latencyMs);
      addRequest(seconds.current(nowMs), index, latencyMs, counts);
      addRequest(minutes.current(nowMs), index, latencyMs, counts);
      addRequest(totals, index, latencyMs, counts);
    },

    recordPartnerCall(partnerId, outcome) {
      const nowMs = clock.now();
      addPartnerCall(seconds.current(nowMs), partnerId, outcome);
      addPartnerCall(minutes.current(nowMs), partnerId, outcome);
      addPartnerCall(totals, partnerId, outcome);
    },

    recordWin() {
      const nowMs = clock.now();
      seconds.current(nowMs).wins += 1;
      minutes.current(nowMs).wins += 1;
      totals.wins += 1;
    },

    recordImpression(netMicros) {
      const nowMs = clock.now();
      addImpression(seconds.current(nowMs), netMicros);
      addImpression(minutes.current(nowMs), netMicros);
      addImpression(totals, netMicros);
    },

    snapshot() {
      const nowMs = clock.now();
      const upSeconds = Math.max(0, (nowMs - startedAtMs) / 1000);
      return {
        timestamp: new Date(nowMs).toISOString(),
        started_at: new Date(startedAtMs).toISOString(),
        last_minute: summarize(seconds.live(nowMs), 60, Math.min(60, upSeconds)),
        last_hour: summarize(minutes.live(nowMs), 3600, Math.min(3600, upSeconds)),
        totals: summarize([totals], Math.round(upSeconds), upSeconds),
      };
    },
  };
}
