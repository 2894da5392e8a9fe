/**
 * Event kinds and their payloads (DESIGN section 6). Payloads are the JSON bodies sent to
 * webhook endpoints: snake_case, `timestamp` ISO 8601 UTC with `Z`. `winning_bid`,
 * `clearing_price` and `price` are CPM decimals in the payload's `currency`; `revenue_*`,
 * `revenue_total`, `milestone`, thresholds and values are decimal amounts (not CPM, not micros)
 * in the exchange currency (USD).
 */

/** Every event kind the exchange emits. */
export const EVENT_KINDS = ['auction.complete', 'report.daily', 'alert.threshold', 'billing.notice', 'revenue.milestone', 'webhook.test'] as const;

/** One event kind. */
export type EventKind = (typeof EVENT_KINDS)[number];

/** `auction.complete`: an imp's auction ended with a winning bid. */
export interface AuctionCompletePayload {
  event: 'auction.complete';
  auction_id: string;
  /** The winner's bid, CPM in `currency`. */
  winning_bid: number;
  /** The winner's bid currency. */
  currency: string;
  timestamp: string;
  request_id: string;
  imp_id: string;
  /** Exchange bid id. */
  bid_id: string;
  publisher_id: string;
  /** Demand partner id (the response's seat). */
  seat: string;
  /** Clearing (gross) price, CPM in `currency`. */
  clearing_price: number;
}

/** `billing.notice`: an impression became billable (first of burl or pixel). */
export interface BillingNoticePayload {
  event: 'billing.notice';
  auction_id: string;
  bid_id: string;
  publisher_id: string;
  seat: string;
  /** Net price, CPM in `currency` (the response currency). */
  price: number;
  currency: string;
  timestamp: string;
}

/** `report.daily`: a publisher's day after it closed (UTC). */
export interface ReportDailyPayload {
  event: 'report.daily';
  date: string;
  publisher_id: string;
  currency: string;
  requests: number;
  imps: number;
  bids: number;
  wins: number;
  impressions: number;
  fill_rate: number;
  win_rate: number;
  revenue_gross: number;
  revenue_net: number;
  ecpm: number;
  timestamp: string;
}

/** `alert.threshold`: a rule started (`triggered`) or stopped (`resolved`) holding. */
export interface AlertThresholdPayload {
  event: 'alert.threshold';
  alert_id: string;
  rule_id: string;
  metric: 'revenue' | 'fill_rate';
  comparator: 'above' | 'below';
  threshold: number;
  value: number;
  window_minutes: number;
  publisher_id: string | null;
  state: 'triggered' | 'resolved';
  timestamp: string;
}

/** `revenue.milestone`: a publisher's cumulative net revenue passed a milestone. */
export interface RevenueMilestonePayload {
  event: 'revenue.milestone';
  publisher_id: string;
  milestone: number;
  revenue_total: number;
  currency: string;
  timestamp: string;
}

/** `webhook.test`: sent on request from the admin API. */
export interface WebhookTestPayload {
  event: 'webhook.test';
  endpoint_id: string;
  timestamp: string;
}

/** Any payload. */
export type EventPayload =
  | AuctionCompletePayload
  | BillingNoticePayload
  | ReportDailyPayload
  | AlertThresholdPayload
  | RevenueMilestonePayload
  | WebhookTestPayload;

/** ISO 8601 UTC with `Z` and milliseconds, from ms since the epoch. */
export function isoTimestamp(ms: number): string {
  return new Date(ms).toISOString();
}
