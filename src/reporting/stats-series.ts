/**
 * `GET /v1/stats/series` (DESIGN section 7): the store's per-minute counters and latency
 * histograms, summed over every node, grouped into UTC minute, hour or day buckets. Every bucket of
 * the range is answered, with zeros where there was no traffic. Rates and eCPM are derived per
 * bucket as the daily report derives them (fill = imps filled / imps, win = wins / bids, eCPM =
 * net revenue x 1000 / impressions, 0 with a zero denominator); latency percentiles come from the
 * bucket's summed histogram (`latency-buckets.ts`).
 *
 * Counts still in a node's memory (at most one flush interval, `storage.counterFlushIntervalMs`)
 * are not in the answer yet. Past the minute retention, minute rows are rolled up into their
 * hour's first minute (`series-rollup.ts`), so a minute step over that old a range shows each
 * hour's traffic in its first minute.
 */
import { AdxError } from '../domain/errors.js';
import { fromMicros, scaleMicros } from '../domain/money.js';
import type { LatencyBucketCount, SeriesRange, SeriesStore } from '../storage/ports.js';
import { latencyPercentile } from './latency-buckets.js';

/** Bucket widths of a series, UTC. */
export type SeriesStep = 'minute' | 'hour' | 'day';

/** Length of each step, ms. Each divides the epoch evenly, so buckets start on UTC boundaries. */
export const STEP_MS: Readonly<Record<SeriesStep, number>> = { minute: 60_000, hour: 3_600_000, day: 86_400_000 };

/** Most points one answer may hold (two weeks of minutes, with room to spare). */
export const MAX_SERIES_POINTS = 20_160;

/** A validated series request. */
export interface SeriesQuery {
  /** Range start and end, ms since the epoch; buckets overlapping `[fromMs, toMs)` are answered. */
  fromMs: number;
  toMs: number;
  step: SeriesStep;
  publisherId?: string;
  partnerId?: string;
}

/** A point of the exchange (or one publisher's) series. Money in decimal USD amounts. */
export interface ExchangeSeriesPoint {
  /** Bucket start, ISO 8601 UTC. */
  t: string;
  requests: number;
  imps: number;
  imps_filled: number;
  bids: number;
  wins: number;
  impressions: number;
  revenue_gross: number;
  revenue_net: number;
  fill_rate: number;
  win_rate: number;
  /** Net revenue x 1000 / impressions, USD CPM. */
  ecpm: number;
  latency_p50_ms: number;
  latency_p99_ms: number;
}

/** A point of one demand partner's series. */
export interface PartnerSeriesPoint {
  t: string;
  calls: number;
  bids: number;
  timeouts: number;
  errors: number;
  wins: number;
  privacy_blocked: number;
  latency_p50_ms: number;
  latency_p99_ms: number;
}

/** The answer: the aligned range and one point per bucket, ascending. */
export interface SeriesAnswer<P> {
  /** Start of the first bucket, ISO 8601 UTC. */
  from: string;
  /** End of the last bucket (exclusive), ISO 8601 UTC. */
  to: string;
  step: SeriesStep;
  points: P[];
}

const ratio = (n: number, d: number): number => (d === 0 ? 0 : n / d);
const iso = (ms: number): string => new Date(ms).toISOString();

/**
 * The range's buckets: from the start of the step containing `fromMs` to the end of the one
 * containing `toMs - 1`.
 * @throws AdxError `invalid_request` (naming `to` or `step`) when `toMs <= fromMs` or the answer
 * would exceed {@link MAX_SERIES_POINTS}.
 */
export function alignSeriesRange(query: Pick<SeriesQuery, 'fromMs' | 'toMs' | 'step'>): SeriesRange {
  const stepMs = STEP_MS[query.step];
  if (!(query.toMs > query.fromMs)) {
    throw new AdxError('invalid_request', 'to must be after from', { errors: [{ field: 'to', message: 'must be after from' }] });
  }
  const fromMs = Math.floor(query.fromMs / stepMs) * stepMs;
  const toMs = Math.ceil(query.toMs / stepMs) * stepMs;
  if ((toMs - fromMs) / stepMs > MAX_SERIES_POINTS) {
    const message = `the range holds more than ${MAX_SERIES_POINTS} ${query.step} buckets; use a larger step or a shorter range`;
    throw new AdxError('invalid_request', message, { errors: [{ field: 'step', message }] });
  }
  return { fromMs, toMs, stepMs };
}

