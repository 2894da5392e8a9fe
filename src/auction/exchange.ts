/**
 * The bid path behind the HTTP edge (DESIGN sections 2-5): count the request, call the demand
 * partners within the deadline, hold one auction per imp, and build the OpenRTB 2.5 bid
 * response with exchange bid ids, notice URLs and the impression pixel. Bid records are made
 * durable (group commit) before the response is released; losers' `lurl` are fired after.
 */
import type { DemandDispatcher } from '../demand/dispatch.js';
import type { PartnerBid, PartnerCallResult } from '../demand/contract.js';
import type { CurrencyConverter } from '../domain/currency.js';
import type { Clock } from '../domain/clock.js';
import type { IdGenerator } from '../domain/ids.js';
import { fromMicros } from '../domain/money.js';
import type { Bid, BidRequest, BidResponse, Imp, SeatBid } from '../domain/openrtb.js';
import type { NoticeTokenCodec } from '../notices/types.js';
import { substituteMacros } from '../notices/macros.js';
import type { PartnerNotifier } from '../notices/partner-notifier.js';
import type { Metrics } from '../observability/metrics.js';
import type { CounterSink } from '../reporting/counter-sink.js';
import { countPartnerCalls, type SeriesSink } from '../reporting/series-sink.js';
import type { BidRecord, DemandPartnerRecord, PublisherRecord } from '../storage/ports.js';
import { auctionTypeOf, chooseResponseCurrency, holdAuction } from './hold-auction.js';
import { applyReserve } from './reserve.js';
import { buildSeatNonBid, wantsAllBidStatus } from './seat-non-bid.js';
import { impSizesOf, matchBidSize } from './sizes.js';
import { buildServedMarkup, creativeSizeOf } from './served-markup.js';
import { MTYPE_OF, offeredMediaTypes } from '../domain/media-type.js';
import type { ImpAuctionResult, WinningBid } from './types.js';

/** What the exchange commits before answering (bid records now; outbox events later). */
export interface AuctionCommit {
  bids: BidRecord[];
  /** The auctions with a winner, for event emission by the committer. */
  results: ImpAuctionResult[];
  request: BidRequest;
  publisher: PublisherRecord;
  responseCurrency: string;
  nowMs: number;
}

/** Everything the exchange needs (STYLE 7). */
export interface ExchangeDeps {
  dispatcher: DemandDispatcher;
  /** Enabled demand partners (cached by the caller; called once per request). */
  partners: () => Promise<DemandPartnerRecord[]> | DemandPartnerRecord[];
  /** Makes the auction's records durable; resolves once committed (group commit). */
  commit: (commit: AuctionCommit) => Promise<void>;
  counters: CounterSink;
  /** Per-partner calls, bids and latency of the stored series (DESIGN section 7); none when absent. */
  series?: SeriesSink;
  notifier: PartnerNotifier;
  tokens: NoticeTokenCodec;
  metrics: Metrics;
  clock: Clock;
  ids: IdGenerator;
  rates: () => CurrencyConverter;
  /** Base of notice URLs (`ADX_PUBLIC_URL`, no trailing slash). */
  publicUrl: string;
  takeRate: number;
  /** Bidder codes Prebid.js may ask for (`prebid.bidderCodes`, DESIGN section 2 browser supply). */
  prebidBidderCodes: string[];
}

/** The outcome of one bid request. `response` null = no bid (204). */
export interface ExchangeResult {
  response: BidResponse | null;
  calls: PartnerCallResult[];
  /** Set when the commit did not finish before the deadline (answer 204) or failed (answer 503). */
  commitProblem?: 'late' | 'failed';
}

/** Handles validated bid requests. */
export interface Exchange {
  /**
   * Runs the bid path for `request` from `publisher`. `deadlineMonoMs` is a `clock.monotonicMs()`
   * instant (arrival + tmax) by which the answer must be sent. Never rejects for partner
   * failures; rejects only for programming errors.
   */
  handle(request: BidRequest, publisher: PublisherRecord, deadlineMonoMs: number): Promise<ExchangeResult>;
}

