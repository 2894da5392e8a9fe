/**
 * The publisher's reserve price (DESIGN section 4 "Reserve"): a floor under every imp of that
 * publisher. The effective floor of an imp is max(imp floor, reserve); of a deal,
 * max(deal floor, reserve) (a deal without its own floor inherits the imp's, so the reserve
 * reaches it through the imp). Applied once per request, before partners are called, so the
 * floors partners see (converted to their currency by the adapters) and the floors the auction
 * holds bids to are the same numbers.
 */
import type { CurrencyConverter } from '../domain/currency.js';
import { fromMicros, type Micros } from '../domain/money.js';
import type { BidRequest, Deal, Imp } from '../domain/openrtb.js';
import { floorUsdMicros } from './imp-context.js';

/**
 * A floor raised to the reserve: answers `{bidfloor, bidfloorcur: 'USD'}` (the reserve as a USD
 * CPM) when `reserveUsdMicros` is above the floor (`bidfloor` CPM in `bidfloorcur`, default USD),
 * else undefined (the floor stands). A floor in a currency without a rate is left alone: that imp
 * (or deal) gets no bid whatever the reserve (DESIGN section 4).
 */
function raisedFloor(bidfloor: unknown, bidfloorcur: unknown, reserveUsdMicros: Micros, rates: CurrencyConverter): { bidfloor: number; bidfloorcur: string } | undefined {
  const floor = floorUsdMicros(bidfloor, bidfloorcur, rates);
  if (floor === undefined || floor >= reserveUsdMicros) return undefined;
  return { bidfloor: fromMicros(reserveUsdMicros), bidfloorcur: 'USD' };
}

function withReserve(imp: Imp, reserveUsdMicros: Micros, rates: CurrencyConverter): Imp {
  let out = imp;
  const impFloor = raisedFloor(imp.bidfloor, imp.bidfloorcur, reserveUsdMicros, rates);
  if (impFloor !== undefined) out = { ...imp, ...impFloor };
  const deals = imp.pmp?.deals;
  if (imp.pmp && Array.isArray(deals)) {
    let changed = false;
    const raised = deals.map((deal: Deal) => {
      // A deal without its own floor inherits the imp's (raised above).
      if (deal === null || typeof deal !== 'object' || typeof deal.bidfloor !== 'number') return deal;
      const dealFloor = raisedFloor(deal.bidfloor, deal.bidfloorcur, reserveUsdMicros, rates);
      if (dealFloor === undefined) return deal;
      changed = true;
      return { ...deal, ...dealFloor };
    });
    if (changed) out = { ...out, pmp: { ...imp.pmp, deals: raised } };
  }
  return out;
}

/**
 * The request as partners and the auction see it under a reserve of `reserveUsdMicros` (CPM,
 * USD micros): each imp floor and each deal floor below the reserve is replaced by the reserve,
 * in USD. Floors at or above it keep their value and currency. Never mutates `request`; answers
 * `request` itself when the reserve is 0 or changes nothing, and shares unchanged imps.
 */
export function applyReserve(request: BidRequest, reserveUsdMicros: Micros, rates: CurrencyConverter): BidRequest {
  if (!(reserveUsdMicros > 0)) return request;
  let changed = false;
  const imp = request.imp.map((original) => {
    const raised = withReserve(original, reserveUsdMicros, rates);
    if (raised !== original) changed = true;
    return raised;
  });
  return changed ? { ...request, imp } : request;
}
