/**
 * The auction (DESIGN section 4): one auction per imp (every imp offers a media type), held in the exchange
 * currency (USD micros of CPM), pure and synchronous. Drop rules live in `bid-filters.ts`, sizes
 * in `sizes.ts`, floors in `imp-context.ts`, prices in `clearing.ts`.
 */
import type { PartnerBid } from '../demand/contract.js';
import type { CurrencyConverter } from '../domain/currency.js';
import type { Micros } from '../domain/money.js';
import { LossReason, type BidRequest, type LossReasonCode } from '../domain/openrtb.js';
import { offeredMediaTypes } from '../domain/media-type.js';
import { buildRequestBlocks } from './ad-quality.js';
import { isDropped, screenBid, type ScreenedBid } from './bid-filters.js';
import { clearingUsdMicros, marketBidRatio, netUsdMicros, SECOND_PRICE_INCREMENT_MICROS } from './clearing.js';
import { buildImpContext, type ImpAuctionContext } from './imp-context.js';
import type { AuctionInput, AuctionOutcome, ImpAuctionResult, LosingBid, WinningBid } from './types.js';

/** One imp's auction while bids are sorted into it. */
interface ImpAuctionState {
  ctx: ImpAuctionContext;
  valid: ScreenedBid[];
  /** Dropped bids with the floor each had to reach (USD micros) where known. */
  dropped: Array<{ loser: LosingBid; floorUsdMicros: Micros | undefined }>;
}

/**
 * The response currency (OpenRTB 2.5 section 4.2.1 `cur`; DESIGN section 2): the first entry of
 * `request.cur` that `rates` has a rate for, else `USD`. Non-string entries are skipped.
 */
export function chooseResponseCurrency(request: BidRequest, rates: CurrencyConverter): string {
  if (Array.isArray(request.cur)) {
    for (const code of request.cur) {
      if (typeof code === 'string' && rates.has(code)) return code;
    }
  }
  return 'USD';
}

/**
 * The auction type (OpenRTB 2.5 section 3.2.1 `at`; DESIGN section 4): request `at` 1 gives 1
 * (first price), 2 gives 2 (second price plus); anything else (absent, exchange-specific values
 * > 500, junk) gives `defaultType`, the publisher's `auction_type` (default 1).
 */
export function auctionTypeOf(request: BidRequest, defaultType: 1 | 2): 1 | 2 {
  const at: unknown = request.at;
  return at === 1 ? 1 : at === 2 ? 2 : defaultType;
}

/** Highest USD price first; equal prices go to the bid that arrived first (lower `arrivalSeq`). */
function outranks(a: ScreenedBid, b: ScreenedBid): boolean {
  if (a.usdMicros !== b.usdMicros) return a.usdMicros > b.usdMicros;
  return a.partnerBid.arrivalSeq < b.partnerBid.arrivalSeq;
}

function priceWinner(best: ScreenedBid, second: ScreenedBid | undefined, input: AuctionInput): WinningBid {
  const partnerBid: PartnerBid = best.partnerBid;
  // A deal's own `at` prices its bids (DESIGN section 4 "Deals"); 3 = fixed price, the deal floor.
  const auctionType = best.dealAuctionType ?? input.auctionType;
  const clearing =
    auctionType === 3
      ? best.floorUsdMicros
      : clearingUsdMicros({
          auctionType,
          winnerUsdMicros: best.usdMicros,
          secondUsdMicros: second?.usdMicros,
          floorUsdMicros: best.floorUsdMicros,
        });
  const net = netUsdMicros(clearing, input.takeRate);
  // Both currencies have rates: the response currency by contract (checked in holdAuction),
  // the bid currency because bids in a currency without a rate were dropped.
  const netResponseMicros = input.rates.fromUsd(net, input.responseCurrency) as number;
  const clearingPartnerMicros = input.rates.fromUsd(clearing, partnerBid.currency) as number;
  return {
    partnerBid,
    mediaType: best.mediaType,
    markup: best.markup,
    auctionType,
    bidUsdMicros: best.usdMicros,
    clearingUsdMicros: clearing,
    netUsdMicros: net,
    netResponseMicros,
    clearingPartnerMicros,
    mbr: marketBidRatio(clearing, best.usdMicros),
  };
}

/** Loss reasons no price can cure: the seat, the deal's terms or the auction's privacy keep the bid out. */
const PRICE_CANNOT_CURE: ReadonlySet<LossReasonCode> = new Set([
  LossReason.buyerSeatBlocked,
  LossReason.creativeFilteredNotAllowedInPmpDeal,
  LossReason.invalidDealId,
]);

/**
 * `${AUCTION_MIN_TO_WIN}` of a losing bid, USD micros (OpenRTB 2.6 section 4.4: the minimum bid
 * that would have won): above the winning bid by the increment, and at least the floor the bid
 * had to reach (its deal's floor for a deal bid, else the imp's); with no winner, that floor.
 * Undefined when no price could have won it the auction (an open bid in a private auction, a
 * blocked seat, a bid outside its deal's terms or for an unknown deal) or its floor is unknown.
 */
