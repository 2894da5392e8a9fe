/**
 * Storage ports: the narrow interfaces every backend implements (SQLite in `sqlite/`,
 * PostgreSQL later in `postgres/`). Callers may assume each method is atomic; every method that
 * writes has returned only once the write is durable (committed). Rows use snake_case column
 * names in the store; these types are camelCase. Money is integer micros (domain/money).
 * Times are ms since the Unix epoch (UTC) from the injected clock, never read here.
 *
 * One contract test suite (`test/contract/`) runs against every backend.
 */
import type { MediaType } from '../domain/media-type.js';
import type { Micros } from '../domain/money.js';

/** sellers.json `seller_type` (IAB sellers.json 1.0). */
export type SellerType = 'PUBLISHER' | 'INTERMEDIARY' | 'BOTH';

/** The OpenRTB version a demand partner speaks: where the fields 2.6 moved out of `ext` go. */
export type OpenRtbVersion = '2.5' | '2.6';

/** A publisher (supply partner). DESIGN section 7. */
export interface PublisherRecord {
  id: string;
  name: string;
  domain: string | null;
  /** Origins' hosts allowed for browser supply (DESIGN section 2); may be empty. */
  domains: string[];
  browserAccess: boolean;
  /**
   * Auction type when the request's `at` is not 1 or 2 (DESIGN section 4): 1 first price
   * (default), 2 second price plus.
   */
  auctionType: 1 | 2;
  /** Reserve price, CPM in USD micros: a floor under every imp of this publisher (0 = none). */
  reservePriceMicros: Micros;
  /** sellers.json `seller_type` (DESIGN section 11; default `PUBLISHER`). */
  sellerType: SellerType;
  /** sellers.json `is_confidential`: listed without name or domain (default false). */
  isConfidential: boolean;
  createdAtMs: number;
  updatedAtMs: number;
}

/** A publisher API key as stored: only its SHA-256 hash, never the key itself. */
export interface ApiKeyRecord {
  id: string;
  publisherId: string;
  /** Hex SHA-256 of the key. */
  keyHash: string;
  /** First characters of the key, for display (`adxk_ab12…`). */
  prefix: string;
  createdAtMs: number;
  /** After this instant the key no longer authenticates; null = valid until rotated. */
  expiresAtMs: number | null;
}

/** A demand partner (DSP). DESIGN sections 5 and 7. */
export interface DemandPartnerRecord {
  id: string;
  name: string;
  /** OpenRTB 2.5 endpoint URL. */
  endpoint: string;
  /** Adapter folder name under `src/demand/adapters/` (default `openrtb25`). */
  adapter: string;
  /** Most the partner may take, ms (the tmax budget still applies). */
  timeoutMs: number;
  gzip: boolean;
  /** Requests per second cap, or null for none. */
  qpsLimit: number | null;
  /** ISO-4217 currency the partner bids in. */
  currency: string;
  enabled: boolean;
  /** OpenRTB version the partner speaks (DESIGN section 5; default `2.5`). */
  openrtbVersion: OpenRtbVersion;
  /** The partner's IAB TCF Global Vendor List id, or null (DESIGN section 11: not called under GDPR). */
  gvlVendorId: number | null;
  /** Media types the partner takes (DESIGN section 5): non-empty, no repeats; default all four. */
  mediaTypes: MediaType[];
  createdAtMs: number;
  updatedAtMs: number;
}

/**
 * What the exchange keeps of a bid it returned, so a later notice can call the partner's own
 * `nurl`/`burl` with the OpenRTB 2.5 macros (section 4.4) substituted. Written before the bid
 * response is sent (group commit).
 */
export interface BidRecord {
  /** Exchange bid id (`bid.id` in our response). */
  bidId: string;
  auctionId: string;
  requestId: string;
  impId: string;
  publisherId: string;
  partnerId: string;
  /** `${AUCTION_ID}`: the id of the request sent to the partner. */
  partnerRequestId: string;
  /** `${AUCTION_BID_ID}`: the partner's `bid.id`. */
  partnerBidId: string;
  /** `${AUCTION_SEAT_ID}`. */
  seat: string;
  /** `${AUCTION_AD_ID}`: the partner's `adid`, or null. */
  adId: string | null;
  /** Partner's bid currency (`${AUCTION_CURRENCY}`). */
  partnerCurrency: string;
  /** Clearing price in the partner's currency, micros of CPM (`${AUCTION_PRICE}`). */
  clearingPartnerMicros: Micros;
  /** Market bid ratio `${AUCTION_MBR}` (clearing / bid), decimal. */
  mbr: number;
  /** The partner's own notice URLs, macros not yet substituted. */
  partnerNurl: string | null;
  partnerBurl: string | null;
  createdAtMs: number;
}

