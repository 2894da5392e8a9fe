/**
 * Counter totals over a range of UTC minutes, flushed and unflushed together (DESIGN section 7:
 * reports and alert windows "include counts not yet flushed"). The store's rows and the
 * aggregator's pending deltas are read as one snapshot (`CounterAggregator.readWithPending`), so
 * nothing is counted twice or missed while a flush commits.
 */
import type { CounterStore, CounterTotals, CounterDelta } from '../storage/ports.js';
import type { CounterAggregator } from './counters.js';
import { addCounterFields, zeroCounterFields } from './counter-sink.js';

/** The part of the counter aggregator that reports read. */
export type PendingCounters = Pick<CounterAggregator, 'readWithPending'>;

/** What {@link rangeTotals} reads. */
export interface RangeTotalsDeps {
  store: { counters: Pick<CounterStore, 'totals'> };
  counters: PendingCounters;
}

/** A zero total of `publisherId`. */
export function zeroTotals(publisherId: string): CounterTotals {
  return { publisherId, ...zeroCounterFields() };
}

/** Adds the counted fields of `from` into `into`. */
export function addTotals(into: CounterTotals, from: Omit<CounterTotals, 'publisherId'>): void {
  addCounterFields(into, from);
}

/**
 * Totals per publisher over minutes in [fromMs, toMs) (ms since the epoch): store rows plus
 * pending deltas whose minute falls in the range, optionally of one publisher. One entry per
 * publisher with any row or delta, ordered by publisher id. Rejects with the store's error.
 */
export async function rangeTotals(deps: RangeTotalsDeps, fromMs: number, toMs: number, publisherId?: string): Promise<CounterTotals[]> {
  const { flushed, pending } = await deps.counters.readWithPending(async (pendingDeltas: CounterDelta[]) => ({
    flushed: await deps.store.counters.totals(fromMs, toMs, publisherId),
    pending: pendingDeltas,
  }));
  const byPublisher = new Map<string, CounterTotals>();
  for (const row of flushed) byPublisher.set(row.publisherId, { ...row });
  for (const delta of pending) {
    if (delta.minuteStartMs < fromMs || delta.minuteStartMs >= toMs) continue;
    if (publisherId !== undefined && delta.publisherId !== publisherId) continue;
    let into = byPublisher.get(delta.publisherId);
    if (into === undefined) {
      into = zeroTotals(delta.publisherId);
      byPublisher.set(delta.publisherId, into);
    }
    addTotals(into, delta);
  }
  return [...byPublisher.values()].sort((a, b) => (a.publisherId < b.publisherId ? -1 : a.publisherId > b.publisherId ? 1 : 0));
}
