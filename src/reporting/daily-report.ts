/**
 * Daily reports (DESIGN sections 3, 6 and 7): one publisher's counts over one UTC day, with the
 * rates and the eCPM derived as DESIGN section 3 defines them, from the store's minute counters
 * plus the aggregator's unflushed deltas. The same numbers feed the `report.daily` event, the
 * `GET /v1/reports/daily` answer and the demo's summary.
 */
import { AdxError } from '../domain/errors.js';
import { scaleMicros, type Micros } from '../domain/money.js';
import { reportDailyPayload } from '../events/payloads.js';
import type { ReportDailyPayload } from '../events/types.js';
import type { CounterStore, CounterTotals } from '../storage/ports.js';
import { rangeTotals, type PendingCounters } from './range-totals.js';
import { DAY_MS, parseUtcDate } from './utc-day.js';

/** One publisher's UTC day. Money is USD micros (amounts); rates are decimals in [0, 1]. */
export interface DailyReport {
  /** `YYYY-MM-DD` (UTC). */
  date: string;
  publisherId: string;
  requests: number;
  imps: number;
  /** Imps that got at least one bid. */
  impsFilled: number;
  bids: number;
  wins: number;
  impressions: number;
  /** impsFilled / imps; 0 when imps is 0. */
  fillRate: number;
  /** wins / bids; 0 when bids is 0. */
  winRate: number;
  revenueGrossMicros: Micros;
  revenueNetMicros: Micros;
  /** Net revenue x 1000 / impressions, USD micros of CPM (rounded half away from zero); 0 without impressions. */
  ecpmMicros: Micros;
}

/** What {@link computeDailyReports} reads. */
export interface DailyReportDeps {
  store: { counters: Pick<CounterStore, 'totals'> };
  /** The counter aggregator, for the counts not yet flushed. */
  counters: PendingCounters;
}

/** `numerator / denominator`, or 0 when the denominator is 0 (DESIGN section 3). */
export function rate(numerator: number, denominator: number): number {
  return denominator === 0 ? 0 : numerator / denominator;
}

/** True when any count of `totals` is non-zero ("a publisher with activity"). */
export function hasActivity(totals: CounterTotals): boolean {
  return (
    totals.requests !== 0 ||
    totals.imps !== 0 ||
    totals.impsFilled !== 0 ||
    totals.bids !== 0 ||
    totals.wins !== 0 ||
    totals.impressions !== 0 ||
    totals.revenueGrossMicros !== 0 ||
    totals.revenueNetMicros !== 0
  );
}

/** The report of `date` from one publisher's totals over that day. */
export function toDailyReport(date: string, totals: CounterTotals): DailyReport {
  return {
    date,
    publisherId: totals.publisherId,
    requests: totals.requests,
    imps: totals.imps,
    impsFilled: totals.impsFilled,
    bids: totals.bids,
    wins: totals.wins,
    impressions: totals.impressions,
    fillRate: rate(totals.impsFilled, totals.imps),
    winRate: rate(totals.wins, totals.bids),
    revenueGrossMicros: totals.revenueGrossMicros,
    revenueNetMicros: totals.revenueNetMicros,
    ecpmMicros: totals.impressions === 0 ? 0 : scaleMicros(totals.revenueNetMicros, 1000, totals.impressions),
  };
}

/**
 * Start of the UTC day `date`, ms.
 * @throws AdxError `invalid_request` (field `date`) when `date` is not a real `YYYY-MM-DD` day.
 */
export function requireUtcDate(date: string): number {
  const startMs = parseUtcDate(date);
  if (startMs === undefined) {
    throw new AdxError('invalid_request', `invalid date: ${JSON.stringify(date)} is not a UTC day YYYY-MM-DD`, {
      errors: [{ field: 'date', message: 'must be a calendar day YYYY-MM-DD' }],
    });
  }
  return startMs;
}

/**
 * The reports of the UTC day `date` (`YYYY-MM-DD`): one per publisher with activity that day (of
 * `publisherId` only, when given), ordered by publisher id; counts not yet flushed included. A day
 * not over yet answers its counts so far.
 * @throws AdxError `invalid_request` (field `date`) for a malformed date; rejects with the store's error.
 */
export async function computeDailyReports(deps: DailyReportDeps & { date: string; publisherId?: string }): Promise<DailyReport[]> {
  const startMs = requireUtcDate(deps.date);
  const totals = await rangeTotals(deps, startMs, startMs + DAY_MS, deps.publisherId);
  return totals.filter(hasActivity).map((t) => toDailyReport(deps.date, t));
}

/** The `report.daily` payload of `report`, stamped `nowMs` (DESIGN section 6). */
export function toReportDailyPayload(report: DailyReport, nowMs: number): ReportDailyPayload {
  return reportDailyPayload({ ...report, nowMs });
}
