/**
 * What one imp's auction needs to know about the imp, computed once before bids are screened:
 * its sizes, its floor, its deals' terms in USD micros, and its ad-quality rules (DESIGN section
 * 4; OpenRTB 2.5 sections 3.2.4 Imp, 3.2.11 Pmp, 3.2.12 Deal).
 */
import type { CurrencyConverter } from '../domain/currency.js';
import { toMicros, type Micros } from '../domain/money.js';
import type { Imp } from '../domain/openrtb.js';
import { offeredMediaTypes, type MediaType } from '../domain/media-type.js';
import { blockedAttributesOf, normalizeDomain } from './ad-quality.js';
import { impSizesOf, type ImpSizes } from './sizes.js';

/** One deal's terms (OpenRTB 2.5 section 3.2.12). */
export interface DealTerms {
  /** The floor a bid for this deal must reach, USD micros; the imp floor when the deal has none; undefined when its currency has no rate. */
  floorUsdMicros: Micros | undefined;
  /** The deal's auction type (`at`): 1 first price, 2 second price plus, 3 fixed price (the floor); undefined = the auction's own. */
  auctionType: 1 | 2 | 3 | undefined;
  /** `wseat`: the only buyer seats that may bid on the deal; undefined = any. */
  allowedSeats: ReadonlySet<string> | undefined;
  /** `wadomain`: the only advertiser domains (lower-cased) that may bid on the deal; undefined = any. */
  allowedDomains: ReadonlySet<string> | undefined;
}

/** One imp's auction terms. Floors are USD micros of CPM; `undefined` = a floor currency without a rate. */
export interface ImpAuctionContext {
  imp: Imp;
  /** The media types the imp offers (its banner/video/audio/native objects); a bid of another type gets 204. */
  mediaTypes: readonly MediaType[];
  /** The banner sizes (banner bids only; video, audio and native sizes are not checked). */
  sizes: ImpSizes;
  /** `imp.bidfloor` in USD micros (0 when absent); undefined when `bidfloorcur` has no rate. */
  floorUsdMicros: Micros | undefined;
  /** `pmp.deals[]` by deal id. */
  deals: Map<string, DealTerms>;
  /** `pmp.private_auction = 1`: only bids for one of the imp's deals compete. */
  privateAuction: boolean;
  /** `battr` of the imp's media objects (creative attributes, list 5.3). */
  blockedAttributes: ReadonlySet<number>;
  /** `imp.secure = 1`: the creative must load every resource over https. */
  secure: boolean;
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

/** A non-empty set of the non-blank strings of `value`, or undefined (no restriction). */
function allowList(value: unknown, map: (s: string) => string = (s) => s): ReadonlySet<string> | undefined {
  if (!Array.isArray(value)) return undefined;
  const out = new Set<string>();
  for (const entry of value) if (typeof entry === 'string' && entry.trim() !== '') out.add(map(entry.trim()));
  return out.size > 0 ? out : undefined;
}

/** Builds the auction terms of `imp` with `rates`. Never throws. */
export function buildImpContext(imp: Imp, rates: CurrencyConverter): ImpAuctionContext {
  const impFloor = floorUsdMicros(imp.bidfloor, imp.bidfloorcur, rates);
  const deals = new Map<string, DealTerms>();
  const pmp = imp.pmp;
  if (pmp && Array.isArray(pmp.deals)) {
    for (const deal of pmp.deals) {
      if (deal === null || typeof deal !== 'object' || typeof deal.id !== 'string' || deal.id === '') continue;
      const hasOwnFloor = typeof deal.bidfloor === 'number';
      const at: unknown = deal.at;
      deals.set(deal.id, {
        floorUsdMicros: hasOwnFloor ? floorUsdMicros(deal.bidfloor, deal.bidfloorcur, rates) : impFloor,
        auctionType: at === 1 || at === 2 || at === 3 ? at : undefined,
        allowedSeats: allowList(deal.wseat),
        allowedDomains: allowList(deal.wadomain, normalizeDomain),
      });
    }
  }
  return {
    imp,
    mediaTypes: offeredMediaTypes(imp),
    sizes: impSizesOf(imp),
    floorUsdMicros: impFloor,
    deals,
    privateAuction: pmp?.private_auction === 1,
    blockedAttributes: blockedAttributesOf(imp),
    secure: imp.secure === 1,
  };
}
