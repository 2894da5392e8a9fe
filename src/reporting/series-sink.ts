/**
 * Where the bid path and the notice handlers count the per-partner series and the latency
 * histograms of `GET /v1/stats/series` (DESIGN section 7). Like `CounterSink`, implementations
 * accumulate per UTC minute in memory and flush with the publisher counters
 * (`reporting/counters.ts`); every method is synchronous and does no I/O.
 */
import type { PartnerCallResult, PartnerBid } from '../demand/contract.js';
import type { LatencyKind, PartnerCounterDelta } from '../storage/ports.js';

/** The additive fields of a partner counter row. */
export type PartnerCounterFields = Omit<PartnerCounterDelta, 'partnerId' | 'minuteStartMs'>;

/** Accepts partner counts and latency observations; cheap and synchronous. */
export interface SeriesSink {
  /** Adds `fields` to the partner's bucket for the minute containing `atMs` (default: now). */
  addPartner(partnerId: string, fields: Partial<PartnerCounterFields>, atMs?: number): void;
  /**
   * Counts one latency (ms) into the histogram of `kind`/`subjectId` (publisher id for
   * `exchange`, partner id for `partner`) for the minute containing `atMs` (default: now).
   */
  observeLatency(kind: LatencyKind, subjectId: string, latencyMs: number, atMs?: number): void;
}

/** A sink that drops everything (tests and tools that build the bid path without a store). */
export const discardSeries: SeriesSink = {
  addPartner() {},
  observeLatency() {},
};

/** All partner counter fields at zero. */
export function zeroPartnerFields(): PartnerCounterFields {
  return { calls: 0, bids: 0, timeouts: 0, errors: 0, wins: 0, privacyBlocked: 0 };
}

/** Adds the partner fields of `from` (absent = 0) into `into`; the one place that lists them. */
export function addPartnerFields(into: PartnerCounterFields, from: Partial<PartnerCounterFields>): void {
  if (from.calls) into.calls += from.calls;
  if (from.bids) into.bids += from.bids;
  if (from.timeouts) into.timeouts += from.timeouts;
  if (from.errors) into.errors += from.errors;
  if (from.wins) into.wins += from.wins;
  if (from.privacyBlocked) into.privacyBlocked += from.privacyBlocked;
}

/**
 * The counter fields of one dispatch outcome. A `skipped` call (QPS cap, no budget) was not made
 * and counts nothing, except a partner privacy enforcement kept from the request (DESIGN
 * section 11, `call.privacyBlocked`): `privacyBlocked: 1`, and no `calls` since none was made.
 */
export function partnerCallFields(call: PartnerCallResult): Partial<PartnerCounterFields> {
  switch (call.outcome) {
    case 'skipped':
      return call.privacyBlocked !== undefined ? { privacyBlocked: 1 } : {};
    case 'timeout':
      return { calls: 1, timeouts: 1 };
    case 'error':
      return { calls: 1, errors: 1 };
    default:
      return { calls: 1 };
  }
}

/**
 * Counts one dispatch into `sink`: each call's outcome and latency (calls made only), and each
 * partner's bids taken into the auction. `atMs` is the request's wall-clock time.
 */
export function countPartnerCalls(sink: SeriesSink, calls: readonly PartnerCallResult[], bids: readonly PartnerBid[], atMs: number): void {
  for (const call of calls) {
    sink.addPartner(call.partnerId, partnerCallFields(call), atMs);
    if (call.outcome !== 'skipped') sink.observeLatency('partner', call.partnerId, call.latencyMs, atMs);
  }
  if (bids.length === 0) return;
  const perPartner = new Map<string, number>();
  for (const bid of bids) perPartner.set(bid.partnerId, (perPartner.get(bid.partnerId) ?? 0) + 1);
  for (const [partnerId, count] of perPartner) sink.addPartner(partnerId, { bids: count }, atMs);
}
