/**
 * The drop rules of one imp's auction (DESIGN section 4): a bid that breaks one is dropped with
 * its OpenRTB 2.5 loss reason (section 5.25) and the auction goes on with the rest. Prices are
 * CPM; money is USD micros. The request's ad-quality lists are in `ad-quality.ts`, the imp's and
 * its deals' terms in `imp-context.ts`.
 */
import type { PartnerBid } from '../demand/contract.js';
import type { MediaType } from '../domain/media-type.js';
import type { CurrencyConverter } from '../domain/currency.js';
import { toMicros, type Micros } from '../domain/money.js';
import { LossReason, type LossReasonCode } from '../domain/openrtb.js';
import {
  hasBlockedApp,
  hasBlockedAttribute,
  hasBlockedCategory,
  hasBlockedDomain,
  loadsInsecureResource,
  normalizeDomain,
  seatAllowed,
  type RequestBlocks,
} from './ad-quality.js';
import { bidMediaType, readMarkup, type ServableMarkup } from './creative.js';
import type { DealTerms, ImpAuctionContext } from './imp-context.js';
import { matchBidSize } from './sizes.js';

/** A bid that passed every drop rule and competes in its imp's auction. */
export interface ScreenedBid {
  partnerBid: PartnerBid;
  /** The bid's `price` converted to USD micros (CPM), positive. */
  usdMicros: Micros;
  /** The floor this bid had to reach, USD micros: its deal's floor for a deal bid, else the imp floor. */
  floorUsdMicros: Micros;
  /** True when the bid's `dealid` is one of the imp's `pmp.deals[].id`. */
  isDeal: boolean;
  /** The deal's own auction type (`deal.at`) for a deal bid that has one: it prices this bid if it wins. */
  dealAuctionType?: 1 | 2 | 3;
  /** The bid's media type (its `mtype`, else inferred; one the imp offers). */
  mediaType: MediaType;
  /** The markup as read for its type (VAST insertion points, the parsed native response), for the tracker. */
  markup: ServableMarkup;
}

/** A dropped bid: its loss reason, and the floor it had to reach where that is known (USD micros). */
export interface DroppedBid {
  lossReason: LossReasonCode;
  floorUsdMicros: Micros | undefined;
}

/** True when the deal's `wseat`/`wadomain` admit the bid (DESIGN: otherwise 213). */
function dealAdmits(deal: DealTerms, seat: string, adomain: unknown): boolean {
  if (deal.allowedSeats !== undefined && !deal.allowedSeats.has(seat)) return false;
  if (deal.allowedDomains !== undefined) {
    if (!Array.isArray(adomain)) return false;
    const allowed = deal.allowedDomains;
    if (!adomain.some((d) => typeof d === 'string' && allowed.has(normalizeDomain(d)))) return false;
  }
  return true;
}

const drop = (lossReason: LossReasonCode, floorUsdMicros: Micros | undefined = undefined): DroppedBid => ({ lossReason, floorUsdMicros });

/**
 * Checks one bid for the imp of `ctx` (the caller matched `bid.impid` already, and has handled
 * an imp floor without a rate). Returns the screened bid, or why it is dropped, checking in this
 * order (the first rule broken decides):
 * - `price` missing or not a number: 9 (missing bid price); `price` not finite, <= 0, or zero
 *   once converted to USD micros: 3 (invalid bid response); bid currency without a rate: 3.
 * - the bid's seat in the request's `bseat`, or not in its `wseat` when one is given: 104.
 * - `mtype` other than 1 to 4: 3; the bid's media type (`mtype`, else inferred from the markup,
 *   `creative.ts`) not one the imp offers: 204 (a banner+video imp takes either).
 * - a banner bid whose creative size is not among the imp's sizes (see `matchBidSize`): 203.
 *   Video, audio and native sizes are not checked.
 * - an `adomain` entry in `badv` (case-insensitive, exact domain): 205; a `cat` entry in `bcat`
 *   or a child of one: 209; `bundle` in `bapp`: 206; an `attr` entry in the imp's `battr`: 210.
 * - `adm` missing, not a string, or blank: 7 (markup served on the win notice is not supported).
 * - a secure imp (`imp.secure = 1`) whose markup loads a resource over `http://`: 207.
 * - video or audio markup that is not VAST 2.0 to 4.x, or has a DOCTYPE/ENTITY declaration; native
 *   markup that is not a Native 1.2 response: 3 (`creative.ts` `readMarkup`).
 * - `dealid` (non-empty) that is not one of the imp's deals: 4 (invalid deal id); a deal whose
 *   `wseat`/`wadomain` leave the bid out: 213; with `pmp.private_auction=1`, a bid without a deal
 *   id: 4 as well.
 * - a deal bid whose deal floor is in a currency without a rate: 1 (internal error: the floor
 *   cannot be judged, so the bid cannot be taken).
 * - a deal bid below its deal floor: 101; any other bid below the imp floor: 100. A price equal
 *   to the floor passes.
 */
