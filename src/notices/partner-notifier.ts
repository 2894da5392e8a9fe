/**
 * Calls demand partners' own notice URLs: `nurl` (win), `burl` (billing) and `lurl` (loss),
 * OpenRTB 2.5 sections 4.2.3 and 4.4, after the exchange has substituted the macros.
 * DESIGN section 3: "Calls to partners are fire-and-forget with a short retry, never on the bid
 * request's critical path."
 *
 * Choices:
 * - GET, no body, over a keep-alive undici Agent owned by the notifier (separate from the bid
 *   path's pools, so slow notice endpoints never hold sockets the auction needs).
 * - 2xx and 3xx count as delivered. Redirects are not followed: a notice is a server-to-server
 *   signal, and the partner has received it once it answers; a redirect usually points at a
 *   pixel or cookie-sync meant for browsers.
 * - Network errors, timeouts and 5xx are retried (after 200 ms, then 1 s, then 1 s ...) up to
 *   `attempts` attempts in all; 4xx are final (the partner rejected the URL).
 * - Only http and https URLs are called; anything else is counted as failed and dropped.
 * - Metric `partnerNotices{kind, outcome}` counts each `fire` once, with its final outcome
 *   (`ok` or `failed`).
 */
import { Agent, request } from 'undici';
import { deadlineSignal } from '../deadline-signal.js';
import type { Clock } from '../domain/clock.js';
import type { Logger } from '../observability/logger.js';
import type { Metrics } from '../observability/metrics.js';

/** Which partner URL a call is for (OpenRTB 2.5 `bid.nurl`, `bid.burl`, `bid.lurl`). */
export type PartnerNoticeKind = 'nurl' | 'burl' | 'lurl';

/** Fire-and-forget caller of partners' notice URLs. */
export interface PartnerNotifier {
  /**
   * Starts a GET of `url` (macros already substituted) in the background and returns at once.
   * Never throws and never rejects into the caller; the outcome is only counted and logged.
   */
  fire(kind: PartnerNoticeKind, url: string): void;
  /** Resolves once every call started so far has finished, retries included (shutdown, tests). */
  drain(): Promise<void>;
  /**
   * Stops: later `fire` calls are dropped (counted failed), pending retries are abandoned
   * (counted failed), calls in flight are awaited, then the connection pool is closed.
   * Calling it again answers the same promise.
   */
  close(): Promise<void>;
}

/** Dependencies and settings of `createPartnerNotifier`. */
export interface PartnerNotifierDeps {
  /** Measures call durations (monotonic), for the debug log. */
  clock: Clock;
  metrics: Metrics;
  log: Logger;
  /** Attempts per call in all, first included (config `notices.partnerCallAttempts`); at least 1. */
  attempts: number;
  /** Timeout of one attempt, ms, connect to end of body (config `notices.partnerCallTimeoutMs`). */
  timeoutMs: number;
  /** Fixed wait between attempts, ms; default 200 ms before the 2nd attempt and 1 s before later ones. */
  retryDelayMs?: number;
}

/** Default waits before attempts 2, 3, ... (the last repeats). */
const DEFAULT_RETRY_DELAYS_MS = [200, 1000] as const;
/** Most of a response body read before the socket is given up (notices answer pixels or nothing). */
const MAX_BODY_BYTES = 64 * 1024;

/** Result of one attempt: delivered, failed for good, or worth another try. */
type AttemptResult = { kind: 'ok' } | { kind: 'final' | 'retry'; reason: string };

/**
 * Creates the partner notifier (see the module comment for its rules). The undici Agent is
 * created here and closed by `close()`.
 */
