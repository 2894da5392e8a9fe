/**
 * Floor conversion for outgoing partner requests (DESIGN section 5: "floors converted to the
 * partner's currency"). Shared by adapters so every partner sees floors the same way.
 */
import type { CurrencyConverter } from '../domain/currency.js';
import { fromMicros, scaleMicros, toMicros } from '../domain/money.js';
import type { Deal, Imp } from '../domain/openrtb.js';

/**
 * Converts a CPM `amount` in `fromCurrency` into `toCurrency` over the rates table (units per
 * 1 USD), in one step (amount x rate(to) / rate(from)) rounded to whole micros, half away from
 * zero. Same currency: `amount` unchanged. Answers undefined when either currency has no rate
 * or the amount is not finite.
 */
export function convertCpm(amount: number, fromCurrency: string, toCurrency: string, rates: CurrencyConverter): number | undefined {
  if (!Number.isFinite(amount)) return undefined;
  if (fromCurrency === toCurrency) return amount;
  const rateFrom = rates.rate(fromCurrency);
  const rateTo = rates.rate(toCurrency);
  if (rateFrom === undefined || rateTo === undefined) return undefined;
  const micros = scaleMicros(toMicros(amount), rateTo, rateFrom);
  return Number.isFinite(micros) ? fromMicros(micros) : undefined;
}

/**
 * The imp as a partner bidding in `currency` must see it: `bidfloor` (OpenRTB 2.5 section
 * 3.2.4, default currency USD) and every `pmp.deals[].bidfloor` (3.2.12) converted, with
 * `bidfloorcur` set to `currency`. Never mutates `imp`; unchanged parts are shared, not cloned.
 *
 * Answers undefined when the imp's own floor has no rate (the imp cannot be offered: the
 * auction could not hold it to its floor). A deal whose floor has no rate is left out; if that
 * leaves a private auction (`pmp.private_auction` = 1) with no deal, the imp is left out too.
 */
export function convertImpFloors(imp: Imp, currency: string, rates: CurrencyConverter): Imp | undefined {
  let out: Imp = imp;
  if (typeof imp.bidfloor === 'number') {
    const floor = convertCpm(imp.bidfloor, imp.bidfloorcur ?? 'USD', currency, rates);
    if (floor === undefined) return undefined;
    out = { ...imp, bidfloor: floor, bidfloorcur: currency };
  }
  const deals = imp.pmp?.deals;
  if (imp.pmp && Array.isArray(deals) && deals.length > 0) {
    const converted: Deal[] = [];
    let changed = false;
    for (const deal of deals) {
      if (typeof deal.bidfloor !== 'number') {
        converted.push(deal);
        continue;
      }
      const floor = convertCpm(deal.bidfloor, deal.bidfloorcur ?? 'USD', currency, rates);
      changed = true;
      if (floor !== undefined) converted.push({ ...deal, bidfloor: floor, bidfloorcur: currency });
    }
    if (changed) {
      if (converted.length === 0 && imp.pmp.private_auction === 1) return undefined;
      out = { ...out, pmp: { ...imp.pmp, deals: converted } };
    }
  }
  return out;
}
