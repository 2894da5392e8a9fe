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
