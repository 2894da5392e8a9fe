/**
 * Seat-non-bid (DESIGN section 4 "Transparency"): when a request asks with
 * `ext.prebid.returnallbidstatus: true`, the response says, for every partner and imp without a
 * winning bid from it, why: `ext.seatnonbid: [{seat, nonbid: [{impid, statuscode, ext: {loss?}}]}]`.
 *
 * Status codes are the seat-non-bid list Prebid Server uses (prebid/prebid-server
 * `exchange/non_bid_reason.go`, which points at the IAB Tech Lab community extension
 * InteractiveAdvertisingBureau/openrtb `extensions/community_extensions/seat-non-bid.md`, "List:
 * Non Bid Status Codes"): 0-99 no bid, 100-199 error, 200-299 request blocked (the partner was
 * not asked), 300-399 response rejected. The list has no code for a valid bid that lost on price;
 * the extension leaves 500+ to exchanges, and adx uses 501 (lost to a higher bid) and 502 (lost
 * to a deal bid), as the OpenWrap fork of Prebid Server does. The exact OpenRTB 2.5 loss reason
 * (list 5.25) goes in `ext.loss` wherever the partner's bid was judged.
 */
import type { PartnerCallResult } from '../demand/contract.js';
import { LossReason, type LossReasonCode } from '../domain/openrtb.js';
import type { ImpAuctionResult, LosingBid } from './types.js';

/** Seat-non-bid status codes (see the module comment for the sources). */
export const NonBidStatus = {
  noBid: 0,
  insufficientAuctionTime: 15,
  errorGeneral: 100,
  errorTimeout: 101,
  errorInvalidBidResponse: 102,
  errorBidderUnreachable: 103,
  requestBlockedGeneral: 200,
  requestBlockedUnsupportedMediaType: 202,
  requestBlockedOptimized: 203,
  requestBlockedPrivacy: 204,
  responseRejectedGeneral: 300,
  responseRejectedBelowFloor: 301,
  responseRejectedBelowDealFloor: 304,
  responseRejectedInvalidCreative: 350,
  responseRejectedSizeNotAllowed: 351,
  responseRejectedNotSecure: 352,
  responseRejectedIncorrectFormat: 353,
  responseRejectedAdvertiserBlocked: 356,
  responseRejectedCategoryExclusion: 357,
  lostToHigherBid: 501,
  lostToDealBid: 502,
} as const;

/** One `nonbid` entry. */
export interface NonBid {
  impid: string;
  statuscode: number;
  ext?: { loss: LossReasonCode };
}

/** One `seatnonbid` entry: a demand partner (its id, as in `seatbid.seat`) and its imps without a win. */
export interface SeatNonBid {
  seat: string;
  nonbid: NonBid[];
}

/** The status of a bid the auction judged and did not award, by its OpenRTB 2.5 loss reason. */
export function statusForLoss(loss: LossReasonCode): number {
  switch (loss) {
    case LossReason.lostToHigherBid:
      return NonBidStatus.lostToHigherBid;
    case LossReason.lostToPmpDeal:
      return NonBidStatus.lostToDealBid;
    case LossReason.bidBelowFloor:
      return NonBidStatus.responseRejectedBelowFloor;
    case LossReason.bidBelowDealFloor:
      return NonBidStatus.responseRejectedBelowDealFloor;
    case LossReason.creativeFilteredSizeNotAllowed:
      return NonBidStatus.responseRejectedSizeNotAllowed;
    case LossReason.creativeFilteredNotSecure:
      return NonBidStatus.responseRejectedNotSecure;
    case LossReason.creativeFilteredIncorrectFormat:
      return NonBidStatus.responseRejectedIncorrectFormat;
    case LossReason.creativeFilteredAdvertiserExclusions:
      return NonBidStatus.responseRejectedAdvertiserBlocked;
    case LossReason.creativeFilteredCategoryExclusions:
      return NonBidStatus.responseRejectedCategoryExclusion;
    case LossReason.creativeFilteredAttributeExclusions:
    case LossReason.creativeFilteredAppBundleExclusions:
    case LossReason.missingMarkup:
      return NonBidStatus.responseRejectedInvalidCreative;
    case LossReason.invalidBidResponse:
    case LossReason.missingBidPrice:
      return NonBidStatus.errorInvalidBidResponse;
    default:
      return NonBidStatus.responseRejectedGeneral;
  }
}

