/**
 * OpenRTB 2.5 object types (IAB Tech Lab, OpenRTB API Specification 2.5, section 3).
 *
 * Glossary (the field's words, used as-is across the code base):
 * - request (BidRequest, 3.2.1): one call from a supply partner; holds one or more `imp`.
 * - imp (3.2.4): one ad slot offered for sale; each gets its own auction here.
 * - banner / format (3.2.6, 3.2.10): display slot and its allowed sizes (`w` x `h` in px, or the
 *   flexible `wratio`/`hratio`/`wmin` form).
 * - bidfloor / bidfloorcur (3.2.4): minimum CPM for the imp, in ISO-4217 currency (default USD).
 * - tmax (3.2.1): the supply partner's deadline in ms, measured from when it sent the request.
 * - at (3.2.1): auction type, 1 = first price, 2 = second price plus (default here).
 * - cur (3.2.1, 4.2.1): allowed currencies for bids (request) / the currency of bids (response).
 * - pmp / deal (3.2.11, 3.2.12): private marketplace and its direct deals (`dealid` on bids).
 * - seatbid / bid (4.2.2, 4.2.3): bids in a response, grouped per buyer seat.
 * - impid, adm, nurl, burl, lurl, crid, adomain, dealid (4.2.3): a bid's imp, markup, win /
 *   billing / loss notice URLs, creative id, advertiser domains, deal id.
 * - nbr (4.2.1, 5.24): no-bid reason code; loss reason codes are 5.25.
 * - CPM: price per 1000 impressions. Inside the exchange money is integer micros (domain/money).
 *
 * Every object keeps unknown fields (`[key: string]: unknown`): the exchange passes through
 * what it does not interpret (DESIGN section 2, "kept and ignored, never rejected").
 */

/** Free-form extension object (`ext`), OpenRTB 2.5 section 3.2 "ext". */
export type Ext = Record<string, unknown>;

/** 3.2.10 Format: an allowed banner size, absolute (w, h) or flexible (wratio, hratio, wmin). */
export interface Format {
  w?: number;
  h?: number;
  wratio?: number;
  hratio?: number;
  wmin?: number;
  ext?: Ext;
  [key: string]: unknown;
}

/** 3.2.6 Banner. `w`/`h` in device-independent pixels; `format` lists the accepted sizes. */
export interface Banner {
  w?: number;
  h?: number;
  format?: Format[];
  id?: string;
  ext?: Ext;
  [key: string]: unknown;
}

/** 3.2.12 Deal: a direct deal; `bidfloor` (CPM) in `bidfloorcur` (default USD). */
export interface Deal {
  id: string;
  bidfloor?: number;
  bidfloorcur?: string;
  at?: number;
  wseat?: string[];
  wadomain?: string[];
  ext?: Ext;
  [key: string]: unknown;
}

/** 3.2.11 Pmp: private marketplace; `private_auction` = 1 means only deal bids compete. */
export interface Pmp {
  private_auction?: number;
  deals?: Deal[];
  ext?: Ext;
  [key: string]: unknown;
}

/** 3.2.4 Imp: one impression offered. `bidfloor` is CPM in `bidfloorcur` (default USD). */
export interface Imp {
  id: string;
  banner?: Banner;
  video?: Record<string, unknown>;
  audio?: Record<string, unknown>;
  native?: Record<string, unknown>;
  pmp?: Pmp;
  instl?: number;
  tagid?: string;
  bidfloor?: number;
  bidfloorcur?: string;
  secure?: number;
  ext?: Ext;
  [key: string]: unknown;
}

/** 3.2.15 Publisher (inside site or app). Passed through, never compared with the API key. */
export interface Publisher {
  id?: string;
  name?: string;
  domain?: string;
  ext?: Ext;
  [key: string]: unknown;
}

/** 3.2.13 Site / 3.2.14 App: the inventory's context; a request has one or the other. */
export interface SiteOrApp {
  id?: string;
  domain?: string;
  page?: string;
  bundle?: string;
  publisher?: Publisher;
  ext?: Ext;
  [key: string]: unknown;
}

/** 3.2.20 Source, with the supply chain object in `ext.schain` (OpenRTB 2.5 SupplyChain ext). */
export interface Source {
  fd?: number;
  tid?: string;
  pchain?: string;
  ext?: Ext & { schain?: SupplyChain };
  [key: string]: unknown;
}