/** Kind of notice in the ledger: the impression pixel and the billing notice share `billing`. */
export type NoticeKind = 'win' | 'billing';

/** A notice accepted into the ledger. Prices are CPM micros. */
export interface NoticeRecord {
  bidId: string;
  kind: NoticeKind;
  publisherId: string;
  partnerId: string;
  auctionId: string;
  /** Net (publisher) CPM in USD micros recognized by this notice. */
  netUsdMicros: Micros;
  /** Gross (partner-paid) CPM in USD micros. */
  grossUsdMicros: Micros;
  /** True when the supplied `price` was unusable and the token's price was taken. */
  priceFlagged: boolean;
  /** `win`, `billing` or `impression`: which URL was fired first. */
  source: 'win' | 'billing' | 'impression';
  receivedAtMs: number;
}

/** Additive counter deltas for one publisher in one UTC minute (DESIGN section 3). */
export interface CounterDelta {
  publisherId: string;
  /** Start of the UTC minute, ms since the epoch. */
  minuteStartMs: number;
  requests: number;
  imps: number;
  /** Imps that got at least one bid in the response (fill). */
  impsFilled: number;
  bids: number;
  wins: number;
  impressions: number;
  /** Revenue recognized with impressions, USD micros (amount, not CPM: CPM / 1000 per impression). */
  revenueGrossMicros: Micros;
  revenueNetMicros: Micros;
}

/** Totals over a range of minutes for one publisher. */
export type CounterTotals = Omit<CounterDelta, 'minuteStartMs'>;

/** Additive counts of one demand partner in one UTC minute (DESIGN section 7, `/v1/stats/series`). */
export interface PartnerCounterDelta {
  partnerId: string;
  /** Start of the UTC minute, ms since the epoch. */
  minuteStartMs: number;
  /** Calls made (every dispatch outcome but `skipped`). */
  calls: number;
  /** Bids the partner returned that the exchange took into its auctions. */
  bids: number;
  timeouts: number;
  errors: number;
  /** Accepted win notices for the partner's bids. */
  wins: number;
  /** Calls the privacy rules blocked or stripped of personal data (DESIGN section 11). */
  privacyBlocked: number;
}

/** Whose latency a histogram holds: the exchange's bid requests (per publisher) or a partner's calls. */
export type LatencyKind = 'exchange' | 'partner';

/**
 * Additive count of one latency histogram bucket in one UTC minute. Buckets are fixed
 * (`reporting/latency-buckets.ts`); a bucket is named by its inclusive upper bound.
 */
export interface LatencyDelta {
  kind: LatencyKind;
  /** Publisher id for `exchange`, demand partner id for `partner`. */
  subjectId: string;
  minuteStartMs: number;
  /** Upper bound of the bucket, ms inclusive. */
  leMs: number;
  count: number;
}

/** What a counter flush writes besides the publisher counters, in the same transaction. */
export interface SeriesDeltas {
  partners?: PartnerCounterDelta[];
  latency?: LatencyDelta[];
}

/** Publisher counter sums of one series bucket (`bucketStartMs` = start of the step, UTC). */
export type CounterBucket = Omit<CounterDelta, 'publisherId' | 'minuteStartMs'> & { bucketStartMs: number };

/** Partner counter sums of one series bucket. */
export type PartnerCounterBucket = Omit<PartnerCounterDelta, 'partnerId' | 'minuteStartMs'> & { bucketStartMs: number };

/** The count of one latency bucket summed over one series bucket. */
export interface LatencyBucketCount {
  bucketStartMs: number;
  leMs: number;
  count: number;
}

/** Publishers and their API keys. */
export interface PublisherStore {
  create(publisher: PublisherRecord, key: ApiKeyRecord): Promise<void>;
  get(id: string): Promise<PublisherRecord | undefined>;
  list(): Promise<PublisherRecord[]>;
  /** Applies the given fields; answers the updated record, or undefined when there is no such id. */
  update(id: string, patch: Partial<Omit<PublisherRecord, 'id' | 'createdAtMs'>>): Promise<PublisherRecord | undefined>;
  /** Deletes the publisher and its keys; false when there was none. */
  delete(id: string): Promise<boolean>;
  /** The publisher owning a key with this hash that has not expired at `nowMs`. */
  findByKeyHash(keyHash: string, nowMs: number): Promise<PublisherRecord | undefined>;
  /** Adds `key`; every other key of the publisher without an expiry gets `expiresAtMs = graceUntilMs`. */
  rotateKey(key: ApiKeyRecord, graceUntilMs: number): Promise<void>;
}