function minToWin(winner: ScreenedBid | undefined, loser: LosingBid, floorUsdMicros: Micros | undefined, ctx: ImpAuctionContext): Micros | undefined {
  if (PRICE_CANNOT_CURE.has(loser.lossReason)) return undefined;
  const dealid = loser.partnerBid.bid.dealid;
  const deal = typeof dealid === 'string' ? ctx.deals.get(dealid) : undefined;
  if (ctx.privateAuction && deal === undefined) return undefined;
  const floor = floorUsdMicros ?? (deal !== undefined ? deal.floorUsdMicros : ctx.floorUsdMicros);
  if (floor === undefined) return undefined;
  return winner === undefined ? floor : Math.max(winner.usdMicros + SECOND_PRICE_INCREMENT_MICROS, floor);
}

function settle(state: ImpAuctionState, input: AuctionInput): ImpAuctionResult {
  const auctionId = input.ids.next('auc');
  const { valid, ctx } = state;
  let best: ScreenedBid | undefined;
  let second: ScreenedBid | undefined;
  for (const candidate of valid) {
    if (best === undefined || outranks(candidate, best)) {
      second = best;
      best = candidate;
    } else if (second === undefined || outranks(candidate, second)) {
      second = candidate;
    }
  }
  const losers: LosingBid[] = state.dropped.map(({ loser, floorUsdMicros }) => {
    const min = minToWin(best, loser, floorUsdMicros, ctx);
    return min === undefined ? loser : { ...loser, minToWinUsdMicros: min };
  });
  if (best === undefined) return { auctionId, impId: ctx.imp.id, winner: null, losers };
  for (const candidate of valid) {
    if (candidate === best) continue;
    const lossReason = best.isDeal && !candidate.isDeal ? LossReason.lostToPmpDeal : LossReason.lostToHigherBid;
    const loser: LosingBid = { partnerBid: candidate.partnerBid, lossReason };
    const min = minToWin(best, loser, candidate.floorUsdMicros, ctx);
    if (min !== undefined) loser.minToWinUsdMicros = min;
    losers.push(loser);
  }
  return { auctionId, impId: ctx.imp.id, winner: priceWinner(best, second, input), losers };
}

/**
 * Holds one auction per imp of `input.request` that offers a media type (banner, video, audio or
 * native; DESIGN section 4) and returns the results in request imp order, each with a fresh
 * `auc_` id from `input.ids`; an imp offering none (validation lets none through) gets no result. Bids whose `impid` names no auctioned imp go to `unmatched`
 * with loss reason 3 (invalid bid response, OpenRTB 2.5 section 5.25).
 *
 * Per imp, in USD micros of CPM: bids are screened by the drop rules of `screenBid` (each
 * dropped bid is a loser with its loss reason); the highest remaining bid wins (ties: lower
 * `arrivalSeq`; a deal bid beats open bids only on price); every other remaining bid loses with
 * 102 (lost to a higher bid), or 103 (lost to a PMP deal bid) when the winner is a deal bid and it
 * is not. The winner is priced by its deal's `at` when it is a deal bid with one, else by
 * `input.auctionType`: first price = the bid; second price plus per `clearing.ts` with the
 * winner's own floor (its deal's floor for a deal bid); 3 fixed price = the deal's floor.
 * gross = clearing, net = clearing x (1 - takeRate), `netResponseMicros` = net in
 * `responseCurrency`, `clearingPartnerMicros` = clearing in the winner's bid currency,
 * `mbr` = clearing / bid. Each loser carries `minToWinUsdMicros` where a price could have won.
 *
 * A positive imp floor in a currency without a rate (DESIGN: "not a 400: that imp gets no bid")
 * makes the imp's auction unwinnable: every bid for that imp loses with 1 (internal error),
 * whatever else is wrong with it, since the exchange, not the bidder, cannot judge the floor.
 *
 * Pure and synchronous: no clock, no I/O; `input.ids` is the only thing it advances.
 * @throws Error when `input.responseCurrency` has no rate (a caller bug: it must come from
 *   `chooseResponseCurrency`).
 */
export function holdAuction(input: AuctionInput): AuctionOutcome {
  const { request, bids, rates } = input;
  if (!rates.has(input.responseCurrency)) {
    throw new Error(`response currency ${input.responseCurrency} has no rate`);
  }
  const byImpId = new Map<string, ImpAuctionState>();
  const states: ImpAuctionState[] = [];
  for (const imp of request.imp) {
    if (offeredMediaTypes(imp).length === 0) continue;
    if (byImpId.has(imp.id)) continue; // ids are unique after validation; keep the first if not
    const state: ImpAuctionState = { ctx: buildImpContext(imp, rates), valid: [], dropped: [] };
    byImpId.set(imp.id, state);
    states.push(state);
  }

  const blocks = buildRequestBlocks(request);
  const unmatched: LosingBid[] = [];
  for (const partnerBid of bids) {
    const state = byImpId.get(partnerBid.bid.impid);
    if (state === undefined) {
      unmatched.push({ partnerBid, lossReason: LossReason.invalidBidResponse });
      continue;
    }
    if (state.ctx.floorUsdMicros === undefined) {
      state.dropped.push({ loser: { partnerBid, lossReason: LossReason.internalError }, floorUsdMicros: undefined });
      continue;
    }
    const screened = screenBid(partnerBid, state.ctx, blocks, rates);
    if (isDropped(screened)) state.dropped.push({ loser: { partnerBid, lossReason: screened.lossReason }, floorUsdMicros: screened.floorUsdMicros });
    else state.valid.push(screened);
  }

  return { results: states.map((state) => settle(state, input)), unmatched };
}
