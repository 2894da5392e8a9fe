import { describe, it, expect } from 'vitest';
import { LossReason, type BidRequest, type Pmp } from '../../src/domain/openrtb.js';
import { bannerImp, bidRequest, lossesById, only, partnerBid, run } from './helpers.js';

// The drop rules (DESIGN section 4, OpenRTB 2.5 section 5.25 loss reasons), sizes and deals,
// each case asserting the exact loss code. Conversions: 1.00 EUR = 1 159 000 USD micros.

interface DropCase {
  name: string;
  request?: BidRequest;
  bid: ReturnType<typeof partnerBid>;
  lossReason: number;
}

const twoSizes = bidRequest({ imp: [bannerImp({ banner: { format: [{ w: 300, h: 250 }, { w: 728, h: 90 }] } })] });
const flex = bidRequest({ imp: [bannerImp({ banner: { format: [{ wratio: 16, hratio: 9, wmin: 320 }] } })] });

const dropCases: DropCase[] = [
  { name: 'price missing: 9', bid: partnerBid(undefined), lossReason: LossReason.missingBidPrice },
  { name: 'price a string: 9', bid: partnerBid('1.50'), lossReason: LossReason.missingBidPrice },
  { name: 'price null: 9', bid: partnerBid(null), lossReason: LossReason.missingBidPrice },
  { name: 'price 0: 3', bid: partnerBid(0), lossReason: LossReason.invalidBidResponse },
  { name: 'price negative: 3', bid: partnerBid(-1), lossReason: LossReason.invalidBidResponse },
  { name: 'price Infinity: 3', bid: partnerBid(Number.POSITIVE_INFINITY), lossReason: LossReason.invalidBidResponse },
  { name: 'price NaN (not finite): 3', bid: partnerBid(Number.NaN), lossReason: LossReason.invalidBidResponse },
  { name: 'price rounding to 0 micros: 3', bid: partnerBid(0.0000001), lossReason: LossReason.invalidBidResponse },
  { name: 'currency without a rate: 3', bid: partnerBid(1, { currency: 'XYZ' }), lossReason: LossReason.invalidBidResponse },
  { name: 'size not among the imp sizes: 203', bid: partnerBid(1, { w: 728, h: 90 }), lossReason: LossReason.creativeFilteredSizeNotAllowed },
  { name: 'only w given: 203', bid: partnerBid(1, { h: undefined }), lossReason: LossReason.creativeFilteredSizeNotAllowed },
  { name: 'no w/h with two imp sizes: 203', request: twoSizes, bid: partnerBid(1, { w: undefined, h: undefined }), lossReason: LossReason.creativeFilteredSizeNotAllowed },
  { name: 'no w/h with a flex size: 203', request: flex, bid: partnerBid(1, { w: undefined, h: undefined }), lossReason: LossReason.creativeFilteredSizeNotAllowed },
  { name: 'flex: wrong ratio: 203', request: flex, bid: partnerBid(1, { w: 640, h: 480 }), lossReason: LossReason.creativeFilteredSizeNotAllowed },
  { name: 'flex: under wmin: 203', request: flex, bid: partnerBid(1, { w: 160, h: 90 }), lossReason: LossReason.creativeFilteredSizeNotAllowed },
  {
    name: 'interstitial with sizes keeps its sizes: 203',
    request: bidRequest({ imp: [bannerImp({ instl: 1 })] }),
    bid: partnerBid(1, { w: 320, h: 480 }),
    lossReason: LossReason.creativeFilteredSizeNotAllowed,
  },
  {
    name: 'adomain in badv, case-insensitive: 205',
    request: bidRequest({ badv: ['Blocked.Example'] }),
    bid: partnerBid(1, { adomain: ['ok.example', 'BLOCKED.example'] }),
    lossReason: LossReason.creativeFilteredAdvertiserExclusions,
  },
  { name: 'adm missing: 7', bid: partnerBid(1, { adm: undefined }), lossReason: LossReason.missingMarkup },
  { name: 'adm empty: 7', bid: partnerBid(1, { adm: '' }), lossReason: LossReason.missingMarkup },
  { name: 'adm blank: 7', bid: partnerBid(1, { adm: '  \n' }), lossReason: LossReason.missingMarkup },
  {
    name: 'below the imp floor: 100',
    request: bidRequest({ imp: [bannerImp({ bidfloor: 1 })] }),
    bid: partnerBid(0.99),
    lossReason: LossReason.bidBelowFloor,
  },
  { name: 'dealid on an imp without deals: 4', bid: partnerBid(1, { dealid: 'd-1' }), lossReason: LossReason.invalidDealId },
  {
    name: 'unknown dealid: 4',
    request: bidRequest({ imp: [bannerImp({ pmp: { deals: [{ id: 'd-1' }] } })] }),
    bid: partnerBid(1, { dealid: 'd-2' }),
    lossReason: LossReason.invalidDealId,
  },
  {
    name: 'open bid in a private auction: 4',
    request: bidRequest({ imp: [bannerImp({ pmp: { private_auction: 1, deals: [{ id: 'd-1' }] } })] }),
    bid: partnerBid(1),
    lossReason: LossReason.invalidDealId,
  },
  {
    name: 'deal bid under its deal floor: 101',
    request: bidRequest({ imp: [bannerImp({ bidfloor: 1, pmp: { deals: [{ id: 'd-1', bidfloor: 3 }] } })] }),
    bid: partnerBid(2, { dealid: 'd-1' }),
    lossReason: LossReason.bidBelowDealFloor,
  },
  {
    name: 'deal without its own floor uses the imp floor: 101',
    request: bidRequest({ imp: [bannerImp({ bidfloor: 1, pmp: { deals: [{ id: 'd-1' }] } })] }),
    bid: partnerBid(0.5, { dealid: 'd-1' }),
    lossReason: LossReason.bidBelowDealFloor,
  },
  {
    name: 'deal floor in EUR: 101 just under 1.00 EUR',
    request: bidRequest({ imp: [bannerImp({ pmp: { deals: [{ id: 'd-1', bidfloor: 1, bidfloorcur: 'EUR' }] } })] }),
    bid: partnerBid(1.158999, { dealid: 'd-1' }),
    lossReason: LossReason.bidBelowDealFloor,
  },
  { name: 'seat in bseat: 104', request: bidRequest({ bseat: ['dsp_a'] }), bid: partnerBid(1), lossReason: LossReason.buyerSeatBlocked },
  { name: 'seat not in wseat: 104', request: bidRequest({ wseat: ['dsp_b'] }), bid: partnerBid(1), lossReason: LossReason.buyerSeatBlocked },
  {
    name: 'seat in both wseat and bseat: 104',
    request: bidRequest({ wseat: ['dsp_a'], bseat: ['dsp_a'] }),
    bid: partnerBid(1),
    lossReason: LossReason.buyerSeatBlocked,
  },
  {
    name: 'cat equal to a bcat entry: 209',
    request: bidRequest({ bcat: ['IAB25-3'] }),
    bid: partnerBid(1, { cat: ['IAB1', 'IAB25-3'] }),
    lossReason: LossReason.creativeFilteredCategoryExclusions,
  },
  {
    name: 'cat a child of a bcat parent: 209',
    request: bidRequest({ bcat: ['IAB7'] }),
    bid: partnerBid(1, { cat: ['IAB7-39'] }),
    lossReason: LossReason.creativeFilteredCategoryExclusions,
  },
  { name: 'bundle in bapp: 206', request: bidRequest({ bapp: ['com.rival.app'] }), bid: partnerBid(1, { bundle: 'com.rival.app' }), lossReason: LossReason.creativeFilteredAppBundleExclusions },
  {
    name: 'attr in the banner battr: 210',
    request: bidRequest({ imp: [bannerImp({ banner: { w: 300, h: 250, battr: [1, 9] } })] }),
    bid: partnerBid(1, { attr: [3, 9] }),
    lossReason: LossReason.creativeFilteredAttributeExclusions,
  },
  {
    name: 'secure imp, an http:// image: 207',
    request: bidRequest({ imp: [bannerImp({ secure: 1 })] }),
    bid: partnerBid(1, { adm: '<a href="https://brand.example"><img src="http://cdn.example/ad.png"></a>' }),
    lossReason: LossReason.creativeFilteredNotSecure,
  },
  {
    name: 'secure imp, an http:// script in a string: 207',
    request: bidRequest({ imp: [bannerImp({ secure: 1 })] }),
    bid: partnerBid(1, { adm: "<script>document.write('<scr'+'ipt src=HTTP://tags.example/t.js></scr'+'ipt>')</script>" }),
    lossReason: LossReason.creativeFilteredNotSecure,
  },
  {
    name: "seat outside the deal's wseat: 213",
    request: bidRequest({ imp: [bannerImp({ pmp: { deals: [{ id: 'd-1', wseat: ['agency-1'] }] } })] }),
    bid: partnerBid(1, { dealid: 'd-1' }),
    lossReason: LossReason.creativeFilteredNotAllowedInPmpDeal,
  },
  {
    name: "adomain outside the deal's wadomain: 213",
    request: bidRequest({ imp: [bannerImp({ pmp: { deals: [{ id: 'd-1', wadomain: ['brand-a.example'] }] } })] }),
    bid: partnerBid(1, { dealid: 'd-1', adomain: ['brand-b.example'] }),
    lossReason: LossReason.creativeFilteredNotAllowedInPmpDeal,
  },
  {
    name: 'deal with wadomain, bid without adomain: 213',
    request: bidRequest({ imp: [bannerImp({ pmp: { deals: [{ id: 'd-1', wadomain: ['brand-a.example'] }] } })] }),
    bid: partnerBid(1, { dealid: 'd-1', adomain: undefined }),
    lossReason: LossReason.creativeFilteredNotAllowedInPmpDeal,
  },
  {
    name: 'deal floor in a currency without a rate: 1',
    request: bidRequest({ imp: [bannerImp({ pmp: { deals: [{ id: 'd-1', bidfloor: 1, bidfloorcur: 'RUB' }] } })] }),
    bid: partnerBid(5, { dealid: 'd-1' }),
    lossReason: LossReason.internalError,
  },
];

