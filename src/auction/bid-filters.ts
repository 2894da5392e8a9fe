/**
 * The drop rules of one imp's auction (DESIGN section 4): a bid that breaks one is dropped with
 * its OpenRTB 2.5 loss reason (section 5.25) and the auction goes on with the rest. Prices are
 * CPM; money is USD micros.
 */
import type { PartnerBid } from '../demand/contract.js';
import type { CurrencyConverter } from '../domain/currency.js';
import { toMicros, type Micros } from '../domain/money.js';
import { LossReason, type BidRequest, type LossReasonCode } from '../domain/openrtb.js';
import type { ImpAuctionContext } from './imp-context.js';
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
}

/** An advertiser domain as compared with `badv`: trimmed and lower-cased (exact match, no subdomains). */
function normalizeDomain(domain: string): string {
  return domain.trim().toLowerCase();
}

/**
 * The request's blocked advertiser domains (`badv`, OpenRTB 2.5 section 3.2.1), normalized for
 * case-insensitive exact comparison. Non-string entries are ignored; a missing `badv` is empty.
 */
export function blockedDomainsOf(request: BidRequest): ReadonlySet<string> {
  const blocked = new Set<string>();
  if (Array.isArray(request.badv)) {
    for (const domain of request.badv) {
      if (typeof domain === 'string' && domain.trim() !== '') blocked.add(normalizeDomain(domain));
    }
  }
  return blocked;
}

function hasBlockedDomain(adomain: unknown, blocked: ReadonlySet<string>): boolean {
  if (blocked.size === 0 || !Array.isArray(adomain)) return false;
  for (const domain of adomain) {
    if (typeof domain === 'string' && blocked.has(normalizeDomain(domain))) return true;
  }
  return false;
}

/**
 * Checks one bid for the imp of `ctx` (the caller matched `bid.impid` already, and has handled
 * an imp floor without a rate). Returns the screened bid, or the loss reason it is dropped with,
 * checking in this order (the first rule broken decides):
 * - `price` missing or not a number: 9 (missing bid price); `price` not finite, <= 0, or zero
 *   once converted to USD micros: 3 (invalid bid response).
 * - bid currency without a rate: 3.
 * - creative size not among the imp's sizes (see `matchBidSize`): 203.
 * - an `adomain` entry in `badv` (case-insensitive, exact domain): 205.
 * - `adm` missing, not a string, or blank: 7 (missing markup; markup served on the win notice is
 *   not supported).
 * - `dealid` (non-empty) that is not one of the imp's deals: 4 (invalid deal id); with
 *   `pmp.private_auction=1`, a bid without a deal id: 4 as well.
 * - a deal bid whose deal floor is in a currency without a rate: 1 (internal error: the floor
 *   cannot be judged, so the bid cannot be taken).
 * - a deal bid below its deal floor: 101; any other bid below the imp floor: 100. A price equal
 *   to the floor passes.
 */
export function screenBid(
  partnerBid: PartnerBid,
  ctx: ImpAuctionContext,
  blockedDomains: ReadonlySet<string>,
  rates: CurrencyConverter,
): ScreenedBid | LossReasonCode {
  const bid = partnerBid.bid;
  const price: unknown = bid.price;
  if (typeof price !== 'number') return LossReason.missingBidPrice;
  if (!Number.isFinite(price) || price <= 0) return LossReason.invalidBidResponse;
  const usdMicros = rates.toUsd(toMicros(price), partnerBid.currency);
  if (usdMicros === undefined) return LossReason.invalidBidResponse;
  if (!(usdMicros > 0)) return LossReason.invalidBidResponse;

  if (matchBidSize(bid, ctx.sizes) === null) return LossReason.creativeFilteredSizeNotAllowed;
  if (hasBlockedDomain(bid.adomain, blockedDomains)) return LossReason.creativeFilteredAdvertiserExclusions;
  const adm: unknown = bid.adm;
  if (typeof adm !== 'string' || adm.trim() === '') return LossReason.missingMarkup;

  const dealid: unknown = bid.dealid;
  const claimsDeal = dealid !== undefined && dealid !== null && dealid !== '';
  if (claimsDeal) {
    if (typeof dealid !== 'string' || !ctx.dealFloorsUsdMicros.has(dealid)) return LossReason.invalidDealId;
    const dealFloor = ctx.dealFloorsUsdMicros.get(dealid);
    if (dealFloor === undefined) return LossReason.internalError;
    if (usdMicros < dealFloor) return LossReason.bidBelowDealFloor;
    return { partnerBid, usdMicros, floorUsdMicros: dealFloor, isDeal: true };
  }
  if (ctx.privateAuction) return LossReason.invalidDealId;
  // The caller drops every bid of an imp whose floor has no rate before screening; 0 is unreachable.
  const floor = ctx.floorUsdMicros ?? 0;
  if (usdMicros < floor) return LossReason.bidBelowFloor;
  return { partnerBid, usdMicros, floorUsdMicros: floor, isDeal: false };
}