/** Demand partners. */
export interface DemandPartnerStore {
  create(partner: DemandPartnerRecord): Promise<void>;
  get(id: string): Promise<DemandPartnerRecord | undefined>;
  list(): Promise<DemandPartnerRecord[]>;
  update(id: string, patch: Partial<Omit<DemandPartnerRecord, 'id' | 'createdAtMs'>>): Promise<DemandPartnerRecord | undefined>;
  delete(id: string): Promise<boolean>;
}

/** Bid records (what a notice needs to call the partner back). */
export interface BidStore {
  /** Inserts all records in one transaction; a bid id already present is left unchanged. */
  insertMany(records: BidRecord[]): Promise<void>;
  get(bidId: string): Promise<BidRecord | undefined>;
}

/**
 * Revenue a billing notice recognizes and the milestones it may pass (DESIGN section 6,
 * `revenue.milestone`: written in the transaction of the notice whose revenue passes it).
 */
export interface RevenueRecognition {
  /** Net revenue of this one impression, USD micros (amount: CPM / 1000). */
  netMicros: Micros;
  /** Configured milestones, USD micros (amounts), any order. */
  milestonesMicros: readonly Micros[];
  /** The outbox rows of the `revenue.milestone` event for one milestone passed at `revenueTotalMicros`. */
  messagesFor(milestone: MilestoneRecord, revenueTotalMicros: Micros): OutboxMessage[];
}

/** What `NoticeStore.record` did. */
export interface NoticeRecordResult {
  /** `first` when this call recorded the notice, `repeat` when one of its kind existed. */
  outcome: 'first' | 'repeat';
  /** The stored (first) record, either way. */
  stored: NoticeRecord;
  /** Milestones this notice's revenue passed (recorded with their events), ascending; [] for a repeat. */
  milestones: MilestoneRecord[];
}

/** The win/billing ledger: idempotency of notices per exchange bid id. */
export interface NoticeStore {
  /**
   * Records the notice unless one of the same kind exists for the bid. Answers `first` when
   * this call recorded it, `repeat` otherwise (the stored record is returned for either).
   * Only when the outcome is `first`, and in the same transaction: `messages` (outbox rows of
   * the events this notice causes, e.g. `billing.notice`) are inserted, and `revenue` (billing
   * notices) is added to the publisher's cumulative net revenue, recording each milestone it
   * passes with its outbox rows, once ever per publisher and milestone, on any node.
   */
  record(notice: NoticeRecord, messages?: OutboxMessage[], revenue?: RevenueRecognition): Promise<NoticeRecordResult>;
  /** A publisher's cumulative net revenue recognized by billing notices, USD micros (0 when none). */
  revenueTotal(publisherId: string): Promise<Micros>;
}

/** Counters per publisher per UTC minute. */
export interface CounterStore {
  /**
   * Adds the deltas (upsert-add per publisher and minute) in one transaction, with the partner
   * counters and latency histogram buckets of `series` (upsert-add per key) in that same
   * transaction, so every node's flush sums into the same rows.
   */
  add(deltas: CounterDelta[], series?: SeriesDeltas): Promise<void>;
  /** Sums per publisher over minutes in [fromMs, toMs). Publishers without rows are absent. */
  totals(fromMs: number, toMs: number, publisherId?: string): Promise<CounterTotals[]>;
}

/**
 * Reads of the stored series (DESIGN section 7, `GET /v1/stats/series`) and their roll-up. A
 * series groups the minute rows in `[fromMs, toMs)` by `stepMs` buckets counted from the epoch
 * (a minute, an hour or a UTC day: all divide the epoch evenly, so buckets are UTC-aligned). Only
 * buckets with rows are answered, ascending; the caller fills the gaps.
 */
