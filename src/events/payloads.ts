/**
 * Pure builders of the event payloads (DESIGN section 6). Each answers the exact JSON body of its
 * kind, keys in the order of the DESIGN table (`event` first, then the required fields, then the
 * extras), so `JSON.stringify` of a payload is stable and docs/webhooks.md can show it verbatim.
 *
 * Inputs carry money as integer micros (domain/money.ts) and time as ms since the epoch; the
 * builders turn them into decimals and ISO 8601 UTC timestamps here, at the JSON edge. CPM fields
 * (`winning_bid`, `clearing_price`, `price`, `ecpm`) stay CPM; amounts (`revenue_*`,
 * `revenue_total`, `milestone`, revenue thresholds) are plain amounts, not CPM. Rates
 * (`fill_rate`, `win_rate`, fill-rate thresholds) are decimals in [0, 1] passed through as given.
 */
import { fromMicros, type Micros } from '../domain/money.js';
import {
  isoTimestamp,
  type AlertThresholdPayload,
  type AuctionCompletePayload,
  type BillingNoticePayload,
  type ReportDailyPayload,
  type RevenueMilestonePayload,
  type WebhookTestPayload,
} from './types.js';

/** The exchange currency (DESIGN: fixed USD); the currency of every amount in reports and alerts. */
export const EXCHANGE_CURRENCY = 'USD';

/** Inputs of {@link auctionCompletePayload}. Prices are CPM micros in `currency`. */
export interface AuctionCompleteInput {
  auctionId: string;
  /** The supply partner's request id (`BidRequest.id`). */
  requestId: string;
  impId: string;
  /** Exchange bid id. */
  bidId: string;
  publisherId: string;
  /** The response's seat (demand partner id). */
  seat: string;
  /** The winner's bid, CPM micros in `currency`. */
  bidMicros: Micros;
  /** The clearing (gross) price, CPM micros in `currency`. */
  clearingMicros: Micros;
  /** The winner's bid currency (ISO 4217). */
  currency: string;
  /** When the auction ended, ms since the epoch. */
  nowMs: number;
}

/**
 * `auction.complete`: an imp's auction ended with a winning bid (DESIGN section 6).
 * `winning_bid` and `clearing_price` are CPM decimals in `currency`.
 */
export function auctionCompletePayload(input: AuctionCompleteInput): AuctionCompletePayload {
  return {
    event: 'auction.complete',
    auction_id: input.auctionId,
    winning_bid: fromMicros(input.bidMicros),
    currency: input.currency,
    timestamp: isoTimestamp(input.nowMs),
    request_id: input.requestId,
    imp_id: input.impId,
    bid_id: input.bidId,
    publisher_id: input.publisherId,
    seat: input.seat,
    clearing_price: fromMicros(input.clearingMicros),
  };
}

/** Inputs of {@link billingNoticePayload}. */
export interface BillingNoticeInput {
  auctionId: string;
  /** Exchange bid id. */
  bidId: string;
  publisherId: string;
  seat: string;
  /** Net (publisher) price, CPM micros in `currency` (the response currency). */
  priceMicros: Micros;
  currency: string;
  /** When the impression became billable, ms since the epoch. */
  nowMs: number;
}

/** `billing.notice`: an impression became billable, first of burl or pixel (DESIGN section 6). */
export function billingNoticePayload(input: BillingNoticeInput): BillingNoticePayload {
  return {
    event: 'billing.notice',
    auction_id: input.auctionId,
    bid_id: input.bidId,
    publisher_id: input.publisherId,
    seat: input.seat,
    price: fromMicros(input.priceMicros),
    currency: input.currency,
    timestamp: isoTimestamp(input.nowMs),
  };
}

/** `webhook.test`: sent on request from the admin API (`POST /v1/webhook-endpoints/{id}/test`). */
export function webhookTestPayload(endpointId: string, nowMs: number): WebhookTestPayload {
  return { event: 'webhook.test', endpoint_id: endpointId, timestamp: isoTimestamp(nowMs) };
}