describe('holdAuction: dropped bids', () => {
  it.each(dropCases)('$name', ({ request, bid, lossReason }) => {
    const outcome = run({ request, bids: [bid] });
    const result = only(outcome);
    expect(result.winner).toBeNull();
    expect(result.losers).toHaveLength(1);
    expect(result.losers[0]).toMatchObject({ partnerBid: bid, lossReason });
    expect(outcome.unmatched).toEqual([]);
  });

  it('a dropped bid does not stop the auction', () => {
    const result = only(run({ bids: [partnerBid(9, { id: 'bad', adm: '' }), partnerBid(1, { id: 'good' })] }));
    expect(result.winner?.partnerBid.bid.id).toBe('good');
    expect(result.winner?.clearingUsdMicros).toBe(10_000); // the dropped bid sets no second price
    expect(lossesById(result)).toEqual({ bad: LossReason.missingMarkup });
  });

  it('unknown impid: unmatched with 3', () => {
    const bid = partnerBid(1, { impid: 'nope' });
    const outcome = run({ bids: [bid] });
    expect(outcome.unmatched).toEqual([{ partnerBid: bid, lossReason: LossReason.invalidBidResponse }]);
    expect(only(outcome).losers).toEqual([]);
  });

  it('a banner bid (HTML markup) for a video-only imp: 204 incorrect creative format', () => {
    const request = bidRequest({ imp: [bannerImp(), { id: 'v', video: { mimes: ['video/mp4'] } }] });
    const bid = partnerBid(1, { impid: 'v' });
    const outcome = run({ request, bids: [bid] });
    expect(outcome.unmatched).toEqual([]);
    expect(outcome.results[1]?.losers.map((l) => [l.partnerBid, l.lossReason])).toEqual([[bid, LossReason.creativeFilteredIncorrectFormat]]);
  });
});

