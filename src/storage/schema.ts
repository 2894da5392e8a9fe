/**
 * The database schema as kysely sees it: one interface per table, snake_case columns, shared by
 * every backend's query modules (`storage/queries/`). The ports (`storage/ports.ts`) speak
 * camelCase records; the query modules convert.
 *
 * Portability rules the migrations of every backend follow, so the same query code runs on
 * SQLite and PostgreSQL:
 * - Booleans are integer columns holding 0 or 1 (SQLite has no boolean type; PostgreSQL uses
 *   `smallint`). Read them with `fromDbBool`, which also accepts a native boolean.
 * - Times are integer ms since the Unix epoch, money integer micros (`bigint` on PostgreSQL,
 *   which `pg` returns as a string: query modules read numbers through `Number()`).
 * - Lists are JSON text (`publishers.domains`, `webhook_endpoints.events`).
 */

/**
 * An integer column. Typed as number; a PostgreSQL `bigint` arrives as a string at run time, so
 * query modules read these columns through `fromDbInt`.
 */
export type DbInt = number;

/** `publishers`: supply partners (DESIGN section 7). */
export interface PublishersTable {
  id: string;
  name: string;
  domain: string | null;
  /** JSON array of host names. */
  domains: string;
  /** 0 or 1. */
  browser_access: number;
  /** 1 first price, 2 second price plus (DESIGN section 4); default 1. */
  auction_type: number;
  /** Reserve price, CPM in USD micros; default 0. */
  reserve_price_micros: DbInt;
  /** sellers.json `seller_type`: PUBLISHER, INTERMEDIARY or BOTH (migration 005; default PUBLISHER). */
  seller_type: string;
  /** 0 or 1; sellers.json `is_confidential` (migration 005; default 0). */
  is_confidential: number;
  created_at_ms: DbInt;
  updated_at_ms: DbInt;
}

/** `publisher_revenue`: cumulative net revenue per publisher (amount, USD micros), kept with the billing notices. */
export interface PublisherRevenueTable {
  publisher_id: string;
  revenue_net_micros: DbInt;
  updated_at_ms: DbInt;
}

/** `publisher_keys`: hashed API keys; deleting a publisher cascades to its keys. */
export interface PublisherKeysTable {
  id: string;
  publisher_id: string;
  /** Hex SHA-256 of the key; unique. */
  key_hash: string;
  prefix: string;
  created_at_ms: DbInt;
  expires_at_ms: DbInt | null;
}

/** `demand_partners`: DSPs (DESIGN sections 5 and 7). */
export interface DemandPartnersTable {
  id: string;
  name: string;
  endpoint: string;
  adapter: string;
  timeout_ms: DbInt;
  /** 0 or 1. */
  gzip: number;
  qps_limit: number | null;
  currency: string;
  /** 0 or 1. */
  enabled: number;
  /** '2.5' or '2.6' (migration 005; default '2.5'). */
  openrtb_version: string;
  /** IAB TCF Global Vendor List id, or null (migration 005). */
  gvl_vendor_id: number | null;
  /** Media types the partner takes, a JSON array of names (`["banner","video"]`); migration 006. */
  media_types: string;
  created_at_ms: DbInt;
  updated_at_ms: DbInt;
}

/** `bids`: bids the exchange returned (`BidRecord`), keyed by exchange bid id. */
export interface BidsTable {
  bid_id: string;
  auction_id: string;
  request_id: string;
  imp_id: string;
  publisher_id: string;
  partner_id: string;
  partner_request_id: string;
  partner_bid_id: string;
  seat: string;
  ad_id: string | null;
  partner_currency: string;
  /** CPM micros in `partner_currency`. */
  clearing_partner_micros: DbInt;
  mbr: number;
  partner_nurl: string | null;
  partner_burl: string | null;
  created_at_ms: DbInt;
}

/** `notices`: the win/billing ledger; primary key (bid_id, kind) gives idempotency. */
export interface NoticesTable {
  bid_id: string;
  kind: 'win' | 'billing';
  publisher_id: string;
  partner_id: string;
  auction_id: string;
  /** CPM USD micros. */
  net_usd_micros: DbInt;
  gross_usd_micros: DbInt;
  /** 0 or 1. */
  price_flagged: number;
  source: 'win' | 'billing' | 'impression';
  received_at_ms: DbInt;
}

/** `counters`: additive counts per publisher per UTC minute; primary key (publisher_id, minute_start_ms). */
export interface CountersTable {
  publisher_id: string;
  minute_start_ms: DbInt;
  requests: DbInt;
  imps: DbInt;
  imps_filled: DbInt;
  bids: DbInt;
  wins: DbInt;
  impressions: DbInt;
  /** Amount (not CPM) in USD micros. */
  revenue_gross_micros: DbInt;
  revenue_net_micros: DbInt;
}

/**
 * `partner_counters`: additive counts per demand partner per UTC minute (DESIGN section 7,
 * `/v1/stats/series?partner_id=`); primary key (partner_id, minute_start_ms). Rows older than the
 * minute retention are rolled up into the row of their hour's first minute.
 */
export interface PartnerCountersTable {
  partner_id: string;
  minute_start_ms: DbInt;
  /** Calls made (every outcome but skipped). */
  calls: DbInt;
  /** Bids the partner returned that the exchange accepted for its auctions. */
  bids: DbInt;
  timeouts: DbInt;
  errors: DbInt;
  /** Accepted win notices for this partner's bids. */
  wins: DbInt;
  /** Calls not made, or made without personal data, because of the privacy rules (DESIGN section 11). */
  privacy_blocked: DbInt;
}

