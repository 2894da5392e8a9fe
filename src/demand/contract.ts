/**
 * The demand adapter contract (STYLE 1-2, after Prebid Server's `adapters.Bidder`).
 *
 * An adapter is pure: it builds the HTTP requests for one partner from the exchange's bid
 * request, and parses the partner's HTTP answer into bids. It does no I/O, sets no timers and
 * does not log; the dispatcher (`dispatch.ts`) owns HTTP, deadlines, QPS caps and metrics.
 * Errors are returned as data (`{bids, errors}`), never thrown; a thrown error is a bug the
 * dispatcher records as `bad_response`.
 */
import type { CurrencyConverter } from '../domain/currency.js';
import type { IdGenerator } from '../domain/ids.js';
import type { Bid, BidRequest } from '../domain/openrtb.js';
import type { PrivacyBlockReason } from '../privacy/index.js';
import type { DemandPartnerRecord } from '../storage/ports.js';

/** What an adapter knows about the call it builds. */
export interface AdapterContext {
  partner: DemandPartnerRecord;
  /** The exchange publisher id (the API key's), the `sid` of our schain node. */
  publisherId: string;
  /** The partner's time budget in ms, sent as `tmax` (DESIGN section 5). */
  tmaxMs: number;
  /** `asi` of the exchange's schain node (config `exchange.domain`). */
  exchangeDomain: string;
  /** For converting floors into the partner's currency. */
  rates: CurrencyConverter;
  /** Mints the outgoing request ids (`req_...`). */
  ids: IdGenerator;
}

/** One HTTP call to a partner. `body` is serialized (and gzipped if the partner wants) by the dispatcher. */
export interface PartnerHttpRequest {
  method: 'POST';
  uri: string;
  headers: Record<string, string>;
  /** The OpenRTB 2.5 request sent: a new `id`, only the imps offered to this partner. */
  body: BidRequest;
}

/** The partner's answer as the dispatcher read it: body decompressed and decoded as UTF-8. */
export interface PartnerHttpResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** Kinds of partner failure (STYLE 5). */
export type AdapterErrorKind = 'bad_input' | 'bad_response' | 'timeout' | 'http_status' | 'too_large' | 'network' | 'qps_limited' | 'privacy_blocked';

/** A partner failure as data. */
export interface AdapterError {
  kind: AdapterErrorKind;
  message: string;
}

/** A bid as the adapter parsed it: the partner's `bid` object untouched, its seat and currency. */
export interface ParsedBid {
  bid: Bid;
  /** `seatbid.seat`, or the partner id when the partner gave none. */
  seat: string;
  /** The response `cur` (default USD, OpenRTB 2.5 section 4.2.1). */
  currency: string;
}

/** A demand adapter: two pure functions (STYLE 2). */
export interface Adapter {
  /** Folder name under `src/demand/adapters/` and the value of a partner's `adapter` field. */
  readonly code: string;
  /** Builds zero or more requests; an imp the partner cannot take is left out (with an error if it is the request's fault). */
  buildRequests(request: BidRequest, ctx: AdapterContext): { requests: PartnerHttpRequest[]; errors: AdapterError[] };
  /**
   * Parses one answer. 204, `{}` and an empty `seatbid` are no bid without error; a non-2xx
   * status is an `http_status` error; unparsable bodies a `bad_response` error. Bids are
   * returned as sent by the partner: the auction validates them (DESIGN section 4).
   */
  parseBids(sent: PartnerHttpRequest, received: PartnerHttpResponse, ctx: AdapterContext): { bids: ParsedBid[]; errors: AdapterError[] };
}

/**
 * A bid that reached the auction: the parsed bid plus where it came from. `arrivalSeq` orders
 * bids by arrival (ties go to the earlier bid, DESIGN section 4).
 */
export interface PartnerBid extends ParsedBid {
  partnerId: string;
  /** The adapter code, for metrics labels. */
  adapter: string;
  /** `id` of the request sent to the partner (`${AUCTION_ID}`). */
  partnerRequestId: string;
  arrivalSeq: number;
}

/** How one partner call ended, for metrics, the demo summary and `/v1/stats`. */
export interface PartnerCallResult {
  partnerId: string;
  adapter: string;
  outcome: 'bids' | 'no_bid' | 'timeout' | 'error' | 'skipped';
  latencyMs: number;
  errors: AdapterError[];
  /**
   * Set when the partner was not called for privacy (DESIGN section 11): outcome `skipped`, one
   * `privacy_blocked` error, seat-non-bid status 204. The event the partner series count.
   */
  privacyBlocked?: PrivacyBlockReason;
}