interface AcceptCase {
  name: string;
  request: BidRequest;
  bid: ReturnType<typeof partnerBid>;
}

const acceptCases: AcceptCase[] = [
  { name: 'a format size', request: twoSizes, bid: partnerBid(1, { w: 728, h: 90 }) },
  { name: 'no w/h with exactly one size', request: bidRequest(), bid: partnerBid(1, { w: undefined, h: undefined }) },
  {
    name: 'no w/h, banner size repeated in format (one distinct size)',
    request: bidRequest({ imp: [bannerImp({ banner: { w: 300, h: 250, format: [{ w: 300, h: 250 }] } })] }),
    bid: partnerBid(1, { w: undefined, h: undefined }),
  },
  { name: 'flex: ratio at wmin', request: flex, bid: partnerBid(1, { w: 320, h: 180 }) },
  { name: 'flex: ratio above wmin', request: flex, bid: partnerBid(1, { w: 640, h: 360 }) },
  {
    name: 'interstitial without sizes: any size',
    request: bidRequest({ imp: [bannerImp({ instl: 1, banner: {} })] }),
    bid: partnerBid(1, { w: 320, h: 480 }),
  },
  {
    name: 'interstitial with w=h=0: any size',
    request: bidRequest({ imp: [bannerImp({ instl: 1, banner: { w: 0, h: 0 } })] }),
    bid: partnerBid(1, { w: 1024, h: 768 }),
  },
  {
    name: 'interstitial without sizes: bid without w/h',
    request: bidRequest({ imp: [bannerImp({ instl: 1, banner: {} })] }),
    bid: partnerBid(1, { w: undefined, h: undefined }),
  },
  {
    name: 'badv is an exact domain: a subdomain is not blocked',
    request: bidRequest({ badv: ['blocked.example'] }),
    bid: partnerBid(1, { adomain: ['sub.blocked.example'] }),
  },
  {
    name: 'deal floor below the imp floor: the deal floor applies',
    request: bidRequest({ imp: [bannerImp({ bidfloor: 1, pmp: { deals: [{ id: 'd-1', bidfloor: 0.5 }] } })] }),
    bid: partnerBid(0.6, { dealid: 'd-1' }),
  },
  {
    name: 'deal floor in EUR met',
    request: bidRequest({ imp: [bannerImp({ pmp: { deals: [{ id: 'd-1', bidfloor: 1, bidfloorcur: 'EUR' }] } })] }),
    bid: partnerBid(1.159, { dealid: 'd-1' }),
  },
  { name: 'seat in wseat', request: bidRequest({ wseat: ['dsp_a', 'dsp_b'] }), bid: partnerBid(1) },
  { name: 'bcat child does not block its parent', request: bidRequest({ bcat: ['IAB7-39'] }), bid: partnerBid(1, { cat: ['IAB7', 'IAB7-3'] }) },
  { name: 'bcat IAB1 does not block IAB10', request: bidRequest({ bcat: ['IAB1'] }), bid: partnerBid(1, { cat: ['IAB10-2'] }) },
  {
    name: 'attr not in battr (battr of another media object ignored when absent)',
    request: bidRequest({ imp: [bannerImp({ banner: { w: 300, h: 250, battr: [1] } })] }),
    bid: partnerBid(1, { attr: [2, 3] }),
  },
  {
    name: 'secure imp, https resources and an http:// click-through',
    request: bidRequest({ imp: [bannerImp({ secure: 1 })] }),
    bid: partnerBid(1, { adm: '<a href="http://brand.example/landing"><img src="https://cdn.example/ad.png"></a>' }),
  },
  { name: 'http:// resources on an imp that is not secure', request: bidRequest(), bid: partnerBid(1, { adm: '<img src="http://cdn.example/ad.png">' }) },
  {
    name: "deal bid inside the deal's wseat and wadomain (case-insensitive domain)",
    request: bidRequest({ imp: [bannerImp({ pmp: { deals: [{ id: 'd-1', wseat: ['dsp_a'], wadomain: ['Brand.Example'] }] } })] }),
    bid: partnerBid(1, { dealid: 'd-1', adomain: ['brand.example'] }),
  },
  {
    name: 'empty dealid is no deal',
    request: bidRequest(),
    bid: partnerBid(1, { dealid: '' }),
  },
];

