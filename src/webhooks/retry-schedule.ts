/**
 * The webhook retry schedule (DESIGN section 6; svix `config.default.toml` `retry_schedule`).
 *
 * A schedule is a list of n delays in ms, n = the number of attempts. Entry k (1..n) is the wait
 * before attempt k, counted from when the event was stored (k = 1) or from the end of attempt
 * k-1. Each wait gets +-20% uniform jitter so retries of many messages do not arrive together.
 * A receiver's `Retry-After` (RFC 9110 section 10.2.3) is honoured within [the scheduled delay,
 * twice it]: it can slow a retry down, never speed it up nor stall it beyond double.
 */

const SECOND_MS = 1000;
const MINUTE_MS = 60 * SECOND_MS;
const HOUR_MS = 60 * MINUTE_MS;

/** Default: 0, 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 14 h, 20 h, 24 h (ms): ten attempts over about 3.3 days. */
export const DEFAULT_RETRY_SCHEDULE_MS: readonly number[] = Object.freeze([
  0,
  5 * SECOND_MS,
  5 * MINUTE_MS,
  30 * MINUTE_MS,
  2 * HOUR_MS,
  5 * HOUR_MS,
  10 * HOUR_MS,
  14 * HOUR_MS,
  20 * HOUR_MS,
  24 * HOUR_MS,
]);

/** Jitter applied to every scheduled delay: uniform in [-20%, +20%]. */
export const RETRY_JITTER_FRACTION = 0.2;

/**
 * Parses `ADX_WEBHOOK_RETRY_SCHEDULE_MS`: comma-separated non-negative integer delays in ms
 * (spaces around entries allowed), e.g. `0,50,100`.
 * @throws Error naming the bad entry when the text is empty or an entry is not a non-negative
 * safe integer.
 */
export function parseRetrySchedule(text: string): number[] {
  if (text.trim() === '') throw new Error('retry schedule is empty: give comma-separated delays in ms, e.g. 0,5000,300000');
  return text.split(',').map((raw, index) => {
    const entry = raw.trim();
    if (!/^\d+$/.test(entry)) throw new Error(`retry schedule entry ${index + 1} ("${raw}") is not a non-negative integer of ms`);
    const value = Number(entry);
    if (!Number.isSafeInteger(value)) throw new Error(`retry schedule entry ${index + 1} ("${raw}") is too large`);
    return value;
  });
}

/**
 * The wait in ms before the next attempt, or null when none follows.
 *
 * - `schedule`: the delays (ms), see the module comment.
 * - `attemptsMade`: attempts already made (0 before the first); the next attempt is number
 *   `attemptsMade + 1`, whose wait is `schedule[attemptsMade]`. Null when `attemptsMade >= n`:
 *   the message is then `failed`.
 * - `retryAfterMs`: the receiver's `Retry-After` (see `parseRetryAfter`), if any.
 * - `random`: uniform in [0, 1) (`Math.random` in production; fixed in tests).
 *
 * Result: `scheduled = round(entry * (1 + jitter))`, jitter uniform in [-0.2, 0.2]; with
 * `retryAfterMs` the result is `retryAfterMs` clamped to [scheduled, 2 * scheduled].
 */
export function nextAttemptDelayMs(input: {
  schedule: readonly number[];
  attemptsMade: number;
  retryAfterMs?: number | null;
  random: () => number;
}): number | null {
  const entry = input.schedule[input.attemptsMade];
  if (input.attemptsMade < 0 || entry === undefined) return null;
  const jitter = (input.random() * 2 - 1) * RETRY_JITTER_FRACTION;
  const scheduled = Math.max(0, Math.round(entry * (1 + jitter)));
  const retryAfterMs = input.retryAfterMs;
  if (retryAfterMs === undefined || retryAfterMs === null || !Number.isFinite(retryAfterMs)) return scheduled;
  return Math.min(Math.max(retryAfterMs, scheduled), 2 * scheduled);
}

/**
 * Parses a `Retry-After` header (RFC 9110 section 10.2.3) into a wait in ms from `nowMs`:
 * either delay-seconds (a non-negative integer) or an HTTP-date (IMF-fixdate and the other
 * forms `Date.parse` reads). A date in the past gives 0. Undefined when absent or unparseable.
 */
export function parseRetryAfter(header: string | string[] | undefined | null, nowMs: number): number | undefined {
  const value = Array.isArray(header) ? header[0] : header;
  if (value === undefined || value === null) return undefined;
  const text = value.trim();
  if (text === '') return undefined;
  if (/^\d+$/.test(text)) {
    const ms = Number(text) * 1000;
    return Number.isSafeInteger(ms) ? ms : undefined;
  }
  // An HTTP-date names a weekday or month: refuse bare numbers with signs/decimals that Date.parse might accept.
  if (!/[a-z]/i.test(text)) return undefined;
  const at = Date.parse(text);
  if (Number.isNaN(at)) return undefined;
  return Math.max(0, at - nowMs);
}
