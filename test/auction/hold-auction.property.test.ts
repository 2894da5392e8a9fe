import { describe, it, expect } from 'vitest';
import fc from 'fast-check';
import { LossReason } from '../../src/domain/openrtb.js';
import { toMicros } from '../../src/domain/money.js';
import { bannerImp, bidRequest, partnerBid, rates, run } from './helpers.js';

// Invariants of every auction over random bids, floors, take rates and auction types.
const bidArb = fc.record({
  price: fc.oneof(fc.integer({ min: -1_000, max: 20_000_000 }).map((m) => m / 1_000_000), fc.constant(0)),
  currency: fc.constantFrom('USD', 'EUR', 'JPY', 'GBP', 'XYZ'),
  impid: fc.constantFrom('1', '2', 'zz'),
  arrivalSeq: fc.integer({ min: 0, max: 1_000 }),
});

describe('holdAuction invariants', () => {
  it('prices are ordered, every bid is accounted for once, the winner outranks every 102/103 loser and sets the second price', () => {
    fc.assert(
      fc.property(
        fc.array(bidArb, { maxLength: 8 }),
        fc.integer({ min: 0, max: 5_000_000 }),
        fc.constantFrom(1 as const, 2 as const),
        fc.constantFrom(0, 0.1, 0.2, 0.35),
        (specs, floorMicros, at, takeRate) => {
          const request = bidRequest({ imp: [bannerImp({ id: '1', bidfloor: floorMicros / 1_000_000 }), bannerImp({ id: '2' })] });
          const bids = specs.map((s) => partnerBid(s.price, s));
          const outcome = run({ request, bids, at, takeRate });
          let accounted = outcome.unmatched.length;
          for (const result of outcome.results) {
            accounted += result.losers.length + (result.winner ? 1 : 0);
            const winner = result.winner;
            if (!winner) continue;
            const floor = result.impId === '1' ? floorMicros : 0;
            expect(winner.bidUsdMicros).toBeGreaterThanOrEqual(floor);
            expect(winner.clearingUsdMicros).toBeLessThanOrEqual(winner.bidUsdMicros);
            expect(winner.clearingUsdMicros).toBeGreaterThan(0);
            expect(winner.netUsdMicros).toBeLessThanOrEqual(winner.clearingUsdMicros);
            expect(Number.isInteger(winner.netUsdMicros)).toBe(true);
            expect(winner.mbr).toBeGreaterThan(0);
            expect(winner.mbr).toBeLessThanOrEqual(1);
            if (at === 1) expect(winner.clearingUsdMicros).toBe(winner.bidUsdMicros);
            let secondUsd = 0;
            for (const loser of result.losers) {
              if (loser.lossReason !== LossReason.lostToHigherBid && loser.lossReason !== LossReason.lostToPmpDeal) continue;
              const loserUsd = rates.toUsd(toMicros(loser.partnerBid.bid.price), loser.partnerBid.currency) as number;
              const outranked =
                loserUsd < winner.bidUsdMicros ||
                (loserUsd === winner.bidUsdMicros && loser.partnerBid.arrivalSeq >= winner.partnerBid.arrivalSeq);
              expect(outranked).toBe(true);
              secondUsd = Math.max(secondUsd, loserUsd);
            }
            if (at === 2) {
              expect(winner.clearingUsdMicros).toBe(Math.min(Math.max(secondUsd, floor) + 10_000, winner.bidUsdMicros));
            }
          }
          expect(accounted).toBe(bids.length);
        },
      ),
    );
  });
});

// Deals and ad quality: random deal terms (floor, at, private auction, wseat) and request blocks.
const dealBidArb = fc.record({
  price: fc.integer({ min: 1, max: 10_000_000 }).map((m) => m / 1_000_000),
  dealid: fc.constantFrom(undefined, 'd-1', 'd-2', 'nope'),
  partnerId: fc.constantFrom('dsp_a', 'dsp_b', 'dsp_c'),
  cat: fc.constantFrom<string[] | undefined>(undefined, ['IAB1'], ['IAB1-5'], ['IAB2']),
  arrivalSeq: fc.integer({ min: 0, max: 1_000 }),
});

describe('holdAuction invariants with deals and ad-quality rules', () => {
  it('never awards a dropped bid; clears between the effective floor and the bid; a private auction never clears an open bid; a fixed-price deal clears at its floor', () => {
    fc.assert(
      fc.property(
        fc.array(dealBidArb, { maxLength: 8 }),
        fc.integer({ min: 0, max: 3_000_000 }),
        fc.record({ floorMicros: fc.integer({ min: 0, max: 6_000_000 }), at: fc.constantFrom(undefined, 1, 2, 3) }),
        fc.boolean(),
        fc.constantFrom(1 as const, 2 as const),
        fc.constantFrom<string[] | undefined>(undefined, ['dsp_c']),
        (specs, impFloorMicros, d1, privateAuction, at, bseat) => {
          const deals = [
            { id: 'd-1', bidfloor: d1.floorMicros / 1_000_000, ...(d1.at !== undefined ? { at: d1.at } : {}) },
            { id: 'd-2', wseat: ['dsp_a'] },
          ];
          const request = bidRequest({
            imp: [bannerImp({ bidfloor: impFloorMicros / 1_000_000, pmp: { private_auction: privateAuction ? 1 : 0, deals } })],
            bcat: ['IAB1'],
            ...(bseat ? { bseat } : {}),
          });
          const bids = specs.map((s) => partnerBid(s.price, s));
          const result = run({ request, bids, at }).results[0]!;
          expect(result.losers.length + (result.winner ? 1 : 0)).toBe(bids.length);
          const winner = result.winner;
          if (!winner) return;
          const bid = winner.partnerBid;
          // Never a bid that breaks a rule.
          expect(bseat?.includes(bid.seat) ?? false).toBe(false);
          expect((bid.bid.cat ?? []).some((c) => c === 'IAB1' || c.startsWith('IAB1-'))).toBe(false);
          expect(bid.bid.dealid).not.toBe('nope');
          if (bid.bid.dealid === 'd-2') expect(bid.seat).toBe('dsp_a');
          if (privateAuction) expect(['d-1', 'd-2']).toContain(bid.bid.dealid);
          // d-1 has a floor of its own (0 included); d-2 has none and inherits the imp's.
          const effectiveFloor = bid.bid.dealid === 'd-1' ? d1.floorMicros : impFloorMicros;
          expect(winner.clearingUsdMicros).toBeLessThanOrEqual(winner.bidUsdMicros);
          expect(winner.clearingUsdMicros).toBeGreaterThanOrEqual(effectiveFloor);
          if (bid.bid.dealid === 'd-1' && d1.at === 3) {
            expect(winner.auctionType).toBe(3);
            expect(winner.clearingUsdMicros).toBe(effectiveFloor);
          }
        },
      ),
    );
  });
});