export interface SeriesStore {
  /** Publisher counters summed per bucket, of one publisher or of all. */
  counterSeries(range: SeriesRange, publisherId?: string): Promise<CounterBucket[]>;
  /** One demand partner's counters summed per bucket. */
  partnerSeries(range: SeriesRange, partnerId: string): Promise<PartnerCounterBucket[]>;
  /** Latency bucket counts per series bucket, ascending by bucket then `leMs`, of one subject or of all. */
  latencySeries(range: SeriesRange, kind: LatencyKind, subjectId?: string): Promise<LatencyBucketCount[]>;
  /**
   * Rolls up minute rows of `counters`, `partner_counters` and `latency_histograms` that start
   * before `beforeMs` (an hour boundary) into the row of their hour's first minute, in one
   * transaction; sums are unchanged. Answers how many minute rows were folded away. Run it on one
   * node at a time (the caller holds a leader lock): two concurrent roll-ups could count twice.
   */
  rollUpMinutes(beforeMs: number): Promise<number>;
}

/** A series read: minute rows in `[fromMs, toMs)`, grouped by `stepMs` (60 000, 3 600 000 or 86 400 000). */
export interface SeriesRange {
  fromMs: number;
  toMs: number;
  stepMs: number;
}

/** Small key/value settings (the generated secret key, scheduler marks). */
export interface SettingsStore {
  get(key: string): Promise<string | undefined>;
  /** Stores `value` unless `key` has one; answers the value stored (the existing one if any). */
  setIfAbsent(key: string, value: string): Promise<string>;
  set(key: string, value: string): Promise<void>;
}

/**
 * A webhook endpoint (DESIGN sections 6-7). The signing secret and the API key sent as
 * `Authorization: Bearer` are stored encrypted (`webhooks/secret-box.ts`, AES-256-GCM under a
 * key derived from the exchange secret key); these fields hold the ciphertexts.
 */
export interface WebhookEndpointRecord {
  id: string;
  /** Base URL; deliveries go to `<url>/webhooks/<kind with '.' -> '-'>`. */
  url: string;
  /** Subscribed event kinds (`auction.complete`, ...); empty = every kind. */
  events: string[];
  /** Encrypted API key sent as `Authorization: Bearer <key>`. */
  apiKeyCiphertext: string;
  /** Scope: only this publisher's events, or null for all. */
  publisherId: string | null;
  enabled: boolean;
  description: string | null;
  /** Encrypted current secret (`whsec_...`). */
  secretCiphertext: string;
  /** Encrypted previous secret, still signing until `previousSecretExpiresAtMs` (rotation, 24 h). */
  previousSecretCiphertext: string | null;
  previousSecretExpiresAtMs: number | null;
  /** Why the exchange disabled it (`gone` on 410, `failing` after 5 days), null when enabled or disabled by hand. */
  disabledReason: string | null;
  lastSuccessAtMs: number | null;
  /** Start of the current run of failures (null after a success). */
  failingSinceMs: number | null;
  createdAtMs: number;
  updatedAtMs: number;
}

/** Outbox row status: due or waiting for a retry, delivered (2xx), or failed (attempts exhausted, endpoint gone). */
export type OutboxStatus = 'pending' | 'delivered' | 'failed';

/**
 * One event for one endpoint (DESIGN section 6): the body bytes serialized once and stored,
 * signed and sent as they are. `id` is the Standard Webhooks `webhook-id` (`msg_...`), the same
 * on every attempt.
 */
export interface OutboxMessage {
  id: string;
  endpointId: string;
  /** Event kind, e.g. `auction.complete`. */
  eventKind: string;
  /** The JSON body, exactly as sent. */
  body: string;
  /** Publisher the event is about (null for exchange-wide events). */
  publisherId: string | null;
  status: OutboxStatus;
  /** Attempts made so far. */
  attempts: number;
  /** When the next attempt is due (ms since epoch); meaningless once delivered or failed. */
  nextAttemptAtMs: number;
  createdAtMs: number;
  /** Node holding the claim, or null. */
  claimedBy: string | null;
  /** When the claim lapses (PostgreSQL lease); null when unclaimed. */
  claimExpiresAtMs: number | null;
  deliveredAtMs: number | null;
  lastError: string | null;
}

/** One delivery attempt, recorded whatever its outcome. */
export interface DeliveryAttemptRecord {
  messageId: string;
  /** 1-based attempt number. */
  attempt: number;
  startedAtMs: number;
  durationMs: number;
  /** HTTP status, or null when no answer came (connect error, timeout). */
  statusCode: number | null;
  error: string | null;
  /** First bytes of the answer body (at most 1 KiB). */
  responseExcerpt: string | null;
  /** When the next attempt is scheduled, or null when none will follow. */
  nextAttemptAtMs: number | null;
}

