/**
 * Abort signals for outbound HTTP calls that run thousands of times a second (bid requests to
 * partners, webhook attempts, partner notices; issue 15), made so that a finished call leaves
 * nothing for V8's full collector.
 *
 * Why not `AbortSignal.timeout(ms)` (and `AbortSignal.any`): its timer cannot be cleared, so it
 * stays armed for the whole timeout after a call that answered in 2 ms, and node ties the signal
 * to it and to a FinalizationRegistry through weak references, which V8 clears only in a full
 * collection. Why not an `AbortController` either: on node 20 every `AbortSignal` it creates
 * survives young collections too. Bytes promoted to the old generation per call, each call
 * released at once (node 20, `--trace-gc-nvp` "promoted", 40,000 calls; test/deadline-signal.test.ts):
 * `AbortSignal.any([AbortSignal.timeout(60 s), parent])` ~2,800; an `AbortController`'s signal
 * ~350; this module ~7. Promoted garbage is what grows the old generation between full
 * collections, i.e. peak RSS and the pauses of those collections (bench b: three partner calls
 * and two loss notices per auction; d: a partner call and a webhook attempt).
 *
 * undici accepts an `EventEmitter` with `aborted` and `reason` as a request's `signal` (undici
 * `Dispatcher.RequestOptions.signal`), so `AbortEmitter` is one.
 *
 * Semantics kept from `AbortSignal.timeout` (WHATWG DOM "timeout" and "any" signals): on the
 * deadline the signal aborts with a `DOMException` named `TimeoutError`; when `parent` aborts
 * first (shutdown), it aborts with the parent's reason. The timer does not keep the process alive.
 */

import { EventEmitter } from 'node:events';

/**
 * A one-shot abort signal for undici requests: an `EventEmitter` that emits `abort` once, with
 * `aborted` and `reason` as on an `AbortSignal` (undici reads both). Pass it as `signal`.
 */
export class AbortEmitter extends EventEmitter {
  /** True once `abort()` ran. */
  aborted = false;
  /** What `abort()` was given; undefined until then. */
  reason: unknown = undefined;

  /** Marks the signal aborted with `reason` and emits `abort` (once; later calls do nothing). */
  abort(reason: unknown): void {
    if (this.aborted) return;
    this.aborted = true;
    this.reason = reason;
    this.emit('abort', reason);
  }
}

/** A deadline signal and its release. */
export interface DeadlineSignal {
  /** Aborts at the deadline or when the parent aborts, whichever comes first. */
  readonly signal: AbortEmitter;
  /** True once the deadline (not the parent) aborted `signal`. */
  readonly timedOut: boolean;
  /**
   * Clears the timer and detaches from the parent. Call it when the operation ends (finally);
   * afterwards `signal` never aborts. Idempotent.
   */
  dispose(): void;
}

/**
 * A signal that aborts `timeoutMs` ms from now (a `TimeoutError` DOMException as reason) or when
 * `parent` aborts (its reason), whichever is first. An already aborted parent gives an aborted
 * signal. The caller must call `dispose()` when the operation ends. Never throws.
 */
export function deadlineSignal(timeoutMs: number, parent?: AbortSignal): DeadlineSignal {
  return new Deadline(timeoutMs, parent);
}

/**
 * `DeadlineSignal` as a class: plain fields and methods. (An object literal with a `timedOut`
 * getter and closures was itself promoted, ~280 bytes per call, measured as above.)
 */
class Deadline implements DeadlineSignal {
  readonly signal = new AbortEmitter();
  timedOut = false;
  #timer: NodeJS.Timeout | undefined = undefined;
  readonly #parent: AbortSignal | undefined;

  constructor(timeoutMs: number, parent: AbortSignal | undefined) {
    this.#parent = parent;
    if (parent?.aborted) {
      this.signal.abort(parent.reason);
      return;
    }
    this.#timer = setTimeout(this.#onDeadline, timeoutMs);
    this.#timer.unref();
    parent?.addEventListener('abort', this.#onParentAbort, { once: true });
  }

  readonly #onDeadline = (): void => {
    this.#timer = undefined;
    this.timedOut = true;
    this.#parent?.removeEventListener('abort', this.#onParentAbort);
    this.signal.abort(new DOMException('The operation was aborted due to timeout', 'TimeoutError'));
  };

  readonly #onParentAbort = (): void => {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    this.signal.abort(this.#parent?.reason);
  };

  dispose(): void {
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#parent?.removeEventListener('abort', this.#onParentAbort);
  }
}