describe('holdAuction: accepted bids', () => {
  it.each(acceptCases)('$name', ({ request, bid }) => {
    const result = only(run({ request, bids: [bid] }));
    expect(result.winner?.partnerBid).toBe(bid);
    expect(result.losers).toEqual([]);
  });
});

describe('holdAuction: deals', () => {
  const dealImp = (pmp: Pmp, bidfloor = 1) => bidRequest({ imp: [bannerImp({ bidfloor, pmp })] });

  it('a deal bid that beats open bids: open losers get 103, clearing uses the deal floor', () => {
    const request = dealImp({ deals: [{ id: 'd-1', bidfloor: 3 }] });
    const result = only(
      run({ request, bids: [partnerBid(3.5, { id: 'deal', dealid: 'd-1' }), partnerBid(2.5, { id: 'open' })] }),
    );
    expect(result.winner?.partnerBid.bid.id).toBe('deal');
    expect(result.winner?.clearingUsdMicros).toBe(3_010_000); // max(2.50, deal floor 3.00) + 0.01
    expect(lossesById(result)).toEqual({ open: LossReason.lostToPmpDeal });
  });

  it('a deal bid losing to another deal bid gets 102', () => {
    const request = dealImp({ deals: [{ id: 'd-1' }, { id: 'd-2' }] });
    const result = only(
      run({ request, bids: [partnerBid(2, { id: 'x', dealid: 'd-1' }), partnerBid(3, { id: 'y', dealid: 'd-2' }), partnerBid(1.5, { id: 'open' })] }),
    );
    expect(result.winner?.partnerBid.bid.id).toBe('y');
    expect(result.winner?.clearingUsdMicros).toBe(2_010_000);
    expect(lossesById(result)).toEqual({ x: LossReason.lostToHigherBid, open: LossReason.lostToPmpDeal });
  });

  it('an open bid can beat a deal bid in an open auction (deal loser gets 102)', () => {
    const request = dealImp({ deals: [{ id: 'd-1', bidfloor: 2 }] });
    const result = only(run({ request, bids: [partnerBid(2, { id: 'deal', dealid: 'd-1' }), partnerBid(4, { id: 'open' })] }));
    expect(result.winner?.partnerBid.bid.id).toBe('open');
    expect(result.winner?.clearingUsdMicros).toBe(2_010_000);
    expect(lossesById(result)).toEqual({ deal: LossReason.lostToHigherBid });
  });

  it('private auction: only deal bids compete', () => {
    const request = dealImp({ private_auction: 1, deals: [{ id: 'd-1', bidfloor: 2 }] });
    const result = only(
      run({ request, bids: [partnerBid(9, { id: 'open' }), partnerBid(2.5, { id: 'deal', dealid: 'd-1' })] }),
    );
    expect(result.winner?.partnerBid.bid.id).toBe('deal');
    expect(result.winner?.clearingUsdMicros).toBe(2_010_000);
    expect(lossesById(result)).toEqual({ open: LossReason.invalidDealId });
  });

  it("a deal's at overrides the auction type for its bids: 3 fixed price, 1 first price, 2 second price", () => {
    const fixed = dealImp({ deals: [{ id: 'd-1', bidfloor: 4, at: 3 }] });
    // Fixed price: a bid at or above the deal floor clears at exactly the floor, whatever the auction's type.
    for (const at of [1, 2] as const) {
      const result = only(run({ request: fixed, at, bids: [partnerBid(6, { id: 'deal', dealid: 'd-1' }), partnerBid(5, { id: 'open' })] }));
      expect(result.winner).toMatchObject({ auctionType: 3, clearingUsdMicros: 4_000_000 });
    }
    const first = dealImp({ deals: [{ id: 'd-1', bidfloor: 2, at: 1 }] });
    expect(only(run({ request: first, at: 2, bids: [partnerBid(3, { dealid: 'd-1' })] })).winner).toMatchObject({ auctionType: 1, clearingUsdMicros: 3_000_000 });
    const second = dealImp({ deals: [{ id: 'd-1', bidfloor: 2, at: 2 }] });
    const result = only(run({ request: second, at: 1, bids: [partnerBid(3, { id: 'deal', dealid: 'd-1' }), partnerBid(2.5, { id: 'open' })] }));
    expect(result.winner).toMatchObject({ auctionType: 2, clearingUsdMicros: 2_510_000 }); // max(2.50, deal floor 2.00) + 0.01
    // An open winner in the same imp is priced by the auction's own type.
    const open = only(run({ request: fixed, at: 1, bids: [partnerBid(3, { id: 'deal', dealid: 'd-1' }), partnerBid(5, { id: 'open' })] }));
    expect(open.winner).toMatchObject({ auctionType: 1, clearingUsdMicros: 5_000_000 });
    expect(lossesById(open)).toEqual({ deal: LossReason.bidBelowDealFloor });
  });

  it('losers carry the minimum bid to win: above the winner, at least their floor; none for an open bid in a private auction', () => {
    const request = dealImp({ deals: [{ id: 'd-1', bidfloor: 3 }] }, 1);
    const result = only(
      run({ request, bids: [partnerBid(4, { id: 'win', dealid: 'd-1' }), partnerBid(2, { id: 'open' }), partnerBid(0.5, { id: 'low' })] }),
    );
    const min = Object.fromEntries(result.losers.map((l) => [l.partnerBid.bid.id, l.minToWinUsdMicros]));
    expect(min).toEqual({ open: 4_010_000, low: 4_010_000 });
    const none = only(run({ request: dealImp({ deals: [{ id: 'd-1', bidfloor: 3 }] }, 2), bids: [partnerBid(1, { id: 'under' })] }));
    expect(none.losers[0]).toMatchObject({ lossReason: LossReason.bidBelowFloor, minToWinUsdMicros: 2_000_000 });
    const privateAuction = only(run({ request: dealImp({ private_auction: 1, deals: [{ id: 'd-1' }] }), bids: [partnerBid(9, { id: 'open' })] }));
    expect(privateAuction.losers[0]?.minToWinUsdMicros).toBeUndefined();
  });

  it('private auction with no valid deal bid: no winner', () => {
    const request = dealImp({ private_auction: 1, deals: [{ id: 'd-1' }] });
    const result = only(run({ request, bids: [partnerBid(9, { id: 'open' }), partnerBid(9, { id: 'wrong', dealid: 'zzz' })] }));
    expect(result.winner).toBeNull();
    expect(lossesById(result)).toEqual({ open: LossReason.invalidDealId, wrong: LossReason.invalidDealId });
  });
});
