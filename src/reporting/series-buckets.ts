/**
 * The aggregator's unflushed series (`reporting/counters.ts`): per-partner counters and latency
 * histograms, grouped by UTC minute first and subject second, so the bid path's increments are a
 * number-keyed and a string-keyed map lookup, with no key string built per call.
 */
import type { LatencyDelta, LatencyKind, PartnerCounterDelta } from '../storage/ports.js';
import { LATENCY_LE_MS } from './latency-buckets.js';
import { addPartnerFields, zeroPartnerFields, type PartnerCounterFields } from './series-sink.js';

/** One minute's partner counters and histograms (counts per `LATENCY_LE_MS` bucket) by subject id. */
interface MinuteSeries {
  partners: Map<string, PartnerCounterDelta>;
  latency: Record<LatencyKind, Map<string, Uint32Array>>;
}

/** Deltas ready for `CounterStore.add`'s `series` argument. */
export interface SeriesFlush {
  partners: PartnerCounterDelta[];
  latency: LatencyDelta[];
}

/** Unflushed series by minute. */
export class SeriesBuckets {
  private readonly minutes = new Map<number, MinuteSeries>();

  /** True when nothing was added since the last `drain`. */
  get empty(): boolean {
    return this.minutes.size === 0;
  }

  private minute(minuteStartMs: number): MinuteSeries {
    let m = this.minutes.get(minuteStartMs);
    if (m === undefined) {
      m = { partners: new Map(), latency: { exchange: new Map(), partner: new Map() } };
      this.minutes.set(minuteStartMs, m);
    }
    return m;
  }

  /** The partner's counters of that minute (created at zero). */
  partner(partnerId: string, minuteStartMs: number): PartnerCounterFields {
    const m = this.minute(minuteStartMs);
    let bucket = m.partners.get(partnerId);
    if (bucket === undefined) {
      bucket = { partnerId, minuteStartMs, ...zeroPartnerFields() };
      m.partners.set(partnerId, bucket);
    }
    return bucket;
  }

  /** The histogram of `kind`/`subjectId` in that minute (created empty). */
  histogram(kind: LatencyKind, subjectId: string, minuteStartMs: number): Uint32Array {
    const byId = this.minute(minuteStartMs).latency[kind];
    let counts = byId.get(subjectId);
    if (counts === undefined) {
      counts = new Uint32Array(LATENCY_LE_MS.length);
      byId.set(subjectId, counts);
    }
    return counts;
  }

  /** Everything as store deltas (histograms: one delta per non-empty bucket), leaving this empty. */
  drain(): SeriesFlush {
    const partners: PartnerCounterDelta[] = [];
    const latency: LatencyDelta[] = [];
    for (const [minuteStartMs, m] of this.minutes) {
      partners.push(...m.partners.values());
      for (const kind of ['exchange', 'partner'] as const) {
        for (const [subjectId, counts] of m.latency[kind]) {
          counts.forEach((count, i) => {
            if (count > 0) latency.push({ kind, subjectId, minuteStartMs, leMs: LATENCY_LE_MS[i] as number, count });
          });
        }
      }
    }
    this.minutes.clear();
    return { partners, latency };
  }

  /** Adds drained deltas back (after a failed flush). */
  restore(flush: SeriesFlush): void {
    for (const d of flush.partners) addPartnerFields(this.partner(d.partnerId, d.minuteStartMs), d);
    for (const d of flush.latency) {
      const index = LATENCY_LE_MS.indexOf(d.leMs);
      if (index < 0) continue;
      const counts = this.histogram(d.kind, d.subjectId, d.minuteStartMs);
      counts[index] = (counts[index] as number) + d.count;
    }
  }
}
