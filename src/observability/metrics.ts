/**
 * Prometheus metrics (prom-client), named after Prebid Server's (`adapter_requests`,
 * `adapter_request_time_seconds`, `adapter_bids`, `adapter_errors`, ...) with an `adx_` prefix.
 * One registry per app instance, so tests building several apps never collide.
 */
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

/** Latency buckets in seconds, tuned for a 100 ms bid deadline. */
const LATENCY_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1, 0.15, 0.25, 0.5, 1, 2.5];

/** The exchange's metrics; created by `createMetrics()`, passed in deps. */
export interface Metrics {
  registry: Registry;
  /** Requests by endpoint type (`bid`, `notice_win`, ...) and outcome (`ok`, `nobid`, `badinput`, `unauthorized`, `shed`, `error`, ...). */
  requests: Counter<'type' | 'status'>;
  /** Request duration by endpoint type, seconds. */
  requestTime: Histogram<'type'>;
  /** Bid requests shed under overload (answered 204 at once; not in requests/imps). */
  shed: Counter<'reason'>;
  /** Imps received in valid bid requests. */
  imps: Counter<never>;
  /** Calls to a partner, `hasbids` = `true`/`false`. */
  adapterRequests: Counter<'adapter' | 'hasbids'>;
  /** Partner call duration, seconds. */
  adapterRequestTime: Histogram<'adapter'>;
  /** Bids received from a partner (before auction filtering). */
  adapterBids: Counter<'adapter'>;
  /** Partner failures: `timeout`, `bad_response`, `http_status`, `too_large`, `network`, `qps_limited`, `bad_input`. */
  adapterErrors: Counter<'adapter' | 'adapter_error'>;
  /** Partners not called for privacy (DESIGN section 11), by partner id and `PrivacyBlockReason`. */
  privacyBlocked: Counter<'partner' | 'reason'>;
  /** Bids dropped or lost in the auction by OpenRTB 2.5 loss reason (5.25). */
  adapterBidLosses: Counter<'adapter' | 'loss_reason'>;
  /** Winning bid prices (CPM, USD), per partner. */
  adapterPrices: Histogram<'adapter'>;
  /** Notices by kind (`win`, `billing`, `impression`) and outcome (`first`, `repeat`, `forged`, `expired`, `flagged`). */
  notices: Counter<'kind' | 'outcome'>;
  /** Calls to partners' nurl/burl/lurl by kind and outcome (`ok`, `failed`). */
  partnerNotices: Counter<'kind' | 'outcome'>;
  /** Bid answers (any status) finished after the request's tmax, counted from arrival (the exchange's own clock). */
  lateAnswers: Counter<never>;
  /** 1, labelled with this process's `serve --workers` index (`-` when not clustered) and pid: tells which worker answered a scrape. */
  workerInfo: Gauge<'worker' | 'pid'>;
  /** Requests currently being handled on the bid endpoint. */
  inFlight: Gauge<never>;
}

/**
 * Creates a fresh registry with every exchange metric plus, unless `defaultMetrics` is false
 * (a throwaway registry, e.g. warm-up's), Node's default process metrics (which start an
 * event-loop monitor).
 */
export function createMetrics(options: { defaultMetrics?: boolean } = {}): Metrics {
  const registry = new Registry();
  if (options.defaultMetrics !== false) collectDefaultMetrics({ register: registry, prefix: 'adx_' });
  const registers = [registry];
  return {
    registry,
    requests: new Counter({ name: 'adx_requests_total', help: 'Requests by endpoint type and outcome', labelNames: ['type', 'status'], registers }),
    requestTime: new Histogram({ name: 'adx_request_time_seconds', help: 'Request duration by endpoint type', labelNames: ['type'], buckets: LATENCY_BUCKETS, registers }),
    shed: new Counter({ name: 'adx_requests_shed_total', help: 'Bid requests shed under overload (answered 204 at once)', labelNames: ['reason'], registers }),
    workerInfo: new Gauge({ name: 'adx_worker_info', help: 'This exchange process: serve --workers index and pid', labelNames: ['worker', 'pid'], registers }),
    lateAnswers: new Counter({ name: 'adx_bid_answers_late_total', help: 'Bid answers sent after the request tmax, measured from arrival', registers }),
    imps: new Counter({ name: 'adx_imps_total', help: 'Imps in valid bid requests', registers }),
    adapterRequests: new Counter({ name: 'adx_adapter_requests_total', help: 'Calls to demand partners', labelNames: ['adapter', 'hasbids'], registers }),
    adapterRequestTime: new Histogram({ name: 'adx_adapter_request_time_seconds', help: 'Demand partner call duration', labelNames: ['adapter'], buckets: LATENCY_BUCKETS, registers }),
    adapterBids: new Counter({ name: 'adx_adapter_bids_total', help: 'Bids received from demand partners', labelNames: ['adapter'], registers }),
    adapterErrors: new Counter({ name: 'adx_adapter_errors_total', help: 'Demand partner failures by kind', labelNames: ['adapter', 'adapter_error'], registers }),
    privacyBlocked: new Counter({ name: 'adx_privacy_blocked_total', help: 'Demand partners not called for privacy, by reason', labelNames: ['partner', 'reason'], registers }),
    adapterBidLosses: new Counter({ name: 'adx_adapter_bid_losses_total', help: 'Bids dropped or lost, by OpenRTB 2.5 loss reason', labelNames: ['adapter', 'loss_reason'], registers }),
    adapterPrices: new Histogram({ name: 'adx_adapter_prices', help: 'Winning bid CPM in USD', labelNames: ['adapter'], buckets: [0.1, 0.25, 0.5, 1, 2, 3, 5, 10, 20, 50], registers }),
    notices: new Counter({ name: 'adx_notices_total', help: 'Win, billing and impression notices by outcome', labelNames: ['kind', 'outcome'], registers }),
    partnerNotices: new Counter({ name: 'adx_partner_notices_total', help: 'Calls to partners nurl/burl/lurl by outcome', labelNames: ['kind', 'outcome'], registers }),
    inFlight: new Gauge({ name: 'adx_bid_requests_in_flight', help: 'Bid requests being handled', registers }),
  };
}
