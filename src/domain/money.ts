/**
 * Money: integer micro-units (1 unit of a currency = 1 000 000 micros). Every amount inside the
 * exchange is micros; decimals appear only at the JSON edge (OpenRTB `price`, `bidfloor`, report
 * payloads). DESIGN section 4 ("in the exchange currency ... USD micros").
 */

/** Integer micro-units of some currency (which currency is given by the name or a sibling field). */
export type Micros = number;

/** Micros in one unit of currency. */
export const MICROS_PER_UNIT = 1_000_000;

/**
 * Decimal amount (a CPM or a plain amount) to integer micros, rounded half away from zero.
 * Returns NaN for a non-finite input; callers check with `Number.isFinite`.
 */
export function toMicros(amount: number): Micros {
  if (!Number.isFinite(amount)) return Number.NaN;
  const scaled = amount * MICROS_PER_UNIT;
  return Math.sign(scaled) * Math.round(Math.abs(scaled));
}

/** Integer micros to a decimal amount with at most 6 decimals (for JSON output). */
export function fromMicros(micros: Micros): number {
  return micros / MICROS_PER_UNIT;
}

/**
 * Scales `micros` by `numerator / denominator`, rounding half away from zero. Used for
 * currency conversion and the take rate, where an exact integer result is needed.
 * Returns NaN when `denominator` is 0 or any input is not finite.
 */
export function scaleMicros(micros: Micros, numerator: number, denominator: number): Micros {
  if (!Number.isFinite(micros) || !Number.isFinite(numerator) || !Number.isFinite(denominator) || denominator === 0) {
    return Number.NaN;
  }
  const scaled = (micros * numerator) / denominator;
  return Math.sign(scaled) * Math.round(Math.abs(scaled));
}
