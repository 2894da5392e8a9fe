/**
 * Inputs and outputs of `holdAuction` (DESIGN section 4). The auction is pure: it sees the bid
 * request and the partners' bids, and returns one result per auctioned imp. Money is integer
 * micros of CPM; `Usd` in a name means USD micros (the exchange currency).
 */
import type { PartnerBid } from '../demand/contract.js';
import type { CurrencyConverter } from '../domain/currency.js';
import type { IdGenerator } from '../domain/ids.js';
import type { MediaType } from '../domain/media-type.js';
import type { ServableMarkup } from './creative.js';
import type { Micros } from '../domain/money.js';
import type { BidRequest, LossReasonCode } from '../domain/openrtb.js';

/** Everything `holdAuction` needs. */
export interface AuctionInput {
  /** The validated bid request; every imp offering a media type is auctioned. */
  request: BidRequest;
  /** Bids from every partner, any order; `arrivalSeq` breaks ties. */
  bids: PartnerBid[];
  /** Auction type: 1 first price, 2 second price plus (request `at`, else the publisher's `auction_type`). */
  auctionType: 1 | 2;
  /** Exchange take rate in [0, 1). */
  takeRate: number;
  /** Response currency (already chosen from `request.cur`; has a rate). */
  responseCurrency: string;
  rates: CurrencyConverter;
  /** Mints `auc_` ids (one per imp auction). */
  ids: IdGenerator;
}

/** The winner of one imp's auction with every price the exchange needs downstream. */
export interface WinningBid {
  partnerBid: PartnerBid;
  /** The winning bid's media type (`mtype`, else inferred; DESIGN section 4 "Media types"). */
  mediaType: MediaType;
  /** Its markup as read for that type: where the exchange's impression tracker goes. */
  markup: ServableMarkup;
  /** How it was priced: 1 first price, 2 second price plus, 3 fixed price (a deal's `at`, else the auction's). */
  auctionType: 1 | 2 | 3;
  /** The winner's bid in USD micros (CPM). */
  bidUsdMicros: Micros;
  /** Clearing price = gross = what the partner pays, USD micros (CPM). */
  clearingUsdMicros: Micros;
  /** Net = clearing x (1 - takeRate), what the publisher is paid, USD micros (CPM). */
  netUsdMicros: Micros;
  /** Net in the response currency, micros (CPM): the `price` of our bid. */
  netResponseMicros: Micros;
  /** Clearing price in the partner's bid currency, micros (CPM): `${AUCTION_PRICE}` for the partner. */
  clearingPartnerMicros: Micros;
  /** `${AUCTION_MBR}`: clearing / bid, in (0, 1]. */
  mbr: number;
}

/** A bid that did not win, with its OpenRTB 2.5 loss reason (section 5.25). */
export interface LosingBid {
  partnerBid: PartnerBid;
  lossReason: LossReasonCode;
  /**
   * `${AUCTION_MIN_TO_WIN}`: the lowest price that would have won, USD micros (CPM); absent when
   * no price could have (an open bid in a private auction, a bid for no known imp).
   */
  minToWinUsdMicros?: Micros;
}

/** One imp's auction. `winner` is null when no valid bid beat the floor. */
export interface ImpAuctionResult {
  /** Exchange auction id (`auc_...`), one per imp auction. */
  auctionId: string;
  impId: string;
  winner: WinningBid | null;
  /** Every other bid for this imp, dropped or outbid, with its loss reason. */
  losers: LosingBid[];
}

/** The auction's answer: one result per auctioned imp (in request order), plus bids for no known imp. */
export interface AuctionOutcome {
  results: ImpAuctionResult[];
  /** Bids whose `impid` matches no auctioned imp (loss reason 3, invalid bid response). */
  unmatched: LosingBid[];
}