export function screenBid(partnerBid: PartnerBid, ctx: ImpAuctionContext, blocks: RequestBlocks, rates: CurrencyConverter): ScreenedBid | DroppedBid {
  const bid = partnerBid.bid;
  const price: unknown = bid.price;
  if (typeof price !== 'number') return drop(LossReason.missingBidPrice);
  if (!Number.isFinite(price) || price <= 0) return drop(LossReason.invalidBidResponse);
  const usdMicros = rates.toUsd(toMicros(price), partnerBid.currency);
  if (usdMicros === undefined || !(usdMicros > 0)) return drop(LossReason.invalidBidResponse);

  if (!seatAllowed(partnerBid.seat, blocks)) return drop(LossReason.buyerSeatBlocked);
  const judged = bidMediaType(bid, ctx.imp);
  if (judged === 'invalid') return drop(LossReason.invalidBidResponse);
  const mediaType = judged.type;
  if (!ctx.mediaTypes.includes(mediaType)) return drop(LossReason.creativeFilteredIncorrectFormat);
  if (mediaType === 'banner' && matchBidSize(bid, ctx.sizes) === null) return drop(LossReason.creativeFilteredSizeNotAllowed);
  if (hasBlockedDomain(bid.adomain, blocks.blockedDomains)) return drop(LossReason.creativeFilteredAdvertiserExclusions);
  if (hasBlockedCategory(bid.cat, blocks.blockedCategories)) return drop(LossReason.creativeFilteredCategoryExclusions);
  if (hasBlockedApp(bid.bundle, blocks.blockedApps)) return drop(LossReason.creativeFilteredAppBundleExclusions);
  if (hasBlockedAttribute(bid.attr, ctx.blockedAttributes)) return drop(LossReason.creativeFilteredAttributeExclusions);
  const adm: unknown = bid.adm;
  if (typeof adm !== 'string' || adm.trim() === '') return drop(LossReason.missingMarkup);
  if (ctx.secure && loadsInsecureResource(adm)) return drop(LossReason.creativeFilteredNotSecure);
  const markup = readMarkup(adm, judged);
  if (markup === undefined) return drop(LossReason.invalidBidResponse);

  const dealid: unknown = bid.dealid;
  const claimsDeal = dealid !== undefined && dealid !== null && dealid !== '';
  if (claimsDeal) {
    const deal = typeof dealid === 'string' ? ctx.deals.get(dealid) : undefined;
    if (deal === undefined) return drop(LossReason.invalidDealId);
    if (!dealAdmits(deal, partnerBid.seat, bid.adomain)) return drop(LossReason.creativeFilteredNotAllowedInPmpDeal);
    const dealFloor = deal.floorUsdMicros;
    if (dealFloor === undefined) return drop(LossReason.internalError);
    if (usdMicros < dealFloor) return drop(LossReason.bidBelowDealFloor, dealFloor);
    const screened: ScreenedBid = { partnerBid, usdMicros, floorUsdMicros: dealFloor, isDeal: true, mediaType, markup };
    if (deal.auctionType !== undefined) screened.dealAuctionType = deal.auctionType;
    return screened;
  }
  if (ctx.privateAuction) return drop(LossReason.invalidDealId);
  // The caller drops every bid of an imp whose floor has no rate before screening; 0 is unreachable.
  const floor = ctx.floorUsdMicros ?? 0;
  if (usdMicros < floor) return drop(LossReason.bidBelowFloor, floor);
  return { partnerBid, usdMicros, floorUsdMicros: floor, isDeal: false, mediaType, markup };
}

/** True when `screenBid` dropped the bid. */
export function isDropped(result: ScreenedBid | DroppedBid): result is DroppedBid {
  return (result as DroppedBid).lossReason !== undefined;
}
