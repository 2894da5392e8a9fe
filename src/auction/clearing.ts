/**
 * Clearing prices (DESIGN section 4; OpenRTB 2.5 section 3.2.1 `at`). All amounts are USD micros
 * of CPM.
 */
import { MICROS_PER_UNIT, scaleMicros, type Micros } from '../domain/money.js';

/** The second-price increment: 0.01 USD CPM in micros. */
export const SECOND_PRICE_INCREMENT_MICROS: Micros = 10_000;

/** The facts the clearing price depends on, USD micros (CPM). */
export interface ClearingInput {
  /** 1 first price, 2 second price plus. */
  auctionType: 1 | 2;
  /** The winning bid. */
  winnerUsdMicros: Micros;
  /** The highest other valid bid, or undefined when the winner was alone. */
  secondUsdMicros: Micros | undefined;
  /** The floor the winner had to reach (its deal floor for a deal bid, else the imp floor; 0 when none). */
  floorUsdMicros: Micros;
}

/**
 * The clearing (gross) price, USD micros: what the winning partner pays.
 * - at=1: the winning bid.
 * - at=2: max(second-highest valid bid, the winner's floor) + 0.01 USD, never above the winning
 *   bid (so a lone bid without floor clears at 0.01 USD, or at its own price when lower).
 */
export function clearingUsdMicros(input: ClearingInput): Micros {
  if (input.auctionType === 1) return input.winnerUsdMicros;
  const base = Math.max(input.secondUsdMicros ?? 0, input.floorUsdMicros);
  return Math.min(base + SECOND_PRICE_INCREMENT_MICROS, input.winnerUsdMicros);
}

/**
 * Net = clearing x (1 - takeRate), USD micros rounded half away from zero: what the publisher is
 * paid. `takeRate` in [0, 1) is taken to parts per million so the product is exact integer
 * arithmetic (no binary-fraction drift in `1 - takeRate`).
 */
export function netUsdMicros(clearingUsdMicros: Micros, takeRate: number): Micros {
  if (takeRate === 0) return clearingUsdMicros;
  const keepPpm = Math.round((1 - takeRate) * MICROS_PER_UNIT);
  return scaleMicros(clearingUsdMicros, keepPpm, MICROS_PER_UNIT);
}

/** `${AUCTION_MBR}` (OpenRTB 2.5 section 4.4): clearing / winning bid, both USD micros; in (0, 1]. */
export function marketBidRatio(clearingUsdMicros: Micros, winnerUsdMicros: Micros): number {
  return clearingUsdMicros / winnerUsdMicros;
}