export function createPartnerNotifier(deps: PartnerNotifierDeps): PartnerNotifier {
  const attempts = Number.isFinite(deps.attempts) ? Math.max(1, Math.floor(deps.attempts)) : 1;
  const timeoutMs = deps.timeoutMs;
  const agent = new Agent({
    keepAliveTimeout: 30_000,
    connections: 64,
    connect: { timeout: timeoutMs },
    // Each attempt's deadline signal bounds headers and body; undici's own timers of 1 s or more
    // sit in a list it sweeps about once a second, keeping every call's objects alive that long.
    headersTimeout: 0,
    bodyTimeout: 0,
  });
  const inFlight = new Set<Promise<void>>();
  /** Aborted by `close()`: wakes up calls sleeping before a retry. */
  const shutdown = new AbortController();
  let closed = false;
  /** The one shutdown in progress or done: `close()` may be called more than once. */
  let closing: Promise<void> | undefined;

  const delayBefore = (attempt: number): number =>
    deps.retryDelayMs ?? DEFAULT_RETRY_DELAYS_MS[Math.min(attempt - 2, DEFAULT_RETRY_DELAYS_MS.length - 1)] ?? 1000;

  async function attemptOnce(url: string): Promise<AttemptResult> {
    // Not AbortSignal.timeout: its timer outlives a call that answered (src/deadline-signal.ts).
    const deadline = deadlineSignal(timeoutMs);
    try {
      const res = await request(url, { method: 'GET', dispatcher: agent, signal: deadline.signal });
      // Read (and drop) the body so the keep-alive socket goes back to the pool.
      await res.body.dump({ limit: MAX_BODY_BYTES }).catch(() => undefined);
      if (res.statusCode < 400) return { kind: 'ok' };
      return { kind: res.statusCode >= 500 ? 'retry' : 'final', reason: `http ${res.statusCode}` };
    } catch (err) {
      return { kind: 'retry', reason: err instanceof Error ? `${err.name}: ${err.message}` : String(err) };
    } finally {
      deadline.dispose();
    }
  }

  async function call(kind: PartnerNoticeKind, url: string): Promise<void> {
    const startMs = deps.clock.monotonicMs();
    let result: AttemptResult = { kind: 'final', reason: 'not attempted' };
    for (let attempt = 1; attempt <= attempts; attempt++) {
      if (attempt > 1 && !(await sleep(delayBefore(attempt), shutdown.signal))) {
        result = { kind: 'final', reason: 'retry abandoned at shutdown' };
        break;
      }
      result = await attemptOnce(url);
      if (result.kind !== 'retry') break;
    }
    const ok = result.kind === 'ok';
    deps.metrics.partnerNotices.inc({ kind, outcome: ok ? 'ok' : 'failed' });
    if (!ok) {
      deps.log.debug({ kind, url, reason: result.kind === 'ok' ? undefined : result.reason, durationMs: deps.clock.monotonicMs() - startMs }, 'partner notice failed');
    }
  }

  return {
    fire(kind, url) {
      try {
        if (closed || !isHttpUrl(url)) {
          deps.metrics.partnerNotices.inc({ kind, outcome: 'failed' });
          deps.log.debug({ kind, url, reason: closed ? 'notifier closed' : 'not an http(s) URL' }, 'partner notice dropped');
          return;
        }
        const pending: Promise<void> = call(kind, url)
          .catch((err: unknown) => deps.log.warn({ err, kind }, 'partner notice call crashed'))
          .finally(() => inFlight.delete(pending));
        inFlight.add(pending);
      } catch (err) {
        // Nothing above is expected to throw; a notice must never break its caller.
        deps.log.warn({ err, kind }, 'partner notice not started');
      }
    },

    async drain() {
      while (inFlight.size > 0) await Promise.allSettled([...inFlight]);
    },

    close() {
      closing ??= (async () => {
        closed = true;
        shutdown.abort();
        while (inFlight.size > 0) await Promise.allSettled([...inFlight]);
        await agent.close();
      })();
      return closing;
    },
  };
}

function isHttpUrl(url: string): boolean {
  if (typeof url !== 'string') return false;
  try {
    const { protocol } = new URL(url);
    return protocol === 'http:' || protocol === 'https:';
  } catch {
    return false;
  }
}

/** Waits `ms`; resolves true when the time passed, false when `signal` aborted first. */
function sleep(ms: number, signal: AbortSignal): Promise<boolean> {
  if (signal.aborted) return Promise.resolve(false);
  return new Promise((resolve) => {
    const onAbort = (): void => {
      clearTimeout(timer);
      resolve(false);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve(true);
    }, ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}
