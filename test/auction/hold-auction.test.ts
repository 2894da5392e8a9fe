import { describe, it, expect } from 'vitest';
import { LossReason } from '../../src/domain/openrtb.js';
import { auctionTypeOf, chooseResponseCurrency, holdAuction } from '../../src/auction/hold-auction.js';
import { createSequentialIds } from '../../src/domain/ids.js';
import { bannerImp, bidRequest, lossesById, only, partnerBid, rates, run, type RunOptions } from './helpers.js';

// Expected conversions with the bundled table (EUR 0.862813, JPY 153.912, GBP 0.760524 per USD),
// worked out by hand with decimal arithmetic, rounded half up:
//   1.00 EUR = 1 159 000 USD micros   150 JPY = 974 583   0.80 GBP = 1 051 906   2.00 EUR = 2 317 999
//   1 010 000 USD micros = 871 441 EUR micros   987 654 USD micros = 852 161 EUR micros

interface PriceCase {
  name: string;
  options: RunOptions;
  winnerId: string;
  bidUsdMicros: number;
  clearingUsdMicros: number;
  losses?: Record<string, number>;
}

const priceCases: PriceCase[] = [
  {
    name: 'first price: the winner pays its bid',
    options: { at: 1, bids: [partnerBid(1.2, { id: 'low' }), partnerBid(1.5, { id: 'high' })] },
    winnerId: 'high',
    bidUsdMicros: 1_500_000,
    clearingUsdMicros: 1_500_000,
    losses: { low: LossReason.lostToHigherBid },
  },
  {
    name: 'first price ignores the floor for the price',
    options: { at: 1, request: bidRequest({ imp: [bannerImp({ bidfloor: 1 })] }), bids: [partnerBid(1.5, { id: 'a' })] },
    winnerId: 'a',
    bidUsdMicros: 1_500_000,
    clearingUsdMicros: 1_500_000,
  },
  {
    name: 'second price, two bids: second + 0.01',
    options: { at: 2, bids: [partnerBid(1.5, { id: 'high' }), partnerBid(1.2, { id: 'low' })] },
    winnerId: 'high',
    bidUsdMicros: 1_500_000,
    clearingUsdMicros: 1_210_000,
    losses: { low: LossReason.lostToHigherBid },
  },
  {
    name: 'second price, three bids: the second-highest sets the price',
    options: { bids: [partnerBid(0.9, { id: 'c' }), partnerBid(2, { id: 'a' }), partnerBid(1.7, { id: 'b' })] },
    winnerId: 'a',
    bidUsdMicros: 2_000_000,
    clearingUsdMicros: 1_710_000,
    losses: { b: LossReason.lostToHigherBid, c: LossReason.lostToHigherBid },
  },
  {
    name: 'second price, one bid and a floor: floor + 0.01',
    options: { request: bidRequest({ imp: [bannerImp({ bidfloor: 1 })] }), bids: [partnerBid(1.5, { id: 'a' })] },
    winnerId: 'a',
    bidUsdMicros: 1_500_000,
    clearingUsdMicros: 1_010_000,
  },
  {
    name: 'second price, floor above the second bid: floor + 0.01',
    options: {
      request: bidRequest({ imp: [bannerImp({ bidfloor: 1 })] }),
      bids: [partnerBid(1.5, { id: 'a' }), partnerBid(0.5, { id: 'under' })],
    },
    winnerId: 'a',
    bidUsdMicros: 1_500_000,
    clearingUsdMicros: 1_010_000,
    losses: { under: LossReason.bidBelowFloor },
  },
  {
    name: 'second price, one bid, no floor: 0.01',
    options: { bids: [partnerBid(1.5, { id: 'a' })] },
    winnerId: 'a',
    bidUsdMicros: 1_500_000,
    clearingUsdMicros: 10_000,
  },
  {
    name: 'second price, one bid under 0.01, no floor: capped at the bid',
    options: { bids: [partnerBid(0.005, { id: 'a' })] },
    winnerId: 'a',
    bidUsdMicros: 5_000,
    clearingUsdMicros: 5_000,
  },
  {
    name: 'second price never above the winning bid (bids 0.005 apart)',
    options: { bids: [partnerBid(1.0, { id: 'b' }), partnerBid(1.005, { id: 'a' })] },
    winnerId: 'a',
    bidUsdMicros: 1_005_000,
    clearingUsdMicros: 1_005_000,
    losses: { b: LossReason.lostToHigherBid },
  },
  {
    name: 'floor in EUR: 1.00 EUR converted, bid at the floor passes',
    options: {
      request: bidRequest({ imp: [bannerImp({ bidfloor: 1, bidfloorcur: 'EUR' })] }),
      bids: [partnerBid(1.159, { id: 'at-floor' }), partnerBid(1.158999, { id: 'under' })],
    },
    winnerId: 'at-floor',
    bidUsdMicros: 1_159_000,
    clearingUsdMicros: 1_159_000, // floor 1 159 000 + 10 000, capped at the bid
    losses: { under: LossReason.bidBelowFloor },
  },
  {
    name: 'floor in JPY: 150 JPY converted',
    options: {
      request: bidRequest({ imp: [bannerImp({ bidfloor: 150, bidfloorcur: 'JPY' })] }),
      bids: [partnerBid(2, { id: 'a' }), partnerBid(0.974582, { id: 'under' })],
    },
    winnerId: 'a',
    bidUsdMicros: 2_000_000,
    clearingUsdMicros: 974_583 + 10_000,
    losses: { under: LossReason.bidBelowFloor },
  },
  {
    name: 'floor in GBP: 0.80 GBP converted',
    options: {
      request: bidRequest({ imp: [bannerImp({ bidfloor: 0.8, bidfloorcur: 'GBP' })] }),
      bids: [partnerBid(3, { id: 'a' }), partnerBid(1.051905, { id: 'under' }), partnerBid(1.051906, { id: 'second' })],
    },
    winnerId: 'a',
    bidUsdMicros: 3_000_000,
    clearingUsdMicros: 1_051_906 + 10_000,
    losses: { under: LossReason.bidBelowFloor, second: LossReason.lostToHigherBid },
  },
  {
    name: 'bid in EUR competes in USD micros',
    options: { bids: [partnerBid(2, { id: 'eur', currency: 'EUR' }), partnerBid(2.3, { id: 'usd' })] },
    winnerId: 'eur',
    bidUsdMicros: 2_317_999,
    clearingUsdMicros: 2_310_000,
    losses: { usd: LossReason.lostToHigherBid },
  },
  {
    name: 'ties go to the earlier arrival, whatever the input order',
    options: {
      bids: [partnerBid(2, { id: 'late', arrivalSeq: 9_000_005 }), partnerBid(2, { id: 'early', arrivalSeq: 9_000_003 })],
    },
    winnerId: 'early',
    bidUsdMicros: 2_000_000,
    clearingUsdMicros: 2_000_000,
    losses: { late: LossReason.lostToHigherBid },
  },
  {
    name: 'ties across currencies compare USD micros',
    options: {
      at: 1,
      bids: [partnerBid(2.317999, { id: 'usd', arrivalSeq: 9_000_010 }), partnerBid(2, { id: 'eur', currency: 'EUR', arrivalSeq: 9_000_011 })],
    },
    winnerId: 'usd',
    bidUsdMicros: 2_317_999,
    clearingUsdMicros: 2_317_999,
    losses: { eur: LossReason.lostToHigherBid },
  },
];

