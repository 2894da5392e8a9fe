/**
 * Group commit: many concurrent writers share one transaction. The bid path answers only once its
 * records are durable (DESIGN section 6); writing each request's records in its own transaction
 * would make the store the bottleneck, so submits arriving close together are written by ONE
 * `write(items)` call and every submitter waits for that call.
 *
 * Batching rules:
 * - An idle committer starts a batch window on the first submit; the batch is written when the
 *   window (`maxDelayMs`) closes or as soon as it holds `maxBatch` items. `maxDelayMs: 0` means
 *   the next turn of the event loop (setImmediate), which still gathers every submit made in the
 *   current one.
 * - One write at a time. Submits made while a write runs queue for the next batch, which starts
 *   when that write settles, once its oldest item has waited `maxDelayMs` (at once if it already
 *   has, or if the queue holds `maxBatch` items). Under load batches grow instead of writes piling up.
 * - A batch holds at most `maxBatch` items; the rest wait for the following batch.
 */
import { systemClock, type Clock } from '../domain/clock.js';

/** Dependencies and settings of `createGroupCommitter`. */
export interface GroupCommitterOptions<T> {
  /**
   * Writes a batch in one transaction. Resolves once the batch is durable; a rejection rejects
   * every submit of the batch with the same error.
   */
  write: (items: T[]) => Promise<void>;
  /** Longest an item waits for companions before its batch is written, ms (0 = next tick). */
  maxDelayMs: number;
  /** Most items per `write` call (default 1000). */
  maxBatch?: number;
  /** Measures how long queued items have waited (monotonic time); default the system clock. */
  clock?: Clock;
}

/** A running group committer. */
export interface GroupCommitter<T> {
  /**
   * Queues `item`; resolves once the `write` holding it has resolved, rejects with its error if it
   * failed, or at once when the committer is closed.
   */
  submit(item: T): Promise<void>;
  /**
   * Writes everything queued now, without waiting for the batch window, and resolves once every
   * item submitted before the call is settled. Never rejects (submitters see write failures).
   */
  flush(): Promise<void>;
  /** Refuses new submits, then flushes. */
  close(): Promise<void>;
}

interface Pending<T> {
  item: T;
  enqueuedMs: number;
  resolve: () => void;
  reject: (error: unknown) => void;
}

const DEFAULT_MAX_BATCH = 1000;

/** Creates a group committer over `write` (see the module comment for the batching rules). */
export function createGroupCommitter<T>(options: GroupCommitterOptions<T>): GroupCommitter<T> {
  const { write, maxDelayMs } = options;
  const maxBatch = Math.max(1, options.maxBatch ?? DEFAULT_MAX_BATCH);
  const clock = options.clock ?? systemClock;
  if (!(maxDelayMs >= 0)) throw new RangeError(`maxDelayMs must be >= 0, got ${maxDelayMs}`);

  let queue: Pending<T>[] = [];
  let writing: Promise<void> | undefined;
  let timer: NodeJS.Timeout | undefined;
  let immediate: NodeJS.Immediate | undefined;
  let closed = false;
  // Batches are written in submit order, so "every item up to number n is settled" is one count.
  let submittedCount = 0;
  let settledCount = 0;

  const cancelSchedule = (): void => {
    if (timer !== undefined) clearTimeout(timer);
    if (immediate !== undefined) clearImmediate(immediate);
    timer = undefined;
    immediate = undefined;
  };

  const onScheduled = (): void => {
    timer = undefined;
    immediate = undefined;
    startWrite();
  };

  /** Arranges the next write for the current queue, unless one runs or is already arranged. */
  const schedule = (): void => {
    if (writing !== undefined || queue.length === 0 || timer !== undefined || immediate !== undefined) return;
    const oldest = queue[0] as Pending<T>;
    const remainingMs = maxDelayMs - (clock.monotonicMs() - oldest.enqueuedMs);
    if (queue.length >= maxBatch || (maxDelayMs > 0 && remainingMs <= 0)) {
      startWrite();
    } else if (maxDelayMs === 0) {
      immediate = setImmediate(onScheduled);
    } else {
      timer = setTimeout(onScheduled, remainingMs);
    }
  };

  const startWrite = (): void => {
    if (writing !== undefined || queue.length === 0) return;
    cancelSchedule();
    const batch = queue.length <= maxBatch ? queue : queue.slice(0, maxBatch);
    queue = queue.length <= maxBatch ? [] : queue.slice(maxBatch);
    const items = batch.map((p) => p.item);

    let result: Promise<void>;
    try {
      result = write(items);
    } catch (error) {
      result = Promise.reject(error);
    }
    writing = result.then(
      () => {
        for (const p of batch) p.resolve();
      },
      (error: unknown) => {
        for (const p of batch) p.reject(error);
      },
    );
    void writing.finally(() => {
      settledCount += batch.length;
      writing = undefined;
      schedule();
    });
  };

  const flush = async (): Promise<void> => {
    const target = submittedCount;
    // Each pass writes (or waits for) one batch. Items submitted after the call do not hold it up.
    while (settledCount < target) {
      if (writing === undefined) startWrite();
      if (writing === undefined) break; // nothing left to write: cannot happen, but never spin
      await writing;
    }
  };

  return {
    submit(item: T): Promise<void> {
      if (closed) return Promise.reject(new Error('group committer is closed'));
      submittedCount += 1;
      return new Promise<void>((resolve, reject) => {
        queue.push({ item, enqueuedMs: clock.monotonicMs(), resolve, reject });
        if (queue.length >= maxBatch) startWrite();
        else schedule();
      });
    },

    flush,

    async close(): Promise<void> {
      closed = true;
      await flush();
      cancelSchedule();
    },
  };
}