/** The status of an imp a partner was asked about and did not bid on, by how its call ended. */
export function statusForCall(call: PartnerCallResult): number {
  switch (call.outcome) {
    case 'bids':
    case 'no_bid':
      return NonBidStatus.noBid;
    case 'timeout':
      return NonBidStatus.errorTimeout;
    case 'skipped': {
      const kind = call.errors[0]?.kind;
      if (kind === 'qps_limited') return NonBidStatus.requestBlockedOptimized;
      // Not called for privacy (DESIGN section 11): "Request Blocked - Privacy", 204 in Prebid
      // Server's exchange/non_bid_reason.go (RequestBlockedPrivacy) and the IAB list.
      if (kind === 'privacy_blocked') return NonBidStatus.requestBlockedPrivacy;
      // Skipped without an error: no budget was left for it within tmax.
      return kind === undefined ? NonBidStatus.insufficientAuctionTime : NonBidStatus.requestBlockedGeneral;
    }
    case 'error': {
      const kind = call.errors[0]?.kind;
      if (kind === 'network') return NonBidStatus.errorBidderUnreachable;
      if (kind === 'bad_response' || kind === 'too_large') return NonBidStatus.errorInvalidBidResponse;
      if (kind === 'timeout') return NonBidStatus.errorTimeout;
      return NonBidStatus.errorGeneral;
    }
  }
}

/** The loser that says most about a partner's bids on one imp: one that lost on price, else the first dropped. */
function telling(losers: LosingBid[]): LosingBid {
  return losers.find((l) => l.lossReason === LossReason.lostToHigherBid || l.lossReason === LossReason.lostToPmpDeal) ?? losers[0]!;
}

/**
 * `ext.seatnonbid` for `calls` (one per partner asked or skipped, in that order) over the
 * auctioned imps `impIds`: every partner and imp without a winning bid from that partner, with
 * the status of its judged bid (and `ext.loss`), else of its call; an imp the partner was not
 * offered because it offers none of the partner's `media_types` (`notOffered`) gets 202
 * (request blocked: unsupported media type). Partners with nothing to say (every imp won) are
 * left out. Pure.
 */
export function buildSeatNonBid(
  impIds: readonly string[],
  calls: readonly PartnerCallResult[],
  results: readonly ImpAuctionResult[],
  notOffered: (partnerId: string, impId: string) => boolean = () => false,
): SeatNonBid[] {
  const byImp = new Map(results.map((r) => [r.impId, r]));
  const out: SeatNonBid[] = [];
  for (const call of calls) {
    const nonbid: NonBid[] = [];
    for (const impid of impIds) {
      const result = byImp.get(impid);
      if (result?.winner?.partnerBid.partnerId === call.partnerId) continue;
      if (notOffered(call.partnerId, impid)) {
        nonbid.push({ impid, statuscode: NonBidStatus.requestBlockedUnsupportedMediaType });
        continue;
      }
      const losers = result ? result.losers.filter((l) => l.partnerBid.partnerId === call.partnerId) : [];
      if (losers.length > 0) {
        const loser = telling(losers);
        nonbid.push({ impid, statuscode: statusForLoss(loser.lossReason), ext: { loss: loser.lossReason } });
      } else {
        nonbid.push({ impid, statuscode: statusForCall(call) });
      }
    }
    if (nonbid.length > 0) out.push({ seat: call.partnerId, nonbid });
  }
  return out;
}

/** True when the request asks for every bid's status (`ext.prebid.returnallbidstatus: true`, Prebid Server's flag). */
export function wantsAllBidStatus(ext: unknown): boolean {
  if (ext === null || typeof ext !== 'object') return false;
  const prebid = (ext as { prebid?: unknown }).prebid;
  return prebid !== null && typeof prebid === 'object' && (prebid as { returnallbidstatus?: unknown }).returnallbidstatus === true;
}
