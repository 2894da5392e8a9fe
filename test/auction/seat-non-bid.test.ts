/**
 * Seat-non-bid (DESIGN section 4 "Transparency"): the status codes of Prebid Server's list for
 * every way a partner ends without a win on an imp, `ext.loss` where its bid was judged, and the
 * request flag that asks for it.
 */
import { describe, expect, it } from 'vitest';
import type { PartnerBid, PartnerCallResult } from '../../src/demand/contract.js';
import { LossReason } from '../../src/domain/openrtb.js';
import { NonBidStatus, buildSeatNonBid, statusForCall, statusForLoss, wantsAllBidStatus } from '../../src/auction/seat-non-bid.js';
import type { ImpAuctionResult, WinningBid } from '../../src/auction/types.js';

const call = (partnerId: string, outcome: PartnerCallResult['outcome'], kind?: string): PartnerCallResult => ({
  partnerId,
  adapter: 'openrtb25',
  outcome,
  latencyMs: 5,
  errors: kind === undefined ? [] : [{ kind, message: kind } as PartnerCallResult['errors'][number]],
});

const partnerBid = (partnerId: string, impid: string): PartnerBid =>
  ({ partnerId, adapter: 'openrtb25', partnerRequestId: 'r', arrivalSeq: 0, seat: partnerId, currency: 'USD', bid: { id: `${partnerId}-${impid}`, impid, price: 1 } }) as PartnerBid;

const winner = (partnerId: string, impid: string): WinningBid => ({
  partnerBid: partnerBid(partnerId, impid),
  auctionType: 1,
  bidUsdMicros: 1_000_000,
  clearingUsdMicros: 1_000_000,
  netUsdMicros: 1_000_000,
  netResponseMicros: 1_000_000,
  clearingPartnerMicros: 1_000_000,
  mbr: 1,
  mediaType: 'banner',
  markup: { type: 'banner' },
});

describe('statusForCall', () => {
  it.each([
    ['no_bid', undefined, NonBidStatus.noBid],
    ['bids', undefined, NonBidStatus.noBid],
    ['timeout', undefined, NonBidStatus.errorTimeout],
    ['error', 'network', NonBidStatus.errorBidderUnreachable],
    ['error', 'bad_response', NonBidStatus.errorInvalidBidResponse],
    ['error', 'too_large', NonBidStatus.errorInvalidBidResponse],
    ['error', 'http_status', NonBidStatus.errorGeneral],
    ['skipped', 'qps_limited', NonBidStatus.requestBlockedOptimized],
    ['skipped', undefined, NonBidStatus.insufficientAuctionTime],
    ['skipped', 'bad_input', NonBidStatus.requestBlockedGeneral],
  ] as const)('%s (%s) -> %i', (outcome, kind, status) => {
    expect(statusForCall(call('p', outcome, kind))).toBe(status);
  });
});

describe('statusForLoss', () => {
  it.each([
    [LossReason.lostToHigherBid, 501],
    [LossReason.lostToPmpDeal, 502],
    [LossReason.bidBelowFloor, 301],
    [LossReason.bidBelowDealFloor, 304],
    [LossReason.creativeFilteredSizeNotAllowed, 351],
    [LossReason.creativeFilteredNotSecure, 352],
    [LossReason.creativeFilteredAdvertiserExclusions, 356],
    [LossReason.creativeFilteredCategoryExclusions, 357],
    [LossReason.creativeFilteredAttributeExclusions, 350],
    [LossReason.missingBidPrice, 102],
    [LossReason.buyerSeatBlocked, 300],
    [LossReason.creativeFilteredNotAllowedInPmpDeal, 300],
  ])('loss %i -> status %i', (loss, status) => {
    expect(statusForLoss(loss)).toBe(status);
  });
});

describe('buildSeatNonBid', () => {
  const results: ImpAuctionResult[] = [
    {
      auctionId: 'auc_1',
      impId: 'a',
      winner: winner('p1', 'a'),
      losers: [
        { partnerBid: partnerBid('p2', 'a'), lossReason: LossReason.creativeFilteredCategoryExclusions },
        { partnerBid: partnerBid('p2', 'a'), lossReason: LossReason.lostToHigherBid, minToWinUsdMicros: 1_010_000 },
      ],
    },
    { auctionId: 'auc_2', impId: 'b', winner: null, losers: [{ partnerBid: partnerBid('p1', 'b'), lossReason: LossReason.bidBelowFloor }] },
  ];

  it('names every partner and imp without a win, with the telling loss, else the call status', () => {
    const out = buildSeatNonBid(['a', 'b'], [call('p1', 'bids'), call('p2', 'bids'), call('p3', 'timeout')], results);
    expect(out).toEqual([
      { seat: 'p1', nonbid: [{ impid: 'b', statuscode: 301, ext: { loss: 100 } }] },
      // p2 had a bid dropped and another outbid on imp a: the price loss says more.
      { seat: 'p2', nonbid: [{ impid: 'a', statuscode: 501, ext: { loss: 102 } }, { impid: 'b', statuscode: 0 }] },
      { seat: 'p3', nonbid: [{ impid: 'a', statuscode: 101 }, { impid: 'b', statuscode: 101 }] },
    ]);
  });

  it('leaves out a partner that won every imp', () => {
    const won: ImpAuctionResult[] = [{ auctionId: 'auc_1', impId: 'a', winner: winner('p1', 'a'), losers: [] }];
    expect(buildSeatNonBid(['a'], [call('p1', 'bids')], won)).toEqual([]);
  });
});

describe('wantsAllBidStatus', () => {
  it.each([
    [{ prebid: { returnallbidstatus: true } }, true],
    [{ prebid: { returnallbidstatus: 'true' } }, false],
    [{ prebid: {} }, false],
    [{ prebid: null }, false],
    [undefined, false],
    ['x', false],
  ])('%j -> %s', (ext, wants) => {
    expect(wantsAllBidStatus(ext)).toBe(wants);
  });
});
