/**
 * UTC calendar days as `YYYY-MM-DD` strings (the `date` of `report.daily`, DESIGN sections 6-7)
 * and their bounds in ms since the epoch. Every day is exactly 86 400 000 ms (UTC has no DST;
 * leap seconds do not exist in epoch time).
 */

/** One UTC day, ms. */
export const DAY_MS = 86_400_000;

const DATE_PATTERN = /^(\d{4})-(\d{2})-(\d{2})$/;

/**
 * Start of the UTC day `date` (`YYYY-MM-DD`), ms since the epoch; undefined when `date` is not a
 * real calendar day in that form (e.g. `2026-02-30`, `2026-1-1`).
 */
export function parseUtcDate(date: string): number | undefined {
  const match = DATE_PATTERN.exec(date);
  if (!match) return undefined;
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
  const startMs = Date.UTC(year, month - 1, day);
  return formatUtcDate(startMs) === date ? startMs : undefined;
}

/** The UTC day containing `ms`, as `YYYY-MM-DD`. */
export function formatUtcDate(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

/** Start of the UTC day containing `ms`. */
export function utcDayStart(ms: number): number {
  return Math.floor(ms / DAY_MS) * DAY_MS;
}