describe('holdAuction: winners and clearing prices', () => {
  it.each(priceCases)('$name', ({ options, winnerId, bidUsdMicros, clearingUsdMicros, losses }) => {
    const result = only(run(options));
    expect(result.winner?.partnerBid.bid.id).toBe(winnerId);
    expect(result.winner?.bidUsdMicros).toBe(bidUsdMicros);
    expect(result.winner?.clearingUsdMicros).toBe(clearingUsdMicros);
    expect(result.winner?.netUsdMicros).toBe(clearingUsdMicros);
    expect(result.winner?.mbr).toBe(clearingUsdMicros / bidUsdMicros);
    expect(lossesById(result)).toEqual(losses ?? {});
  });

  it('mbr is in (0, 1]', () => {
    const second = only(run({ bids: [partnerBid(2)] })).winner;
    expect(second?.mbr).toBe(10_000 / 2_000_000);
    const first = only(run({ at: 1, bids: [partnerBid(2)] })).winner;
    expect(first?.mbr).toBe(1);
  });
});

describe('holdAuction: take rate and currencies', () => {
  it('take rate 0.2: gross is the clearing price, net is 80% rounded to micros', () => {
    const winner = only(run({ at: 1, takeRate: 0.2, bids: [partnerBid(1.234567)] })).winner;
    expect(winner?.clearingUsdMicros).toBe(1_234_567);
    expect(winner?.netUsdMicros).toBe(987_654); // 987 653.6 rounded
    expect(winner?.netResponseMicros).toBe(987_654);
    expect(winner?.clearingPartnerMicros).toBe(1_234_567);
  });

  it('take rate applies to the second price too', () => {
    const winner = only(run({ takeRate: 0.2, bids: [partnerBid(3), partnerBid(2.5)] })).winner;
    expect(winner?.clearingUsdMicros).toBe(2_510_000);
    expect(winner?.netUsdMicros).toBe(2_008_000);
  });

  it('response currency EUR: netResponseMicros is the net converted to EUR', () => {
    const winner = only(run({ at: 1, takeRate: 0.2, responseCurrency: 'EUR', bids: [partnerBid(1.234567)] })).winner;
    expect(winner?.netUsdMicros).toBe(987_654);
    expect(winner?.netResponseMicros).toBe(852_161);
    expect(winner?.clearingUsdMicros).toBe(1_234_567);
  });

  it('partner currency EUR: clearingPartnerMicros is the clearing price in EUR', () => {
    const winner = only(run({ bids: [partnerBid(2, { currency: 'EUR' }), partnerBid(1)] })).winner;
    expect(winner?.partnerBid.currency).toBe('EUR');
    expect(winner?.bidUsdMicros).toBe(2_317_999);
    expect(winner?.clearingUsdMicros).toBe(1_010_000);
    expect(winner?.clearingPartnerMicros).toBe(871_441);
    expect(winner?.netResponseMicros).toBe(1_010_000);
  });

  it('throws when the response currency has no rate (caller bug)', () => {
    expect(() => run({ responseCurrency: 'RUB', bids: [] })).toThrow(/RUB/);
  });
});