/** The size a banner bid was accepted at: its own, or the imp's only size (undefined when unknown). */
function bannerSize(bid: Bid, imp: Imp | undefined): { w: number; h: number } | undefined {
  const matched = imp ? matchBidSize(bid, impSizesOf(imp)) : null;
  return matched !== null && matched !== 'unknown' ? matched : undefined;
}

/** Ids of the imps the exchange auctions (every imp offering a media type), in request order. */
function auctionedImpIds(request: BidRequest): string[] {
  return request.imp.filter((imp) => offeredMediaTypes(imp).length > 0).map((imp) => imp.id);
}

/** The Prebid bidder code asked for in `imp.ext.prebid.bidder` that the exchange answers to, if any. */
function prebidSeat(imp: Imp | undefined, codes: string[]): string | undefined {
  const prebid = (imp?.ext as { prebid?: { bidder?: unknown } } | undefined)?.prebid;
  const bidder = prebid?.bidder;
  if (typeof bidder !== 'object' || bidder === null) return undefined;
  return codes.find((code) => Object.prototype.hasOwnProperty.call(bidder, code));
}

/** Creates the exchange's bid path. */
export function createExchange(deps: ExchangeDeps): Exchange {
  const { clock, ids, counters, metrics, tokens } = deps;
  const base = deps.publicUrl;

  function macroValues(win: WinningBid) {
    const pb = win.partnerBid;
    return {
      auctionId: pb.partnerRequestId,
      bidId: pb.bid.id,
      impId: pb.bid.impid,
      seatId: pb.seat,
      adId: typeof pb.bid.adid === 'string' ? pb.bid.adid : undefined,
      priceMicros: win.clearingPartnerMicros,
      currency: pb.currency,
      mbr: win.mbr,
    };
  }

  function fireLosses(results: ImpAuctionResult[], unmatched: ImpAuctionResult['losers'], rates: CurrencyConverter): void {
    const all = unmatched.slice();
    for (const r of results) all.push(...r.losers);
    for (const loser of all) {
      metrics.adapterBidLosses.inc({ adapter: loser.partnerBid.partnerId, loss_reason: String(loser.lossReason) });
      const lurl = loser.partnerBid.bid.lurl;
      if (typeof lurl !== 'string' || lurl === '') continue;
      const pb = loser.partnerBid;
      deps.notifier.fire(
        'lurl',
        substituteMacros(lurl, {
          auctionId: pb.partnerRequestId,
          bidId: typeof pb.bid.id === 'string' ? pb.bid.id : undefined,
          impId: typeof pb.bid.impid === 'string' ? pb.bid.impid : undefined,
          seatId: pb.seat,
          adId: typeof pb.bid.adid === 'string' ? pb.bid.adid : undefined,
          currency: pb.currency,
          loss: loser.lossReason,
          minToWinMicros: loser.minToWinUsdMicros === undefined ? undefined : rates.fromUsd(loser.minToWinUsdMicros, pb.currency),
        }),
      );
    }
  }

  /** A 200 answer for a request that asked for every bid's status: the winners' seats (maybe none) and `ext.seatnonbid`. */
  function transparencyResponse(request: BidRequest, calls: PartnerCallResult[], results: ImpAuctionResult[], seatbid: SeatBid[], partners: DemandPartnerRecord[]): BidResponse {
    return {
      id: request.id,
      bidid: ids.next('resp'),
      cur: chooseResponseCurrency(request, deps.rates()),
      seatbid,
      ext: { seatnonbid: seatNonBidOf(request, calls, results, partners) },
    };
  }

  /** `ext.seatnonbid`, with 202 for imps a partner was not offered for its `media_types`. */
  function seatNonBidOf(request: BidRequest, calls: PartnerCallResult[], results: ImpAuctionResult[], partners: DemandPartnerRecord[]) {
    const takes = new Map(partners.map((p) => [p.id, p.mediaTypes]));
    const offeredById = new Map(request.imp.map((imp) => [imp.id, offeredMediaTypes(imp)]));
    const notOffered = (partnerId: string, impId: string): boolean => {
      const types = takes.get(partnerId);
      return types !== undefined && !(offeredById.get(impId) ?? []).some((t) => types.includes(t));
    };
    return buildSeatNonBid(auctionedImpIds(request), calls, results, notOffered);
  }

  return {
    async handle(request, publisher, deadlineMonoMs) {
      const nowMs = clock.now();
      const impCount = request.imp.length;
      counters.add(publisher.id, { requests: 1, imps: impCount }, nowMs);
      metrics.imps.inc(impCount);

      // `ext.prebid.returnallbidstatus`: every answer is 200 with `ext.seatnonbid` (DESIGN section 4 "Transparency").
      const allBidStatus = wantsAllBidStatus(request.ext);
      let partners: DemandPartnerRecord[] = [];
      const noWin = (calls: PartnerCallResult[], results: ImpAuctionResult[] = []): ExchangeResult => ({
        response: allBidStatus ? transparencyResponse(request, calls, results, [], partners) : null,
        calls,
      });
      if (!request.imp.some((imp) => offeredMediaTypes(imp).length > 0)) return noWin([]);
      partners = (await deps.partners()).filter((p) => p.enabled);
      if (partners.length === 0) return noWin([]);

      // Floors raised to the publisher's reserve: what partners are offered and the auction holds bids to.
      const offered = applyReserve(request, publisher.reservePriceMicros, deps.rates());
      const { bids, calls } = await deps.dispatcher.dispatch(offered, partners, { publisherId: publisher.id, deadlineMonoMs });
      if (deps.series) countPartnerCalls(deps.series, calls, bids, nowMs);
      if (bids.length === 0) return noWin(calls);

      const rates = deps.rates();
      const responseCurrency = chooseResponseCurrency(request, rates);
      const outcome = holdAuction({
        request: offered,
        bids,
        auctionType: auctionTypeOf(request, publisher.auctionType),
        takeRate: deps.takeRate,
        responseCurrency,
        rates,
        ids,
      });
      const winners = outcome.results.filter((r) => r.winner !== null);
      if (winners.length === 0) {
        setImmediate(fireLosses, outcome.results, outcome.unmatched, rates);
        return noWin(calls, outcome.results);
      }

      const impsById = new Map<string, Imp>();
      for (const imp of request.imp) impsById.set(imp.id, imp);
      const seats = new Map<string, SeatBid>();
      const records: BidRecord[] = [];
      for (const result of winners) {
        const win = result.winner!;
        const pb: PartnerBid = win.partnerBid;
        const bidId = ids.next('bid');
        const token = tokens.sign({
          auctionId: result.auctionId,
          impId: result.impId,
          bidId,
          partnerId: pb.partnerId,
          publisherId: publisher.id,
          netMicros: win.netResponseMicros,
          currency: responseCurrency,
          netUsdMicros: win.netUsdMicros,
          grossUsdMicros: win.clearingUsdMicros,
          issuedAtMs: nowMs,
        });
        const imp = impsById.get(result.impId);
        // The impression notice, in the form the media type needs (DESIGN section 4): a pixel
        // after banner HTML, an <Impression> in each VAST ad, a native impression event tracker.
        const adm = buildServedMarkup(pb.bid.adm ?? '', win.markup, `${base}/v1/notice/impression?t=${token}`, macroValues(win));
        // Banner: the size the auction accepted the bid at (the bid's own, or the imp's only size).
        const size = win.mediaType === 'banner' ? bannerSize(pb.bid, imp) : creativeSizeOf(pb.bid);
        const bid: Bid = {
          id: bidId,
          impid: result.impId,
          price: fromMicros(win.netResponseMicros),
          adm,
          nurl: `${base}/v1/notice/win?t=${token}&price=\${AUCTION_PRICE}`,
          burl: `${base}/v1/notice/billing?t=${token}&price=\${AUCTION_PRICE}`,
        };
        if (Array.isArray(pb.bid.adomain)) bid.adomain = pb.bid.adomain;
        if (typeof pb.bid.crid === 'string') bid.crid = pb.bid.crid;
        if (typeof pb.bid.cid === 'string') bid.cid = pb.bid.cid;
        if (typeof pb.bid.adid === 'string') bid.adid = pb.bid.adid;
        if (Array.isArray(pb.bid.cat)) bid.cat = pb.bid.cat;
        if (size) {
          bid.w = size.w;
          bid.h = size.h;
        }
        if (typeof pb.bid.dealid === 'string') bid.dealid = pb.bid.dealid;
        const dur: unknown = pb.bid.dur;
        if (typeof dur === 'number' && Number.isInteger(dur) && dur > 0) bid.dur = dur;
        bid.mtype = MTYPE_OF[win.mediaType];
        // `ext.prebid.type`: how Prebid.js (Prebid Server adapter) learns the media type.
        bid.ext = { prebid: { type: win.mediaType } };
        let seat = pb.partnerId;
        const prebidCode = prebidSeat(imp, deps.prebidBidderCodes);
        if (prebidCode !== undefined) {
          seat = prebidCode;
          bid.ext.demand_partner_id = pb.partnerId;
        }
        let seatBid = seats.get(seat);
        if (!seatBid) {
          seatBid = { seat, bid: [] };
          seats.set(seat, seatBid);
        }
        seatBid.bid.push(bid);
        metrics.adapterPrices.observe({ adapter: pb.partnerId }, fromMicros(win.clearingUsdMicros));
        records.push({
          bidId,
          auctionId: result.auctionId,
          requestId: request.id,
          impId: result.impId,
          publisherId: publisher.id,
          partnerId: pb.partnerId,
          partnerRequestId: pb.partnerRequestId,
          partnerBidId: String(pb.bid.id),
          seat: pb.seat,
          adId: typeof pb.bid.adid === 'string' ? pb.bid.adid : null,
          partnerCurrency: pb.currency,
          clearingPartnerMicros: win.clearingPartnerMicros,
          mbr: win.mbr,
          partnerNurl: typeof pb.bid.nurl === 'string' && pb.bid.nurl !== '' ? pb.bid.nurl : null,
          partnerBurl: typeof pb.bid.burl === 'string' && pb.bid.burl !== '' ? pb.bid.burl : null,
          createdAtMs: nowMs,
        });
      }

      // Durable before the answer (DESIGN section 6); too slow for the deadline -> 204 without bids.
      const budgetMs = Math.max(0, deadlineMonoMs - clock.monotonicMs());
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<'late'>((resolve) => {
        timer = setTimeout(resolve, budgetMs, 'late');
      });
      let commitState: 'ok' | 'late' | 'failed';
      try {
        commitState = await Promise.race([
          deps.commit({ bids: records, results: winners, request, publisher, responseCurrency, nowMs }).then(() => 'ok' as const),
          late,
        ]);
      } catch {
        commitState = 'failed';
      } finally {
        clearTimeout(timer);
      }
      if (commitState !== 'ok') return { response: null, calls, commitProblem: commitState };

      counters.add(publisher.id, { bids: records.length, impsFilled: winners.length }, nowMs);
      setImmediate(fireLosses, outcome.results, outcome.unmatched, rates);
      const response: BidResponse = { id: request.id, bidid: ids.next('resp'), cur: responseCurrency, seatbid: [...seats.values()] };
      if (allBidStatus) response.ext = { seatnonbid: seatNonBidOf(request, calls, outcome.results, partners) };
      return { response, calls };
    },
  };
}
