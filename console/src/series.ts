/** Reads `GET /v1/stats/series` for the console's time ranges. */
import { api } from './api.js';

/** A time range the overview offers, and the step it is read at. */
export type RangeName = 'hour' | 'day' | 'week';

/** The overview's time ranges: span in ms and the series step requested for it. */
export const RANGES: Record<RangeName, { label: string; spanMs: number; step: 'minute' | 'hour' }> = {
  hour: { label: 'Last hour', spanMs: 3_600_000, step: 'minute' },
  day: { label: 'Last day', spanMs: 86_400_000, step: 'hour' },
  week: { label: 'Last week', spanMs: 7 * 86_400_000, step: 'hour' },
};

const STEP_MS = { minute: 60_000, hour: 3_600_000, day: 86_400_000 };

/** An exchange series point (DESIGN section 7). */
export interface ExchangePoint {
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
  ecpm: number;
  latency_p50_ms: number;
  latency_p99_ms: number;
}

/** A demand partner series point. */
export interface PartnerPoint {
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

/** A loaded series: its points (`P`, one per UTC bucket, zeros included) and the range it covers. */
export interface Series<P> {
  from: string;
  to: string;
  step: 'minute' | 'hour' | 'day';
  points: P[];
}

/** The series of the last `range` up to now. */
export function readSeries<P>(range: { spanMs: number; step: 'minute' | 'hour' | 'day' }, filter: { publisher_id?: string; partner_id?: string } = {}, nowMs = Date.now()): Promise<Series<P>> {
  const q = new URLSearchParams({ from: new Date(nowMs - range.spanMs + 1).toISOString(), to: new Date(nowMs).toISOString(), step: range.step });
  if (filter.publisher_id) q.set('publisher_id', filter.publisher_id);
  if (filter.partner_id) q.set('partner_id', filter.partner_id);
  return api<Series<P>>('GET', `/v1/stats/series?${q.toString()}`);
}

/** Seconds since the epoch of each point (uPlot's x). */
export function xs(points: Array<{ t: string }>): number[] {
  return points.map((p) => Date.parse(p.t) / 1000);
}

/**
 * Per-second rate of `count` in each bucket: over the whole step, or over the part of the current
 * bucket elapsed so far (so the last point is not diluted by time that has not happened yet).
 */
export function perSecond(points: Array<{ t: string }>, count: (p: never) => number, step: 'minute' | 'hour' | 'day', nowMs = Date.now()): number[] {
  return points.map((p) => {
    const start = Date.parse(p.t);
    const seconds = Math.max(1, Math.min(STEP_MS[step], nowMs - start) / 1000);
    return count(p as never) / seconds;
  });
}