describe('holdAuction: floor currency without a rate', () => {
  it('RUB floor: the imp gets no winner and every bid loses with 1', () => {
    const request = bidRequest({ imp: [bannerImp({ bidfloor: 10, bidfloorcur: 'RUB' })] });
    const result = only(run({ request, bids: [partnerBid(5, { id: 'a' }), partnerBid(0, { id: 'bad-price' })] }));
    expect(result.winner).toBeNull();
    expect(lossesById(result)).toEqual({ a: LossReason.internalError, 'bad-price': LossReason.internalError });
  });

  it('RUB floor on one imp leaves the other imps alone', () => {
    const request = bidRequest({ imp: [bannerImp({ id: '1', bidfloor: 10, bidfloorcur: 'RUB' }), bannerImp({ id: '2' })] });
    const outcome = run({ request, bids: [partnerBid(5, { impid: '1' }), partnerBid(5, { impid: '2' })] });
    expect(outcome.results[0]?.winner).toBeNull();
    expect(outcome.results[1]?.winner?.bidUsdMicros).toBe(5_000_000);
  });

  it('a zero floor needs no rate', () => {
    const request = bidRequest({ imp: [bannerImp({ bidfloor: 0, bidfloorcur: 'RUB' })] });
    expect(only(run({ request, bids: [partnerBid(1)] })).winner?.clearingUsdMicros).toBe(10_000);
  });
});

