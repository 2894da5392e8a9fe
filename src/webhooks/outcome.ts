/**
 * What one attempt's answer means for its message (DESIGN section 6): 2xx = delivered; 410 =
 * failed and the endpoint disabled (`gone`); anything else (3xx included: redirects are never
 * followed; 4xx, 5xx, no answer) = retried per the schedule, `Retry-After` honoured, or `failed`
 * after the last attempt. Pure.
 */
import type { WebhookDeliveryOutcome } from '../observability/webhook-metrics.js';
import type { OutboxAttemptUpdate } from '../storage/ports.js';
import type { AttemptResult } from './deliver.js';
import { nextAttemptDelayMs, parseRetryAfter } from './retry-schedule.js';

/** The decision for one attempt. */
export interface AttemptDecision {
  outcome: WebhookDeliveryOutcome;
  /** Applied to the message with the attempt record. */
  update: OutboxAttemptUpdate;
  /** The attempt record's `error`: why no answer came, or which status failed; null on 2xx. */
  error: string | null;
  /** The attempt record's `nextAttemptAtMs`: when the retry is due, null when none follows. */
  nextAttemptAtMs: number | null;
}

/**
 * Decides the outcome of attempt number `attemptNo` (1-based) that ended at `endedAtMs` (ms since
 * the epoch, injected clock) with `result`. The retry wait counts from the end of the attempt
 * (`retry-schedule.ts`). `previousNextAttemptAtMs` is kept as `nextAttemptAtMs` of a message that
 * will not be attempted again (the column is meaningless then).
 */
export function decideAttemptOutcome(input: {
  result: AttemptResult;
  attemptNo: number;
  endedAtMs: number;
  previousNextAttemptAtMs: number;
  scheduleMs: readonly number[];
  random: () => number;
}): AttemptDecision {
  const { result, attemptNo, endedAtMs } = input;
  const status = result.statusCode;
  if (status !== null && status >= 200 && status < 300) {
    return {
      outcome: 'delivered',
      error: null,
      nextAttemptAtMs: null,
      update: { status: 'delivered', attempts: attemptNo, nextAttemptAtMs: input.previousNextAttemptAtMs, deliveredAtMs: endedAtMs, lastError: null },
    };
  }
  const error = result.error ?? describeStatus(status ?? 0);
  if (status === 410) {
    return {
      outcome: 'gone',
      error,
      nextAttemptAtMs: null,
      update: { status: 'failed', attempts: attemptNo, nextAttemptAtMs: input.previousNextAttemptAtMs, deliveredAtMs: null, lastError: error },
    };
  }
  const retryAfterMs = status === null ? undefined : parseRetryAfter(result.retryAfter, endedAtMs);
  const delayMs = nextAttemptDelayMs({ schedule: input.scheduleMs, attemptsMade: attemptNo, retryAfterMs, random: input.random });
  if (delayMs === null) {
    return {
      outcome: 'failed',
      error,
      nextAttemptAtMs: null,
      update: { status: 'failed', attempts: attemptNo, nextAttemptAtMs: input.previousNextAttemptAtMs, deliveredAtMs: null, lastError: error },
    };
  }
  const nextAttemptAtMs = endedAtMs + delayMs;
  return {
    outcome: 'retry',
    error,
    nextAttemptAtMs,
    update: { status: 'pending', attempts: attemptNo, nextAttemptAtMs, deliveredAtMs: null, lastError: error },
  };
}

function describeStatus(status: number): string {
  if (status === 410) return 'HTTP 410 Gone: endpoint disabled';
  if (status >= 300 && status < 400) return `HTTP ${status}: redirects are not followed`;
  return `HTTP ${status}`;
}
