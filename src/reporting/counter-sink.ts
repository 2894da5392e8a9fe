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
