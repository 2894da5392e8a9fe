/**
 * Notice tokens (DESIGN section 3): the `t` parameter of `nurl`, `burl` and the impression
 * pixel. A token is compact base64url, signed with the exchange's secret key (HMAC-SHA256), so
 * any node verifies it without a store lookup. Prices are CPM micros.
 */
import type { Micros } from '../domain/money.js';

/** What a notice token carries. */
export interface NoticeTokenPayload {
  auctionId: string;
  /** The supply partner's imp id. */
  impId: string;
  /** Exchange bid id: the idempotency key of notices. */
  bidId: string;
  /** Demand partner id. */
  partnerId: string;
  publisherId: string;
  /** Net CPM in the response currency, micros: the `price` we answered. */
  netMicros: Micros;
  /** Response currency (ISO-4217). */
  currency: string;
  /** Net CPM in USD micros. */
  netUsdMicros: Micros;
  /** Gross (clearing) CPM in USD micros. */
  grossUsdMicros: Micros;
  /** When the bid was answered, ms since the epoch. */
  issuedAtMs: number;
}

/** Result of verifying a token. `malformed` and `forged` both answer 403; `expired` 410. */
export type TokenVerification =
  | { ok: true; payload: NoticeTokenPayload }
  | { ok: false; reason: 'malformed' | 'forged' | 'expired' };

/** Signs and verifies notice tokens with one secret key. */
export interface NoticeTokenCodec {
  /** A base64url token (no padding, URL-safe: survives Prebid.js's percent-decoding). */
  sign(payload: NoticeTokenPayload): string;
  /** Verifies signature and age (`maxAgeSeconds` against `nowMs`). Never throws. */
  verify(token: string, nowMs: number): TokenVerification;
}
