import { describe, expect, it } from 'vitest';
import { DEFAULT_RETRY_SCHEDULE_MS, nextAttemptDelayMs, parseRetryAfter, parseRetrySchedule } from '../../src/webhooks/retry-schedule.js';

const mid = (): number => 0.5; // jitter 0
const low = (): number => 0; // jitter -20%
const high = (): number => 0.999999; // jitter just under +20%

describe('DEFAULT_RETRY_SCHEDULE_MS', () => {
  it('is 0, 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 14 h, 20 h, 24 h', () => {
    const s = 1000;
    const m = 60 * s;
    const h = 60 * m;
    expect(DEFAULT_RETRY_SCHEDULE_MS).toEqual([0, 5 * s, 5 * m, 30 * m, 2 * h, 5 * h, 10 * h, 14 * h, 20 * h, 24 * h]);
  });
});

describe('parseRetrySchedule', () => {
  it('reads comma-separated ms with spaces', () => {
    expect(parseRetrySchedule('0,50, 100 ,2000')).toEqual([0, 50, 100, 2000]);
    expect(parseRetrySchedule('7')).toEqual([7]);
  });

  it.each(['', ' ', '0,,5', '0,-5', '1.5', '5s', '0,abc', '1e3', '99999999999999999999'])('throws on %j', (text) => {
    expect(() => parseRetrySchedule(text)).toThrow();
  });
});

describe('nextAttemptDelayMs', () => {
  const schedule = [0, 1000, 5000];

  it('entry k is the wait before attempt k (attemptsMade = k - 1)', () => {
    expect(nextAttemptDelayMs({ schedule, attemptsMade: 0, random: mid })).toBe(0);
    expect(nextAttemptDelayMs({ schedule, attemptsMade: 1, random: mid })).toBe(1000);
    expect(nextAttemptDelayMs({ schedule, attemptsMade: 2, random: mid })).toBe(5000);
  });

  it('answers null once every attempt was made', () => {
    expect(nextAttemptDelayMs({ schedule, attemptsMade: 3, random: mid })).toBeNull();
    expect(nextAttemptDelayMs({ schedule, attemptsMade: 9, random: mid })).toBeNull();
    expect(nextAttemptDelayMs({ schedule: [], attemptsMade: 0, random: mid })).toBeNull();
  });

  it('jitters by at most 20% either way, from the injected random()', () => {
    expect(nextAttemptDelayMs({ schedule, attemptsMade: 1, random: low })).toBe(800);
    expect(nextAttemptDelayMs({ schedule, attemptsMade: 1, random: high })).toBe(1200);
    for (let i = 0; i < 200; i++) {
      const delay = nextAttemptDelayMs({ schedule, attemptsMade: 2, random: Math.random })!;
      expect(delay).toBeGreaterThanOrEqual(4000);
      expect(delay).toBeLessThanOrEqual(6000);
    }
  });

  it('honours Retry-After within [scheduled, 2 x scheduled]', () => {
    expect(nextAttemptDelayMs({ schedule, attemptsMade: 1, retryAfterMs: 1500, random: mid })).toBe(1500);
    expect(nextAttemptDelayMs({ schedule, attemptsMade: 1, retryAfterMs: 10, random: mid })).toBe(1000);
    expect(nextAttemptDelayMs({ schedule, attemptsMade: 1, retryAfterMs: 3_600_000, random: mid })).toBe(2000);
    expect(nextAttemptDelayMs({ schedule, attemptsMade: 1, retryAfterMs: 3_600_000, random: low })).toBe(1600);
    expect(nextAttemptDelayMs({ schedule, attemptsMade: 3, retryAfterMs: 100, random: mid })).toBeNull();
  });
});

describe('parseRetryAfter', () => {
  const nowMs = Date.UTC(2026, 0, 1, 12, 0, 0);

  it('reads delay-seconds', () => {
    expect(parseRetryAfter('120', nowMs)).toBe(120_000);
    expect(parseRetryAfter(' 0 ', nowMs)).toBe(0);
    expect(parseRetryAfter(['3', '9'], nowMs)).toBe(3000);
  });

  it('reads an HTTP-date, a past one as 0', () => {
    expect(parseRetryAfter('Thu, 01 Jan 2026 12:01:30 GMT', nowMs)).toBe(90_000);
    expect(parseRetryAfter('Wed, 31 Dec 2025 12:00:00 GMT', nowMs)).toBe(0);
  });

  it.each([undefined, null, '', 'soon', '-5', '1.5', '+3'])('ignores %j', (value) => {
    expect(parseRetryAfter(value as string | undefined, nowMs)).toBeUndefined();
  });
});
