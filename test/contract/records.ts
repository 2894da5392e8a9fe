/**
 * Record builders shared by the storage contract suites: a valid record of each port type with
 * every field set, overridable per test. Times are around `T0`, a fixed UTC instant.
 */
import type { BidRecord, NoticeRecord, OutboxMessage, WebhookEndpointRecord } from '../../src/storage/ports.js';

/** 2026-01-01T12:00:00Z, ms. */
export const T0 = Date.UTC(2026, 0, 1, 12, 0, 0);

/** A bid record of publisher `pub_1` and partner `dsp_1`. */
export function bid(bidId: string, overrides: Partial<BidRecord> = {}): BidRecord {
  return {
    bidId,
    auctionId: `auc-${bidId}`,
    requestId: 'req-1',
    impId: '1',
    publisherId: 'pub_1',
    partnerId: 'dsp_1',
    partnerRequestId: 'preq-1',
    partnerBidId: `pbid-${bidId}`,
    seat: 'seat-1',
    adId: null,
    partnerCurrency: 'EUR',
    clearingPartnerMicros: 1_234_567,
    mbr: 0.75,
    partnerNurl: null,
    partnerBurl: null,
    createdAtMs: T0,
    ...overrides,
  };
}

/** A `win` notice for `bidId`. */
export function notice(bidId: string, overrides: Partial<NoticeRecord> = {}): NoticeRecord {
  return {
    bidId,
    kind: 'win',
    publisherId: 'pub_1',
    partnerId: 'dsp_1',
    auctionId: `auc-${bidId}`,
    netUsdMicros: 2_000_000,
    grossUsdMicros: 2_500_000,
    priceFlagged: false,
    source: 'win',
    receivedAtMs: T0,
    ...overrides,
  };
}

/** An enabled endpoint for every event kind with no nullable field set. */
export function endpoint(id: string, overrides: Partial<WebhookEndpointRecord> = {}): WebhookEndpointRecord {
  return {
    id,
    url: `http://127.0.0.1:9/${id}`,
    events: [],
    apiKeyCiphertext: `ct-key-${id}`,
    publisherId: null,
    enabled: true,
    description: null,
    secretCiphertext: `ct-secret-${id}`,
    previousSecretCiphertext: null,
    previousSecretExpiresAtMs: null,
    disabledReason: null,
    lastSuccessAtMs: null,
    failingSinceMs: null,
    createdAtMs: T0,
    updatedAtMs: T0,
    ...overrides,
  };
}

/** A fresh pending `auction.complete` message for endpoint `we_1`, due at `T0`. */
export function message(id: string, overrides: Partial<OutboxMessage> = {}): OutboxMessage {
  return {
    id,
    endpointId: 'we_1',
    eventKind: 'auction.complete',
    body: `{"event":"auction.complete","id":"${id}"}`,
    publisherId: 'pub_1',
    status: 'pending',
    attempts: 0,
    nextAttemptAtMs: T0,
    createdAtMs: T0,
    claimedBy: null,
    claimExpiresAtMs: null,
    deliveredAtMs: null,
    lastError: null,
    ...overrides,
  };
}
