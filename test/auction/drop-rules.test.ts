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
    expect(result.losers).toEqual([{ partnerBid: bid, lossReason }]);
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

  it('impid of an imp without banner: unmatched with 3', () => {
    const request = bidRequest({ imp: [bannerImp(), { id: 'v', video: { mimes: ['video/mp4'] } }] });
    const bid = partnerBid(1, { impid: 'v' });
    const outcome = run({ request, bids: [bid] });
    expect(outcome.unmatched).toEqual([{ partnerBid: bid, lossReason: LossReason.invalidBidResponse }]);
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

  it('private auction with no valid deal bid: no winner', () => {
    const request = dealImp({ private_auction: 1, deals: [{ id: 'd-1' }] });
    const result = only(run({ request, bids: [partnerBid(9, { id: 'open' }), partnerBid(9, { id: 'wrong', dealid: 'zzz' })] }));
    expect(result.winner).toBeNull();
    expect(lossesById(result)).toEqual({ open: LossReason.invalidDealId, wrong: LossReason.invalidDealId });
  });
});
