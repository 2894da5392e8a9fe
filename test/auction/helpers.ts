/**
 * Builders for auction tests: requests, imps and partner bids as plain objects (no HTTP), and a
 * `run` that holds the auction with the bundled rates and sequential ids.
 */
import type { PartnerBid } from '../../src/demand/contract.js';
import { bundledConverter } from '../../src/domain/currency.js';
import { createSequentialIds } from '../../src/domain/ids.js';
import type { Bid, BidRequest, Imp } from '../../src/domain/openrtb.js';
import { holdAuction } from '../../src/auction/hold-auction.js';
import type { AuctionOutcome, ImpAuctionResult } from '../../src/auction/types.js';

export const rates = bundledConverter();

/** A 300x250 banner imp with id `1`, overridable. */
export function bannerImp(over: Partial<Imp> = {}): Imp {
  return { id: '1', banner: { w: 300, h: 250 }, ...over };
}

/** A request with the given imps (default: one 300x250 banner imp). */
export function bidRequest(over: Partial<BidRequest> = {}): BidRequest {
  return { id: 'req-1', imp: [bannerImp()], ...over };
}

let arrival = 0;

/** Options of a test bid: any `Bid` field plus its source. */
export type TestBid = Partial<Bid> & { currency?: string; partnerId?: string; arrivalSeq?: number };

/**
 * A valid 300x250 bid for imp `1` at `price` USD CPM with markup, unless overridden. A field set
 * to `undefined` in `over` is removed (to test missing fields).
 */
export function partnerBid(price: unknown, over: TestBid = {}): PartnerBid {
  const { currency = 'USD', partnerId = 'dsp_a', arrivalSeq = ++arrival, ...bidOver } = over;
  const bid: Record<string, unknown> = {
    id: `b${arrivalSeq}`,
    impid: '1',
    price,
    adm: '<div>ad</div>',
    crid: 'cr-1',
    adomain: ['brand.example'],
    w: 300,
    h: 250,
    ...bidOver,
  };
  for (const key of Object.keys(bid)) if (bid[key] === undefined) delete bid[key];
  return {
    bid: bid as Bid,
    seat: partnerId,
    currency,
    partnerId,
    adapter: 'openrtb25',
    partnerRequestId: `req_${partnerId}`,
    arrivalSeq,
  };
}

/** Options of `run`. */
export interface RunOptions {
  request?: BidRequest;
  bids: PartnerBid[];
  at?: 1 | 2;
  takeRate?: number;
  responseCurrency?: string;
}

/** Holds the auction with bundled rates and fresh sequential ids (`auc_1`, `auc_2`, ...). */
export function run(options: RunOptions): AuctionOutcome {
  return holdAuction({
    request: options.request ?? bidRequest(),
    bids: options.bids,
    auctionType: options.at ?? 2,
    takeRate: options.takeRate ?? 0,
    responseCurrency: options.responseCurrency ?? 'USD',
    rates,
    ids: createSequentialIds(),
  });
}

/** The only imp result of an outcome (fails the test when there is not exactly one). */
export function only(outcome: AuctionOutcome): ImpAuctionResult {
  if (outcome.results.length !== 1) throw new Error(`expected one imp result, got ${outcome.results.length}`);
  return outcome.results[0] as ImpAuctionResult;
}

/** Loss reasons of a result keyed by the bid's `id`. */
export function lossesById(result: ImpAuctionResult): Record<string, number> {
  return Object.fromEntries(result.losers.map((l) => [l.partnerBid.bid.id, l.lossReason]));
}