describe('holdAuction: imps', () => {
  it('multi-imp: separate auctions and ids, in request imp order', () => {
    const request = bidRequest({
      imp: [
        bannerImp({ id: 'a', bidfloor: 1 }),
        { id: 'v', video: { mimes: ['video/mp4'] } },
        bannerImp({ id: 'b', banner: { w: 728, h: 90 } }),
      ],
    });
    const outcome = run({
      request,
      bids: [
        partnerBid(3, { id: 'b1', impid: 'b', w: 728, h: 90 }),
        partnerBid(2, { id: 'a1', impid: 'a' }),
        partnerBid(1.5, { id: 'a2', impid: 'a' }),
        partnerBid(2, { id: 'b-wrong-size', impid: 'b' }),
      ],
    });
    expect(outcome.results.map((r) => [r.auctionId, r.impId])).toEqual([
      ['auc_1', 'a'],
      ['auc_2', 'v'],
      ['auc_3', 'b'],
    ]);
    const [a, v, b] = outcome.results;
    expect(v).toEqual({ auctionId: 'auc_2', impId: 'v', winner: null, losers: [] });
    expect(a?.winner?.partnerBid.bid.id).toBe('a1');
    expect(a?.winner?.clearingUsdMicros).toBe(1_510_000);
    expect(a && lossesById(a)).toEqual({ a2: LossReason.lostToHigherBid });
    expect(b?.winner?.partnerBid.bid.id).toBe('b1');
    expect(b?.winner?.clearingUsdMicros).toBe(10_000);
    expect(b && lossesById(b)).toEqual({ 'b-wrong-size': LossReason.creativeFilteredSizeNotAllowed });
    expect(outcome.unmatched).toEqual([]);
  });

  it('a banner imp without bids still has its auction (no winner)', () => {
    const outcome = run({ request: bidRequest({ imp: [bannerImp({ id: 'x' }), bannerImp({ id: 'y' })] }), bids: [] });
    expect(outcome.results).toEqual([
      { auctionId: 'auc_1', impId: 'x', winner: null, losers: [] },
      { auctionId: 'auc_2', impId: 'y', winner: null, losers: [] },
    ]);
  });

  it('video and native imps are auctioned too (DESIGN section 4 "Media types")', () => {
    const request = bidRequest({ imp: [{ id: 'v', video: { mimes: ['video/mp4'] } }, { id: 'n', native: { request: '{}' } }] });
    expect(run({ request, bids: [] })).toEqual({
      results: [
        { auctionId: 'auc_1', impId: 'v', winner: null, losers: [] },
        { auctionId: 'auc_2', impId: 'n', winner: null, losers: [] },
      ],
      unmatched: [],
    });
  });

  it('every bid comes back exactly once (winner, loser or unmatched)', () => {
    const bids = [partnerBid(1), partnerBid(2), partnerBid(0), partnerBid(1, { impid: '?' }), partnerBid(3, { w: 1, h: 1 })];
    const outcome = run({ bids });
    const seen = [
      ...outcome.results.flatMap((r) => [...(r.winner ? [r.winner.partnerBid] : []), ...r.losers.map((l) => l.partnerBid)]),
      ...outcome.unmatched.map((l) => l.partnerBid),
    ];
    expect(new Set(seen)).toEqual(new Set(bids));
    expect(seen).toHaveLength(bids.length);
  });

  it('does not modify its inputs', () => {
    const request = bidRequest({ imp: [bannerImp({ bidfloor: 1, bidfloorcur: 'EUR' })], badv: ['x.example'] });
    const bids = [partnerBid(2), partnerBid(1.5, { currency: 'EUR' })];
    const before = structuredClone({ request, bids });
    holdAuction({ request, bids, auctionType: 2, takeRate: 0.1, responseCurrency: 'EUR', rates, ids: createSequentialIds() });
    expect({ request, bids }).toEqual(before);
  });
});

describe('chooseResponseCurrency', () => {
  it.each([
    { cur: ['RUB', 'EUR', 'USD'], expected: 'EUR' },
    { cur: ['JPY'], expected: 'JPY' },
    { cur: ['USD', 'EUR'], expected: 'USD' },
    { cur: ['RUB'], expected: 'USD' },
    { cur: [], expected: 'USD' },
    { cur: undefined, expected: 'USD' },
  ])('cur $cur -> $expected', ({ cur, expected }) => {
    expect(chooseResponseCurrency(bidRequest(cur === undefined ? {} : { cur }), rates)).toBe(expected);
  });
});

describe('auctionTypeOf', () => {
  it.each([
    { at: 1, defaultType: 2 as const, expected: 1 },
    { at: 2, defaultType: 1 as const, expected: 2 },
    { at: undefined, defaultType: 2 as const, expected: 2 },
    { at: undefined, defaultType: 1 as const, expected: 1 },
    { at: 3, defaultType: 2 as const, expected: 2 },
    { at: 501, defaultType: 1 as const, expected: 1 },
    { at: '1', defaultType: 2 as const, expected: 2 },
  ])('at $at, default $defaultType -> $expected', ({ at, defaultType, expected }) => {
    const request = bidRequest(at === undefined ? {} : { at: at as number });
    expect(auctionTypeOf(request, defaultType)).toBe(expected);
  });
});