/** Latency counts grouped by bucket start. */
function latencyByBucket(rows: LatencyBucketCount[]): Map<number, LatencyBucketCount[]> {
  const out = new Map<number, LatencyBucketCount[]>();
  for (const row of rows) {
    let list = out.get(row.bucketStartMs);
    if (list === undefined) out.set(row.bucketStartMs, (list = []));
    list.push(row);
  }
  return out;
}

/** Bucket starts of `range`, ascending. */
function bucketStarts(range: SeriesRange): number[] {
  const starts: number[] = [];
  for (let t = range.fromMs; t < range.toMs; t += range.stepMs) starts.push(t);
  return starts;
}

/** The exchange's series (one publisher's with `publisherId`). Rejects with the store's error. */
export async function exchangeSeries(store: { series: SeriesStore }, query: SeriesQuery): Promise<SeriesAnswer<ExchangeSeriesPoint>> {
  const range = alignSeriesRange(query);
  const [counters, latency] = await Promise.all([
    store.series.counterSeries(range, query.publisherId),
    store.series.latencySeries(range, 'exchange', query.publisherId),
  ]);
  const byBucket = new Map(counters.map((c) => [c.bucketStartMs, c]));
  const histograms = latencyByBucket(latency);
  const points = bucketStarts(range).map((t): ExchangeSeriesPoint => {
    const c = byBucket.get(t);
    const h = histograms.get(t) ?? [];
    const requests = c?.requests ?? 0;
    const imps = c?.imps ?? 0;
    const impsFilled = c?.impsFilled ?? 0;
    const bids = c?.bids ?? 0;
    const wins = c?.wins ?? 0;
    const impressions = c?.impressions ?? 0;
    const net = c?.revenueNetMicros ?? 0;
    return {
      t: iso(t),
      requests,
      imps,
      imps_filled: impsFilled,
      bids,
      wins,
      impressions,
      revenue_gross: fromMicros(c?.revenueGrossMicros ?? 0),
      revenue_net: fromMicros(net),
      fill_rate: ratio(impsFilled, imps),
      win_rate: ratio(wins, bids),
      ecpm: impressions === 0 ? 0 : fromMicros(scaleMicros(net, 1000, impressions)),
      latency_p50_ms: latencyPercentile(h, 0.5),
      latency_p99_ms: latencyPercentile(h, 0.99),
    };
  });
  return { from: iso(range.fromMs), to: iso(range.toMs), step: query.step, points };
}

/** One demand partner's series. Rejects with the store's error. */
export async function partnerSeries(store: { series: SeriesStore }, query: SeriesQuery & { partnerId: string }): Promise<SeriesAnswer<PartnerSeriesPoint>> {
  const range = alignSeriesRange(query);
  const [counters, latency] = await Promise.all([store.series.partnerSeries(range, query.partnerId), store.series.latencySeries(range, 'partner', query.partnerId)]);
  const byBucket = new Map(counters.map((c) => [c.bucketStartMs, c]));
  const histograms = latencyByBucket(latency);
  const points = bucketStarts(range).map((t): PartnerSeriesPoint => {
    const c = byBucket.get(t);
    const h = histograms.get(t) ?? [];
    return {
      t: iso(t),
      calls: c?.calls ?? 0,
      bids: c?.bids ?? 0,
      timeouts: c?.timeouts ?? 0,
      errors: c?.errors ?? 0,
      wins: c?.wins ?? 0,
      privacy_blocked: c?.privacyBlocked ?? 0,
      latency_p50_ms: latencyPercentile(h, 0.5),
      latency_p99_ms: latencyPercentile(h, 0.99),
    };
  });
  return { from: iso(range.fromMs), to: iso(range.toMs), step: query.step, points };
}