/** What an attempt changes on its message; the claim is always cleared. */
export interface OutboxAttemptUpdate {
  status: OutboxStatus;
  attempts: number;
  nextAttemptAtMs: number;
  deliveredAtMs: number | null;
  lastError: string | null;
}

/** Webhook endpoints. */
export interface WebhookEndpointStore {
  create(endpoint: WebhookEndpointRecord): Promise<void>;
  get(id: string): Promise<WebhookEndpointRecord | undefined>;
  list(): Promise<WebhookEndpointRecord[]>;
  update(id: string, patch: Partial<Omit<WebhookEndpointRecord, 'id' | 'createdAtMs'>>): Promise<WebhookEndpointRecord | undefined>;
  /** Deletes the endpoint and its messages and attempts; false when there was none. */
  delete(id: string): Promise<boolean>;
}

/** The transactional outbox of webhook messages (DESIGN section 6). */
export interface OutboxStore {
  /** Inserts the messages in one transaction (an id already present is left unchanged). */
  enqueue(messages: OutboxMessage[]): Promise<void>;
  /**
   * Claims up to `limit` pending messages due at `nowMs` (`nextAttemptAtMs <= nowMs`) that are
   * unclaimed or whose claim expired, oldest due first, skipping `excludeEndpointIds`; sets
   * `claimedBy = owner`, `claimExpiresAtMs = nowMs + leaseMs`. Atomic: two callers never claim the
   * same message (PostgreSQL: `FOR UPDATE SKIP LOCKED`).
   */
  claimDue(options: { owner: string; nowMs: number; limit: number; leaseMs: number; excludeEndpointIds?: string[] }): Promise<OutboxMessage[]>;
  /** Records `attempt` and applies `update` to its message, clearing the claim, in one transaction. */
  recordAttempt(attempt: DeliveryAttemptRecord, update: OutboxAttemptUpdate): Promise<void>;
  /** `recordAttempt` for many attempts in ONE transaction (the dispatcher's group commit). */
  recordAttempts(items: ReadonlyArray<{ attempt: DeliveryAttemptRecord; update: OutboxAttemptUpdate }>): Promise<void>;
  /** Clears claims: `owner`'s only, or every claim when `owner` is undefined (SQLite at start). Answers how many. */
  releaseClaims(owner?: string): Promise<number>;
  /** Clears the claim of these messages (claimed but not attempted), if `owner` holds it. */
  releaseMessages(owner: string, messageIds: string[]): Promise<void>;
  get(id: string): Promise<OutboxMessage | undefined>;
  /** Messages of an endpoint, newest first, optionally by status, at most `limit`. */
  listForEndpoint(endpointId: string, options: { status?: OutboxStatus; limit: number }): Promise<OutboxMessage[]>;
  /** Attempts of a message, in order. */
  attemptsFor(messageId: string): Promise<DeliveryAttemptRecord[]>;
  /** Makes a message pending and due at `nowMs` again (replay); false when there is no such message of the endpoint. */
  replay(endpointId: string, messageId: string, nowMs: number): Promise<boolean>;
  /** Makes every `failed` message of the endpoint created at or after `sinceMs` pending and due at `nowMs`; answers how many. */
  recover(endpointId: string, sinceMs: number, nowMs: number): Promise<number>;
  /** Pending messages and the oldest due time among them (null when none), for metrics. */
  depth(): Promise<{ pending: number; oldestDueAtMs: number | null }>;
  /**
   * Messages per endpoint and status, for the console (one grouped scan of the outbox). Endpoints
   * without messages are absent; ordered by endpoint id.
   */
  statusCounts(): Promise<Array<{ endpointId: string; pending: number; delivered: number; failed: number }>>;
}

/** What an alert rule measures (DESIGN section 7): net revenue, or imps that got a bid / imps. */
export type AlertMetric = 'revenue' | 'fill_rate';

/** How an alert rule compares: `above` holds when value > threshold, `below` when value < threshold. */
export type AlertComparator = 'above' | 'below';

/**
 * An alert rule (DESIGN section 7). `threshold` is in the metric's unit: USD micros (an amount,
 * integer) for `revenue`, a decimal in [0, 1] for `fill_rate`.
 */
