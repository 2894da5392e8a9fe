/**
 * Where the bid path and the notice handlers count (DESIGN section 3). Implementations
 * accumulate in memory per publisher and UTC minute and flush to the store in batches
 * (`reporting/counters.ts`); `add` never does I/O.
 */
import type { CounterDelta } from '../storage/ports.js';

/** The additive fields of a counter row. */
export type CounterFields = Omit<CounterDelta, 'publisherId' | 'minuteStartMs'>;

/** Accepts counter increments; cheap and synchronous. */
export interface CounterSink {
  /** Adds `fields` to the publisher's bucket for the minute containing `atMs` (default: now). */
  add(publisherId: string, fields: Partial<CounterFields>, atMs?: number): void;
}

/** All counter fields at zero. */
export function zeroCounterFields(): CounterFields {
  return { requests: 0, imps: 0, impsFilled: 0, bids: 0, wins: 0, impressions: 0, revenueGrossMicros: 0, revenueNetMicros: 0 };
}

/** Adds the counter fields of `from` (absent = 0) into `into`; the one place that lists them. */
export function addCounterFields(into: CounterFields, from: Partial<CounterFields>): void {
  if (from.requests) into.requests += from.requests;
  if (from.imps) into.imps += from.imps;
  if (from.impsFilled) into.impsFilled += from.impsFilled;
  if (from.bids) into.bids += from.bids;
  if (from.wins) into.wins += from.wins;
  if (from.impressions) into.impressions += from.impressions;
  if (from.revenueGrossMicros) into.revenueGrossMicros += from.revenueGrossMicros;
  if (from.revenueNetMicros) into.revenueNetMicros += from.revenueNetMicros;
}
