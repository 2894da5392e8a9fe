/**
 * What one imp's auction needs to know about the imp, computed once before bids are screened:
 * its sizes, its floor and its deals' floors in USD micros (DESIGN section 4; OpenRTB 2.5
 * sections 3.2.4 Imp, 3.2.11 Pmp, 3.2.12 Deal).
 */
import type { CurrencyConverter } from '../domain/currency.js';
import { toMicros, type Micros } from '../domain/money.js';
import type { Imp } from '../domain/openrtb.js';
import { impSizesOf, type ImpSizes } from './sizes.js';

/** One imp's auction terms. Floors are USD micros of CPM; `undefined` = a floor currency without a rate. */
export interface ImpAuctionContext {
  imp: Imp;
  sizes: ImpSizes;
  /** `imp.bidfloor` in USD micros (0 when absent); undefined when `bidfloorcur` has no rate. */
  floorUsdMicros: Micros | undefined;
  /**
   * `pmp.deals[]` by deal id: the floor a bid for that deal must reach, USD micros. A deal
   * without `bidfloor` uses the imp floor; undefined when the deal's floor currency has no rate.
   */
  dealFloorsUsdMicros: Map<string, Micros | undefined>;
  /** `pmp.private_auction = 1`: only bids for one of the imp's deals compete. */
  privateAuction: boolean;
}

/**
 * A floor (CPM in `currency`, default USD) in USD micros. An absent, zero, negative or
 * non-numeric floor is 0 whatever its currency (no conversion is needed for nothing); a
 * positive floor in a currency without a rate gives undefined.
 */
export function floorUsdMicros(bidfloor: unknown, currency: unknown, rates: CurrencyConverter): Micros | undefined {
  if (typeof bidfloor !== 'number' || !Number.isFinite(bidfloor) || bidfloor <= 0) return 0;
  const code = typeof currency === 'string' && currency !== '' ? currency : 'USD';
  return rates.toUsd(toMicros(bidfloor), code);
}

/** Builds the auction terms of `imp` (an imp with a `banner`) with `rates`. Never throws. */
export function buildImpContext(imp: Imp, rates: CurrencyConverter): ImpAuctionContext {
  const impFloor = floorUsdMicros(imp.bidfloor, imp.bidfloorcur, rates);
  const dealFloorsUsdMicros = new Map<string, Micros | undefined>();
  const pmp = imp.pmp;
  if (pmp && Array.isArray(pmp.deals)) {
    for (const deal of pmp.deals) {
      if (deal === null || typeof deal !== 'object' || typeof deal.id !== 'string' || deal.id === '') continue;
      const hasOwnFloor = typeof deal.bidfloor === 'number';
      dealFloorsUsdMicros.set(deal.id, hasOwnFloor ? floorUsdMicros(deal.bidfloor, deal.bidfloorcur, rates) : impFloor);
    }
  }
  return {
    imp,
    sizes: impSizesOf(imp),
    floorUsdMicros: impFloor,
    dealFloorsUsdMicros,
    privateAuction: pmp?.private_auction === 1,
  };
}