/**
 * `latency_histograms`: fixed-bucket latency histograms per UTC minute, one row per non-empty
 * bucket; primary key (kind, subject_id, minute_start_ms, le_ms). `kind` `exchange` has the bid
 * request latency of a publisher (subject = publisher id), `partner` a demand partner's call
 * latency (subject = partner id). Rolled up to hours like `partner_counters`.
 */
export interface LatencyHistogramsTable {
  kind: 'exchange' | 'partner';
  subject_id: string;
  minute_start_ms: DbInt;
  /** Upper bound of the bucket, ms inclusive (`LATENCY_OPEN_LE_MS` for the open last bucket). */
  le_ms: DbInt;
  count: DbInt;
}

/** `settings`: small key/value pairs. */
export interface SettingsTable {
  key: string;
  value: string;
}

/** `webhook_endpoints`: receivers of events (`WebhookEndpointRecord`, DESIGN sections 6-7). */
export interface WebhookEndpointsTable {
  id: string;
  url: string;
  /** JSON array of event kinds; empty = every kind. */
  events: string;
  /** Ciphertexts (`webhooks/secret-box.ts`), never the plain key or secrets. */
  api_key_ciphertext: string;
  publisher_id: string | null;
  /** 0 or 1. */
  enabled: number;
  description: string | null;
  secret_ciphertext: string;
  previous_secret_ciphertext: string | null;
  previous_secret_expires_at_ms: DbInt | null;
  disabled_reason: string | null;
  last_success_at_ms: DbInt | null;
  failing_since_ms: DbInt | null;
  created_at_ms: DbInt;
  updated_at_ms: DbInt;
}

/**
 * `outbox_messages`: one event for one endpoint (`OutboxMessage`), written in the transaction of
 * the state change that caused it. Indexed on (status, next_attempt_at_ms) for claiming and on
 * (endpoint_id, created_at_ms) for per-endpoint listing.
 */
export interface OutboxMessagesTable {
  /** Standard Webhooks `webhook-id` (`msg_...`). */
  id: string;
  endpoint_id: string;
  event_kind: string;
  /** JSON body exactly as sent and signed. */
  body: string;
  publisher_id: string | null;
  status: 'pending' | 'delivered' | 'failed';
  attempts: DbInt;
  next_attempt_at_ms: DbInt;
  created_at_ms: DbInt;
  /** Claiming node, or null; set together with `claim_expires_at_ms`. */
  claimed_by: string | null;
  claim_expires_at_ms: DbInt | null;
  delivered_at_ms: DbInt | null;
  last_error: string | null;
}

/** `delivery_attempts`: every attempt of a message; primary key (message_id, attempt). */
export interface DeliveryAttemptsTable {
  message_id: string;
  /** 1-based. */
  attempt: DbInt;
  started_at_ms: DbInt;
  duration_ms: DbInt;
  /** HTTP status, null when no answer came. */
  status_code: number | null;
  error: string | null;
  /** At most 1 KiB of the answer body. */
  response_excerpt: string | null;
  next_attempt_at_ms: DbInt | null;
}

/** `alert_rules`: alert rules (`AlertRuleRecord`, DESIGN section 7). */
export interface AlertRulesTable {
  id: string;
  metric: 'revenue' | 'fill_rate';
  comparator: 'above' | 'below';
  /** Revenue rules: USD micros (an integer held exactly in a double); fill-rate rules: decimal in [0, 1]. */
  threshold: number;
  window_minutes: DbInt;
  /** Scope, or null for the whole exchange. */
  publisher_id: string | null;
  created_at_ms: DbInt;
}

/** `alert_states`: one row per rule that ever left `idle`; primary key rule_id. */
export interface AlertStatesTable {
  rule_id: string;
  state: 'idle' | 'triggered' | 'resolved';
  alert_id: string | null;
  changed_at_ms: DbInt;
}

/** `revenue_milestones`: milestones reached; primary key (publisher_id, milestone_micros). */
export interface RevenueMilestonesTable {
  publisher_id: string;
  milestone_micros: DbInt;
  reached_at_ms: DbInt;
}

/** `report_deliveries`: daily reports the scheduler sent; primary key (date, publisher_id). */
export interface ReportDeliveriesTable {
  /** `YYYY-MM-DD` (UTC). */
  date: string;
  publisher_id: string;
  delivered_at_ms: DbInt;
}

/** Every table the query modules use, for `Kysely<Database>`. */
export interface Database {
  publishers: PublishersTable;
  publisher_keys: PublisherKeysTable;
  demand_partners: DemandPartnersTable;
  bids: BidsTable;
  notices: NoticesTable;
  counters: CountersTable;
  partner_counters: PartnerCountersTable;
  latency_histograms: LatencyHistogramsTable;
  publisher_revenue: PublisherRevenueTable;
  settings: SettingsTable;
  webhook_endpoints: WebhookEndpointsTable;
  outbox_messages: OutboxMessagesTable;
  delivery_attempts: DeliveryAttemptsTable;
  alert_rules: AlertRulesTable;
  alert_states: AlertStatesTable;
  revenue_milestones: RevenueMilestonesTable;
  report_deliveries: ReportDeliveriesTable;
}

/** A boolean as stored (0/1). */
export function toDbBool(value: boolean): number {
  return value ? 1 : 0;
}

/** A stored boolean (0/1, or a native boolean from a backend that has one) as a boolean. */
export function fromDbBool(value: unknown): boolean {
  return value === true || value === 1 || value === '1' || value === 1n;
}

/** A stored integer (number, or string/bigint from PostgreSQL) as a number. */
export function fromDbInt(value: unknown): number {
  return typeof value === 'number' ? value : Number(value);
}

/** Like `fromDbInt`, keeping null. */
export function fromDbIntOrNull(value: unknown): number | null {
  return value === null || value === undefined ? null : fromDbInt(value);
}