/** IAB SupplyChain object (`source.ext.schain` in 2.5). */
export interface SupplyChain {
  complete: number;
  ver: string;
  nodes: SupplyChainNode[];
  ext?: Ext;
  [key: string]: unknown;
}

/** One node of the supply chain: `asi` = the system's domain, `sid` = seller id, `hp` = 1 if payment flows through it. */
export interface SupplyChainNode {
  asi: string;
  sid: string;
  rid?: string;
  hp?: number;
  name?: string;
  domain?: string;
  ext?: Ext;
  [key: string]: unknown;
}

/** 3.2.1 BidRequest. `tmax` in ms; `at` 1 = first price, 2 = second price plus. */
export interface BidRequest {
  id: string;
  imp: Imp[];
  site?: SiteOrApp;
  app?: SiteOrApp;
  device?: Record<string, unknown>;
  user?: Record<string, unknown>;
  test?: number;
  at?: number;
  tmax?: number;
  wseat?: string[];
  bseat?: string[];
  allimps?: number;
  cur?: string[];
  bcat?: string[];
  badv?: string[];
  bapp?: string[];
  source?: Source;
  regs?: Record<string, unknown>;
  ext?: Ext;
  [key: string]: unknown;
}

/** 4.2.3 Bid. `price` is CPM in the response's `cur`. */
export interface Bid {
  id: string;
  impid: string;
  price: number;
  nurl?: string;
  burl?: string;
  lurl?: string;
  adm?: string;
  adid?: string;
  adomain?: string[];
  bundle?: string;
  iurl?: string;
  cid?: string;
  crid?: string;
  cat?: string[];
  attr?: number[];
  dealid?: string;
  w?: number;
  h?: number;
  /** Video/audio ad duration, seconds (OpenRTB 2.6 4.2.3); passed on where the partner sent it. */
  dur?: number;
  /** Creative markup type (OpenRTB 2.6 4.2.3): 1 banner, 2 video, 3 audio, 4 native (domain/media-type). */
  mtype?: number;
  ext?: Ext;
  [key: string]: unknown;
}

/** 4.2.2 SeatBid: bids of one buyer seat. */
export interface SeatBid {
  bid: Bid[];
  seat?: string;
  group?: number;
  ext?: Ext;
  [key: string]: unknown;
}

/** 4.2.1 BidResponse. `cur` defaults to USD; `nbr` is a no-bid reason (5.24). */
export interface BidResponse {
  id: string;
  seatbid?: SeatBid[];
  bidid?: string;
  cur?: string;
  customdata?: string;
  nbr?: number;
  ext?: Ext;
  [key: string]: unknown;
}

/** OpenRTB 2.5 section 5.24 no-bid reason codes used by the exchange. */
export const NoBidReason = {
  unknownError: 0,
  technicalError: 1,
  invalidRequest: 2,
} as const;

/**
 * OpenRTB 2.5 section 5.25 loss reason codes, used for `${AUCTION_LOSS}` in `lurl` and as the
 * reason a bid was dropped.
 */
export const LossReason = {
  won: 0,
  internalError: 1,
  impressionOpportunityExpired: 2,
  invalidBidResponse: 3,
  invalidDealId: 4,
  invalidAuctionId: 5,
  invalidAdomain: 6,
  missingMarkup: 7,
  missingCreativeId: 8,
  missingBidPrice: 9,
  missingMinCreativeApproval: 10,
  bidBelowFloor: 100,
  bidBelowDealFloor: 101,
  lostToHigherBid: 102,
  lostToPmpDeal: 103,
  buyerSeatBlocked: 104,
  creativeFilteredGeneral: 200,
  creativeFilteredPending: 201,
  creativeFilteredDisapproved: 202,
  creativeFilteredSizeNotAllowed: 203,
  creativeFilteredIncorrectFormat: 204,
  creativeFilteredAdvertiserExclusions: 205,
  creativeFilteredAppBundleExclusions: 206,
  creativeFilteredNotSecure: 207,
  creativeFilteredLanguageExclusions: 208,
  creativeFilteredCategoryExclusions: 209,
  creativeFilteredAttributeExclusions: 210,
  creativeFilteredAdTypeExclusions: 211,
  creativeFilteredAnimationTooLong: 212,
  creativeFilteredNotAllowedInPmpDeal: 213,
} as const;

/** A loss reason code value (OpenRTB 2.5 section 5.25). */
export type LossReasonCode = (typeof LossReason)[keyof typeof LossReason];