/** Inputs of {@link reportDailyPayload}: one publisher's closed UTC day (DESIGN section 3 counts). */
export interface ReportDailyInput {
  /** The UTC day, `YYYY-MM-DD`. */
  date: string;
  publisherId: string;
  requests: number;
  imps: number;
  bids: number;
  wins: number;
  impressions: number;
  /** Imps that got a bid / imps, decimal (0 when there were no imps). */
  fillRate: number;
  /** Wins / bids, decimal (0 when there were no bids). */
  winRate: number;
  /** Revenue amounts in USD micros (amounts, not CPM). */
  revenueGrossMicros: Micros;
  revenueNetMicros: Micros;
  /** Net revenue x 1000 / impressions, USD micros of CPM (0 when there were no impressions). */
  ecpmMicros: Micros;
  /** When the report was made, ms since the epoch. */
  nowMs: number;
}

/**
 * `report.daily`: a publisher's day after it closed (DESIGN section 6). `currency` is the exchange
 * currency; `revenue_*` are decimal amounts, `ecpm` a CPM decimal, rates as given.
 */
export function reportDailyPayload(input: ReportDailyInput): ReportDailyPayload {
  return {
    event: 'report.daily',
    date: input.date,
    publisher_id: input.publisherId,
    currency: EXCHANGE_CURRENCY,
    requests: input.requests,
    imps: input.imps,
    bids: input.bids,
    wins: input.wins,
    impressions: input.impressions,
    fill_rate: input.fillRate,
    win_rate: input.winRate,
    revenue_gross: fromMicros(input.revenueGrossMicros),
    revenue_net: fromMicros(input.revenueNetMicros),
    ecpm: fromMicros(input.ecpmMicros),
    timestamp: isoTimestamp(input.nowMs),
  };
}

/**
 * The measured quantity of an alert: revenue amounts come as USD micros (and leave as decimal
 * amounts), fill rates as decimals in [0, 1] (passed through).
 */
export type AlertMeasure =
  | { metric: 'revenue'; thresholdMicros: Micros; valueMicros: Micros }
  | { metric: 'fill_rate'; threshold: number; value: number };

/** Inputs of {@link alertThresholdPayload}. */
export type AlertThresholdInput = AlertMeasure & {
  alertId: string;
  ruleId: string;
  comparator: 'above' | 'below';
  windowMinutes: number;
  /** The rule's scope, or null for the whole exchange. */
  publisherId: string | null;
  state: 'triggered' | 'resolved';
  /** When the state changed, ms since the epoch. */
  nowMs: number;
};

/** `alert.threshold`: a rule started (`triggered`) or stopped (`resolved`) holding (DESIGN section 6). */
export function alertThresholdPayload(input: AlertThresholdInput): AlertThresholdPayload {
  const revenue = input.metric === 'revenue';
  return {
    event: 'alert.threshold',
    alert_id: input.alertId,
    rule_id: input.ruleId,
    metric: input.metric,
    comparator: input.comparator,
    threshold: revenue ? fromMicros(input.thresholdMicros) : input.threshold,
    value: revenue ? fromMicros(input.valueMicros) : input.value,
    window_minutes: input.windowMinutes,
    publisher_id: input.publisherId,
    state: input.state,
    timestamp: isoTimestamp(input.nowMs),
  };
}

/** Inputs of {@link revenueMilestonePayload}. Amounts are USD micros (not CPM). */
export interface RevenueMilestoneInput {
  publisherId: string;
  /** The milestone passed. */
  milestoneMicros: Micros;
  /** The publisher's cumulative net revenue when it passed. */
  revenueTotalMicros: Micros;
  nowMs: number;
}

/** `revenue.milestone`: a publisher's cumulative net revenue passed a milestone (DESIGN section 6). */
export function revenueMilestonePayload(input: RevenueMilestoneInput): RevenueMilestonePayload {
  return {
    event: 'revenue.milestone',
    publisher_id: input.publisherId,
    milestone: fromMicros(input.milestoneMicros),
    revenue_total: fromMicros(input.revenueTotalMicros),
    currency: EXCHANGE_CURRENCY,
    timestamp: isoTimestamp(input.nowMs),
  };
}
