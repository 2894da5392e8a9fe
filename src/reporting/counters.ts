/**
 * The counter aggregator: the `CounterSink` the bid path and the notice handlers count into
 * (DESIGN section 3), and the `SeriesSink` of the per-partner counters and latency histograms
 * (DESIGN section 7, `/v1/stats/series`). `add`, `addPartner` and `observeLatency` only touch
 * in-memory maps keyed by subject and UTC minute; a timer flushes the maps to the store
 * (`CounterStore.add`, one transaction for all three) every `flushIntervalMs`. A failed flush puts
 * its deltas back, so nothing is lost while the store is down; only a process crash loses what is
 * unflushed (at most one interval's counts).
 */
import type { Clock } from '../domain/clock.js';
import type { Logger } from '../observability/logger.js';
import type { CounterDelta, LatencyKind, Store } from '../storage/ports.js';
import { addCounterFields, zeroCounterFields, type CounterFields, type CounterSink } from './counter-sink.js';
import { latencyBucketIndex } from './latency-buckets.js';
import { SeriesBuckets } from './series-buckets.js';
import { addPartnerFields, type PartnerCounterFields, type SeriesSink } from './series-sink.js';

/** Dependencies of `createCounterAggregator`. */
export interface CounterAggregatorDeps {
  store: Pick<Store, 'counters'>;
  /** Supplies "now" when `add` is called without `atMs`. */
  clock: Clock;
  /** How often `start()`'s timer flushes, ms. */
  flushIntervalMs: number;
  log: Logger;
}

/** A `CounterSink` with its flush lifecycle. */
export interface CounterAggregator extends CounterSink, SeriesSink {
  /**
   * Writes every unflushed delta in one `store.counters.add` call. Never rejects: on failure the
   * deltas are merged back and a warning is logged. Flushes run one at a time; a call made while
   * one runs waits for it and then flushes what has accumulated since.
   */
  flush(): Promise<void>;
  /** Starts the periodic flush (an unref'd interval, so it never keeps the process alive). Idempotent. */
  start(): void;
  /** Stops the timer, then makes a final flush. */
  stop(): Promise<void>;
  /**
   * Counts not yet committed to the store, one delta per publisher and minute, including those of
   * a flush in progress. Reports add these to `store.counters.totals` to include unflushed counts
   * (DESIGN section 7). A report racing a flush's commit may briefly count that flush twice.
   */
  pending(): CounterDelta[];
  /**
   * Runs `read` with the unflushed deltas while no flush is in progress (queued behind any running
   * flush, and holding back the next until `read` settles), so the store's rows and `pending`
   * never overlap nor miss each other: store totals + `pending` is an exact snapshot. Counts added
   * while `read` runs are in neither. Answers what `read` answers, rejects when it rejects.
   */
  readWithPending<T>(read: (pending: CounterDelta[]) => Promise<T>): Promise<T>;
}

const MINUTE_MS = 60_000;

/** Start of the UTC minute containing `atMs` (ms since the epoch). */
export function minuteStartOf(atMs: number): number {
  return Math.floor(atMs / MINUTE_MS) * MINUTE_MS;
}

function emptyDelta(publisherId: string, minuteStartMs: number): CounterDelta {
  return { publisherId, minuteStartMs, ...zeroCounterFields() };
}

type Buckets = Map<string, CounterDelta>;

function bucketKey(publisherId: string, minuteStartMs: number): string {
  return `${publisherId}\u0000${minuteStartMs}`;
}

function mergeInto(buckets: Buckets, delta: CounterDelta): void {
  const key = bucketKey(delta.publisherId, delta.minuteStartMs);
  let bucket = buckets.get(key);
  if (bucket === undefined) {
    bucket = emptyDelta(delta.publisherId, delta.minuteStartMs);
    buckets.set(key, bucket);
  }
  addCounterFields(bucket, delta);
}

/** Creates the aggregator; it does nothing until `add`, `flush` or `start` is called. */
export function createCounterAggregator(deps: CounterAggregatorDeps): CounterAggregator {
  const { store, clock, flushIntervalMs, log } = deps;
  let buckets: Buckets = new Map();
  const series = new SeriesBuckets();
  let inFlight: CounterDelta[] = [];
  let running: Promise<void> = Promise.resolve();
  let timer: NodeJS.Timeout | undefined;

  const flushOnce = async (): Promise<void> => {
    if (buckets.size === 0 && series.empty) return;
    inFlight = [...buckets.values()];
    buckets = new Map();
    const seriesInFlight = series.drain();
    try {
      await store.counters.add(inFlight, seriesInFlight);
    } catch (error) {
      for (const delta of inFlight) mergeInto(buckets, delta);
      series.restore(seriesInFlight);
      log.warn({ err: error, buckets: inFlight.length }, 'counter flush failed; deltas kept for the next flush');
    } finally {
      inFlight = [];
    }
  };

  const pending = (): CounterDelta[] => {
    const merged: Buckets = new Map();
    for (const delta of inFlight) mergeInto(merged, delta);
    for (const delta of buckets.values()) mergeInto(merged, delta);
    return [...merged.values()];
  };

  const flush = (): Promise<void> => {
    running = running.then(flushOnce);
    return running;
  };

  return {
    add(publisherId: string, fields: Partial<CounterFields>, atMs?: number): void {
      const minuteStartMs = minuteStartOf(atMs ?? clock.now());
      const key = bucketKey(publisherId, minuteStartMs);
      let bucket = buckets.get(key);
      if (bucket === undefined) {
        bucket = emptyDelta(publisherId, minuteStartMs);
        buckets.set(key, bucket);
      }
      addCounterFields(bucket, fields);
    },

    addPartner(partnerId: string, fields: Partial<PartnerCounterFields>, atMs?: number): void {
      addPartnerFields(series.partner(partnerId, minuteStartOf(atMs ?? clock.now())), fields);
    },

    observeLatency(kind: LatencyKind, subjectId: string, latencyMs: number, atMs?: number): void {
      const counts = series.histogram(kind, subjectId, minuteStartOf(atMs ?? clock.now()));
      const index = latencyBucketIndex(latencyMs);
      counts[index] = (counts[index] as number) + 1;
    },

    flush,

    start(): void {
      if (timer !== undefined) return;
      timer = setInterval(() => void flush(), flushIntervalMs);
      timer.unref();
    },

    async stop(): Promise<void> {
      if (timer !== undefined) clearInterval(timer);
      timer = undefined;
      await flush();
    },

    pending,

    readWithPending<T>(read: (pending: CounterDelta[]) => Promise<T>): Promise<T> {
      const result = running.then(() => read(pending()));
      running = result.then(
        () => undefined,
        () => undefined,
      );
      return result;
    },
  };
}