export interface AlertRuleRecord {
  id: string;
  metric: AlertMetric;
  comparator: AlertComparator;
  /** Revenue: USD micros (amount, not CPM); fill rate: decimal in [0, 1]. */
  threshold: number;
  /** Sliding window: the last `windowMinutes` UTC minute buckets, the current one included. */
  windowMinutes: number;
  /** Scope: one publisher, or null for the whole exchange. */
  publisherId: string | null;
  createdAtMs: number;
}

/** State of an alert rule: `idle` until it first holds, then `triggered` / `resolved` alternately. */
export type AlertState = 'idle' | 'triggered' | 'resolved';

/** The stored state of one rule; a rule without a row is `idle`. */
export interface AlertStateRecord {
  ruleId: string;
  state: AlertState;
  /** Id of the current episode (`alert_...`), shared by its `triggered` and `resolved` events; null while idle. */
  alertId: string | null;
  changedAtMs: number;
}

/** A revenue milestone a publisher reached (DESIGN section 6, `revenue.milestone`), once ever. */
export interface MilestoneRecord {
  publisherId: string;
  /** The milestone, USD micros (amount). */
  milestoneMicros: number;
  reachedAtMs: number;
}

/** A `report.daily` sent by the scheduler for one publisher and UTC day, once. */
export interface ReportDeliveryRecord {
  /** UTC day, `YYYY-MM-DD`. */
  date: string;
  publisherId: string;
  deliveredAtMs: number;
}

/**
 * Reporting state (DESIGN sections 6-7): alert rules and their states, milestones reached and
 * daily reports delivered. Every method that records a state change takes the outbox messages of
 * the events it causes and writes both in ONE transaction, and writes the messages only when the
 * change took effect, so a retry or a second node never enqueues an event twice.
 */
export interface ReportingStore {
  createAlertRule(rule: AlertRuleRecord): Promise<void>;
  getAlertRule(id: string): Promise<AlertRuleRecord | undefined>;
  /** Every rule, oldest first. */
  listAlertRules(): Promise<AlertRuleRecord[]>;
  /** Deletes the rule and its state; false when there was none. */
  deleteAlertRule(id: string): Promise<boolean>;
  /** States of every rule that has one (rules without a row are `idle`). */
  listAlertStates(): Promise<AlertStateRecord[]>;
  /**
   * Moves `next.ruleId` from state `expected` to `next` and inserts `messages`, in one transaction,
   * only when the rule still exists and its stored state is `expected` (no row counts as `idle`).
   * Answers whether it did; false means another node (or a delete) got there first.
   */
  transitionAlert(expected: AlertState, next: AlertStateRecord, messages: OutboxMessage[]): Promise<boolean>;
  /** Milestones reached, of one publisher or of all. */
  listMilestones(publisherId?: string): Promise<MilestoneRecord[]>;
  /** Publisher ids whose report for `date` was delivered by the scheduler. */
  listReportDeliveries(date: string): Promise<string[]>;
  /**
   * Records that the report of (date, publisher) went out and inserts its messages, in one
   * transaction, unless it was already recorded (then nothing is written). Answers whether this
   * call recorded it.
   */
  recordReportDelivery(delivery: ReportDeliveryRecord, messages: OutboxMessage[]): Promise<boolean>;
}

/** The whole store. `migrate()` runs numbered migrations; `ping()` rejects when unreachable. */
export interface Store {
  readonly kind: 'sqlite' | 'postgres';
  migrate(): Promise<void>;
  ping(): Promise<void>;
  close(): Promise<void>;
  publishers: PublisherStore;
  demandPartners: DemandPartnerStore;
  bids: BidStore;
  notices: NoticeStore;
  counters: CounterStore;
  /** Per-minute series (publisher and partner counters, latency histograms) and their roll-up. */
  series: SeriesStore;
  settings: SettingsStore;
  webhookEndpoints: WebhookEndpointStore;
  outbox: OutboxStore;
  /** Alert rules and states, milestones reached, daily reports sent. */
  reporting: ReportingStore;
  /**
   * Writes bid records and outbox messages in ONE transaction (the auction's state change and
   * the events it causes, DESIGN section 6). Idempotent per bid id and message id. `attempts`
   * (optional) are delivery attempts recorded in the same transaction, each exactly as
   * `OutboxStore.recordAttempt` does: the bid path's group commit carries the dispatcher's
   * records too, so a busy node commits once per batch instead of twice.
   */
  writeAuction(batch: { bids: BidRecord[]; messages: OutboxMessage[]; attempts?: ReadonlyArray<{ attempt: DeliveryAttemptRecord; update: OutboxAttemptUpdate }> }): Promise<void>;
}
